"""The Celery app the fleet tests run in worker processes: the Sume SDK's `CeleryWaits`
on a Redis broker, configured from the environment the tests start workers with.

FLEET_REDIS   the Redis URL (broker and bookkeeping)
FLEET_API     the simulated API's base URL
FLEET_RATE    status reads per second for the whole fleet (RedisRateLimiter); none if unset
FLEET_NAME    the worker's name, sent as `x-fleet-worker` on every request
FLEET_VISIBILITY  seconds before the broker hands a lost worker's steps to another (3)
FLEET_GRACE   seconds a report may go unacknowledged before the sweepers send it again (5)
FLEET_LEASE   seconds of a step's lease, renewed while it runs (2: a loaded machine can
              stall a worker's heartbeat for a second; a read it holds is then repeated)
FLEET_RESEND  seconds before a step sent and taken by no worker is sent again (1)
FLEET_SWEEPER "off": this worker runs no sweeper (a beat schedule would run `<name>.sweep`)
FLEET_KILL_AT a point of `POINTS`, or "callback" (inside the callback's effect): the first
              process of the fleet to reach it SIGKILLs FLEET_KILL_WHOM there, once
FLEET_KILL_WHOM  "self" (the process at the point: a threads worker, a prefork pool child)
              or "main" (the prefork worker's main process, then the child)
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

import httpx
from celery import Celery
from celery.signals import worker_ready
from redis import Redis
from sume_sdk import AsyncClient, Client, RetryPolicy, WaitConfig
from sume_sdk.fleet import CeleryWaits, RedisRateLimiter, ReportBusy, ReportMismatch

REDIS_URL = os.environ["FLEET_REDIS"]
#: How long the broker waits for a lost worker's steps before handing them to another:
#: short, for the test of a killed worker; it must exceed how long a step can wait in a
#: worker (its countdown, and its turn among the worker's prefetched steps).
VISIBILITY_TIMEOUT = float(os.environ.get("FLEET_VISIBILITY", "3"))
#: The poll schedule (the spec's 2 s floor, lowered): small, so tests take seconds.
SCHEDULE = {"first": 0.1, "floor": 0.1, "cap": 0.2}
#: Where the `record` task keeps each report once (its effect, through `waits.once`)...
REPORTS = "fleet-tests:reports"
#: ... and every delivery of one: report id and when (monotonic, the server log's clock).
DELIVERIES = "fleet-tests:deliveries"
#: When each point was first reached, per wait (hash per point: wait id -> monotonic).
POINT_TIMES = "fleet-tests:point:"
KILLED = "fleet-tests:killed"
READY = "fleet-tests:ready"

app = Celery("fleet_tests", broker=REDIS_URL)
app.conf.update(
    broker_connection_retry_on_startup=True,
    broker_transport_options={
        "visibility_timeout": VISIBILITY_TIMEOUT,
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    },
    worker_hijack_root_logger=False,
    worker_prefetch_multiplier=8,
)
redis = Redis.from_url(REDIS_URL)


def client() -> Client:
    rate = os.environ.get("FLEET_RATE")
    limiter = RedisRateLimiter(redis, "fleet-tests:status-reads", float(rate)) if rate else None
    retry = RetryPolicy(attempts=3, budget=2.0, first=0.05, cap=0.1)
    config = WaitConfig(status_limiter=limiter, status_retry=retry, **SCHEDULE)
    return Client(
        base_url=os.environ["FLEET_API"],
        api_key="key-1",
        wait_config=config,
        headers={"x-fleet-worker": os.environ.get("FLEET_NAME", "")},
        transport=httpx.HTTPTransport(verify=False),
    )


__all__ = [
    "AsyncClient",
    "Client",
    "RedisRateLimiter",
    "ReportBusy",
    "ReportMismatch",
    "WaitConfig",
    "app",
    "plain",
    "record",
    "waits",
]


def observe(point: str, wait_id: str) -> None:
    """Dates each point's first passage per wait, and SIGKILLs where FLEET_KILL_AT says."""
    redis.hsetnx(POINT_TIMES + point, wait_id, repr(time.monotonic()))
    _kill_at(point)


def _kill_at(point: str) -> None:
    if os.environ.get("FLEET_KILL_AT") != point or not redis.set(KILLED, point, nx=True):
        return
    if os.environ.get("FLEET_KILL_WHOM") == "main":
        os.kill(os.getppid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


waits = CeleryWaits(
    app,
    client,
    redis=redis,
    name="fleet-tests",
    grace=float(os.environ.get("FLEET_GRACE", "5")),
    lease=float(os.environ.get("FLEET_LEASE", "2")),
    resend=float(os.environ.get("FLEET_RESEND", "1")),
    sweep_every=0.2,
    unavailable_delay=0.5,
    retry_delay=0.5,
    observe=observe,
    sweeper=os.environ.get("FLEET_SWEEPER") != "off",
)


@app.task(name="fleet-tests.record", acks_late=True, ignore_result=True)
def record(report: dict[str, Any], label: str) -> None:
    """The user's callback: notes every delivery, and keeps the report (with the label it
    was followed with) once per report id."""
    delivery = {"report_id": report["report_id"], "label": label, "at": time.monotonic()}
    redis.rpush(DELIVERIES, json.dumps(delivery))

    def effect(pipe: Any) -> None:
        _kill_at("callback")
        pipe.rpush(REPORTS, json.dumps({"label": label, **report}))

    waits.once(report, effect, lease=1.0)


@app.task(name="fleet-tests.plain", acks_late=True, ignore_result=True)
def plain(report: dict[str, Any], label: str) -> None:
    """A callback without `waits.once`: notes every delivery; the first delivery of a
    report labelled "raises" raises after that."""
    delivery = {"report_id": report["report_id"], "label": label, "at": time.monotonic()}
    redis.rpush(DELIVERIES, json.dumps(delivery))
    if label == "raises" and redis.set(f"fleet-tests:raised:{report['report_id']}", 1, nx=True):
        raise RuntimeError("the callback failed")


@worker_ready.connect
def _ready(**_: Any) -> None:
    redis.sadd(READY, os.environ.get("FLEET_NAME", str(os.getpid())))
