"""The last look before a deadline (W5), in virtual time: is a job that ends just before
the deadline seen, on every seed?

    python bench/last_look.py            # writes bench/last_look.md
    python bench/last_look.py --seeds 200 --out NAME

jobgen's `SyncJobWaiter`, built from `generator/runtime` as in bench/waiters.py (one
injected clock, sleep and seeded rng; status reads take no virtual time) waits for a
job that is `running` until T and `succeeded` from T on, with `deadline=D`. A run is
"seen" when the wait returns the succeeded record, "missed" when it raises
`JobTimeout` although the job ended before the deadline. Reported per case: runs,
missed, and when the missed waits raised (earliest, latest), in seconds of the wait.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from jobgen.runtime.shared.errors import JobTimeout
from jobgen.runtime.waiting.spec import JobSpec, WaitConfig
from jobgen.runtime.waiting.waiter import SyncJobWaiter

BENCH = Path(__file__).resolve().parent
EPOCH = 1_750_000_000.0
SPEC = JobSpec(
    name="job",
    state_path=("status",),
    success={"succeeded"},
    failure={"failed"},
    pending={"running"},
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


def _status(clock: Clock, done_at: float) -> httpx.Response:
    state = "succeeded" if clock.now >= done_at else "running"
    request = httpx.Request("GET", "https://api.example/jobs/job-1")
    return httpx.Response(200, json={"id": "job-1", "status": state}, request=request)


#: (name, T, deadline, floor, first, cap)
CASES = [
    ("done at 19 s of 20 s, default schedule (floor 0)", 19.0, 20.0, 0.0, 1.0, 30.0),
    ("done at 19 s of 20 s, floor 1 s", 19.0, 20.0, 1.0, 1.0, 30.0),
    ("done at 19 s of 20 s, floor 2 s (Sume's schedule)", 19.0, 20.0, 2.0, 2.0, 30.0),
    ("done at 3.2 s of 4 s, floor 2 s (Sume's schedule)", 3.2, 4.0, 2.0, 2.0, 30.0),
    ("done at 59 s of 60 s, floor 1 s", 59.0, 60.0, 1.0, 1.0, 30.0),
]


def _run(
    done_at: float, deadline: float, floor: float, first: float, cap: float, seed: int
) -> float | None:
    """None when the job was seen, else the elapsed time at which the wait raised."""
    clock = Clock()
    config = WaitConfig(
        clock=lambda: clock.now,
        wall_clock=lambda: EPOCH + clock.now,
        sleep=clock.sleep,
        rng=random.Random(seed).random,
        floor=floor,
        first=first,
        cap=cap,
    )
    waiter: SyncJobWaiter[Any, Any] = SyncJobWaiter(
        SPEC,
        read_status=lambda job_id, timeout: _status(clock, done_at),
        decode_record=lambda raw: raw,
        config=config,
    )
    try:
        record = waiter.wait_for_job("job-1", deadline=deadline)
    except JobTimeout as error:
        return error.elapsed
    assert record["status"] == "succeeded", record
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--out", default="last_look")
    args = parser.parse_args()
    lines = [
        "# The last look before a deadline",
        "",
        (
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python"
            f" {platform.python_version()}. Command: `python bench/last_look.py"
            f" --seeds {args.seeds}`."
        ),
        "",
        (
            f"Seeds 0..{args.seeds - 1} of the waiter's rng per case; a missed run raised"
            " `JobTimeout` although the job ended before its deadline."
        ),
        "",
        "| case | runs | missed | missed waits raised at |",
        "|---|---|---|---|",
    ]
    for name, done_at, deadline, floor, first, cap in CASES:
        raised = [
            at
            for seed in range(args.seeds)
            if (at := _run(done_at, deadline, floor, first, cap, seed)) is not None
        ]
        when = f"{min(raised):.2f}-{max(raised):.2f} s" if raised else "-"
        lines.append(f"| {name} | {args.seeds} | {len(raised)} | {when} |")
    text = "\n".join(lines) + "\n"
    (BENCH / f"{args.out}.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
