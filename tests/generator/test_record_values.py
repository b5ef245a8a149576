"""Values of the terminal record in the job extension: `carry` entries read
`from: record:/pointer` into the result operation (OpenAI's `output_file_id`), with
`failure_from` for the failure download, and `final_from: record`; each misuse is
refused with its pointer."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from tests.helpers import write

SPECS = Path(__file__).resolve().parents[1] / "vendors" / "specs"
OPENAI = SPECS / "openai_batches.yaml"
SIDE = yaml.safe_load((SPECS / "openai_batches.jobs.yaml").read_text())
AT = "side.jobs.yaml#/jobs/batch"


def side(tmp_path: Path, **changes: Any) -> Path:
    jobs = copy.deepcopy(SIDE)
    job = jobs["jobs"]["batch"]
    for key, value in changes.items():
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    return write(tmp_path / "side.jobs.yaml", yaml.safe_dump(jobs, sort_keys=False))


def problems(tmp_path: Path, **changes: Any) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_and_build(OPENAI, jobs_file=side(tmp_path, **changes))
    return [str(p) for p in caught.value.problems]


def carry(**entry: Any) -> dict[str, Any]:
    base = {"from": "record:/output_file_id", "to": "path:file_id"}
    base.update(entry)
    return {"output_file_id": {k: v for k, v in base.items() if v is not None}}


def test_a_record_value_feeds_the_result_operation(tmp_path: Path) -> None:
    (job,) = load_and_build(OPENAI, jobs_file=side(tmp_path)).jobs
    (value,) = job.carry
    assert (value.name, value.record, value.source) == ("output_file_id", True, ("output_file_id",))
    assert value.failure_source == ("error_file_id",)
    assert (value.target, value.wire, value.kind) == ("path", "file_id", "str")
    # The result operation takes the file id, not the batch id.
    assert job.result is not None and job.result.operation_id == "downloadFile"


def test_a_record_value_needs_a_result_operation(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, result=None, result_media_type=None)
    assert problem.endswith(
        f"{AT}/carry/output_file_id/from: a value of the terminal record is sent to the"
        " result operation: the job declares no 'result' to send 'output_file_id' to"
    )


@pytest.mark.parametrize(
    ("entry", "pointer", "message"),
    [
        (
            carry(**{"from": "record:/output_file"}),
            "from",
            "the record (Batch) has no property 'output_file'",
        ),
        (
            carry(**{"from": "record:/request_counts"}),
            "from",
            "'output_file_id' must be a string, number or boolean in the record",
        ),
        (
            carry(**{"from": "record:output_file_id"}),
            "from",
            "must be record: and a JSON pointer into the record, such as 'record:/output_file_id'",
        ),
        (
            carry(failure_from="/error_file_id"),
            "failure_from",
            (
                "must name a value of the failed record, such as 'record:/error_output_file_id',"
                " not '/error_file_id'"
            ),
        ),
        (
            carry(failure_from="record:/error_file"),
            "failure_from",
            "the record (Batch) has no property 'error_file'",
        ),
        (
            carry(to="path:file"),
            "to",
            (
                "'downloadFile' has no path parameter 'file' (it has: file_id) (the job's result"
                " operation)"
            ),
        ),
        (
            carry(**{"from": "/id", "failure_from": "record:/error_file_id"}),
            "failure_from",
            (
                "'failure_from' goes with a value of the terminal record"
                " (from: record:/output_file_id): the failure download reads the failed record"
            ),
        ),
    ],
)
def test_a_misused_record_value_is_refused_at_its_pointer(
    tmp_path: Path, entry: dict[str, Any], pointer: str, message: str
) -> None:
    found = problems(tmp_path, carry=entry)
    assert any(f"{AT}/carry/output_file_id/{pointer}: {message}" in p for p in found), found


def test_a_record_value_is_not_sent_by_final_from_record(tmp_path: Path) -> None:
    found = problems(tmp_path, final_from="record")
    assert any(
        p.endswith(
            f"{AT}/carry/output_file_id/from: a value of the terminal record is sent to the"
            " result operation, which final_from: record never calls by itself"
        )
        for p in found
    ), found


def test_a_result_operation_without_record_values_must_take_the_job_id(tmp_path: Path) -> None:
    """Without a value of the record, the result is called with the job id alone."""
    found = problems(tmp_path, carry=None)
    assert any(
        p.endswith(f"{AT}/result: 'downloadFile' has no path parameter 'batch_id'") for p in found
    ), found


def test_final_from_record_makes_the_terminal_record_the_result(tmp_path: Path) -> None:
    (job,) = load_and_build(
        OPENAI,
        jobs_file=side(
            tmp_path, result=None, result_media_type=None, carry=None, final_from="record"
        ),
    ).jobs
    assert job.final_from == "record" and job.result is None


def test_operation_url_is_read_as_final_from_record(tmp_path: Path) -> None:
    (job,) = load_and_build(
        OPENAI,
        jobs_file=side(
            tmp_path,
            result=None,
            result_media_type=None,
            carry=None,
            final_from="operation-url",
        ),
    ).jobs
    assert job.final_from == "record"


def test_a_changed_record_value_is_no_callers_concern(tmp_path: Path) -> None:
    """`jobgen diff`: a value of the terminal record is no argument of the waits, so
    dropping its failure download, or reading it from elsewhere, breaks no caller."""
    from jobgen.diff import diff_sdks

    old = load_and_build(OPENAI, jobs_file=side(tmp_path / "old"))
    new = load_and_build(OPENAI, jobs_file=side(tmp_path / "new", carry=carry()))
    changes = diff_sdks(old, new).changes
    assert [(c.kind, c.breaking) for c in changes] == [("job.carry_changed", False)]
    assert "the result fetch reads 'output_file_id' from record:/output_file_id" in (
        changes[0].message
    )
