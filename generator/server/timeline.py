"""The timeline of one simulated job: pure functions of a scenario, its progress and a clock.

Nothing here does I/O or reads a clock; ``now`` is always passed in (monotonic seconds).

Vocabulary:

- a *poll* is a status request for the job that passed authentication, numbered from 1;
  polls answered with an injected fault (an error status, a dropped connection, a
  malformed body) count as polls;
- a *read* is a poll answered with the job's record. A stage held for ``polls: N`` is
  reported by N reads: fault answers do not use it up;
- a stage held for ``seconds: S`` lasts S seconds from the moment it began, whether or not
  anyone reads the job; a stage that follows a ``polls`` stage begins at the read that
  ended that stage;
- after the last stage comes the final state. With ``final: never`` the last stage lasts
  forever instead;
- a declared progress field advances ``progress_per_read`` percent with every read (0: a
  stuck job), stays under 100 while running and is 100 on success;
- the result is *ready* once the job is in a success state, ``result_delay_polls`` reads
  have reported that state with the result not ready, and ``result_delay_seconds`` have
  passed since it was reached.
"""

from __future__ import annotations

from typing import Literal

import attrs

from .scenario import CreateFault, RetryAfter, Scenario

__all__ = [
    "Dropped",
    "ErrorAnswer",
    "Malformed",
    "Progress",
    "StatusFault",
    "View",
    "create_fault",
    "peek",
    "read",
    "start",
    "status_fault",
]

ViewKind = Literal["pending", "success", "failure", "canceled", "undocumented"]


@attrs.frozen
class Progress:
    """Where a job is: its stage (``len(stages)`` is the final state) and how it got there."""

    stage: int
    entered_at: float
    entered_reads: int = 0
    reads: int = 0


@attrs.frozen
class View:
    """What the job reports at one moment."""

    state: str
    kind: ViewKind
    terminal: bool
    ready: bool
    percent: float = 0.0


@attrs.frozen
class ErrorAnswer:
    status: int
    retry_after: RetryAfter | None = None


@attrs.frozen
class Dropped:
    pass


@attrs.frozen
class Malformed:
    pass


StatusFault = ErrorAnswer | Dropped | Malformed


def start(now: float) -> Progress:
    """The progress of a job created at ``now``."""
    return Progress(stage=0, entered_at=now)


def _holds(scenario: Scenario, stage: int) -> bool:
    """True when ``stage`` lasts forever (the last stage of a job that never ends)."""
    return scenario.final_kind == "never" and stage == len(scenario.stages) - 1


def _settle(scenario: Scenario, progress: Progress, now: float) -> Progress:
    """End every ``seconds`` stage whose time is up by ``now``."""
    while progress.stage < len(scenario.stages) and not _holds(scenario, progress.stage):
        seconds = scenario.stages[progress.stage].seconds
        if seconds is None:
            break
        end = progress.entered_at + seconds
        if now < end:
            break
        progress = Progress(progress.stage + 1, end, progress.reads, progress.reads)
    return progress


def _view(scenario: Scenario, progress: Progress, now: float) -> View:
    # Progress advances with every read and reaches 100 only on success.
    percent = min(99.0, progress.reads * scenario.progress_per_read)
    if progress.stage < len(scenario.stages):
        state = scenario.stages[progress.stage].state
        return View(state, "pending", terminal=False, ready=False, percent=percent)
    assert scenario.final is not None and scenario.final_kind != "never"
    kind = scenario.final_kind
    ready = (
        kind == "success"
        and progress.reads - progress.entered_reads >= scenario.result_delay_polls
        and now - progress.entered_at >= scenario.result_delay_seconds
    )
    if kind == "success":
        percent = 100.0
    return View(scenario.final, kind, terminal=kind != "undocumented", ready=ready, percent=percent)


def peek(scenario: Scenario, progress: Progress, now: float) -> tuple[Progress, View]:
    """What the job reports at ``now`` without counting a read (create answers, results)."""
    progress = _settle(scenario, progress, now)
    return progress, _view(scenario, progress, now)


def read(scenario: Scenario, progress: Progress, now: float) -> tuple[Progress, View]:
    """Serve one read at ``now``: what it reports, and the progress after it."""
    progress, view = peek(scenario, progress, now)
    progress = attrs.evolve(progress, reads=progress.reads + 1)
    if progress.stage < len(scenario.stages) and not _holds(scenario, progress.stage):
        polls = scenario.stages[progress.stage].polls
        if polls is not None and progress.reads - progress.entered_reads >= polls:
            progress = Progress(progress.stage + 1, now, progress.reads, progress.reads)
    return progress, view


def status_fault(scenario: Scenario, poll: int) -> StatusFault | None:
    """The fault injected into status poll ``poll`` (1-based), if any."""
    if poll in scenario.drop_connection_at_polls:
        return Dropped()
    if poll in scenario.malformed_at_polls:
        return Malformed()
    for error in scenario.status_errors:
        if poll in error.polls:
            return ErrorAnswer(error.status, error.retry_after)
    return None


def create_fault(scenario: Scenario, attempt: int) -> CreateFault | None:
    """The fault injected into create attempt ``attempt`` (1-based), if any."""
    return next((f for f in scenario.create_errors if attempt in f.attempts), None)
