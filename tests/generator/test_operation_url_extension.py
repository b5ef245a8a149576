"""The job extension's operation URLs, status rules and final_from: what they resolve
to, and a clear error, with its pointer, for each inconsistency."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from jobgen.model import ir
from tests.generator.test_job_extension import build, problems
from tests.helpers import SPECS

REPLY = yaml.safe_load((SPECS / "async_request_reply.yaml").read_text())
AZURE = yaml.safe_load((SPECS / "azure_operations.yaml").read_text())
AT = "#/x-jobgen/jobs/export"


def reply(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(REPLY)
    job = spec["x-jobgen"]["jobs"]["export"]
    for key, value in changes.items():
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    return spec


def test_the_request_reply_spec_resolves_to_rules_and_a_location_result(
    tmp_path: Path,
) -> None:
    (job,) = build(tmp_path, REPLY).jobs
    assert job.operation_url == ("Location",)
    assert job.final_from == "location"
    assert job.status_rules == (
        ir.StatusRule(state="Completed", status=(303,)),
        ir.StatusRule(state="Expired", status=(404,)),
        ir.StatusRule(state="Failed", path=("error", "code")),
    )
    # States that only a status rule gives need not be values of the state enum.
    assert job.success == ("Completed",) and "Expired" in job.failure


def test_the_azure_spec_takes_the_result_from_the_operation(tmp_path: Path) -> None:
    (job,) = build(tmp_path, AZURE).jobs
    assert job.operation_url == ("Operation-Location",)
    assert job.final_from == "record"
    assert job.result is None and job.id_path is None


def test_a_rule_state_must_be_classified(tmp_path: Path) -> None:
    rules = [*REPLY["x-jobgen"]["jobs"]["export"]["status_rules"], {"status": 410, "state": "Gone"}]
    (problem,) = problems(tmp_path, reply(status_rules=rules))
    assert problem.endswith(
        f"{AT}/status_rules/3/state: state 'Gone' is not classified:"
        " add it to state.success, failure, canceled or pending"
    )


def test_a_rule_needs_a_test_and_known_keys(tmp_path: Path) -> None:
    spec = reply(
        status_rules=[
            {"state": "Completed"},
            {"status": 303, "state": "Completed", "when": 1},
            {"status": 99, "state": "Completed"},
            {"equals": "x", "state": "Failed"},
        ]
    )
    found = problems(tmp_path, spec)
    assert any(
        p.endswith(f"{AT}/status_rules/0: a status rule needs 'status', 'path' or both")
        for p in found
    )
    assert any(f"{AT}/status_rules/1/when: unknown key 'when'" in p for p in found)
    assert any(
        p.endswith(f"{AT}/status_rules/2/status: must be an HTTP status or a list of them")
        for p in found
    )
    assert any(p.endswith(f"{AT}/status_rules/3/equals: 'equals' needs a 'path'") for p in found)


def test_operation_url_with_a_result_needs_a_final_source(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(final_from=None))
    assert f"{AT}: a job polled at its operation URL has no id" in problem
    assert "final_from: location" in problem


def test_final_from_location_needs_a_result_operation(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(result=None))
    assert problem.endswith(
        f"{AT}/final_from: final_from: location needs a 'result' operation to type the result"
    )


def test_an_unknown_final_source_is_refused(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(final_from="original-url"))
    assert problem.endswith(
        f"{AT}/final_from: must be one of result, location, record, original-uri,"
        " create-location, not 'original-url'"
    )


def test_id_from_does_not_apply_with_an_operation_url(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(id_from="/id"))
    assert problem.endswith(
        f"{AT}/id_from: 'id_from' does not apply with 'operation_url': the job is its URL"
    )


def test_operation_url_must_name_headers(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(operation_url=[]))
    assert f"{AT}/operation_url: must be a header name" in problem


def test_an_unused_result_operation_is_refused(tmp_path: Path) -> None:
    spec = copy.deepcopy(AZURE)
    spec["x-jobgen"]["jobs"]["analysis"]["result"] = "getAnalysisResult"
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "#/x-jobgen/jobs/analysis/result: final_from: record takes the result from"
        " the terminal record: the result operation would never be called"
    )


def test_a_cancel_must_be_at_the_operation_url(tmp_path: Path) -> None:
    """A job polled at its operation URL has no id: its cancel is sent to that URL, so
    the cancel must be a DELETE of the status operation's path or a POST below it."""
    found = problems(tmp_path, reply(cancel="getExport"))
    assert any(
        p.endswith(
            f"{AT}/cancel: 'getExport' is on neither the path of 'getExportStatus' nor below it"
            " (':cancel', '/cancel'): a job polled at its operation URL is canceled there,"
            " as it has no job id to call another operation with"
        )
        for p in found
    )


def test_an_operation_url_header_name_must_be_a_token(tmp_path: Path) -> None:
    """A name no header can have (a space, a colon) is refused at generation, as an API
    key header name is: otherwise every create would fail at run time."""
    (problem,) = problems(tmp_path, reply(operation_url="Operation Location"))
    assert problem.endswith(
        f"{AT}/operation_url: 'Operation Location' is not a valid header name:"
        " only letters, digits and !#$%&*+-.^_`|~ are allowed"
    )
    (problem,) = problems(tmp_path, reply(operation_url=["Location", "X-Op:Url"]))
    assert f"{AT}/operation_url/1: 'X-Op:Url' is not a valid header name" in problem


def test_original_uri_reads_with_a_result_operation_to_type_it(tmp_path: Path) -> None:
    (job,) = build(tmp_path, reply(final_from="original-uri")).jobs
    assert job.final_from == "original-uri" and job.result is not None


def test_original_uri_needs_a_result_operation_and_an_operation_url(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, reply(final_from="original-uri", result=None))
    assert problem.endswith(
        f"{AT}/final_from: final_from: original-uri needs a 'result' operation to type the result"
    )


def test_ignore_case_must_be_a_boolean(tmp_path: Path) -> None:
    spec = reply()
    spec["x-jobgen"]["jobs"]["export"]["state"]["ignore_case"] = "yes"
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(f"{AT}/state/ignore_case: must be true or false, not 'yes'")


def test_create_location_reads_with_a_result_operation_to_type_it(tmp_path: Path) -> None:
    (job,) = build(tmp_path, reply(final_from="create-location")).jobs
    assert job.final_from == "create-location" and job.result is not None
    (problem,) = problems(tmp_path, reply(final_from="create-location", result=None))
    assert problem.endswith(
        f"{AT}/final_from: final_from: create-location needs a 'result' operation to type"
        " the result"
    )
