"""A terminal progress display for waits, on `rich` (the SDK's optional `progress` extra).

`ProgressDisplay` is an `on_poll` hook: every `PollEvent` updates one line per job with
a bar (the job's declared progress, or a pulse when it declares none), its state, and
when the next check is and why. The SDK itself never imports `rich`; this module does,
when a display is made (`pip install "<sdk>[progress]"`).

    with ProgressDisplay() as show:
        client.jobs.wait_for_job(job_id, on_poll=show)
"""

from __future__ import annotations

import importlib
from typing import Any, final

from ..shared.shown import display_id
from .spec import PollEvent

__all__ = ["ProgressDisplay"]


def _rich_progress() -> Any:
    try:
        return importlib.import_module("rich.progress")
    except ImportError:
        raise ImportError(
            "ProgressDisplay needs the 'rich' package: install the SDK with its "
            "'progress' extra"
        ) from None


@final
class ProgressDisplay:
    """Shows each waited-for job as a line: bar, percent, state, next check.

    `console` is a `rich.console.Console` (default: standard error); `transient`
    clears the lines when the display stops. Safe to share across the threads of
    `wait_for_jobs`.
    """

    def __init__(self, *, console: Any = None, transient: bool = False) -> None:
        rich = _rich_progress()
        columns = (
            rich.TextColumn("{task.description}"),
            rich.BarColumn(),
            rich.TextColumn("{task.fields[percent]:>4}"),
            rich.TextColumn("{task.fields[state]}"),
            rich.TextColumn("{task.fields[next]}"),
        )
        self._progress = rich.Progress(
            *columns, console=console, transient=transient, auto_refresh=False
        )
        self._tasks: dict[str, Any] = {}

    def __call__(self, event: PollEvent[Any]) -> None:
        fields = {
            "state": event.state if event.state is not None else "",
            "percent": "" if event.progress is None else f"{event.progress:.0f}%",
            "next": (
                "finished"
                if event.delay is None
                else f"next check in {event.delay:.1f}s ({event.source})"
            ),
        }
        task = self._tasks.get(event.job_id)
        if task is None:
            task = self._progress.add_task(
                display_id(event.job_id), total=None, **fields
            )
            self._tasks[event.job_id] = task
        if event.progress is not None:
            self._progress.update(task, total=100.0, completed=event.progress, **fields)
        elif event.delay is None:
            self._progress.update(task, total=1.0, completed=1.0, **fields)
        else:
            self._progress.update(task, **fields)
        self._progress.refresh()

    def start(self) -> None:
        self._progress.start()

    def stop(self) -> None:
        self._progress.stop()

    def __enter__(self) -> ProgressDisplay:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
