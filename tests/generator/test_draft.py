"""``jobgen jobs init``: a side-file draft from the shapes of a spec that declares no jobs.

Every draft is checked through the command line (``main([...])``) and then through
``jobgen validate SPEC --jobs DRAFT``; the hand-written ``x-jobgen`` of the example specs
is the oracle for what the draft should say.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.cli import main
from jobgen.spec.loader import load_document
from tests.draft_measure import EXAMPLES
from tests.helpers import SPECS, write

# Keys the draft should get as the spec's author wrote them (sume.yaml's x-jobgen).
SAME_AS_WRITTEN = (
    "create",
    "status",
    "result",
    "cancel",
    "id_parameter",
    "id_from",
    "record",
    "state",
    "terminal_field",
    "result_ready_field",
    "error_field",
    "progress",
    "idempotency_header",
)


def _init(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["jobs", "init", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _validate(spec: Path, draft: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", str(spec), "--jobs", str(draft)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "valid" in out


def _checks(text: str) -> int:
    return sum(1 for line in text.splitlines() if "  # check: " in line)


@pytest.mark.parametrize("case", EXAMPLES, ids=lambda c: c.spec.stem)
def test_each_example_is_drafted_and_the_draft_validates(
    case: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.jobs.yaml"
    code, out, _ = _init(capsys, str(case.spec), "-o", str(draft))
    assert code == 0
    text = draft.read_text(encoding="utf-8")
    assert text.startswith("# ") and "\njobs:\n" in text
    assert f"{draft}: 1 job drafted, " in out
    guesses = _checks(text)
    assert f"{guesses} {'guess' if guesses == 1 else 'guesses'} to check" in out
    _validate(case.spec, draft, capsys)
    # The draft names the job the author declared, by its operations.
    hand = yaml.safe_load(case.spec.read_text(encoding="utf-8"))["x-jobgen"]["jobs"]
    drafted = yaml.safe_load(text)["jobs"]
    assert {(j["create"], j["status"]) for j in drafted.values()} == {
        (j["create"], j["status"]) for j in hand.values()
    }
    assert set(drafted) == set(hand)  # the names a person chose
    for name, job in hand.items():  # and every state in the author's class
        # A state the author gives a 404 (async_request_reply's "expired" monitor) is
        # prose to the drafter: no rule is drafted, a note points at the 404 instead.
        gone = {r["state"] for r in job.get("status_rules", []) if r.get("status") in (404, 410)}
        for kind in ("success", "failure", "canceled", "pending"):
            written = sorted(set(job["state"].get(kind, [])) - gone)
            assert sorted(drafted[name]["state"][kind]) == written, kind
        if gone:
            assert "answers 404 ('No such export, or it has expired.'): no status rule" in text
            assert all(r["status"] != 404 for r in drafted[name].get("status_rules", []))


def test_the_sume_draft_says_what_its_author_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "sume.jobs.yaml"
    assert _init(capsys, str(SPECS / "sume.yaml"), "-o", str(draft))[0] == 0
    written = yaml.safe_load((SPECS / "sume.yaml").read_text())["x-jobgen"]["jobs"]["job"]
    text = draft.read_text(encoding="utf-8")
    drafted = yaml.safe_load(text)["jobs"]["job"]
    for key in SAME_AS_WRITTEN:
        assert drafted[key] == written[key], key
    assert drafted["poll"]["body_hint"] == written["poll"]["body_hint"]
    assert drafted["poll"]["headers"] == written["poll"]["headers"]
    assert _checks(text) == 0  # nothing in it is a guess


def test_an_operation_url_job_follows_the_303_to_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = SPECS / "async_request_reply.yaml"
    draft = tmp_path / "export.jobs.yaml"
    assert _init(capsys, str(spec), "-o", str(draft))[0] == 0
    job = yaml.safe_load(draft.read_text())["jobs"]["export"]
    assert job["operation_url"] == "Location"
    assert job["final_from"] == "location"
    assert job["result"] == "getExport"
    assert {"status": 303, "state": "Completed"} in job["status_rules"]
    assert job["state"]["success"] == ["Completed"]
    lines = draft.read_text().splitlines()
    assert any(line.strip().startswith("status_rules:  # check: ") for line in lines)


JOB_SPEC = """openapi: 3.0.3
info: {title: Speech, version: "1"}
paths:
  /v1/transcriptions:
    post:
      operationId: CREATE_OP
      responses:
        "200":
          description: created
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Transcription"}
  /v1/transcriptions/{transcription_id}:
    get:
      operationId: STATUS_OP
      parameters:
        - {name: transcription_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: the record
          headers:
            Retry-After: {schema: {type: integer}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Transcription"}
  /v1/transcriptions/{transcription_id}/cancel:
    post:
      operationId: cancelTranscription
      parameters:
        - {name: transcription_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: the record
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Transcription"}
components:
  schemas:
    Transcription:
      type: object
      required: [id, status]
      properties:
        id: {type: string}
        status:
          type: string
          enum: STATES
        poll_interval_ms: {type: integer}
        failure_reason: {type: string}
"""

NORMAL_STATES = ["queued", "running", "cancelling", "cancelled", "succeeded", "failed", "expired"]


def _job_spec(
    tmp_path: Path,
    create: str = "createTranscription",
    status: str = "getTranscription",
    states: list[str] = NORMAL_STATES,
) -> Path:
    text = (
        JOB_SPEC.replace("CREATE_OP", yaml.safe_dump(create).split("\n...")[0].strip())
        .replace("STATUS_OP", yaml.safe_dump(status).split("\n...")[0].strip())
        .replace("STATES", yaml.safe_dump(states, default_flow_style=True).strip())
    )
    return write(tmp_path / "speech.yaml", text)


def test_states_are_classified_by_name_and_unsure_ones_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _job_spec(tmp_path)
    draft = tmp_path / "speech.jobs.yaml"
    code, out, _ = _init(capsys, str(spec), "-o", str(draft))
    assert code == 0
    text = draft.read_text()
    job = yaml.safe_load(text)["jobs"]["transcription"]  # the name a person would choose
    assert job["state"] == {
        "field": "/status",
        "success": ["succeeded"],
        "failure": ["failed", "expired"],
        "canceled": ["cancelled"],
        "pending": ["queued", "running", "cancelling"],
    }
    assert job["cancel"] == "cancelTranscription"
    assert job["error_field"] == "/failure_reason"
    assert job["id_from"] == "/id"
    assert job["poll"]["headers"] == [{"name": "Retry-After", "format": "retry-after"}]
    assert job["poll"]["body_hint"] == {"field": "/poll_interval_ms", "unit": "milliseconds"}
    failure = next(line for line in text.splitlines() if line.strip().startswith("failure:"))
    assert "# check: expired: read as failure from its name" in failure
    assert "1 job drafted, 1 guess to check" in out
    _validate(spec, draft, capsys)


HOSTILE_NAMES = [
    'a"b\\c',
    "x\n# injected: true\njobs: {}",
    "key: value",
    "- [&anchor *alias !!python/object]",
    "\u2028sep\u2029\x85nel",
    "tab\there\ufeff",
    "caf\u00e9 \U0001f600",
]


@pytest.mark.parametrize("hostile", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
def test_hostile_operation_ids_and_states_cannot_break_the_yaml(
    hostile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    states = ["queued", hostile, f"completed {hostile}", f"expired {hostile}", "failed"]
    spec = _job_spec(tmp_path, create=f"create{hostile}", status=f"get{hostile}", states=states)
    draft = tmp_path / "hostile.jobs.yaml"
    assert _init(capsys, str(spec), "-o", str(draft))[0] == 0
    text = draft.read_text(encoding="utf-8")
    # The project's own reader (which refuses tags, duplicate keys...) reads it whole.
    data = load_document(draft, "hostile.jobs.yaml").data
    assert list(data) == ["jobs"]
    [job] = data["jobs"].values()
    assert job["create"] == f"create{hostile}"
    assert job["status"] == f"get{hostile}"
    assert job["state"]["success"] == [f"completed {hostile}"]
    assert job["state"]["pending"] == ["queued", hostile]
    assert job["state"]["failure"] == [f"expired {hostile}", "failed"]
    # The note naming the unsure state stays one comment on its line.
    failure = next(line for line in text.splitlines() if line.strip().startswith("failure:"))
    assert "  # check: expired " in failure
    assert all(line.isprintable() for line in text.splitlines())
    _validate(spec, draft, capsys)


def test_an_existing_file_is_kept_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _job_spec(tmp_path)
    draft = write(tmp_path / "mine.jobs.yaml", "jobs: {}  # my own work\n")
    code, out, err = _init(capsys, str(spec), "-o", str(draft))
    assert code == 2
    assert f"{draft} exists: pass --force to replace it" in err
    assert draft.read_text() == "jobs: {}  # my own work\n"
    assert out == ""
    code, out, _ = _init(capsys, str(spec), "-o", str(draft), "--force")
    assert code == 0 and "transcription" in yaml.safe_load(draft.read_text())["jobs"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.jobs.yaml", "speech.yaml"]


def test_a_missing_folder_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _job_spec(tmp_path)
    code, out, err = _init(capsys, str(spec), "-o", str(tmp_path / "nope" / "x.jobs.yaml"))
    assert code == 2
    assert (
        err == f"jobgen: {tmp_path}/nope/x.jobs.yaml: the folder {tmp_path}/nope does not exist\n"
    )
    assert out == ""


def test_the_default_output_is_the_spec_stem_in_the_current_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _job_spec(tmp_path / "specs")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, _ = _init(capsys, str(spec))
    assert code == 0
    assert out.startswith("speech.jobs.yaml: 1 job drafted")
    assert os.listdir(work) == ["speech.jobs.yaml"]  # written whole: no temporary left


def test_dash_writes_the_draft_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _job_spec(tmp_path)
    code, out, err = _init(capsys, str(spec), "-o", "-")
    assert code == 0
    assert "transcription" in yaml.safe_load(out)["jobs"]
    assert err.strip() == "1 job drafted, 1 guess to check"


def test_a_spec_without_jobs_writes_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(
        tmp_path / "plain.yaml",
        'openapi: 3.0.3\ninfo: {title: Plain, version: "1"}\npaths:\n  /pets:\n    get:\n'
        "      operationId: listPets\n      responses:\n        '200': {description: ok}\n",
    )
    draft = tmp_path / "plain.jobs.yaml"
    code, out, _ = _init(capsys, str(spec), "-o", str(draft))
    assert code == 0
    assert out.startswith(f"no job found in {spec}: nothing written")
    assert not draft.exists()


def test_a_bad_spec_is_an_input_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(
        tmp_path / "bad.yaml", 'openapi: 3.0.3\ninfo: {title: Bad, version: "1"}\npaths: []\n'
    )
    draft = tmp_path / "bad.jobs.yaml"
    code, _, err = _init(capsys, str(spec), "-o", str(draft))
    assert code == 2
    assert f"error: {spec}#" in err and "Traceback" not in err
    assert not draft.exists()


def test_a_hostile_spec_file_name_stays_in_its_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _job_spec(tmp_path)
    named = spec.rename(tmp_path / "sp\nec: [x].yaml")
    draft = tmp_path / "named.jobs.yaml"
    assert _init(capsys, str(named), "-o", str(draft))[0] == 0
    text = draft.read_text(encoding="utf-8")
    assert (
        text.splitlines()[0]
        == "# Job declarations drafted by `jobgen jobs init` from sp\\nec: [x].yaml."
    )
    assert list(load_document(draft, "named.jobs.yaml").data) == ["jobs"]


def test_a_job_whose_declaration_would_not_validate_is_left_out_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The status call of the second job needs `timeout`, which the create answers: a
    # carried value, but `timeout` is a waiter's own argument, so no carry may take it.
    text = _job_spec(tmp_path).read_text()
    text = text.replace("components:\n", EXPORT_PATHS + "components:\n", 1) + EXPORT_SCHEMA
    spec = write(tmp_path / "speech.yaml", text)
    draft = tmp_path / "speech.jobs.yaml"
    code, out, err = _init(capsys, str(spec), "-o", str(draft))
    assert code == 0
    assert list(yaml.safe_load(draft.read_text())["jobs"]) == ["transcription"]
    assert out.startswith(f"{draft}: 1 job drafted")
    assert err.startswith("note: left out the job export: ")
    assert "timeout" in err
    _validate(spec, draft, capsys)


EXPORT_PATHS = """  /v1/exports:
    post:
      operationId: createExport
      responses:
        "200":
          description: created
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Export"}
  /v1/exports/{export_id}:
    get:
      operationId: getExport
      parameters:
        - {name: export_id, in: path, required: true, schema: {type: string}}
        - {name: timeout, in: query, required: true, schema: {type: integer}}
      responses:
        "200":
          description: the record
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Export"}
"""
EXPORT_SCHEMA = """    Export:
      type: object
      properties:
        id: {type: string}
        timeout: {type: integer}
        status: {type: string, enum: [running, done]}
"""
