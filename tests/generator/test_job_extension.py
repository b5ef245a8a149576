"""The x-jobgen extension: what it resolves to, and a clear error for each inconsistency."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from tests.helpers import SPECS, write

SUME = yaml.safe_load((SPECS / "sume.yaml").read_text())


def build(tmp_path: Path, spec: dict[str, Any], jobs: dict[str, Any] | None = None) -> Any:
    path = write(tmp_path / "spec.yaml", yaml.safe_dump(spec, sort_keys=False))
    side = write(tmp_path / "side.jobs.yaml", yaml.safe_dump(jobs)) if jobs is not None else None
    return load_and_build(path, jobs_file=side)


def problems(tmp_path: Path, spec: dict[str, Any], jobs: dict[str, Any] | None = None) -> list[str]:
    with pytest.raises(SpecError) as caught:
        build(tmp_path, spec, jobs)
    return [str(p) for p in caught.value.problems]


def mutated(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(SUME)
    job = spec["x-jobgen"]["jobs"]["job"]
    for key, value in changes.items():
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    return spec


def test_example_spec_resolves_to_a_job(tmp_path: Path) -> None:
    (job,) = build(tmp_path, SUME).jobs
    assert job.status.operation_id == "getJob"
    assert job.create is not None and job.create.operation_id == "createJob"
    assert job.record_path == ("data",)
    assert job.state_path == ("status",)
    assert set(job.success + job.failure + job.canceled + job.pending) == {
        "queued",
        "processing",
        "completed",
        "failed",
        "canceled",
    }
    assert job.floor == 2.0
    assert job.idempotency_header == "Idempotency-Key"


def test_every_mistake_of_a_declaration_is_named_in_one_run(tmp_path: Path) -> None:
    """A misspelt status operation does not hide the declaration's other mistakes: the
    reader goes on with the operation meant, and each message names its key once."""
    spec = copy.deepcopy(SUME)
    jobs = {"jobs": spec.pop("x-jobgen")["jobs"]}
    job = jobs["jobs"]["job"]
    job["status"] = "getJb"
    job["id_from"] = "/data/ident"
    job["state"]["pending"] = ["queued", "procesing"]
    job["progress"] = {"field": "/progress/percnt"}
    at = f"{tmp_path / 'side.jobs.yaml'}#/jobs/job"
    found = problems(tmp_path, spec, jobs)
    assert found == [
        f"{at}/status: unknown operationId 'getJb' (did you mean 'getJob'?)",
        (
            f"{at}/id_from: '/data' (Job) has no property 'ident' (it has: id, status, terminal,"
            " result_ready, created_at, updated_at, next_poll_after_seconds, mode, webhook_url,"
            " progress, error, metadata)"
        ),
        (
            f"{at}/state/pending/1: state 'procesing' is not one of JobStatus's values (canceled,"
            " completed, failed, processing, queued); did you mean 'processing'?"
        ),
        (
            f"{at}/progress/field: '/progress' (JobProgress) has no property 'percnt' (it has:"
            " percent, stage)"
        ),
    ]


def test_a_missing_field_of_the_create_answer_is_not_called_the_record(tmp_path: Path) -> None:
    found = problems(tmp_path, mutated(id_from="/info"))
    assert found == [
        (
            f"{tmp_path / 'spec.yaml'}#/x-jobgen/jobs/job/id_from: the create answer"
            " (JobEnvelope) has no property 'info' (it has: data)"
        )
    ]


def test_unknown_operation_id_suggests_the_closest(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, mutated(status="getJobz"))
    assert problem.endswith(
        "spec.yaml#/x-jobgen/jobs/job/status: unknown operationId 'getJobz'"
        " (did you mean 'getJob'?)"
    )
    (far,) = problems(tmp_path, mutated(status="listInvoices"))
    assert far.endswith("unknown operationId 'listInvoices'")


def test_missing_state_field(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["state"]["field"] = "/stat"
    (problem,) = problems(tmp_path, spec)
    assert "#/x-jobgen/jobs/job/state/field" in problem
    assert "has no property 'stat'" in problem


def test_unclassified_documented_state_fails_naming_it(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["state"]["pending"] = ["queued"]
    (problem,) = problems(tmp_path, spec)
    assert "state 'processing'" in problem and "is not classified" in problem


def test_terminal_state_not_in_the_enum(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["state"]["failure"] = ["failed", "exploded"]
    (problem,) = problems(tmp_path, spec)
    assert (
        "#/x-jobgen/jobs/job/state/failure/1" in problem and "'exploded' is not one of" in problem
    )


def test_state_classified_twice(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["state"]["canceled"] = ["canceled", "failed"]
    assert any("classified twice" in p for p in problems(tmp_path, spec))


def test_wrong_pointers_and_parameters_are_all_reported(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        mutated(record="/envelope", id_parameter="nope", result_ready_field="/ready"),
    )
    assert any("/id_parameter" in p and "'nope' is not a path parameter" in p for p in found)
    assert any("/record" in p and "no property 'envelope'" in p for p in found)


def test_bad_poll_settings(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        mutated(
            poll={
                "floor": -1,
                "first": 40,
                "cap": 30,
                "headers": [{"name": "x", "format": "weeks"}],
            }
        ),
    )
    assert any("/poll/floor" in p for p in found)
    assert any("/poll/first" in p and "must not exceed cap" in p for p in found)
    assert any("/poll/headers/0/format" in p for p in found)


def test_unknown_key_is_named(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, mutated(staus="typo"))
    assert "/x-jobgen/jobs/job/staus: unknown key 'staus' (did you mean 'status'?)" in problem


@pytest.mark.parametrize(
    ("where", "key", "pointer", "meant"),
    [
        (("poll",), "florr", "/x-jobgen/jobs/job/poll/florr", "floor"),
        (("poll", "body_hint"), "units", "/x-jobgen/jobs/job/poll/body_hint/units", "unit"),
        (("poll", "headers", 0), "fromat", "/x-jobgen/jobs/job/poll/headers/0/fromat", "format"),
        (("state",), "sucess", "/x-jobgen/jobs/job/state/sucess", "success"),
        ((), "jbos", "/x-jobgen/jbos", "jobs"),
    ],
)
def test_unknown_keys_are_refused_at_every_level(
    tmp_path: Path, where: tuple[str | int, ...], key: str, pointer: str, meant: str
) -> None:
    spec = mutated()
    node: Any = spec["x-jobgen"] if where == () else spec["x-jobgen"]["jobs"]["job"]
    for token in where:
        node = node[token]
    node[key] = [] if where == ("state",) else 1
    found = problems(tmp_path, spec)
    assert [p for p in found if "unknown key" in p] == [
        f"{tmp_path / 'spec.yaml'}#{pointer}: unknown key '{key}' (did you mean '{meant}'?)"
    ]


def test_misspelt_state_list_is_an_unknown_key_not_unclassified_states(tmp_path: Path) -> None:
    spec = mutated()
    state = spec["x-jobgen"]["jobs"]["job"]["state"]
    state["cancelled"] = state.pop("canceled")
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "#/x-jobgen/jobs/job/state/cancelled: unknown key 'cancelled' (did you mean 'canceled'?)"
    )


def test_unknown_key_far_from_any_lists_the_known_ones(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["poll"]["zzz"] = 1
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "/poll/zzz: unknown key 'zzz' (known: body_hint, cap, first, floor, headers)"
    )


@pytest.mark.parametrize(
    ("field", "kind"),
    [("/status", "the enum JobStatus"), ("/id", "a string"), ("/terminal", "a boolean")],
)
def test_body_hint_on_a_non_numeric_field_is_refused(tmp_path: Path, field: str, kind: str) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["poll"]["body_hint"]["field"] = field
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        f"#/x-jobgen/jobs/job/poll/body_hint/field: body_hint.field must be a number field,"
        f" but it is {kind}"
    )


def test_body_hint_without_a_field_is_refused(tmp_path: Path) -> None:
    spec = mutated()
    spec["x-jobgen"]["jobs"]["job"]["poll"]["body_hint"] = {"unit": "seconds"}
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "#/x-jobgen/jobs/job/poll/body_hint: 'field' is required: a JSON pointer to the hint inside the record"
    )


def test_side_file_declares_jobs_for_an_unedited_spec(tmp_path: Path) -> None:
    spec = copy.deepcopy(SUME)
    declaration = {"jobs": spec.pop("x-jobgen")["jobs"]}
    assert build(tmp_path, spec).jobs == ()
    (job,) = build(tmp_path, spec, declaration).jobs
    assert job.name == "job"


def test_side_file_errors_name_the_side_file(tmp_path: Path) -> None:
    spec = copy.deepcopy(SUME)
    declaration = {"jobs": spec.pop("x-jobgen")["jobs"]}
    declaration["jobs"]["job"]["create"] = "makeJob"
    (problem,) = problems(tmp_path, spec, declaration)
    assert "side.jobs.yaml#/jobs/job/create: unknown operationId 'makeJob'" in problem


def test_terminal_field_alone_is_enough(tmp_path: Path) -> None:
    spec = mutated(state=None)
    (job,) = build(tmp_path, spec).jobs
    assert job.state_path is None and job.terminal_path == ("terminal",)


def test_neither_state_nor_terminal_field(tmp_path: Path) -> None:
    found = problems(tmp_path, mutated(state=None, terminal_field=None))
    assert any("declare 'state' or 'terminal_field'" in p for p in found)


def test_cancel_resolves_to_the_declared_operation(tmp_path: Path) -> None:
    (job,) = build(tmp_path, SUME).jobs
    assert job.cancel is not None and job.cancel.operation_id == "cancelJob"
    (plain,) = build(tmp_path, mutated(cancel=None)).jobs
    assert plain.cancel is None


def test_cancel_must_take_the_job_id(tmp_path: Path) -> None:
    (unknown,) = problems(tmp_path, mutated(cancel="cancelJobs"))
    assert unknown.endswith(
        "#/x-jobgen/jobs/job/cancel: unknown operationId 'cancelJobs' (did you mean 'cancelJob'?)"
    )
    no_id, needs_body = problems(tmp_path, mutated(cancel="createJob"))
    assert no_id.endswith("#/x-jobgen/jobs/job/cancel: 'createJob' has no path parameter 'job_id'")
    assert needs_body.endswith(
        "#/x-jobgen/jobs/job/cancel: 'createJob' needs a request body, which nothing supplies:"
        " the SDK calls it with the job id alone (declare the missing values under 'carry')"
    )


def test_a_cancel_needs_no_canceled_state(tmp_path: Path) -> None:
    """Anthropic's cancel moves a batch to `canceling`, then to the ordinary `ended`:
    a job may declare a cancel operation and no canceled state."""
    spec = mutated()
    state = spec["x-jobgen"]["jobs"]["job"]["state"]
    state["pending"] = ["queued", "processing"]
    state["success"] = ["completed", "canceled"]
    state["canceled"] = []
    (job,) = build(tmp_path, spec).jobs
    assert job.cancel is not None and job.cancel.operation_id == "cancelJob"
    assert job.canceled == ()


def test_progress_and_stall_after_resolve(tmp_path: Path) -> None:
    (job,) = build(tmp_path, mutated(stall_after=120)).jobs
    assert job.progress_path == ("progress", "percent")
    assert job.stall_after == 120.0
    spec = mutated(progress={"done": "/progress/percent", "total": "/progress/percent"})
    (fraction,) = build(tmp_path, spec).jobs
    assert fraction.progress_path is None
    assert fraction.progress_done_path == fraction.progress_total_path == ("progress", "percent")


@pytest.mark.parametrize(
    ("progress", "pointer", "message"),
    [
        ({"field": "/status"}, "progress/field", "must be a number field, but it is the enum"),
        ({"field": "/nope"}, "progress/field", "has no property 'nope'"),
        ({"done": "/progress/percent"}, "progress", "'total' is required with 'done'"),
        (
            {"field": "/progress/percent", "done": "/progress/percent"},
            "progress",
            "either 'field' (a percentage) or both 'done' and 'total'",
        ),
        ({"feild": "/progress/percent"}, "progress/feild", "unknown key 'feild'"),
        ("/progress/percent", "progress", "must be a mapping"),
    ],
)
def test_bad_progress_is_refused(tmp_path: Path, progress: Any, pointer: str, message: str) -> None:
    found = problems(tmp_path, mutated(progress=progress))
    assert any(f"#/x-jobgen/jobs/job/{pointer}:" in p and message in p for p in found), found


@pytest.mark.parametrize("value", [0, -1, "soon", float("inf"), True])
def test_bad_stall_after_is_refused(tmp_path: Path, value: Any) -> None:
    (problem,) = problems(tmp_path, mutated(stall_after=value))
    assert "#/x-jobgen/jobs/job/stall_after:" in problem


def test_a_status_operation_needing_more_than_the_id_is_refused(tmp_path: Path) -> None:
    spec = mutated()
    spec["paths"]["/v1/jobs/{job_id}"]["get"]["parameters"] = [
        {"name": "document_key", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "x-region", "in": "header", "required": True, "schema": {"type": "string"}},
        {
            "name": "verbose",
            "in": "query",
            "required": True,
            "schema": {"type": "boolean", "default": False},
        },
    ]
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "#/x-jobgen/jobs/job/status: 'getJob' needs query parameter 'document_key', header"
        " parameter 'x-region', which nothing supplies: the SDK calls it with the job id alone"
        " (declare the missing values under 'carry')"
    )


def test_a_required_parameter_of_a_single_value_needs_no_supplier(tmp_path: Path) -> None:
    """Anthropic's `anthropic-version: 2023-06-01` (an enum of one) is sent with its one
    value, so a status operation that requires it is called with the job id alone; a
    required header of several values still needs a supplier."""
    spec = mutated()
    get = spec["paths"]["/v1/jobs/{job_id}"]["get"]
    version = {"name": "api-version", "in": "header", "required": True}
    get.setdefault("parameters", []).append({**version, "schema": {"enum": ["2023-06-01"]}})
    (job,) = build(tmp_path, spec).jobs
    assert job.status.operation_id == "getJob"
    get["parameters"][-1]["schema"] = {"enum": ["2023-06-01", "2024-01-01"]}
    (problem,) = problems(tmp_path, spec)
    assert problem.endswith(
        "#/x-jobgen/jobs/job/status: 'getJob' needs header parameter 'api-version', which"
        " nothing supplies: the SDK calls it with the job id alone (declare the missing"
        " values under 'carry')"
    )
