"""`constants`, array elements in `carry` pointers and `result_media_type`: what they
resolve to, and a clear error (file#pointer, exit 2) for each declaration the SDK
could not honour."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from tests.generator.test_job_extension import build, problems
from tests.helpers import write
from tests.vendors.server import SPECS

VOICEOVER = yaml.safe_load((SPECS / "voiceover.yaml").read_text())
DUB = yaml.safe_load((SPECS / "voiceover.jobs.yaml").read_text())["jobs"]["dub"]
OPENAI = yaml.safe_load((SPECS / "openai_batches.yaml").read_text())
BATCH = yaml.safe_load((SPECS / "openai_batches.jobs.yaml").read_text())["jobs"]["batch"]


def voiceover(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(VOICEOVER)
    job = copy.deepcopy(DUB)
    for key, value in changes.items():
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    spec["x-jobgen"] = {"jobs": {"dub": job}}
    return spec


def found(tmp_path: Path, spec: dict[str, Any]) -> list[str]:
    return [p.split("#", 1)[1] for p in problems(tmp_path, spec)]


def test_the_declaration_resolves(tmp_path: Path) -> None:
    (job,) = build(tmp_path, voiceover()).jobs
    assert job.constants == (ir.Constant("cancel", "query", "force", True),)
    (carry,) = job.carry
    assert (carry.source, carry.record, carry.target, carry.wire) == (
        ("target_languages", "0"),
        True,
        "path",
        "language_code",
    )


def test_a_cancel_needing_a_required_argument_is_accepted_with_a_constant(
    tmp_path: Path,
) -> None:
    spec = voiceover()
    force = spec["paths"]["/v1/dubs/{dub_id}"]["delete"]["parameters"][2]
    force["required"] = True
    del force["schema"]["default"]
    (job,) = build(tmp_path, spec).jobs
    assert job.cancel is not None and job.constants[0].wire == "force"
    spec_without = voiceover(constants=None)
    spec_without["paths"]["/v1/dubs/{dub_id}"]["delete"]["parameters"][2] = force
    assert found(tmp_path, spec_without) == [
        (
            "/x-jobgen/jobs/dub/cancel: 'deleteDub' needs query parameter 'force', which nothing"
            " supplies: the SDK calls it with the job id alone (declare the missing values under"
            " 'carry')"
        )
    ]


@pytest.mark.parametrize(
    ("constants", "pointer", "message"),
    [
        (
            {"cancle": {"query:force": True}},
            "/constants/cancle",
            (
                "unknown call 'cancle' (did you mean 'cancel'?): constants go to status, result"
                " or cancel"
            ),
        ),
        (
            {"cancel": {"query:forse": True}},
            "/constants/cancel/query:forse",
            (
                "'deleteDub' has no query parameter 'forse' (it has: force) (the job's cancel"
                " operation)"
            ),
        ),
        (
            {"cancel": {"query:force": "yes"}},
            "/constants/cancel/query:force",
            "query 'force' of 'deleteDub' is a boolean, not 'yes'",
        ),
        (
            {"cancel": {"query:force": [True]}},
            "/constants/cancel/query:force",
            "must be a string, number or boolean, not [True]",
        ),
        (
            {"cancel": {"path:dub_id": "x"}},
            "/constants/cancel/path:dub_id",
            "'dub_id' is the job id parameter, not a carry",
        ),
        (
            {"cancel": {}},
            "/constants/cancel",
            "must map inputs (such as query:force) to their values",
        ),
        ([], "/constants", "must map a call (status, result or cancel) to {input: value}"),
    ],
)
def test_a_wrong_constant_is_refused_naming_it(
    tmp_path: Path, constants: Any, pointer: str, message: str
) -> None:
    assert found(tmp_path, voiceover(constants=constants)) == [
        f"/x-jobgen/jobs/dub{pointer}: {message}"
    ]


def test_a_constant_for_a_call_the_job_lacks_is_refused(tmp_path: Path) -> None:
    spec = voiceover(cancel=None)
    assert found(tmp_path, spec) == [
        "/x-jobgen/jobs/dub/constants/cancel: the job declares no 'cancel' operation"
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "record:/target_languages/first",
            (
                "'/target_languages' is an array: name an element by its index (such as"
                " '/target_languages/0'), not 'first'"
            ),
        ),
        (
            "record:/target_languages/01",
            (
                "'/target_languages' is an array: name an element"
                " by its index (such as '/target_languages/0'), not '01'"
            ),
        ),
        (
            "record:/target_languages",
            "'language_code' must be a string, number or boolean in the record",
        ),
        (
            "record:/status/0",
            "'/status' is not an object, so it has no property '0'",
        ),
    ],
)
def test_a_wrong_array_pointer_is_refused(tmp_path: Path, source: str, message: str) -> None:
    carry = {"language_code": {"from": source, "to": "path:language_code"}}
    assert found(tmp_path, voiceover(carry=carry)) == [
        f"/x-jobgen/jobs/dub/carry/language_code/from: {message}"
    ]


def test_a_value_of_the_create_answer_may_be_an_array_element(tmp_path: Path) -> None:
    carry = {"track": {"from": "/tracks/0", "to": "query:track"}}
    spec = voiceover(carry=carry, result=None, cancel=None, constants=None)
    started = spec["components"]["schemas"]["DubStarted"]["properties"]
    started["tracks"] = {"type": "array", "items": {"type": "string"}}
    spec["paths"]["/v1/dubs/{dub_id}"]["get"]["parameters"].append(
        {"name": "track", "in": "query", "schema": {"type": "string"}}
    )
    (job,) = build(tmp_path, spec).jobs
    assert [(c.name, c.source, c.record) for c in job.carry] == [("track", ("tracks", "0"), False)]


def test_an_array_is_not_indexed_outside_carry(tmp_path: Path) -> None:
    """Other pointers of the declaration (read by the waiter itself) name properties."""
    assert found(tmp_path, voiceover(error_field="/target_languages/0")) == [
        "/x-jobgen/jobs/dub/error_field: '/target_languages' is an array, so it has no property '0'"
    ]


def openai(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(OPENAI)
    job = {**copy.deepcopy(BATCH), **changes}
    spec["x-jobgen"] = {"jobs": {"batch": {k: v for k, v in job.items() if v is not None}}}
    return spec


@pytest.mark.parametrize(
    ("media_type", "kind", "annotation"),
    [
        ("application/jsonl", "binary", ir.Primitive("bytes")),
        ("text/csv", "text", ir.Primitive("str")),
        ("application/x-ndjson", "binary", ir.Primitive("bytes")),
        ("application/vnd.openai+json", "json", ir.Primitive("str")),  # the spec's schema
    ],
)
def test_the_result_media_type_replaces_the_declared_one(
    tmp_path: Path, media_type: str, kind: str, annotation: ir.TypeRef
) -> None:
    sdk = build(tmp_path, openai(result_media_type=media_type))
    (job,) = sdk.jobs
    assert job.result is not None
    assert (job.result.response.kind, job.result.response.media_type) == (kind, media_type)
    assert job.result.response.type == annotation
    own = next(
        op for r in sdk.resources for op in r.operations if op.operation_id == "downloadFile"
    )
    assert own.response == job.result.response  # the operation's own method reads it so


@pytest.mark.parametrize(
    ("changes", "pointer", "message"),
    [
        (
            {"result_media_type": "jsonl"},
            "/result_media_type",
            "must be a media type such as 'application/jsonl' or 'text/plain', not 'jsonl'",
        ),
        (
            {"result_media_type": "multipart/form-data"},
            "/result_media_type",
            "'multipart/form-data' is a request body's media type, not a result's",
        ),
        (
            {"result": None, "carry": None, "result_media_type": "text/plain"},
            "/result_media_type",
            "'result_media_type' needs a 'result' operation",
        ),
    ],
)
def test_a_wrong_result_media_type_is_refused(
    tmp_path: Path, changes: dict[str, Any], pointer: str, message: str
) -> None:
    assert found(tmp_path, openai(**changes)) == [f"/x-jobgen/jobs/batch{pointer}: {message}"]


def test_the_cli_names_a_wrong_constant_and_exits_2(tmp_path: Path) -> None:
    spec = write(tmp_path / "voiceover.yaml", (SPECS / "voiceover.yaml").read_text())
    side = write(
        tmp_path / "voiceover.jobs.yaml",
        yaml.safe_dump({"jobs": {"dub": {**DUB, "constants": {"cancel": {"query:force": 1}}}}}),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "jobgen",
            "generate",
            str(spec),
            "--jobs",
            str(side),
            "-o",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert (
        f"{side}#/jobs/dub/constants/cancel/query:force: query 'force' of 'deleteDub' is a"
        " boolean, not 1"
    ) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


KEYVAULT_2025 = (
    SPECS / "azure" / "keyvault/data-plane/Microsoft.KeyVault/stable/2025-06-01/backuprestore.json"
)
KEYVAULT_74 = SPECS / "azure-keyvault-7.4" / "backuprestore.json"


def test_an_oauth2_scheme_gives_its_default_scope_to_a_token_credential() -> None:
    sdk = load_and_build(KEYVAULT_2025, ref_root=SPECS / "azure")
    (auth,) = sdk.auths
    assert isinstance(auth, ir.BearerAuth)
    assert auth.scopes == ("https://vault.azure.net/.default",)


def test_bearer_declares_a_token_for_a_spec_without_security(tmp_path: Path) -> None:
    side = write(
        tmp_path / "kv.jobs.yaml", "bearer: {scopes: [https://managedhsm.azure.net/.default]}\n"
    )
    sdk = load_and_build(KEYVAULT_74, jobs_file=side)
    assert sdk.auths == (
        ir.BearerAuth("bearer", "token", None, ("https://managedhsm.azure.net/.default",)),
    )
    ops = [op for r in sdk.resources for op in r.operations]
    assert ops and all(op.security == ("bearer",) for op in ops)


@pytest.mark.parametrize(
    ("side", "message"),
    [
        ("bearer: {scope: x}\n", "#/bearer/scope: unknown key 'scope' (known: scopes)"),
        ("bearer: {scopes: x}\n", "#/bearer/scopes: must be a list of scopes (strings)"),
        ("bearer: [x]\n", "#/bearer: must be a mapping, such as {scopes: [...]} or {}"),
    ],
)
def test_a_wrong_bearer_is_refused(tmp_path: Path, side: str, message: str) -> None:
    path = write(tmp_path / "kv.jobs.yaml", side)
    with pytest.raises(SpecError) as caught:
        load_and_build(KEYVAULT_74, jobs_file=path)
    assert [str(p) for p in caught.value.problems] == [f"{path}{message}"]


def test_bearer_is_refused_where_the_spec_declares_security(tmp_path: Path) -> None:
    path = write(tmp_path / "kv.jobs.yaml", "bearer: {}\n")
    with pytest.raises(SpecError) as caught:
        load_and_build(KEYVAULT_2025, jobs_file=path, ref_root=SPECS / "azure")
    assert [str(p) for p in caught.value.problems] == [
        (
            f"{path}#/bearer: the spec declares its security schemes (OAuth2Auth): 'bearer' is"
            " for a spec that declares none"
        )
    ]
