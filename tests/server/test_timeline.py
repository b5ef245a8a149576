"""The timeline of a job, as pure functions of scenario, progress and clock (no HTTP)."""

from __future__ import annotations

from functools import cache
from typing import Any

from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.server.scenario import Scenario, parse_scenario
from jobgen.server.timeline import (
    Dropped,
    ErrorAnswer,
    Malformed,
    Progress,
    View,
    create_fault,
    peek,
    read,
    start,
    status_fault,
)
from tests.helpers import SPECS


@cache
def sume_job() -> ir.Job:
    return load_and_build(SPECS / "sume.yaml").jobs[0]


def scenario(**fields: Any) -> Scenario:
    return parse_scenario(fields, sume_job())


def reads(s: Scenario, times: list[float], created: float = 0.0) -> list[View]:
    """The views of successive reads at ``times``."""
    progress, out = start(created), []
    for now in times:
        progress, view = read(s, progress, now)
        out.append(view)
    return out


def states(views: list[View]) -> list[str]:
    return [v.state for v in views]


def test_default_is_first_pending_state_for_two_reads_then_success() -> None:
    views = reads(scenario(), [1, 2, 3, 4])
    assert states(views) == ["queued", "queued", "completed", "completed"]
    assert [v.terminal for v in views] == [False, False, True, True]
    assert [v.ready for v in views] == [False, False, True, True]


def test_create_answer_does_not_count_as_a_read() -> None:
    s = scenario()
    progress, view = peek(s, start(0.0), 0.0)
    assert view.state == "queued" and progress.reads == 0
    assert states(reads(s, [1, 2, 3])) == ["queued", "queued", "completed"]


def test_poll_stages_in_order_then_final() -> None:
    s = scenario(
        states=[{"state": "queued", "polls": 1}, {"state": "processing", "polls": 3}],
        final="failed",
    )
    views = reads(s, [0.0] * 6)
    assert states(views) == ["queued"] + ["processing"] * 3 + ["failed"] * 2
    assert views[-1].kind == "failure" and views[-1].terminal and not views[-1].ready


def test_final_aliases_pick_the_first_state_of_that_kind() -> None:
    assert scenario(final="success").final == "completed"
    assert scenario(final="failure").final == "failed"
    assert scenario(final="canceled").final_kind == "canceled"


def test_seconds_stage_ends_on_the_clock_even_without_reads() -> None:
    s = scenario(states=[{"state": "processing", "seconds": 1.5}])
    assert states(reads(s, [0.1, 1.4, 1.5])) == ["processing", "processing", "completed"]
    # Nobody reads until long after: the job is done at the first read.
    assert states(reads(s, [10.0])) == ["completed"]


def test_consecutive_seconds_stages_are_measured_back_to_back() -> None:
    s = scenario(states=[{"state": "queued", "seconds": 1}, {"state": "processing", "seconds": 1}])
    assert states(reads(s, [0.5, 1.2, 1.9, 2.0])) == [
        "queued",
        "processing",
        "processing",
        "completed",
    ]
    assert states(reads(s, [2.5])) == ["completed"]


def test_seconds_stage_after_poll_stage_starts_at_the_read_that_ended_it() -> None:
    s = scenario(states=[{"state": "queued", "polls": 1}, {"state": "processing", "seconds": 1}])
    # The queued read happens at t=5, so processing lasts until t=6.
    assert states(reads(s, [5.0, 5.5, 5.9, 6.0])) == [
        "queued",
        "processing",
        "processing",
        "completed",
    ]


def test_never_holds_the_last_stage_forever() -> None:
    s = scenario(
        states=[{"state": "queued", "polls": 1}, {"state": "processing", "polls": 1}], final="never"
    )
    views = reads(s, [float(t) for t in range(50)])
    assert states(views) == ["queued"] + ["processing"] * 49
    assert not any(v.terminal for v in views)
    timed = scenario(states=[{"state": "processing", "seconds": 0.1}], final="never")
    assert states(reads(timed, [0.0, 1e6])) == ["processing", "processing"]


def test_undocumented_final_state_is_reported_and_not_terminal() -> None:
    views = reads(scenario(undocumented_state="exploded"), [0, 0, 0])
    assert views[-1] == View("exploded", "undocumented", terminal=False, ready=False, percent=20.0)


def test_result_delay_in_polls_keeps_ready_false_for_that_many_success_reads() -> None:
    s = scenario(states=[], result_delay_polls=2)
    progress = start(0.0)
    _, before = peek(s, progress, 0.0)
    assert before.state == "completed" and not before.ready
    seen = []
    for _ in range(4):
        progress, view = read(s, progress, 0.0)
        seen.append(view.ready)
        # The result endpoint agrees with the next status read.
        assert peek(s, progress, 0.0)[1].ready == (len(seen) >= 2)
    assert seen == [False, False, True, True]


def test_result_delay_in_seconds_counts_from_reaching_success() -> None:
    s = scenario(states=[{"state": "processing", "seconds": 1}], result_delay_seconds=0.5)
    progress = start(0.0)
    assert [peek(s, progress, t)[1].ready for t in (0.9, 1.0, 1.49, 1.5)] == [
        False,
        False,
        False,
        True,
    ]


def test_failed_job_is_never_ready() -> None:
    views = reads(scenario(final="failed"), [0.0] * 5)
    assert not any(v.ready for v in views)


def test_fault_polls_do_not_use_up_a_stage() -> None:
    s = scenario(status_errors=[{"at_poll": 2, "status": 503, "count": 3}])
    assert [status_fault(s, poll) for poll in range(1, 7)] == [
        None,
        ErrorAnswer(503),
        ErrorAnswer(503),
        ErrorAnswer(503),
        None,
        None,
    ]
    # Polls 1, 5 and 6 are reads: queued, queued, completed.
    assert states(reads(s, [1, 5, 6])) == ["queued", "queued", "completed"]


def test_each_fault_kind_at_its_poll() -> None:
    s = scenario(
        status_errors=[{"at_poll": 1, "status": 429, "retry_after": 2}],
        drop_connection_at_polls=[2, 4],
        malformed_at_polls=[3],
    )
    faults = [status_fault(s, poll) for poll in range(1, 6)]
    assert isinstance(faults[0], ErrorAnswer) and faults[0].status == 429
    assert faults[0].retry_after is not None and faults[0].retry_after.seconds == 2
    assert faults[1:] == [Dropped(), Malformed(), Dropped(), None]


def test_create_faults_by_attempt() -> None:
    s = scenario(
        create_errors=[
            {"attempt": 1, "status": 503, "count": 2},
            {"attempt": 3, "drop_connection": True, "after_create": True},
        ]
    )
    faults = [create_fault(s, attempt) for attempt in range(1, 5)]
    assert [f.status if f else None for f in faults] == [503, 503, None, None]
    assert faults[2] is not None and faults[2].drop_connection and faults[2].after_create
    assert faults[3] is None


def test_progress_is_immutable_and_replayable() -> None:
    s = scenario(states=[{"state": "processing", "polls": 2}])
    progress = Progress(stage=0, entered_at=0.0)
    first = read(s, progress, 1.0)
    assert read(s, progress, 1.0) == first
    assert progress == Progress(stage=0, entered_at=0.0)
