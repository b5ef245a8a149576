"""Deadline overshoot: how long after its deadline a wait returns, whatever the server does.

    python bench/deadline.py                   # both cases; writes bench/deadline.md and .json
    python bench/deadline.py --only trickle    # or: --only many, --only create
    python bench/deadline.py --waits 1000,10000   # concurrent waits per "many" run
    python bench/deadline.py --sdk DIR --out NAME   # another generated Sume SDK (DIR holds
                                                    # sume_sdk), e.g. an older checkout's

Run it with the repository's .venv (it starts `python -m jobgen serve`).

Cases:

- trickle: the status endpoint sends its headers at once, then the body (a terminal
  record) one byte every 0.3 s; `wait_for_job(deadline=3)` with `Client` and with
  `AsyncClient`, several runs each. A wait bounded per httpx phase (each read has its own
  timeout) returns only when the whole body is in, with the record; bounded as a whole,
  it raises `JobTimeout` about 3 s after it began.
- create: the create endpoint answers with a terminal record, its body trickled one
  byte a second after the headers, or stays silent for 60 s;
  `create_and_wait(deadline=3)` and `start(deadline=3)`, with `Client` and with
  `AsyncClient`, several runs each. Unbounded, the call returns the record once the
  answer is in (22 s for the trickle, 60 s for the silence); bounded by its deadline,
  the create raises `JobTimeout` about 3 s after the call began (timed from the call
  to its end; the client is made before and closed after).
- many: `jobgen serve specs/sume.yaml` in another process; N jobs that never finish
  (Sume's 2 s poll floor), all waited at once on one `AsyncClient` with
  `asyncio.gather(*(jobs.wait_for_job(id, deadline=D)))` (D = 20 s). The server cannot
  answer N / 2 reads a second, so requests queue in the client's connection pool.

Overshoot = the time from a wait's deadline to the moment it returned or raised
(negative: it ended before its deadline). Reported: count, outcomes, max, p99, p90, median.
A wait still running `--give-up` seconds (default 60) after its deadline is counted at
that value and marked ">=": the run does not wait for it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))

from tests.waiters.hostile import Behaviour, HostileServer, plain, silent, trickle_body

STAMP = "2026-01-01T00:00:00Z"
KEY = "bench-key"


def _record(job_id: str) -> dict[str, Any]:
    return {
        "data": {
            "id": job_id,
            "status": "completed",
            "terminal": True,
            "result_ready": True,
            "created_at": STAMP,
            "updated_at": STAMP,
        }
    }


def _summary(overshoots: list[float], outcomes: Counter[str]) -> dict[str, Any]:
    ordered = sorted(overshoots)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {
        "count": len(ordered),
        "outcomes": dict(outcomes),
        "max": ordered[-1],
        "p99": pct(0.99),
        "p90": pct(0.90),
        "median": statistics.median(ordered),
    }


# -- trickle -----------------------------------------------------------------------------


def trickle(sdk: Any, runs: int, deadline: float, gap: float) -> dict[str, Any]:
    def choose(path: str) -> Behaviour:
        job_id = path.rsplit("/", 1)[-1]
        if path.endswith("/result"):
            return plain({"data": {"job_id": job_id, "summary": "x"}})
        return trickle_body(_record(job_id), gap)

    results: dict[str, Any] = {}
    for mode in ("sync", "async"):
        overshoots: list[float] = []
        outcomes: Counter[str] = Counter()
        for run in range(runs):
            with HostileServer(choose) as server:
                started = time.monotonic()
                outcome = _one_trickle(sdk, mode, server.url, f"job_{run}", deadline)
                overshoots.append(time.monotonic() - started - deadline)
                outcomes[outcome] += 1
        results[mode] = _summary(overshoots, outcomes)
        print(f"trickle {mode}: {results[mode]}", flush=True)
    return results


def _one_trickle(sdk: Any, mode: str, url: str, job_id: str, deadline: float) -> str:
    try:
        if mode == "sync":
            with sdk.Client(base_url=url, api_key=KEY) as client:
                client.jobs.wait_for_job(job_id, deadline=deadline)
        else:

            async def main() -> None:
                async with sdk.AsyncClient(base_url=url, api_key=KEY) as client:
                    await client.jobs.wait_for_job(job_id, deadline=deadline)

            asyncio.run(main())
    except sdk.SDKError as error:
        return type(error).__name__
    return "returned"


# -- create ----------------------------------------------------------------------------

CREATE_FAULTS: dict[str, Callable[[dict[str, Any]], Behaviour]] = {
    "trickled": lambda body: trickle_body(body, 1.0),
    "silent": lambda body: silent(body, 60.0),
}


def create(sdk: Any, runs: int, deadline: float) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for fault, make in CREATE_FAULTS.items():
        answer = make(_record("job_created"))

        def choose(path: str, answer: Behaviour = answer) -> Behaviour:
            return answer if path == "/v1/jobs" else plain({"unexpected": path})

        for call in ("create_and_wait", "start"):
            for mode in ("sync", "async"):
                overshoots: list[float] = []
                outcomes: Counter[str] = Counter()
                for _ in range(runs):
                    with HostileServer(choose) as server:
                        outcome, took = _one_create(sdk, mode, server.url, call, deadline)
                        overshoots.append(took - deadline)
                        outcomes[outcome] += 1
                key = f"{fault} {call} {mode}"
                results[key] = _summary(overshoots, outcomes)
                print(f"create {key}: {results[key]}", flush=True)
    return results


def _one_create(sdk: Any, mode: str, url: str, call: str, deadline: float) -> tuple[str, float]:
    """The outcome of one call and its duration, from the call to its end (the
    client is made before and closed after)."""
    body = sdk.models.CreateJobRequest.from_dict({"input": {"type": "text", "text": "hi"}})
    outcome = "returned"
    if mode == "sync":
        with sdk.Client(base_url=url, api_key=KEY) as client:
            started = time.monotonic()
            try:
                getattr(client.jobs, call)(body=body, deadline=deadline)
            except sdk.SDKError as error:
                outcome = type(error).__name__
            return outcome, time.monotonic() - started

    async def main() -> tuple[str, float]:
        outcome = "returned"
        async with sdk.AsyncClient(base_url=url, api_key=KEY) as client:
            started = time.monotonic()
            try:
                await getattr(client.jobs, call)(body=body, deadline=deadline)
            except sdk.SDKError as error:
                outcome = type(error).__name__
            return outcome, time.monotonic() - started

    return asyncio.run(main())


# -- many --------------------------------------------------------------------------------


class Serve:
    """`jobgen serve specs/sume.yaml` in a child process."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jobgen", "serve", "specs/sume.yaml", "--port", "0"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            found = re.search(r"on (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        else:
            raise RuntimeError("jobgen serve did not start")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


async def _create(url: str, count: int) -> list[str]:
    import httpx

    scenario = json.dumps({"states": [{"state": "processing", "polls": 1}], "final": "never"})
    headers = {"x-api-key": KEY, "x-jobgen-scenario": scenario}
    body = {"input": {"type": "text", "text": "hello"}}
    ids: list[str] = []
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        gate = asyncio.Semaphore(50)

        async def one() -> None:
            async with gate:
                answer = await client.post("/v1/jobs", json=body, headers=headers)
                answer.raise_for_status()
                ids.append(answer.json()["data"]["id"])

        await asyncio.gather(*(one() for _ in range(count)))
    return ids


def many(
    sdk: Any,
    waits: int,
    deadline: float,
    give_up: float,
    on_give_up: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Overshoots of `waits` concurrent waits. If some are still running `give_up`
    seconds after their deadline, a watchdog thread hands `on_give_up` the result so
    far, those waits counted at `give_up` (the event loop itself may be too busy to
    notice the time, and cancelling them can take longer still)."""
    server = Serve()
    try:
        ids = asyncio.run(_create(server.url, waits))
        overshoots: list[float] = []
        outcomes: Counter[str] = Counter()
        lock = threading.Lock()

        async def wait(client: Any, job_id: str) -> None:
            started = time.monotonic()
            try:
                await client.jobs.wait_for_job(job_id, deadline=deadline)
                outcome = "returned"
            except sdk.SDKError as error:
                outcome = type(error).__name__
            with lock:
                overshoots.append(time.monotonic() - started - deadline)
                outcomes[outcome] += 1

        def stop() -> None:
            with lock:
                unfinished = waits - len(overshoots)
                counted = Counter(outcomes)
                counted[f"still waiting {give_up:g} s after the deadline"] = unfinished
                result = _summary([*overshoots, *[give_up] * unfinished], counted)
            server.close()
            result["censored"] = True
            print(f"many ({waits} waits): gave up: {result}", flush=True)
            on_give_up(result)

        async def main() -> None:
            async with sdk.AsyncClient(base_url=server.url, api_key=KEY) as client:
                await asyncio.gather(*(wait(client, job_id) for job_id in ids))

        watchdog = threading.Timer(deadline + give_up, stop)
        watchdog.daemon = True
        watchdog.start()
        asyncio.run(main())
        watchdog.cancel()
    finally:
        server.close()
    result = _summary(overshoots, outcomes)
    print(f"many ({waits} waits): {result}", flush=True)
    return result


# -- report ------------------------------------------------------------------------------


def _row(case: str, r: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
    top = max(r["max"], r["p99"], r["p90"], r["median"])
    cells = [
        (">= " if r.get("censored") and value == top else "") + f"{value:.2f}"
        for value in (r["max"], r["p99"], r["p90"], r["median"])
    ]
    verdict = "yes" if r["max"] < 1 else "no"
    return f"| {case} | {r['count']} | {outcomes} | {' | '.join(cells)} | {verdict} |"


def report(data: dict[str, Any]) -> str:
    lines = [
        "# Deadline overshoot",
        "",
        (
            f"{data['when']}, SDK {data['sdk']}, Python {data['python']}, "
            f"{data['cpus']} CPUs (load average {data['load']:.2f} at start). "
            f"Command: `{data['command']}`."
        ),
        "",
        (
            "Seconds from each wait's deadline to the moment it returned or raised "
            "(target: max < 1 s)."
        ),
        "",
        "| case | waits | outcomes | max | p99 | p90 | median | max < 1 s? |",
        "|---|---|---|---|---|---|---|---|",
    ]
    trickled = data.get("trickle")
    if trickled:
        t = trickled["settings"]
        for mode in ("sync", "async"):
            case = f"trickle, {mode} (deadline {t['deadline']:g} s, 1 byte / {t['gap']:g} s)"
            lines.append(_row(case, trickled[mode]))
    created = data.get("create")
    if created:
        c = created.pop("settings")
        for key, result in created.items():
            fault, call, mode = key.split(" ")
            what = "1 byte / s" if fault == "trickled" else "silent 60 s"
            case = f"create {fault} ({what}), {call}, {mode} (deadline {c['deadline']:g} s)"
            lines.append(_row(case, result))
        created["settings"] = c
    for crowd in data.get("many", []):
        s = crowd["settings"]
        case = f"{s['waits']} concurrent waits, one AsyncClient (deadline {s['deadline']:g} s)"
        lines.append(_row(case, crowd["result"]))
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("trickle", "create", "many"))
    parser.add_argument("--sdk", type=Path, default=REPO / "generated" / "sume")
    parser.add_argument("--out", default="deadline", help="bench/OUT.md and bench/OUT.json")
    parser.add_argument("--runs", type=int, default=5, help="trickle runs per twin")
    parser.add_argument("--waits", default="10000", help="comma-separated counts")
    parser.add_argument("--deadline", type=float, default=20.0, help="of the many waits")
    parser.add_argument(
        "--give-up", type=float, default=60.0, help="seconds past the deadline to stop"
    )
    args = parser.parse_args()

    sys.path.insert(0, str(args.sdk.resolve()))
    import sume_sdk

    data: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "sdk": str(args.sdk.resolve().relative_to(REPO))
        if args.sdk.resolve().is_relative_to(REPO)
        else str(args.sdk),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0],
        "command": " ".join(["python bench/deadline.py", *sys.argv[1:]]),
    }
    if args.only in (None, "trickle"):
        data["trickle"] = trickle(sume_sdk, args.runs, deadline=3.0, gap=0.3)
        data["trickle"]["settings"] = {"deadline": 3.0, "gap": 0.3, "runs": args.runs}
    if args.only in (None, "create"):
        data["create"] = create(sume_sdk, args.runs, deadline=3.0)
        data["create"]["settings"] = {"deadline": 3.0, "runs": args.runs}
    if args.only in (None, "many"):
        for waits in (int(count) for count in args.waits.split(",")):
            entry: dict[str, Any] = {"settings": {"waits": waits, "deadline": args.deadline}}
            data.setdefault("many", []).append(entry)

            def gave_up(result: dict[str, Any], entry: dict[str, Any] = entry) -> None:
                entry["result"] = result
                finish(data, args.out)

            entry["result"] = many(sume_sdk, waits, args.deadline, args.give_up, gave_up)
    finish(data, args.out)


def finish(data: dict[str, Any], out: str) -> None:
    """Write the results and end the process (a watchdog thread may call this)."""
    (BENCH / f"{out}.json").write_text(json.dumps(data, indent=2) + "\n")
    (BENCH / f"{out}.md").write_text(report(data))
    print(report(data), flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
