"""The live demo: generate the Sume SDK, start the simulated API, wait for real jobs.

``python -m jobgen.demo`` (or ``make demo``) generates an SDK from the embedded
example spec into a temporary directory, serves that spec on loopback with
``jobgen serve``'s in-process runner, and waits for a handful of jobs through the
generated client: one that succeeds after a few checks, one whose server sends
Retry-After, one that fails and one that outlives its deadline. For each it prints the
requests the server saw, every wait and why it was chosen, and the outcome; on a terminal
with rich installed, a progress bar (state, percent, next check) runs while it waits.
Nothing is left running afterwards.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

import attrs

from .pipeline import Target, generate
from .problems import counted
from .server.runner import run_server

__all__ = ["main"]

SPEC = Path(__file__).resolve().parents[1] / "specs" / "sume.yaml"
PACKAGE = "sume_demo_sdk"
API_KEY = "demo-key"


@attrs.frozen
class Scenario:
    title: str
    scenario: dict[str, Any]
    call: str  # "result" or "job"
    deadline: float


SCENARIOS = (
    Scenario(
        "succeeds after three checks (server hint 0.5 s, floored at Sume's 2 s)",
        {"states": [{"state": "processing", "polls": 3}], "final": "completed", "hint": 0.5},
        "result",
        60.0,
    ),
    Scenario(
        "the server sends Retry-After: 3",
        {"states": [{"state": "queued", "polls": 2}], "final": "completed", "retry_after": 3},
        "result",
        60.0,
    ),
    Scenario(
        "the job fails on its second check",
        {"states": [{"state": "processing", "polls": 1}], "final": "failed"},
        "result",
        60.0,
    ),
    Scenario(
        "three 503s mid-job: retried apart from the schedule",
        {
            "states": [{"state": "processing", "polls": 2}],
            "final": "completed",
            "status_errors": [{"at_poll": 2, "status": 503, "count": 3}],
        },
        "result",
        60.0,
    ),
    Scenario(
        "the job never finishes; the deadline is 5 s",
        {"states": [{"state": "processing", "polls": 1}], "final": "never", "hint": 2},
        "job",
        5.0,
    ),
)


class Progress:
    """Live progress while a wait sleeps, only on a terminal: the SDK's progress bar when
    rich (its `progress` extra) is installed, else a status line."""

    def __init__(self, out: TextIO, sdk: ModuleType) -> None:
        self.out = out
        self.events: list[Any] = []
        self.display: Any = None
        if out.isatty():
            try:
                console = importlib.import_module("rich.console").Console(file=out)
                self.display = sdk.ProgressDisplay(console=console, transient=True)
                self.display.start()
            except ImportError:
                self.display = None
        self.live = out.isatty() and self.display is None

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        if self.display is not None:
            self.display(event)
        elif self.live and event.delay is not None:
            self.out.write(
                f"\r  ... {event.job_id}: check {event.attempt} says {event.state}; "
                f"next check in {event.delay:.1f} s ({event.source})   "
            )
            self.out.flush()

    def clear(self) -> None:
        if self.display is not None:
            self.display.stop()
        if self.live:
            self.out.write("\r" + " " * 100 + "\r")
            self.out.flush()


@contextmanager
def _imported(directory: Path) -> Iterator[ModuleType]:
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(directory))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _outcome(sdk: ModuleType, run: Callable[[], Any]) -> str:
    errors = sdk.errors
    try:
        value = run()
    except errors.JobFailed as exc:
        return f"raised JobFailed: {exc}"
    except errors.JobTimeout as exc:
        return f"raised JobTimeout: {exc}\n  resume token: {exc.resume_token}"
    except errors.SDKError as exc:
        return f"raised {type(exc).__name__}: {exc}"
    return f"returned {type(value).__name__}: {_short(value)}"


def _short(value: Any) -> str:
    data = value.to_dict() if hasattr(value, "to_dict") else value
    text = repr(data)
    return text if len(text) <= 90 else text[:87] + "..."


def run_demo(out: TextIO = sys.stdout) -> int:
    """Run every scenario; returns the exit code."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jobgen-demo-") as tmp:
        target = Target(spec=SPEC, output=Path(tmp) / "sdk", package=PACKAGE)
        done = generate(target)
        out.write(
            f"Generated {PACKAGE} from specs/{SPEC.name}: {counted(done.files, 'file')}, "
            f"{counted(done.lines, 'line')}, in {done.seconds:.2f} s\n"
        )
        with run_server(SPEC) as server, _imported(target.output) as sdk:
            out.write(f"Simulated Sume API listening on {server.base_url}\n")
            for number, case in enumerate(SCENARIOS, 1):
                _run_case(out, sdk, server, number, case)
    out.write(f"\nDone in {time.monotonic() - started:.1f} s; the server has stopped.\n")
    return 0


def _run_case(out: TextIO, sdk: ModuleType, server: Any, number: int, case: Scenario) -> None:
    progress = Progress(out, sdk)
    client = sdk.Client(
        api_key=API_KEY,
        base_url=server.base_url,
        wait_config=sdk.WaitConfig(on_poll=progress),
    )
    with client:
        job_id = server.create_job(case.scenario, credential=API_KEY)
        out.write(f"\n{number}. {case.title} ({job_id})\n")
        if case.call == "result":
            outcome = _outcome(
                sdk, lambda: client.jobs.wait_for_result(job_id, deadline=case.deadline)
            )
        else:
            outcome = _outcome(
                sdk, lambda: client.jobs.wait_for_job(job_id, deadline=case.deadline)
            )
    progress.clear()
    states = iter(e.state for e in progress.events)
    for record in server.requests(job_id):
        status = "dropped" if record.status is None else str(record.status)
        if record.operation == "status" and record.status == 200:
            status += f" {next(states, '')}"
        out.write(f"  {record.method} {record.path} -> {status}\n")
    waits = [e for e in progress.events if e.delay is not None]
    if waits:
        schedule = ", ".join(f"{e.delay:.1f} s ({e.source})" for e in waits)
        out.write(f"  waits: {schedule}\n")
    else:
        out.write("  waits: none\n")
    out.write(f"  {outcome}\n")


def main() -> int:
    return run_demo()


if __name__ == "__main__":
    raise SystemExit(main())
