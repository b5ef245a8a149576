"""The rate limiter is pluggable: `WaitConfig(status_limiter=...)` takes every status read
of a client's waits; `RedisRateLimiter` is one shared through a real Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer
from tests.fleet.conftest import SUME


class Recording:
    """A `StatusLimiter` that grants every slot and counts them."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def acquire(
        self, sleep: Callable[[float], None] = time.sleep, *, timeout: float | None = None
    ) -> bool:
        self.calls.append("sync")
        return True

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        self.calls.append("async")
        return True


def test_a_status_limiter_of_wait_config_takes_every_status_read(
    fleet_app: Any, sume_server: RunningServer
) -> None:
    limiter = Recording()
    config = fleet_app.WaitConfig(status_limiter=limiter, **fleet_app.SCHEDULE)
    scenario = SUME.scenario(states=[{"state": "processing", "polls": 2}])
    options = {"base_url": sume_server.base_url, "api_key": "key-1", "wait_config": config}

    first = sume_server.create_job(scenario, credential="key-1")
    with fleet_app.Client(transport=httpx.HTTPTransport(verify=False), **options) as client:
        client.jobs.wait_for_job(first, deadline=30)

    async def wait(job_id: str) -> None:
        transport = httpx.AsyncHTTPTransport(verify=False)
        async with fleet_app.AsyncClient(transport=transport, **options) as client:
            await client.jobs.wait_for_job(job_id, deadline=30)

    second = sume_server.create_job(scenario, credential="key-1")
    asyncio.run(wait(second))

    assert limiter.calls == ["sync"] * 3 + ["async"] * 3  # three reads of each job
    assert len([r for r in sume_server.requests(second) if r.operation == "status"]) == 3


def test_redis_rate_limiter_grants_the_burst_then_refuses_a_slot_beyond_the_timeout(
    fleet_app: Any,
) -> None:
    fleet_app.redis.flushdb()
    limiter = fleet_app.RedisRateLimiter(fleet_app.redis, "limits:a", rate=0.5, burst=3)
    other = fleet_app.RedisRateLimiter(fleet_app.redis, "limits:a", rate=0.5, burst=3)

    granted = [limiter.acquire(timeout=0), other.acquire(timeout=0), limiter.acquire(timeout=0)]
    assert granted == [True, True, True]
    assert not other.acquire(timeout=0.5)  # the next slot is two seconds away, for both
    assert not asyncio.run(limiter.acquire_async(timeout=0.5))

    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        raise InterruptedError

    with pytest.raises(InterruptedError):
        other.acquire(sleep)
    assert 1.0 < waits[0] <= 2.0
    assert fleet_app.RedisRateLimiter(fleet_app.redis, "limits:b", rate=0.5).acquire(timeout=0)


def test_redis_rate_limiter_refuses_a_rate_or_burst_that_is_not_positive(fleet_app: Any) -> None:
    for rate, burst in ((0, 1), (-1, 1), (1, 0)):
        with pytest.raises(ValueError, match="rate|burst"):
            fleet_app.RedisRateLimiter(fleet_app.redis, "limits:c", rate=rate, burst=burst)
