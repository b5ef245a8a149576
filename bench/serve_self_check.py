#!/usr/bin/env python3
"""Cost of the self-check (and of repairing made-up values) per status read of `jobgen serve`.

    .venv/bin/python bench/serve_self_check.py

Answers the same status read of a running Sume job in process (``JobApp.handle``), once
with the responses the spec declares left unread (no repair, no check: the server as it
was before the self-check) and once as served; prints microseconds per read (the median
of 7 runs of 2,000 reads).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from jobgen.model.build import load_and_build
from jobgen.server.app import JobApp
from jobgen.server.wire import Request

SPEC = Path(__file__).resolve().parent.parent / "specs" / "sume.yaml"


def per_call(fn: Callable[[], object], n: int = 2000) -> float:
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(runs)


def status_read(checked: bool) -> Callable[[], object]:
    app = JobApp(load_and_build(SPEC), spec_path=SPEC, self_check="log")
    if not checked:
        app.declared = app.self_check.declared = None
        for kind in app.kinds.values():
            kind.declared = None
    job_id = app.create_job({"final": "never"}, credential="key-1")
    request = Request("GET", f"/v1/jobs/{job_id}", "", {"x-api-key": "key-1"}, b"", "h")
    return lambda: app.handle(request)


def main() -> None:
    for checked in (False, True):
        label = "checked and repaired" if checked else "unchecked"
        print(f"status read, {label}: {per_call(status_read(checked)):.0f} µs")


if __name__ == "__main__":
    main()
