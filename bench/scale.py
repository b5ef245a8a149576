"""Child process: one asyncio process waiting on many jobs at once.

Usage: python bench/scale.py --mode jobgen|bare --jobs N --reads K [--rate R]
                             [--profile] --json OUT

`jobgen` waits through the generated Sume SDK (generated/sume): AsyncClient over an
httpx.MockTransport, `client.jobs.wait_for_jobs(ids, concurrency=N)`, schedule
first 0.5 s / cap 1 s / floor 0 (Sume's 2 s floor is lowered so the run stays short).
`bare` is the reference: the same httpx.AsyncClient and transport, one task per job
running `get; raise_for_status; json; sleep U(0.5, 1)` by hand. Each job answers
`processing` K-1 times, then `completed`. The transport answers in-process from
pre-serialised bodies, so nearly all CPU time is the client side.

Reports CPU time per status read, peak RSS over the baseline per waiting job, and,
with --rate, the most reads in any 1 s window. With --profile, cProfile time is split
between jobgen's code (the SDK, its runtime, attrs-generated methods, tenacity), httpx
(with httpcore), JSON decoding, the asyncio loop and the in-process transport; time
in builtins and other standard-library modules goes to their callers' groups.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "generated" / "sume"))

from sume_sdk import AsyncClient, WaitConfig

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * PAGE


def body(job_id: str, done: bool) -> bytes:
    record = {
        "id": job_id,
        "status": "completed" if done else "processing",
        "terminal": done,
        "result_ready": done,
        "created_at": "2025-01-02T03:04:05Z",
        "updated_at": "2025-01-02T03:04:05Z",
        "next_poll_after_seconds": None,
        "mode": "polling",
        "webhook_url": None,
        "progress": {},
        "error": None,
        "metadata": {},
    }
    return json.dumps({"data": record}).encode()


class Server:
    """The in-process job API: GET /v1/jobs/{id}."""

    def __init__(self, reads_to_finish: int, record_times: bool) -> None:
        self.k = reads_to_finish
        self.reads: dict[str, int] = {}
        self.total = 0
        self.times: list[float] | None = [] if record_times else None
        self.headers = {"content-type": "application/json"}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        job_id = request.url.path.rsplit("/", 1)[1]
        n = self.reads[job_id] = self.reads.get(job_id, 0) + 1
        self.total += 1
        if self.times is not None:
            self.times.append(time.monotonic())
        return httpx.Response(200, content=body(job_id, n >= self.k), headers=self.headers)


async def wait_jobgen(client: AsyncClient, ids: list[str]) -> int:
    ok = 0
    async with client.jobs.wait_for_jobs(ids, concurrency=len(ids), deadline=600.0) as outcomes:
        async for outcome in outcomes:
            ok += outcome.ok
    return ok


async def wait_jobgen_gather(client: AsyncClient, ids: list[str]) -> int:
    async def one(job_id: str) -> bool:
        record = await client.jobs.wait_for_job(job_id, deadline=600.0)
        return record.status == "completed"

    return sum(await asyncio.gather(*(one(i) for i in ids)))


async def wait_bare(client: httpx.AsyncClient, ids: list[str]) -> int:
    async def one(job_id: str) -> bool:
        while True:
            response = await client.get(f"/v1/jobs/{job_id}")
            response.raise_for_status()
            record = response.json()["data"]
            if record["terminal"]:
                return record["status"] == "completed"
            await asyncio.sleep(0.5 + random.random() * 0.5)

    return sum(await asyncio.gather(*(one(i) for i in ids)))


async def monitor(peak: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss())
        try:
            await asyncio.wait_for(stop.wait(), 0.02)
        except TimeoutError:
            pass


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    server = Server(args.reads, record_times=args.rate is not None)
    transport = httpx.MockTransport(server)
    if args.mode == "jobgen":
        config = WaitConfig(first=0.5, cap=1.0, floor=0.0, max_status_reads_per_second=args.rate)
        client: Any = AsyncClient(
            api_key="bench",
            base_url="http://bench.invalid",
            transport=transport,
            wait_config=config,
        )
        run = wait_jobgen_gather if args.gather else wait_jobgen
    else:
        client = httpx.AsyncClient(
            base_url="http://bench.invalid",
            transport=transport,
            headers={"Authorization": "Bearer bench"},
        )
        run = wait_bare
    async with client:
        await run(client, ["warmup"])  # imports and first-use costs stay out of the numbers
        ids = [f"job_{i:06d}" for i in range(args.jobs)]
        server.total, server.times = 0, ([] if server.times is not None else None)
        baseline = rss()
        peak = [baseline]
        stop = asyncio.Event()
        watcher = asyncio.create_task(monitor(peak, stop))
        profiler = cProfile.Profile() if args.profile else None
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if profiler:
            profiler.enable()
        ok = await run(client, ids)
        if profiler:
            profiler.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        stop.set()
        await watcher
    result: dict[str, Any] = {
        "mode": args.mode + (" (gather of wait_for_job)" if args.gather else ""),
        "jobs": args.jobs,
        "ok": ok,
        "reads": server.total,
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_per_read_us": cpu / server.total * 1e6 if server.total else None,
        "rss_baseline_mb": baseline / 2**20,
        "rss_peak_mb": peak[0] / 2**20,
        "bytes_per_job": (peak[0] - baseline) / args.jobs,
    }
    if server.times:
        result.update(rate_check(server.times, args.rate))
    if profiler:
        result["profile"] = attribute(pstats.Stats(profiler))
    return result


def rate_check(times: list[float], rate: float) -> dict[str, Any]:
    times.sort()
    most, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= 1.0:
            lo += 1
        most = max(most, hi - lo + 1)
    span = times[-1] - times[0]
    per_second = [0] * (int(span) + 1)
    for t in times:
        per_second[int(t - times[0])] += 1
    return {
        "reads_per_second": per_second,
        "rate_cap": rate,
        "max_reads_in_1s": most,
        "mean_rate": (len(times) - 1) / span if span > 0 else None,
        "cap_holds": most <= rate + 1,  # GCRA: at most burst + rate * w in a window w
    }


GROUPS = (
    ("jobgen", ("/sume_sdk/", "<attrs generated")),
    ("tenacity", ("/tenacity/",)),
    ("httpx", ("/httpx/", "/httpcore/", "/h11/", "/anyio/", "/sniffio/", "/idna/")),
    ("json", ("/json/",)),
    (
        "asyncio loop",
        ("/asyncio/base_events.py", "/asyncio/events.py", "/selectors.py", "/asyncio/runners.py"),
    ),
    ("transport stub", ("bench/scale.py",)),
)


def _group(filename: str) -> str | None:
    for name, needles in GROUPS:
        if any(n in filename for n in needles):
            return name
    return None


def attribute(stats: pstats.Stats) -> dict[str, Any]:
    table = stats.stats  # type: ignore[attr-defined]
    memo: dict[Any, dict[str, float]] = {}

    def dist(func: Any, depth: int) -> dict[str, float]:
        if func in memo:
            return memo[func]
        group = _group(func[0])
        if group is not None:
            return {group: 1.0}
        callers = table.get(func, (0, 0, 0, 0, {}))[4]
        weights = {c: (edge[2] or edge[1]) for c, edge in callers.items()}
        total = sum(weights.values())
        if depth > 12 or not total:
            return {"other": 1.0}
        out: dict[str, float] = {}
        for caller, w in weights.items():
            for g, f in dist(caller, depth + 1).items():
                out[g] = out.get(g, 0.0) + f * w / total
        memo[func] = out
        return out

    seconds: dict[str, float] = {}
    idle = 0.0
    for func, (_, _, tottime, _, _) in table.items():
        if func[0] == "~" and "poll" in func[2] and "select" in func[2]:
            idle += tottime  # the event loop waiting for timers: not CPU
            continue
        for g, f in dist(func, 0).items():
            seconds[g] = seconds.get(g, 0.0) + tottime * f
    total = sum(seconds.values())

    def label(filename: str, name: str) -> str:
        if "/tenacity/" in filename:
            return "tenacity/" + filename.split("/tenacity/", 1)[1] + ":" + name
        return f"{Path(filename).parent.name}/{Path(filename).name}:{name}"

    jobgen_funcs = sorted(
        (
            (label(k[0], k[2]), v[2])
            for k, v in table.items()
            if _group(k[0]) in ("jobgen", "tenacity")
        ),
        key=lambda kv: kv[1],
        reverse=True,
    )[:12]
    by_file: dict[str, float] = {}
    for k, v in table.items():
        if _group(k[0]) in ("jobgen", "tenacity"):
            name = (
                "tenacity"
                if "/tenacity/" in k[0]
                else (
                    "attrs-generated"
                    if k[0].startswith("<attrs")
                    else "/".join(Path(k[0]).parts[-2:])
                )
            )
            by_file[name] = by_file.get(name, 0.0) + v[2]
    return {
        "idle_s": idle,
        "seconds": seconds,
        "shares": {g: s / total for g, s in seconds.items()},
        "top_jobgen_self": [{"function": n, "tottime": t} for n, t in jobgen_funcs],
        "jobgen_self_by_file": dict(sorted(by_file.items(), key=lambda kv: -kv[1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("jobgen", "bare"), required=True)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=3)
    parser.add_argument("--rate", type=float)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--gather",
        action="store_true",
        help="jobgen: one wait_for_job per job under asyncio.gather",
    )
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    random.seed(0)
    result = asyncio.run(main_async(args))
    args.json.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "profile"}))


if __name__ == "__main__":
    main()
