"""Azure's published Swagger 2.0 data-plane specs (../shared/specs-real/azure): every one
loads, with every published operation and definition in its SDK, except two named published
defects; every SDK generates, imports and passes ruff, and mypy --strict in the exhaustive
run (one mypy run over all of them). The per-spec table of docs/real-specs.md is checked
against the corpus.

Operation ids, long-running operations and definitions are counted from each spec's JSON as
published (``json.load``), independently of jobgen's Swagger 2.0 reading.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jobgen.cli import main
from jobgen.pipeline import Target, generate
from tests.helpers import ROOT
from tests.real.azure import AZURE, AzureSpec, Outcome, corpus, summary, table, validate
from tests.real.realspecs import RUFF, import_all, mypy_command, run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
SPECS = corpus()
IDS = [s.id for s in SPECS]


@functools.cache
def _outcome(spec: AzureSpec) -> Outcome:
    return validate(spec)


def test_the_corpus_is_the_26_specs_its_readmes_list() -> None:
    assert len(SPECS) == 26
    assert len(set(IDS)) == 26
    assert sum(s.long_running() for s in SPECS) == 83


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_every_spec_loads_complete_or_is_a_named_published_defect(spec: AzureSpec) -> None:
    outcome = _outcome(spec)
    if spec.expected_error is not None:
        assert outcome.sdk is None
        assert any(spec.expected_error in p for p in outcome.problems), outcome.problems
        return
    assert outcome.sdk is not None, outcome.problems
    sdk = outcome.sdk
    assert {op.operation_id for r in sdk.resources for op in r.operations} == spec.operation_ids()
    root = f"{sdk.spec.root.name}#/components/schemas/" if sdk.spec else ""
    missing = [d for d in spec.definitions() if root + d not in sdk.schemas]
    assert missing == []


def test_without_ref_root_the_common_types_are_refused_with_the_way_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    email = (
        AZURE / "communication/data-plane/Email/stable/2023-03-31/CommunicationServicesEmail.json"
    )
    assert main(["validate", str(email)]) == 2
    err = capsys.readouterr().err
    assert (
        "CommunicationServicesEmail.json#/definitions/EmailSendResult/properties/error/$ref: "
        "$ref '../../../../../common-types/data-plane/v1/types.json' points outside the spec's "
        "folder; widen it with --ref-root DIR (or ref_root in the config)"
    ) in err
    assert main(["validate", "--ref-root", str(AZURE), str(email)]) == 0


def test_docs_real_specs_holds_the_corpus_table() -> None:
    outcomes = [_outcome(spec) for spec in SPECS]
    assert summary(outcomes) == "`jobgen validate --ref-root` loads 25 of the 26 specs."
    doc = (ROOT / "docs" / "real-specs.md").read_text(encoding="utf-8")
    assert summary(outcomes) in doc
    lines = table(outcomes)
    start = doc.index(lines[0])
    assert doc[start:].splitlines()[: len(lines)] == lines


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[AzureSpec, Path]]]:
    base = tmp_path_factory.mktemp("azure")
    built = []
    for spec in SPECS:
        if spec.expected_error is None:
            out = base / spec.id
            generate(Target(spec.file, out, package=spec.package, ref_root=AZURE))
            built.append((spec, out))
    yield built
    for spec, _ in built:
        for name in [
            m for m in sys.modules if m == spec.package or m.startswith(spec.package + ".")
        ]:
            del sys.modules[name]


def test_every_sdk_imports_every_module(generated: list[tuple[AzureSpec, Path]]) -> None:
    failures = []
    for spec, out in generated:
        sys.path.insert(0, str(out))
        try:
            package = importlib.import_module(spec.package)
            count, failed = import_all(package)
            failures += failed
            assert count == sum(1 for _ in (out / spec.package).rglob("*.py")) - 1
        finally:
            sys.path.remove(str(out))
    assert failures == []


def test_every_sdk_passes_ruff(generated: list[tuple[AzureSpec, Path]]) -> None:
    roots = [str(out) for _, out in generated]
    proc = run([*RUFF, "--no-cache", *roots], Path.cwd())
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr


@pytest.mark.exhaustive
def test_every_sdk_passes_mypy_strict(
    generated: list[tuple[AzureSpec, Path]], mypy_cache: Path
) -> None:
    """One mypy run over the 24 SDKs together (mypy's start-up and the standard library are
    paid once, not 24 times). The fast suite type-checks the SDKs of the Azure specs with
    imported jobs one by one (tests/vendors/test_vendor_sdks_typecheck.py)."""
    roots = [str(out) for _, out in generated]
    packages = [arg for spec, _ in generated for arg in ("-p", spec.package)]
    env = {**os.environ, "MYPYPATH": os.pathsep.join(roots)}
    checked = subprocess.run(
        [*mypy_command(mypy_cache), *packages], env=env, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout[-5000:] + checked.stderr[-2000:]


def test_document_intelligence_sends_to_the_endpoint_as_azure_documents_it(
    generated: list[tuple[AzureSpec, Path]],
) -> None:
    """Oracle: Azure's REST reference for Analyze Document 2024-11-30
    (https://learn.microsoft.com/rest/api/aiservices/document-models/analyze-document):
    ``POST {endpoint}/documentintelligence/documentModels/{modelId}:analyze?api-version=...``
    with the key in ``Ocp-Apim-Subscription-Key``; ``{endpoint}`` is the resource's
    ``https://<name>.cognitiveservices.azure.com``. AutoRest's x-ms-paths documentation: the
    ``?_overload=`` of the spec's key only tells the paths apart and is not sent."""
    (spec, out) = next((s, o) for s, o in generated if s.id == "DocumentIntelligence-2024-11-30")
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(202, headers={"Operation-Location": "https://x/op"})

    sys.path.insert(0, str(out))
    try:
        sdk = importlib.import_module(spec.package)
        client = sdk.Client(
            base_url="https://contoso.cognitiveservices.azure.com",
            api_key="key-1",
            transport=httpx.MockTransport(answer),
        )
        request = sdk.models.AnalyzeDocumentRequest(url_source="https://example.com/a.pdf")
        client.document_models.analyze("prebuilt-read", body=request, api_version="2024-11-30")
    finally:
        sys.path.remove(str(out))
    (sent,) = seen
    assert sent.method == "POST"
    assert sent.url.scheme == "https" and sent.url.host == "contoso.cognitiveservices.azure.com"
    assert sent.url.path == "/documentintelligence/documentModels/prebuilt-read:analyze"
    assert sent.url.params["api-version"] == "2024-11-30"
    assert "_overload" not in str(sent.url)
    assert sent.headers["Ocp-Apim-Subscription-Key"] == "key-1"
    assert json.loads(sent.content) == {"urlSource": "https://example.com/a.pdf"}
