"""Every real published spec in ../shared/specs-real generates a complete, importable,
lint- and type-clean SDK whose models round-trip the examples the spec carries.

Slow (whole SDKs of thousands of modules, ruff and mypy --strict on each); CI runs them.
The measured numbers are in docs/real-specs.md (``python -m tests.real.report``).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from jobgen.cli import main
from jobgen.model.build import load_and_build
from tests.helpers import REAL_SPECS, ROOT
from tests.real.conftest import RealSdks
from tests.real.realspecs import (
    RUFF,
    SPECS,
    UNSENDABLE_PARAMETERS,
    RealSpec,
    coverage,
    import_all,
    inventory,
    mypy_command,
    round_trip_examples,
    run,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
IDS = [s.id for s in SPECS]

# Examples in the published specs that do not match their own schemas: each is checked
# to fail for the reason given, so a spec fix or a generator change shows up here.
SPEC_EXAMPLE_ERRORS = {
    "assemblyai": {
        "assemblyai-openapi.yml#/components/schemas/LemurActionItemsParams/example": "transcript_ids[0]: expected a UUID",  # '64nygnr62k-…' is no UUID
        "assemblyai-openapi.yml#/components/schemas/LemurQuestionAnswerParams/example": "transcript_ids[0]: expected a UUID",
        "assemblyai-openapi.yml#/components/schemas/LemurTaskParams/example": "transcript_ids[0]: expected a UUID",
        "assemblyai-openapi.yml#/components/schemas/TranscriptOptionalParams/example": "$.speech_models: required field is missing",
        "assemblyai-openapi.yml#/components/schemas/TranscriptParams/example": "$.speech_models: required field is missing",
    },
    "openai": {
        # Output messages without their required id/status, output text without logprobs.
        "openai-openapi.yaml#/components/schemas/BetaCompactResource/example": "$.output[0].id: required field is missing",
        "openai-openapi.yaml#/components/schemas/CompactResource/example": "$.output[0].id: required field is missing",
        "openai-openapi.yaml#/components/schemas/BetaResponse/example": "$.output[0].content[0].logprobs: required field is missing",
        "openai-openapi.yaml#/components/schemas/Response/example": "$.output[0].content[0].logprobs: required field is missing",
        "openai-openapi.yaml#/components/schemas/ChatSessionResource/example": "$.workflow.state_variables: required field is missing",
        # Arrays and objects exemplified as strings ("[1212, 318]", "{...}").
        "openai-openapi.yaml#/components/schemas/CreateCompletionRequest/properties/prompt/oneOf/2/example": "expected an array, got a string",
        "openai-openapi.yaml#/components/schemas/CreateCompletionRequest/properties/prompt/oneOf/3/example": "expected an array, got a string",
        "openai-openapi.yaml#/components/schemas/CreateEmbeddingRequest/properties/input/oneOf/2/example": "expected an array, got a string",
        "openai-openapi.yaml#/components/schemas/CreateEmbeddingRequest/properties/input/oneOf/3/example": "expected an array, got a string",
        "openai-openapi.yaml#/components/schemas/CreateEvalCustomDataSourceConfig/properties/item_schema/example": "expected an object, got a string",
        "openai-openapi.yaml#/components/schemas/CreateEvalLogsDataSourceConfig/properties/metadata/example": "expected an object, got a string",
        "openai-openapi.yaml#/components/schemas/CreateEvalStoredCompletionsDataSourceConfig/properties/metadata/example": "expected an object, got a string",
        "openai-openapi.yaml#/components/schemas/EvalCustomDataSourceConfig/properties/schema/example": "expected an object, got a string",
    },
    "digitalocean": {
        # meta is required by the list schemas; the examples leave it out.
        "digitalocean/resources/byoip_prefixes/responses/byoip_prefix_list.yml#/byoip_prefix_list/content/application~1json/example": "$.meta: required field is missing",
        "digitalocean/resources/byoip_prefixes/responses/byoip_prefix_list_resources.yml#/byoip_prefix_list_resources/content/application~1json/example": "$.meta: required field is missing",
        # The example of `config` wraps the value in a second {"config": ...}.
        "digitalocean/resources/databases/models/logsink_verbose.yml#/allOf/1/properties/config/example": "matches none of the 4 variants",
        # Alert policy entities are strings; the example has a number.
        "digitalocean/resources/monitoring/responses/list_alert_policy_response.yml#/content/application~1json/schema/example": "$.policies[0].entities[0]: expected a string, got a number",
    },
}


def _relative(location: str) -> str:
    return location.split(str(REAL_SPECS) + "/", 1)[-1]


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_no_operation_or_schema_is_dropped(real_sdks: RealSdks, spec: RealSpec) -> None:
    sdk = real_sdks.get(spec).generated.sdk
    found = coverage(sdk, inventory(spec.spec))
    assert found.missing_operations == ()
    # A schema may be left out only where a warning names where it was reached.
    for key in found.missing_schemas:
        assert any("is ignored" in w for w in sdk.warnings), key
    assert len(found.missing_schemas) <= 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_module_imports(real_sdks: RealSdks, spec: RealSpec) -> None:
    built = real_sdks.get(spec)
    count, failures = import_all(built.package)
    assert failures == []
    # Every .py file but the package's own __init__ is a module walk_packages finds.
    assert count == sum(1 for _ in built.package_dir.rglob("*.py")) - 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_models_round_trip_the_spec_examples(real_sdks: RealSdks, spec: RealSpec) -> None:
    built = real_sdks.get(spec)
    result = round_trip_examples(built.generated.sdk, built.package)
    failures = {_relative(location): why for location, why in result.failures}
    expected = SPEC_EXAMPLE_ERRORS.get(spec.id, {})
    assert sorted(failures) == sorted(expected), failures
    for location, reason in expected.items():
        assert reason in failures[location], (location, failures[location])


def test_every_sdk_passes_ruff(real_sdks: RealSdks) -> None:
    roots = [str(real_sdks.get(spec).root) for spec in SPECS]
    proc = run([*RUFF, "--no-cache", *roots], Path.cwd())
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr


#: The largest SDKs, type-checked in the exhaustive run only (the committed SDKs and the
#: smaller real ones cover the templates in the fast suite).
EXHAUSTIVE_MYPY = frozenset({"openai", "stripe", "digitalocean"})


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(s, id=s.id, marks=[pytest.mark.exhaustive] if s.id in EXHAUSTIVE_MYPY else [])
        for s in SPECS
    ],
)
def test_every_sdk_passes_mypy_strict(
    real_sdks: RealSdks, spec: RealSpec, mypy_cache: Path
) -> None:
    """The whole package (OpenAI's 2,000 modules in the exhaustive run); the session's mypy cache holds
    the standard library and the SDKs' dependencies, so each run checks its own modules."""
    built = real_sdks.get(spec)
    proc = run([*mypy_command(mypy_cache), spec.package], built.root)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_swagger_2_is_read_as_openapi_3() -> None:
    """Key Vault's Swagger 2.0 spec: the body parameter is the request body, the
    ``common.json`` parameter and definitions are components, x-nullable is nullable."""
    sdk = load_and_build(REAL_SPECS / "azure-keyvault-7.4" / "backuprestore.json")
    ops = {op.operation_id: op for r in sdk.resources for op in r.operations}
    backup = ops["FullBackup"]
    assert backup.body is not None and not backup.body.required
    assert [(p.wire, p.location, p.required) for p in backup.parameters] == [
        ("api-version", "query", True)
    ]
    assert backup.response.status == "202"
    assert "common.json#/definitions/Error" not in str(sdk.located)
    assert sdk.base_url == ""  # a host template without a default: the client takes base_url


@pytest.mark.parametrize("path", UNSENDABLE_PARAMETERS)
def test_header_names_that_are_not_tokens_are_left_out_with_a_warning(
    path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["generate", str(REAL_SPECS / path), "-o", str(out), "--package", "baseline"])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err
    assert "/parameters/header-param/name: 'header param' is not a valid header name" in err
    assert "/parameters/cookie-param/name: 'cookie param' is not a valid cookie name" in err
    resources = "".join(p.read_text() for p in (out / "baseline" / "resources").glob("*.py"))
    assert '"header param"' not in resources and '"cookie param"' not in resources


# -- names ------------------------------------------------------------------------------


def _operation(real_sdks: RealSdks, spec_id: str, operation_id: str) -> tuple[str, Any]:
    spec = next(s for s in SPECS if s.id == spec_id)
    for resource in real_sdks.get(spec).generated.sdk.resources:
        for op in resource.operations:
            if op.operation_id == operation_id:
                return resource.attr, op
    raise AssertionError(operation_id)


def _model(real_sdks: RealSdks, spec_id: str, key_suffix: str) -> Any:
    spec = next(s for s in SPECS if s.id == spec_id)
    schemas = real_sdks.get(spec).generated.sdk.schemas
    return next(v for k, v in schemas.items() if k.endswith(key_suffix))


def test_openai_names(real_sdks: RealSdks) -> None:
    # A path key with a query string is its own operation; the query is sent as given.
    attr, beta = _operation(real_sdks, "openai", "beta_getResponse")
    attr2, plain = _operation(real_sdks, "openai", "getResponse")
    assert attr == attr2 == "responses"
    assert (beta.name, plain.name) == ("beta_get", "get")
    spec = next(s for s in SPECS if s.id == "openai")
    source = (real_sdks.get(spec).package_dir / "resources" / "responses.py").read_text()
    assert 'params={"beta": "true"}' in source or '"beta": "true"' in source
    # Untagged operations under /responses join the tagged resource.
    assert _operation(real_sdks, "openai", "Compactconversation")[0] == "responses"
    # Operation ids that are not identifiers.
    assert _operation(real_sdks, "openai", "admin-api-keys-list")[1].name == "admin_api_keys_list"
    # Schema keys with suffixes, dotted property names (wire name kept), `style`.
    assert _model(real_sdks, "openai", "/components/schemas/Error-2").name == "Error2"
    assert _model(real_sdks, "openai", "/components/schemas/Error").name == "Error"
    audit = _model(real_sdks, "openai", "/components/schemas/AuditLog")
    fields = {f.wire: f.name for f in audit.fields}
    assert fields["api_key.created"] == "api_key_created"
    image = _model(real_sdks, "openai", "/components/schemas/CreateImageRequest")
    assert "style" in {f.name for f in image.fields}
    # $recursiveRef: "#" inside CompoundFilter refers to CompoundFilter itself.
    # (imported here: whether another test imported it first depends on the test order)
    models = importlib.import_module(f"{spec.package}.models")
    compound = models.CompoundFilter.from_dict(
        {
            "type": "and",
            "filters": [
                {"type": "eq", "key": "a", "value": 1},
                {"type": "or", "filters": [{"type": "ne", "key": "b", "value": "x"}]},
            ],
        }
    )
    assert type(compound.filters[1]).__name__ == "CompoundFilter"
    assert type(compound.filters[0]).__name__ == "ComparisonFilter"


def test_digitalocean_names(real_sdks: RealSdks) -> None:
    # An operationId copied with its file name: `.yml` is no word of the method name.
    attr, op = _operation(real_sdks, "digitalocean", "monitoring_get_appRestartCountMetrics.yml")
    assert (attr, op.name) == ("monitoring", "get_app_restart_count_metrics")
    clicks = _model(
        real_sdks,
        "digitalocean",
        "1-clicks/responses/oneClicks_all.yml#/content/application~1json/schema",
    )
    assert {f.wire: f.name for f in clicks.fields}["1_clicks"] == "n1_clicks"
    spec = next(s for s in SPECS if s.id == "digitalocean")
    models = importlib.import_module(f"{real_sdks.get(spec).package.__name__}.models")
    decoded = models.OneClicksListResponse.from_dict({"1_clicks": []})
    assert decoded.n1_clicks == [] and decoded.to_dict() == {"1_clicks": []}


def test_stripe_component_names_win_over_hoisted_ones(real_sdks: RealSdks) -> None:
    assert (
        _model(real_sdks, "stripe", "/components/schemas/subscription_schedule").name
        == "SubscriptionSchedule"
    )
    dotted = _model(real_sdks, "stripe", "/components/schemas/reporting.report_run")
    assert dotted.name == "ReportingReportRun"


def test_generation_prints_its_warnings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = REAL_SPECS / "openai-openapi.yaml"
    assert main(["validate", str(spec)]) == 0
    captured = capsys.readouterr()
    assert " warnings)" in captured.out
    assert (
        "warning: " in captured.err
        and "#/paths/~1images~1edits/post/requestBody/content" in captured.err
    )
    assert sys.executable  # the CLI ran in-process


def test_the_readme_gives_the_petstore_sdks_size(real_sdks: RealSdks) -> None:
    """README.md's figures for a plain API's SDK (one without jobs ships the core runtime
    only) are those of the Swagger petstore's SDK as generated now."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(
        r"The Swagger petstore's SDK is ([\d,]+) files and ([\d,]+) lines, its runtime (\d+)"
        r" modules\.",
        " ".join(readme.split()),
    )
    assert found, "README.md states the petstore SDK's size"
    sdk = real_sdks.get(next(s for s in SPECS if s.id == "petstore"))
    runtime = [
        p
        for p in (sdk.package_dir / "_runtime").rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    ]
    stated = tuple(int(g.replace(",", "")) for g in found.groups())
    assert stated == (sdk.generated.files, sdk.generated.lines, len(runtime))
