"""The Celery app of bench/fleet.py's workers: the Sume SDK's `CeleryWaits` on Redis.

Configured from the environment bench/fleet.py starts workers with: BENCH_REDIS (broker
and bookkeeping), BENCH_API (the `jobgen serve` URL), BENCH_RATE (the fleet-wide cap on
status reads per second), BENCH_VISIBILITY and BENCH_GRACE (seconds), BENCH_NAME (the
worker's name, sent as `x-fleet-worker`). The schedule is Sume's own (2 s floor); the
lease, re-send and sweep intervals are docs/fleet.md's (5 s, 5 s, 1 s). The callback
applies its effect through `waits.once()` and notes every delivery.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "generated" / "sume"))

import httpx
from celery import Celery
from celery.signals import worker_ready
from redis import Redis
from sume_sdk import Client, WaitConfig
from sume_sdk.fleet import CeleryWaits, RedisRateLimiter

REDIS_URL = os.environ["BENCH_REDIS"]
#: One entry per effect applied (label, outcome, when: monotonic, the server log's clock).
REPORTS = "bench:reports"
#: Every delivery of a report: label, report id, when.
DELIVERIES = "bench:deliveries"
#: How many times each label's effect was applied (1, by `once()`).
EFFECTS = "bench:effects"
READY = "bench:ready"

app = Celery("fleet_bench", broker=REDIS_URL)
app.conf.update(
    broker_connection_retry_on_startup=True,
    broker_transport_options={
        "visibility_timeout": float(os.environ.get("BENCH_VISIBILITY", "60")),
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    },
    worker_hijack_root_logger=False,
    worker_prefetch_multiplier=16,
)
redis = Redis.from_url(REDIS_URL)
limiter = RedisRateLimiter(redis, "bench:status-reads", float(os.environ.get("BENCH_RATE", "400")))


def client() -> Client:
    return Client(
        base_url=os.environ["BENCH_API"],
        api_key="key-1",
        wait_config=WaitConfig(status_limiter=limiter),
        headers={"x-fleet-worker": os.environ.get("BENCH_NAME", "")},
        transport=httpx.HTTPTransport(verify=False),
    )


waits = CeleryWaits(
    app,
    client,
    redis=redis,
    name="bench",
    grace=float(os.environ.get("BENCH_GRACE", "90")),
    lease=5,
    resend=5,
    sweep_every=1,
)


@app.task(name="bench.record", acks_late=True, ignore_result=True)
def record(report: dict[str, Any], label: int) -> None:
    """The callback: when (monotonic, the same clock as the server's log) and how, once
    per report; every delivery noted."""
    now = time.monotonic()
    delivery = {"label": label, "report_id": report["report_id"], "at": now}
    redis.rpush(DELIVERIES, json.dumps(delivery))
    entry = {"label": label, "outcome": report["outcome"], "at": now}

    def effect(pipe: Any) -> None:
        pipe.rpush(REPORTS, json.dumps(entry))
        pipe.hincrby(EFFECTS, str(label), 1)

    waits.once(report, effect)


@worker_ready.connect
def _ready(**_: Any) -> None:
    redis.sadd(READY, os.environ.get("BENCH_NAME", str(os.getpid())))
