"""Progress in every PollEvent, and stalls (W14): `JobStalled` once neither the state nor
the progress changed for `stall_after` seconds, on the fake clock, sync and async."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from jobgen.runtime.shared.errors import JobStalled, JobTimeout
from jobgen.runtime.waiting.waiter import JobSpec, PollEvent

from .fakes import DEMO, job
from .test_waiter import setup

PERCENT = attrs.evolve(DEMO, progress_path=("progress",))
FRACTION = attrs.evolve(DEMO, progress_done_path=("done",), progress_total_path=("total",))


def test_every_poll_event_carries_the_declared_percentage(mode: str) -> None:
    steps = [job("running", progress=10), job("running", progress=55.5), job("succeeded")]
    events: list[PollEvent] = []
    _, _, h = setup(mode, PERCENT, steps)

    h.wait_for_job("j", on_poll=events.append)

    assert [e.progress for e in events] == [10.0, 55.5, None]  # absent: None


def test_done_out_of_total_becomes_a_percentage(mode: str) -> None:
    steps = [job("running", done=1, total=4), job("running", done=3, total=0)]
    steps.append(job("succeeded", done=4, total=4))
    events: list[PollEvent] = []
    _, _, h = setup(mode, FRACTION, steps)

    h.wait_for_job("j", on_poll=events.append)

    assert [e.progress for e in events] == [25.0, None, 100.0]


def test_no_progress_declared_means_none(mode: str) -> None:
    events: list[PollEvent] = []
    _, _, h = setup(mode, DEMO, [job("running", progress=5), job("succeeded")])
    h.wait_for_job("j", on_poll=events.append)
    assert [e.progress for e in events] == [None, None]


def _stall(mode: str, spec: JobSpec, steps: list[Any], **call: Any) -> tuple[Any, Any, Any]:
    clock, script, h = setup(mode, spec, steps)
    with pytest.raises(JobStalled) as caught:
        h.wait_for_job("j", deadline=600, **call)
    return clock, script, caught.value


def test_unchanged_state_and_progress_stall_after_the_declared_seconds(mode: str) -> None:
    spec = attrs.evolve(PERCENT, stall_after=5.0)
    clock, script, error = _stall(mode, spec, [job("running", progress=40)])

    # Backoff sleeps 1.5, 3.0 (4.5 s unchanged), then 6.0: the read at 10.5 s stalls.
    assert clock.sleeps == [1.5, 3.0, 6.0]
    assert script.count == 4
    assert not isinstance(error, JobTimeout)
    assert (error.job_id, error.last_state, error.progress) == ("j", "running", 40.0)
    assert error.unchanged_for == 10.5 and error.stall_after == 5.0
    assert json.loads(error.resume_token)["attempt"] == 4
    assert "stalled" in str(error) and "40%" in str(error) and "not canceled" in str(error)


def test_progress_that_moves_is_not_a_stall(mode: str) -> None:
    spec = attrs.evolve(PERCENT, stall_after=2.0)
    steps = [job("running", progress=p) for p in (1, 2, 3, 4)] + [job("succeeded")]
    _, script, h = setup(mode, spec, steps)

    assert h.wait_for_job("j")["status"] == "succeeded"
    assert script.count == 5


def test_a_state_change_resets_the_stall_clock(mode: str) -> None:
    spec = attrs.evolve(DEMO, stall_after=4.0)
    steps = [job("queued"), job("queued"), job("running"), job("succeeded")]
    _, script, h = setup(mode, spec, steps)

    # Reads at 0, 1.5, 4.5 and 10.5 s: "queued" for 4.5 s would stall, but it changed then.
    assert h.wait_for_job("j")["status"] == "succeeded"
    assert script.count == 4


def test_the_call_overrides_the_jobs_stall_after(mode: str) -> None:
    _, script, error = _stall(mode, DEMO, [job("running")], stall_after=0.0)
    assert script.count == 2  # the second identical read already stalls
    assert error.stall_after == 0.0


def test_without_stall_after_an_unchanged_job_times_out(mode: str) -> None:
    _, _, h = setup(mode, PERCENT, [job("running", progress=3)])
    with pytest.raises(JobTimeout):
        h.wait_for_job("j", deadline=20)


def test_many_jobs_take_stall_after_per_call(mode: str) -> None:
    """`wait_for_jobs(stall_after=...)` ends each unchanged job with `JobStalled`, like the
    single waits; the collection's deadline stays the bound for the rest."""
    clock, _, h = setup(mode, PERCENT, [job("running", progress=40)])

    (outcome,) = h.wait_for_jobs(["j"], deadline=600, stall_after=5.0)

    assert isinstance(outcome.error, JobStalled) and outcome.job_id == "j"
    assert outcome.error.stall_after == 5.0 and outcome.error.unchanged_for == 10.5
    assert clock.sleeps == [1.5, 3.0, 6.0]
