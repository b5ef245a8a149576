"""`carry` and `result_once` in the job extension: what they resolve to, and a clear
error (file#pointer, exit 2) for every declaration the SDK could not honour."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.model import ir
from tests.generator.test_job_extension import build, problems
from tests.helpers import SPECS, write

DEEPL = yaml.safe_load((SPECS / "deepl_documents.yaml").read_text())
AT = "#/x-jobgen/jobs/document"


def mutated(carry: Any = "keep", **changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(DEEPL)
    job = spec["x-jobgen"]["jobs"]["document"]
    if carry is None:
        job.pop("carry")
    elif carry != "keep":
        job["carry"] = carry
    job.update(changes)
    return spec


def test_the_example_resolves_to_a_carried_key_and_a_one_shot_result(tmp_path: Path) -> None:
    (job,) = build(tmp_path, DEEPL).jobs
    assert job.carry == (
        ir.Carry("document_key", ("document_key",), None, "body", "document_key", "str"),
    )
    assert job.result_once and job.result is not None
    assert job.result.response.kind == "binary"


def test_an_operation_needing_more_than_the_id_is_refused_without_a_carry(tmp_path: Path) -> None:
    assert [p.split("#", 1)[1] for p in problems(tmp_path, mutated(carry=None))] == [
        (
            "/x-jobgen/jobs/document/status: 'getDocumentStatus' needs a request body, which"
            " nothing supplies: the SDK calls it with the job id alone (declare the missing"
            " values under 'carry')"
        ),
        (
            "/x-jobgen/jobs/document/result: 'downloadDocument' needs a request body, which"
            " nothing supplies: the SDK calls it with the job id alone (declare the missing"
            " values under 'carry')"
        ),
    ]


@pytest.mark.parametrize(
    ("carry", "pointer", "message"),
    [
        (
            {"document_key": {"from": "/document_key", "to": "body:/document_kee"}},
            "/carry/document_key/to",
            (
                "the request body of 'getDocumentStatus' (DocumentKey) has no property"
                " 'document_kee' (it has: document_key) (the job's status operation)"
            ),
        ),
        (
            {"document_key": {"from": "/document_key", "to": "query:document_key"}},
            "/carry/document_key/to",
            (
                "'getDocumentStatus' has no query parameter 'document_key' (it has: none)"
                " (the job's status operation)"
            ),
        ),
        (
            {"document_key": {"from": "/document_key", "to": "cookie:k"}},
            "/carry/document_key/to",
            "must be body:/property, query:name, header:Name or path:name, not 'cookie:k'",
        ),
        (
            {"document_key": {"from": "/document_key", "to": "body:/a/b"}},
            "/carry/document_key/to",
            (
                "body:/a/b: name one top-level property of the request body, such as"
                " body:/document_key"
            ),
        ),
        (
            {"document_key": {"from": "/document_kye", "to": "body:/document_key"}},
            "/carry/document_key/from",
            (
                "the create answer (DocumentHandle) has no property"
                " 'document_kye' (it has: document_id, document_key)"
            ),
        ),
        (
            {"document_key": {"from": "document_key", "to": "body:/document_key"}},
            "/carry/document_key/from",
            (
                "must be a JSON pointer such as '/document_key', 'header:Name' or"
                " 'record:/document_key', not 'document_key'"
            ),
        ),
        (
            {"document_key": {"from": "/document_key", "too": "body:/document_key"}},
            "/carry/document_key/too",
            "unknown key 'too' (did you mean 'to'?)",
        ),
        (
            {"deadline": {"from": "/document_key", "to": "body:/document_key"}},
            "/carry/deadline",
            (
                "'deadline' cannot name a carried value: use a lower-case identifier that is"
                " not a keyword nor one of the waiters' arguments"
            ),
        ),
        (
            # A name ending in a line break is no identifier ("$" matched before it).
            {"document_key\n": {"from": "/document_key", "to": "body:/document_key"}},
            "/carry/document_key\\n",
            (
                "'document_key\\n' cannot name a carried value: use a lower-case identifier"
                " that is not a keyword nor one of the waiters' arguments"
            ),
        ),
        (["document_key"], "/carry", "must map value names to {from, to}"),
    ],
)
def test_a_carry_the_sdk_cannot_honour_is_refused_at_its_pointer(
    tmp_path: Path, carry: Any, pointer: str, message: str
) -> None:
    found = problems(tmp_path, mutated(carry=carry))
    assert any(p.endswith(f"spec.yaml{AT}{pointer}: {message}") for p in found), found


def test_result_once_must_be_a_boolean_with_a_result(tmp_path: Path) -> None:
    assert problems(tmp_path, mutated(result_once="yes"))[0].endswith(
        f"{AT}/result_once: must be true or false, not 'yes'"
    )
    spec = mutated(carry=None, result_once=True)
    spec["x-jobgen"]["jobs"]["document"].pop("result")
    spec["x-jobgen"]["jobs"]["document"]["status"] = "getDocumentStatus"
    assert any(
        p.endswith(f"{AT}/result_once: 'result_once' needs a 'result' operation")
        for p in problems(tmp_path, spec)
    )


def test_jobgen_validate_exits_2_naming_the_pointer(tmp_path: Path) -> None:
    carry = {"document_key": {"from": "/document_key", "to": "header:X-Key"}}
    path = write(tmp_path / "deepl.yaml", yaml.safe_dump(mutated(carry=carry), sort_keys=False))
    done = subprocess.run(
        [sys.executable, "-m", "jobgen", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert (
        f"deepl.yaml{AT}/carry/document_key/to: 'getDocumentStatus' has no header parameter"
        " 'X-Key' (it has: none) (the job's status operation)"
    ) in done.stderr
    assert "Traceback" not in done.stderr
