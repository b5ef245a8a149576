"""Deterministic doubles for the runtime tests: a fake clock, a scripted status
endpoint, and a harness that runs the sync or the async waiter behind one interface."""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Iterable
from typing import Any

import httpx

from jobgen.runtime.shared.errors import APIConnectionError
from jobgen.runtime.waiting.ratelimit import RateLimiter
from jobgen.runtime.waiting.waiter import (
    AsyncJobWaiter,
    HeaderHint,
    JobSpec,
    SyncJobWaiter,
    WaitConfig,
)

START = 1000.0
WALL_START = 1_767_225_600.0  # 2026-01-01T00:00:00Z

REQUEST = httpx.Request("GET", "http://x/jobs/1")

DEMO = JobSpec(
    name="job",
    state_path=("status",),
    success={"succeeded"},
    failure={"failed"},
    canceled={"canceled"},
    pending={"queued", "running"},
    error_path=("error",),
    header_hints=(HeaderHint("Retry-After", "retry-after"),),
)

SUME = JobSpec(
    name="sume_job",
    record_path=("data",),
    state_path=("status",),
    success={"completed"},
    failure={"failed"},
    canceled={"canceled"},
    pending={"queued", "processing"},
    terminal_path=("terminal",),
    ready_path=("result_ready",),
    error_path=("error",),
    hint_path=("next_poll_after_seconds",),
    header_hints=(
        HeaderHint("Retry-After", "retry-after"),
        HeaderHint("x-poll-after-ms", "milliseconds"),
    ),
    floor=2.0,
    id_path=("data", "id"),
    idempotency_header="Idempotency-Key",
)


class FakeClock:
    """Time moves only when something sleeps; every sleep is recorded."""

    def __init__(self, now: float = START, wall: float = WALL_START) -> None:
        self.now = now
        self.wall_offset = wall - now
        self.sleeps: list[float] = []
        self.moments: list[tuple[float, float]] = []  # (when, seconds) of every sleep

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.now + self.wall_offset

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, seconds
        self.sleeps.append(seconds)
        self.moments.append((self.now, seconds))
        self.now += seconds

    async def async_sleep(self, seconds: float) -> None:
        self.sleep(seconds)
        await asyncio.sleep(0)

    def config(self, **overrides: Any) -> WaitConfig:
        settings: dict[str, Any] = {
            "clock": self.monotonic,
            "wall_clock": self.wall,
            "sleep": self.sleep,
            "async_sleep": self.async_sleep,
            "rng": lambda: 0.5,
        }
        settings.update(overrides)
        return WaitConfig(**settings)


def response(
    status: int = 200,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers, request=REQUEST)


def job(state: str | None = None, *, code: int = 200, headers: Any = None, **fields: Any):
    """A DEMO-shaped status response."""
    body = dict(fields)
    if state is not None:
        body["status"] = state
    return response(code, body, headers)


def sume(state: str, *, headers: Any = None, **fields: Any) -> httpx.Response:
    """A Sume-shaped status response: the record inside a `data` envelope."""
    terminal = state in ("completed", "failed", "canceled")
    record = {"id": "job_1", "status": state, "terminal": terminal}
    record.update(fields)
    return response(200, {"data": record}, headers)


def conn_error() -> APIConnectionError:
    return APIConnectionError("connection reset", request=REQUEST)


class Script:
    """A status endpoint answering from a script; the last step repeats forever.

    A step is a Response (returned), an exception (raised) or a callable of the clock.
    """

    def __init__(self, steps: Iterable[Any], clock: FakeClock | None = None) -> None:
        self.steps = list(steps)
        self.clock = clock
        self.calls: list[tuple[str, float]] = []
        self.at: list[float] = []

    def __call__(self, job_id: str, timeout: float) -> httpx.Response:
        self.calls.append((job_id, timeout))
        if self.clock is not None:
            self.at.append(self.clock.now)
        index = min(len(self.calls) - 1, len(self.steps) - 1)
        step = self.steps[index]
        if callable(step) and not isinstance(step, httpx.Response):
            step = step()
        if isinstance(step, BaseException):
            raise step
        return step

    @property
    def count(self) -> int:
        return len(self.calls)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class Harness:
    """One waiter, sync or async, driven through the same synchronous calls."""

    def __init__(
        self,
        mode: str,
        spec: JobSpec,
        read: Callable[[str, float], httpx.Response],
        config: WaitConfig,
        *,
        result: Callable[[str, float], Any] | None = None,
        decode: Callable[[Any], Any] = lambda raw: raw,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.mode = mode
        sresult = None
        if result is not None:
            fetch = result

            def sresult(job_id: str, time_left: float, to_file: Any = None) -> Any:
                return fetch(job_id, time_left)

        if mode == "sync":
            self.waiter: Any = SyncJobWaiter(
                spec, read_status=read, decode_record=decode, fetch_result=sresult,
                config=config, limiter=limiter,
            )  # fmt: skip
        else:

            async def aread(job_id: str, timeout: float) -> httpx.Response:
                await asyncio.sleep(0)
                return read(job_id, timeout)

            aresult = None
            if sresult is not None:
                call = sresult

                async def aresult(job_id: str, time_left: float, to_file: Any = None) -> Any:
                    return call(job_id, time_left, to_file)

            self.waiter = AsyncJobWaiter(
                spec, read_status=aread, decode_record=decode, fetch_result=aresult,
                config=config, limiter=limiter,
            )  # fmt: skip

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self.waiter, name)
        if self.mode == "sync":
            return method(*args, **kwargs)
        return run(method(*args, **kwargs))

    def wait_for_job(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("wait_for_job", *args, **kwargs)

    def wait_for_result(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("wait_for_result", *args, **kwargs)

    def create_and_wait(
        self, create: Callable[[str | None, float | None], httpx.Response], **kw: Any
    ) -> Any:
        if self.mode == "sync":
            return self.waiter.create_and_wait(create, **kw)

        async def acreate(key: str | None, time_left: float | None) -> httpx.Response:
            return create(key, time_left)

        return run(self.waiter.create_and_wait(acreate, **kw))

    def wait_for_jobs(self, job_ids: Iterable[str], **kwargs: Any) -> list[Any]:
        if self.mode == "sync":
            return list(self.waiter.wait_for_jobs(job_ids, **kwargs))

        async def collect() -> list[Any]:
            async with self.waiter.wait_for_jobs(job_ids, **kwargs) as outcomes:
                return [outcome async for outcome in outcomes]

        return run(collect())


class _AdvancingSelector(selectors.SelectSelector):
    """Instead of blocking, jumps the loop's virtual clock to the next timer."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> Any:
        if timeout is not None and timeout > 0:
            self.now += timeout
        return super().select(0)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose time is virtual: sleeping costs nothing, order is kept."""

    def __init__(self) -> None:
        self._advancing = _AdvancingSelector()
        super().__init__(self._advancing)

    def time(self) -> float:
        return self._advancing.now


def run_virtual(coro_factory: Callable[[VirtualTimeLoop], Any]) -> Any:
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(coro_factory(loop))
    finally:
        loop.close()
