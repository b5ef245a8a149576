"""ProgressDisplay: one line per job with bar, percent, state and next check, on rich."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console

from jobgen.runtime.waiting.display import ProgressDisplay
from jobgen.runtime.waiting.spec import PollEvent


def _event(job_id: str, attempt: int, state: str, progress: float | None, delay: float | None):
    return PollEvent(
        job_id=job_id,
        attempt=attempt,
        state=state,
        delay=delay,
        source=None if delay is None else "hint",
        elapsed=float(attempt),
        record={},
        progress=progress,
    )


def _shown(events: list[PollEvent]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False, color_system=None)
    with ProgressDisplay(console=console) as show:
        for event in events:
            show(event)
    return out.getvalue()


def test_each_job_shows_its_state_percent_and_next_check() -> None:
    text = _shown(
        [
            _event("job_a", 0, "processing", 40.0, 2.5),
            _event("job_b", 0, "queued", None, 1.0),
            _event("job_a", 1, "completed", 100.0, None),
        ]
    )
    last = text.strip().splitlines()[-2:]
    job_a = next(line for line in last if "job_a" in line)
    job_b = next(line for line in last if "job_b" in line)
    assert "100%" in job_a and "completed" in job_a and "finished" in job_a
    assert "queued" in job_b and "next check in 1.0s (hint)" in job_b and "%" not in job_b


def test_without_rich_it_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rich.progress", None)
    with pytest.raises(ImportError, match="'progress' extra"):
        ProgressDisplay()
