"""Fleet-scale waits: N jobs waited on by W Celery workers against `jobgen serve`.

Usage: .venv/bin/python bench/fleet.py [--jobs 10000] [--workers 4] [--rate 60]
           [--hint 120] [--min 120] [--max 360] [--kill-at 240] [--visibility 180]
           [--json bench/fleet.json]          (about 17 minutes with the defaults)
       .venv/bin/python bench/fleet.py --soak [--jobs 2000] [--kill-every 20] [--scale 2]
           [--json bench/fleet-soak.json]     (the kill soak: about 5 minutes)

Starts a redis-server (Debian's package) on a free loopback port, `jobgen serve
specs/sume.yaml`, and W Celery worker processes of bench/fleet_app.py (threads pool,
4 threads each), whose clients share one `RedisRateLimiter` of `--rate` status reads per
second. Creates N Sume jobs through the control endpoint, each `queued` until its first
status read, then `processing` for a duration drawn uniformly in [--min, --max] seconds
(seeded), sending a body poll hint of --hint seconds; then follows each with
`CeleryWaits.follow(handle, on_done=record.s(i))` (deadline 1 h). At --kill-at seconds one worker is SIGKILLed and a new one started in its
place (0: none). When every job has been reported (or --patience runs out) it reads the
server's request log and the reports, and prints and writes:

- status reads against the hint-optimal count: per job, 1 + ceil((end - first read) / hint),
  the reads of a poller that reads exactly when the hint allows from its first read on;
- detection lag: from the moment the job turned terminal (its first read + its duration)
  to the callback running (both on the machine's monotonic clock), p50 / p99 / max, beside
  the hint-optimal poller's lag from the same first read;
- the most status reads the server answered in any 1 s window, against the cap;
- jobs reported twice or never;
- for the killed worker: the running jobs it had polled, and their lag;
- CPU time per status read of the workers still running at the end, the server and Redis.

With --soak it runs the kill soak of tests/fleet/soak.py instead: docs/fleet.md's
`tasks.py` as written (its timeouts divided by --scale), 2 threads and 2 prefork
workers, one SIGKILLed every --kill-every seconds and replaced, against the simulated API
in this process; it prints and writes jobs lost, effects repeated, duplicate deliveries
(same report id), status reads after a report and the redelivery lag.
"""

from __future__ import annotations

import argparse
import bisect
import importlib
import itertools
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_redis() -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed: apt-get install -y redis-server")
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    process = subprocess.Popen([*command, "--appendonly", "no"], stdout=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    sys.exit("redis-server did not start")


def start_server() -> tuple[subprocess.Popen[str], str]:
    command = [str(BIN / "jobgen"), "serve", "specs/sume.yaml", "--port", "0"]
    limits = ["--max-jobs", "0", "--max-log", "0", "--job-ttl", "0"]
    process = subprocess.Popen([*command, *limits], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"on (http://\S+)", line)
        if found:
            return process, found.group(1)
    sys.exit("jobgen serve did not start")


class Workers:
    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs = env, logs
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, skew: float | None = None) -> None:
        """Start a worker; `skew`: under libfaketime, its wall clock that far off."""
        command = [
            str(BIN / "celery"), "-A", "fleet_app", "worker", "--pool=threads",
            "--concurrency=4", f"--hostname={name}@bench", "--without-gossip",
            "--without-mingle", "--without-heartbeat", "--loglevel=WARNING",
        ]  # fmt: skip
        env = dict(self.env, BENCH_NAME=name)
        if skew is not None:
            if shutil.which("faketime") is None:
                sys.exit("faketime is not installed: apt-get install -y faketime")
            command = ["faketime", "-f", f"{skew:+g}s", *command]
            env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            faked = REPO / "tests" / "fleet" / "faked"  # its sitecustomize: time.sleep
            env["PYTHONPATH"] = f"{faked}{os.pathsep}{env['PYTHONPATH']}"
        with (self.logs / f"{name}.log").open("ab") as out:
            self.running[name] = subprocess.Popen(
                command,
                cwd=REPO / "bench",
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self, name: str) -> None:
        """SIGKILL the worker (and, under faketime, the worker faketime started)."""
        worker = self.running.pop(name)
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker.wait()

    def stop(self) -> None:
        for name in list(self.running):
            self.kill(name)


def soak(args: argparse.Namespace) -> None:
    """The kill soak (tests/fleet/soak.py) on a redis-server of its own."""
    import tempfile

    sys.path.insert(0, str(REPO))
    from jobgen.server import run_server
    from tests.fleet import soak as kill_soak
    from tests.fleet.docapp import SUME, DocFleet

    redis_process, redis_url = start_redis()
    try:
        with run_server(SUME.spec, max_log=None) as server, tempfile.TemporaryDirectory() as tmp:
            fleet = DocFleet(Path(tmp), redis_url, server.base_url, scale=args.scale)
            results = kill_soak.run(
                fleet, server, jobs=args.jobs, kill_every=args.kill_every, seed=args.seed
            )
    finally:
        redis_process.terminate()
        redis_process.wait()
    results["scale"] = args.scale
    results["load_average_1m_at_end"] = os.getloadavg()[0]
    print(json.dumps(results, indent=2))
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def lag_run(args: argparse.Namespace, kill: bool, skew: float | None) -> dict[str, Any]:
    """One run of `--lag`: N jobs on W workers (the first skewed by `skew` s, or
    SIGKILLed at --kill-at s and replaced); its lag and its guarantee's figures."""
    logs = REPO / "bench" / ".work" / "fleet-lag"
    logs.mkdir(parents=True, exist_ok=True)
    redis_process, redis_url = start_redis()
    server, api = start_server()
    env = dict(
        os.environ,
        BENCH_REDIS=redis_url,
        BENCH_API=api,
        BENCH_RATE=str(args.rate),
        BENCH_VISIBILITY="300",
        BENCH_GRACE="60",
        PYTHONPATH=str(REPO / "bench"),
    )
    os.environ.update(BENCH_REDIS=redis_url, BENCH_API=api)
    sys.path.insert(0, str(REPO / "bench"))
    import fleet_app

    fleet_app = importlib.reload(fleet_app)  # this run's Redis
    redis = fleet_app.redis
    workers = Workers(env, logs)
    killed: tuple[str, float] | None = None
    in_flight_at_kill = None
    try:
        names = [f"w{n}" for n in range(1, args.workers + 1)]
        for n, name in enumerate(names):
            workers.start(name, skew=skew if n == 0 else None)
        while len(redis.smembers(fleet_app.READY)) < len(names):
            time.sleep(0.1)
        rng = random.Random(args.seed)
        durations = [rng.uniform(args.min, args.max) for _ in range(args.jobs)]
        control = httpx.Client(base_url=api, headers={"x-api-key": "key-1"}, timeout=60)
        job_ids = []
        for duration in durations:
            stages = [
                {"state": "queued", "polls": 1},
                {"state": "processing", "seconds": duration},
            ]
            scenario = {"states": stages, "hint": args.hint}
            response = control.post("/_jobgen/jobs", json=scenario).raise_for_status()
            job_ids.append(response.json()["id"])
        client = fleet_app.client()
        started = time.monotonic()
        for i, job_id in enumerate(job_ids):
            handle = client.jobs.handle(job_id, deadline=3600)
            fleet_app.waits.follow(handle, on_done=fleet_app.record.s(i))
        deadline = started + args.patience
        while redis.llen(fleet_app.REPORTS) < args.jobs and time.monotonic() < deadline:
            if kill and killed is None and time.monotonic() - started >= args.kill_at:
                in_flight_at_kill = args.jobs - redis.llen(fleet_app.REPORTS)
                killed = (names[0], time.monotonic())
                workers.kill(names[0])
                workers.start(f"{names[0]}-restarted")
                print(f"  killed {names[0]} with {in_flight_at_kill} waits in flight", flush=True)
            time.sleep(0.2)
        time.sleep(5.0)  # late copies and deliveries, if any, come now
        log = control.get("/_jobgen/requests").raise_for_status().json()["requests"]
        effects = [json.loads(r) for r in redis.lrange(fleet_app.REPORTS, 0, -1)]
        deliveries = [json.loads(r) for r in redis.lrange(fleet_app.DELIVERIES, 0, -1)]
        applied = {int(k): int(v) for k, v in redis.hgetall(fleet_app.EFFECTS).items()}
    finally:
        workers.stop()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        redis_process.terminate()
        redis_process.wait()
    reads: dict[str, list[dict[str, Any]]] = {}
    for entry in log:
        if entry["operation"] == "status":
            reads.setdefault(entry["job_id"], []).append(entry)
    effect_at = {e["label"]: e["at"] for e in effects}
    first_delivery: dict[int, float] = {}
    for delivery in deliveries:
        first_delivery.setdefault(delivery["label"], delivery["at"])
    lags, optimal, held = [], [], []
    early = after = 0
    for i, job_id in enumerate(job_ids):
        mine = reads.get(job_id, [])
        times = [r["time"] for r in mine]
        early += sum(1 for a, b in itertools.pairwise(times) if b - a < args.hint - 0.01)
        if i in first_delivery:
            after += sum(1 for t in times if t > first_delivery[i])
        if not mine or i not in effect_at:
            continue
        end = times[0] + durations[i]
        lags.append(effect_at[i] - end)
        optimal.append(math.ceil(durations[i] / args.hint) * args.hint - durations[i])
        if killed is not None and end > killed[1]:
            before = [r for r in mine if r["time"] < killed[1]]
            if before and before[-1]["headers"].get("x-fleet-worker") == killed[0]:
                held.append(effect_at[i] - end)

    def stats(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        return {
            "p50": round(percentile(values, 50), 2),
            "p99": round(percentile(values, 99), 2),
            "max": round(max(values), 2),
        }

    return {
        "kill": None
        if killed is None
        else {
            "worker": killed[0],
            "waits_in_flight": in_flight_at_kill,
            "waits_it_held": len(held),
            "their_lag_seconds": stats(held),
        },
        "skew_seconds": skew,
        "jobs": args.jobs,
        "lost": args.jobs - len(effect_at),
        "effects_applied_twice": sum(1 for n in applied.values() if n > 1),
        "deliveries": len(deliveries),
        "status_reads": sum(len(v) for v in reads.values()),
        "reads_sooner_than_hint": early,
        "reads_after_report": after,
        "lag_seconds": stats(lags),
        "hint_bound_optimum_lag_seconds": stats(optimal),
    }


def lag(args: argparse.Namespace) -> None:
    """--lag: the same jobs with no fault, a worker SIGKILLed, and one worker's clock
    25 s ahead and 25 s behind."""
    runs = {
        "no fault": (False, None),
        "worker SIGKILLed": (True, None),
        "one clock +25 s": (False, 25.0),
        "one clock -25 s": (False, -25.0),
    }
    results: dict[str, Any] = {
        "jobs": args.jobs,
        "workers": args.workers,
        "hint_seconds": args.hint,
        "durations_seconds": [args.min, args.max],
        "kill_at_seconds": args.kill_at,
        "runs": {},
    }
    for name, (kill, skew) in runs.items():
        print(f"{name}:", flush=True)
        run = lag_run(args, kill, skew)
        results["runs"][name] = run
        print(f"  {json.dumps(run)}", flush=True)
    base = results["runs"]["no fault"]
    killed = results["runs"]["worker SIGKILLed"]
    bound = 2 * killed["hint_bound_optimum_lag_seconds"]["p99"] + 5
    results["kill_p99_bound_seconds"] = round(bound, 2)
    results["kill_p99_within_bound"] = killed["lag_seconds"]["p99"] <= bound
    results["skew_p99_over_no_fault"] = {
        name: round(run["lag_seconds"]["p99"] / base["lag_seconds"]["p99"], 2)
        for name, run in results["runs"].items()
        if run["skew_seconds"] is not None
    }
    results["load_average_1m_at_end"] = os.getloadavg()[0]
    print(json.dumps(results, indent=2))
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--rate", type=float, default=60.0)
    parser.add_argument("--hint", type=float, default=120.0)
    parser.add_argument("--min", type=float, default=120.0)
    parser.add_argument("--max", type=float, default=360.0)
    parser.add_argument("--kill-at", type=float, default=240.0)
    parser.add_argument("--visibility", type=float, default=180.0)
    parser.add_argument("--patience", type=float, default=2400.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--soak", action="store_true", help="run the kill soak")
    parser.add_argument("--lag", action="store_true", help="lag runs: kill, skew")
    parser.add_argument("--kill-every", type=float, default=20.0)
    parser.add_argument("--scale", type=float, default=2.0)
    args = parser.parse_args()
    if args.lag:
        defaults = {"jobs": 240, "hint": 2.0, "min": 10.0, "max": 40.0, "kill_at": 18.0}
        defaults |= {"workers": 3, "rate": 400.0, "patience": 240.0}
        for key, value in defaults.items():
            if getattr(args, key) == parser.get_default(key):
                setattr(args, key, value)
        args.json = args.json or REPO / "bench" / "fleet-lag.json"
        lag(args)
        return
    if args.soak:
        if args.jobs == parser.get_default("jobs"):
            args.jobs = 2000
        args.json = args.json or REPO / "bench" / "fleet-soak.json"
        soak(args)
        return
    args.json = args.json or REPO / "bench" / "fleet.json"

    logs = REPO / "bench" / ".work" / "fleet"
    logs.mkdir(parents=True, exist_ok=True)
    redis_process, redis_url = start_redis()
    server, api = start_server()
    env = dict(
        os.environ,
        BENCH_REDIS=redis_url,
        BENCH_API=api,
        BENCH_RATE=str(args.rate),
        BENCH_VISIBILITY=str(args.visibility),
        BENCH_GRACE=str(args.visibility * 1.5),
        PYTHONPATH=str(REPO / "bench"),
    )
    os.environ.update(BENCH_REDIS=redis_url, BENCH_API=api)
    sys.path.insert(0, str(REPO / "bench"))
    import fleet_app

    workers = Workers(env, logs)
    try:
        names = [f"w{n}" for n in range(1, args.workers + 1)]
        for name in names:
            workers.start(name)
        while len(fleet_app.redis.smembers(fleet_app.READY)) < len(names):
            time.sleep(0.1)
        rng = random.Random(args.seed)
        durations = [rng.uniform(args.min, args.max) for _ in range(args.jobs)]
        control = httpx.Client(base_url=api, headers={"x-api-key": "key-1"}, timeout=60)
        # queued until the first read, then processing for the duration: the job ends
        # `duration` seconds after its first read (the server's log dates that read)
        job_ids = []
        for duration in durations:
            stages = [
                {"state": "queued", "polls": 1},
                {"state": "processing", "seconds": duration},
            ]
            scenario = {"states": stages, "hint": args.hint}
            response = control.post("/_jobgen/jobs", json=scenario).raise_for_status()
            job_ids.append(response.json()["id"])
        client = fleet_app.client()
        started = time.monotonic()
        for i, job_id in enumerate(job_ids):
            handle = client.jobs.handle(job_id, deadline=3600)
            fleet_app.waits.follow(handle, on_done=fleet_app.record.s(i))
        followed = time.monotonic() - started
        print(f"{args.jobs} jobs followed in {followed:.1f} s", flush=True)
        killed = None
        deadline = started + args.patience
        while fleet_app.redis.llen(fleet_app.REPORTS) < args.jobs and time.monotonic() < deadline:
            if args.kill_at and killed is None and time.monotonic() - started >= args.kill_at:
                killed = (names[0], time.monotonic(), time.monotonic() - started)
                workers.kill(names[0])
                workers.start(f"{names[0]}-restarted")
                print(f"killed {names[0]} at {killed[2]:.1f} s", flush=True)
            time.sleep(0.5)
        time.sleep(args.visibility + 5.0)  # late copies, if any, come now
        finished = time.monotonic() - started
        reports = [json.loads(r) for r in fleet_app.redis.lrange(fleet_app.REPORTS, 0, -1)]
        cpu = {
            "workers": sum(cpu_seconds(w.pid) for w in workers.running.values()),
            "server": cpu_seconds(server.pid),
            "redis": cpu_seconds(redis_process.pid),
        }
        log = control.get("/_jobgen/requests").raise_for_status().json()["requests"]
    finally:
        workers.stop()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        redis_process.terminate()
        redis_process.wait()

    results = analyse(args, job_ids, durations, reports, log, killed, followed, finished)
    reads = results["status_reads"] or 1
    results["cpu_ms_per_read"] = {k: round(1000 * v / reads, 2) for k, v in cpu.items()}
    results["load_average_1m_at_end"] = os.getloadavg()[0]
    print(json.dumps(results, indent=2))
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def analyse(
    args: argparse.Namespace,
    job_ids: list[str],
    durations: list[float],
    reports: list[dict[str, Any]],
    log: list[dict[str, Any]],
    killed: tuple[str, float, float] | None,
    followed: float,
    finished: float,
) -> dict[str, Any]:
    reads: dict[str, list[dict[str, Any]]] = {}
    for entry in log:
        if entry["operation"] == "status":
            reads.setdefault(entry["job_id"], []).append(entry)
    seen: dict[int, list[dict[str, Any]]] = {}
    for report in reports:
        seen.setdefault(report["label"], []).append(report)
    optimal = 0
    lags, optimal_lags, held_lags = [], [], []
    held = 0
    for i, job_id in enumerate(job_ids):
        mine = reads.get(job_id, [])
        if not mine or i not in seen:
            continue
        first = mine[0]["time"]
        end = first + durations[i]
        polls = 1 + max(0, math.ceil((end - first) / args.hint))
        optimal += polls
        lag = seen[i][0]["at"] - end
        lags.append(lag)
        optimal_lags.append(first + (polls - 1) * args.hint - end)
        if killed is not None:
            by_killed = [r for r in mine if r["headers"].get("x-fleet-worker") == killed[0]]
            if by_killed and end > killed[1]:
                held += 1
                held_lags.append(lag)
    times = sorted(entry["time"] for entries in reads.values() for entry in entries)
    peak = max((bisect.bisect_left(times, t + 1.0) - k for k, t in enumerate(times)), default=0)
    total = sum(len(entries) for entries in reads.values())

    def stats(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        return {
            "p50": round(percentile(values, 50), 2),
            "p99": round(percentile(values, 99), 2),
            "max": round(max(values), 2),
        }

    return {
        "jobs": len(job_ids),
        "workers": args.workers,
        "cap_reads_per_second": args.rate,
        "hint_seconds": args.hint,
        "durations_seconds": [args.min, args.max],
        "followed_in_seconds": round(followed, 1),
        "run_seconds": round(finished, 1),
        "reported": len(seen),
        "reported_twice": sum(1 for entries in seen.values() if len(entries) > 1),
        "never_reported": len(job_ids) - len(seen),
        "outcomes": sorted({r["outcome"] for r in reports}),
        "status_reads": total,
        "hint_optimal_reads": optimal,
        "reads_over_optimal": round(total / optimal, 3) if optimal else None,
        "detection_lag_seconds": stats(lags),
        "hint_optimal_lag_seconds": stats(optimal_lags),
        "peak_reads_in_1s": peak,
        "killed_worker": None
        if killed is None
        else {
            "name": killed[0],
            "at_seconds": round(killed[2], 1),
            "visibility_timeout": args.visibility,
            "running_jobs_it_had_polled": held,
            "their_detection_lag_seconds": stats(held_lags),
        },
    }


if __name__ == "__main__":
    main()
