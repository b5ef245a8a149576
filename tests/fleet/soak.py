"""The kill soak: docs/fleet.md's app through thousands of jobs while workers die.

`run()` starts workers of the page's `tasks.py` (through `docapp.OBSERVER`, which notes
every step and every callback call), its timeouts shortened by `scale`, follows `jobs`
jobs of the simulated Sume API with `summary_done.s(invoice)`, SIGKILLs one worker every
`kill_every` seconds (in turn, a replacement of the same pool started at once), and once
every job's effect is applied and nothing is left in flight, counts from the server's
request log and the notes:

- lost: jobs whose effect never happened; effects repeated (the page's counter above
  the jobs);
- deliveries, duplicate deliveries (a report delivered again, same report id), and jobs
  delivered under more than one report id (never: the guarantee);
- status reads after the report (after the first call of the job's callback);
- redelivery lag: for each wait whose last step before a kill ran on the killed worker,
  the time from the kill to its next step (p50 / max).

Used by tests/fleet/test_soak.py (exhaustive) and bench/fleet.py --soak.
"""

from __future__ import annotations

import collections
import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from jobgen.server import RunningServer
from tests.fleet.docapp import SUME, DocFleet, worker_commands

#: Where the observed workers note each step's start: wait id, worker, when.
STEPS = "doc:steps"
OBSERVE_STEPS = """

@task_prerun.connect
def _stepped(sender=None, args=None, **_):
    if sender.name == waits.task.name:
        entry = {"wait": args[0]["wait"], "worker": os.environ["DOC_WORKER"], "at": time.monotonic()}
        redis.rpush("doc:steps", json.dumps(entry))
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1)]


def _scenario(rng: random.Random) -> dict[str, Any]:
    draw = rng.random()
    if draw < 0.1:
        return SUME.scenario(final="failure")
    if draw < 0.2:
        return SUME.scenario(final="canceled")
    polls = rng.randint(0, 2)
    states = [{"state": "processing", "polls": polls}] if polls else []
    if draw < 0.3:  # 503s that one step's status retries absorb
        return SUME.scenario(states=states, status_errors=[{"at_poll": 1, "status": 503}])
    return SUME.scenario(states=states)


def run(
    fleet: DocFleet,
    server: RunningServer,
    *,
    jobs: int = 2000,
    pools: tuple[str, ...] = ("threads", "threads", "prefork", "prefork"),
    kill_every: float = 20.0,
    seed: int = 7,
    patience: float = 540.0,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run the soak; returns its figures (see the module's docstring)."""
    (fleet.folder / "observed.py").write_text(
        (fleet.folder / "observed.py").read_text(encoding="utf-8") + OBSERVE_STEPS,
        encoding="utf-8",
    )
    tasks = fleet.load()
    redis = tasks.redis
    redis.flushdb()
    tasks.Redis.from_url(fleet.env["BROKER_URL"]).flushdb()
    broker = tasks.Redis.from_url(fleet.env["BROKER_URL"])
    commands = {}
    for command in worker_commands():
        pool = next(arg for arg in command if arg.startswith("--pool=")).split("=", 1)[1]
        commands[pool] = command
    names = collections.Counter[str]()

    def start(pool: str) -> str:
        names[pool] += 1
        name = f"{pool}{names[pool]}"
        fleet.start(commands[pool], name, app="observed")
        return name

    running = [start(pool) for pool in pools]
    deadline = time.monotonic() + 120
    while redis.scard("doc:ready") < len(running):
        if time.monotonic() > deadline:
            raise RuntimeError("the workers did not start")
        time.sleep(0.1)

    rng = random.Random(seed)
    job_ids = [server.create_job(_scenario(rng), credential="key-1") for _ in range(jobs)]
    with fleet.environment():
        client = tasks.client()
    started = time.monotonic()
    for invoice, job_id in enumerate(job_ids):
        handle = client.jobs.handle(job_id, deadline=1800)
        tasks.waits.follow(handle, on_done=tasks.summary_done.s(invoice))
    followed = time.monotonic() - started
    say(f"{jobs} jobs followed in {followed:.1f} s")

    name = tasks.waits.name
    kills: list[tuple[str, float]] = []

    def settled() -> bool:
        if int(redis.get("invoices:summarised") or 0) < jobs:
            return False
        if broker.llen("celery") or broker.hlen("unacked") or redis.zcard(f"{name}:outbox"):
            return False
        return not any(redis.scan_iter(f"{name}:wait:*", count=1000))

    next_kill = time.monotonic() + kill_every
    give_up = started + patience
    try:
        while not settled():
            now = time.monotonic()
            if now > give_up:
                break
            if now >= next_kill:
                victim = running.pop(0)
                fleet.kill(victim)
                kills.append((victim, time.monotonic()))
                running.append(start(victim.rstrip("0123456789")))
                say(f"killed {victim} at {now - started:.1f} s; started {running[-1]}")
                next_kill = now + kill_every
            time.sleep(0.2)
        finished = time.monotonic() - started
        complete = settled()
    finally:
        fleet.stop()

    return _figures(tasks, server, job_ids, kills, started, followed, finished, complete)


def _figures(
    tasks: Any,
    server: RunningServer,
    job_ids: list[str],
    kills: list[tuple[str, float]],
    started: float,
    followed: float,
    finished: float,
    complete: bool,
) -> dict[str, Any]:
    redis = tasks.redis
    deliveries = [json.loads(raw) for raw in redis.lrange("doc:deliveries", 0, -1)]
    steps = [json.loads(raw) for raw in redis.lrange(STEPS, 0, -1)]
    ids: dict[int, set[str]] = collections.defaultdict(set)
    first: dict[int, float] = {}
    for delivery in deliveries:
        ids[delivery["invoice"]].add(delivery["report_id"])
        first.setdefault(delivery["invoice"], delivery["at"])
    reported = sum(1 for invoice in range(len(job_ids)) if redis.exists(f"invoice:{invoice}"))
    reads = [r for r in server.requests() if r.operation == "status"]
    by_job = collections.defaultdict(list)
    for read in reads:
        by_job[read.job_id].append(read.time)
    after = sum(
        1
        for invoice, job_id in enumerate(job_ids)
        for at in by_job[job_id]
        if invoice in first and at > first[invoice]
    )
    # redelivery lag: waits whose last step before a kill ran on the killed worker
    by_wait = collections.defaultdict(list)
    for step in steps:
        by_wait[step["wait"]].append((step["at"], step["worker"]))
    lags = []
    for victim, at in kills:
        for entries in by_wait.values():
            before = [e for e in entries if e[0] < at]
            later = [e[0] for e in entries if e[0] >= at]
            if before and later and max(before)[1] == victim:
                lags.append(min(later) - at)
    summarised = int(redis.get("invoices:summarised") or 0)
    return {
        "jobs": len(job_ids),
        "complete": complete,
        "kills": len(kills),
        "followed_in_seconds": round(followed, 1),
        "run_seconds": round(finished, 1),
        "reported": reported,
        "lost": len(job_ids) - reported,
        "effects_applied": summarised,
        "effects_repeated": summarised - reported,
        "deliveries": len(deliveries),
        "duplicate_deliveries": len(deliveries) - sum(len(v) for v in ids.values()),
        "jobs_with_two_report_ids": sum(1 for v in ids.values() if len(v) > 1),
        "status_reads": len(reads),
        "status_reads_after_report": after,
        "steps_run": len(steps),
        "waits_on_killed_workers": len(lags),
        "redelivery_lag_seconds": {
            "p50": round(_percentile(lags, 50), 1),
            "max": round(max(lags), 1),
        }
        if lags
        else {},
    }
