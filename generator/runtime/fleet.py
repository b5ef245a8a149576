"""Fleet-scale waits on Celery and Redis: no process holds a job while it runs.

`CeleryWaits` registers one Celery task, a *step*: it reads a job's status once with
a `JobHandle` (`poll()`), then either schedules the next step with `countdown` set
to the decided delay, carrying the handle's resume token (job id, absolute deadline,
poll count), or, once the job has ended, sends your callback task one report (see
`CeleryWaits.follow`). Steps are acknowledged late and rejected when their worker
is lost, so a worker killed mid-wait loses nothing: the broker hands the step to
another worker, which continues from the token; a sweeper in the workers sends again
a step the broker itself lost. Redis keeps each wait single and its report sent once:
a step runs only if it takes over from the step that scheduled it (an atomic
compare-and-set), and the report is marked sent.

`RedisRateLimiter` turns the client-wide cap on status reads into a fleet-wide one:
a token bucket in Redis (one Lua script, on Redis's clock), which the client of
every worker shares through `WaitConfig(status_limiter=...)`.

The caller passes its Celery app and its `redis.Redis` (the SDK's `fleet` extra
installs both); nothing here imports them until a `CeleryWaits` is made.

    app = Celery("billing", broker="redis://localhost:6379/0")
    redis = Redis.from_url("redis://localhost:6379/0")
    limiter = RedisRateLimiter(redis, "sdk:status-reads", rate=50)
    waits = CeleryWaits(app, lambda: Client(wait_config=WaitConfig(status_limiter=limiter)),
                        redis=redis)

    @app.task
    def summary_done(report): ...

    waits.follow(client.jobs.handle(job_id, deadline=3600), on_done=summary_done.s())
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .errors import JobTimeout, SDKError, StatusUnavailable
from .handle import AsyncJobHandle, JobHandle
from .records import MISSING, dig
from .resume import decode_resume_token
from .waiter import SyncJobWaiter

__all__ = ["CeleryWaits", "RedisRateLimiter"]

logger = logging.getLogger(__name__)

#: The outcomes a report can carry.
OUTCOMES = ("success", "failure", "canceled", "timeout", "error")

# GCRA on Redis's clock: take a slot if one is due now and return "0", else return
# the seconds until one is (a string: Lua numbers become integers on the way out).
_TAKE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait > 0 then return tostring(wait) end
local ttl = math.ceil((tat + interval - now) * 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.6f', tat + interval), 'PX', ttl)
return '0'
"""

# A place in line (GCRA over the line's own key): the seconds to sleep before trying to
# take a slot, so that waiting callers wake one at a time rather than as a herd; "-1",
# and no place taken, when that is beyond ARGV[3] seconds (when it is not negative).
_QUEUE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local interval, tolerance, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local place = tonumber(redis.call('GET', KEYS[1]) or '0')
if place < now then place = now end
local wait = math.max(0, place - tolerance - now)
if limit >= 0 and wait > limit then return '-1' end
local ttl = math.ceil((place + interval - now) * 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.6f', place + interval), 'PX', ttl)
return tostring(wait)
"""

# A step takes over a wait if it already holds it (a redelivered copy), if the step
# that scheduled it holds it, or if no step does (the first); it then becomes what the
# sweeper re-sends should it vanish. KEYS: owner, next, due; ARGV: step, parent,
# keep (s), message, due score, wait id.
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] and owner ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
return 1
"""

# The step that holds a wait names the next one (KEYS and ARGV as for _CLAIM).
_EXPECT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
return 1
"""


class RedisRateLimiter:
    """At most `rate` acquisitions per second (bursts of `burst`) across every
    process that shares `key` on one Redis: a `StatusLimiter` for a fleet.

    `redis` is a `redis.Redis`. As `RateLimiter` does in one process, a caller first
    takes a place in line (`<key>:line`) and sleeps until then, so waiting callers
    wake one at a time; then it takes a slot (`key`), only when one is due. Both are
    atomic scripts on Redis's clock, so in any window of `w` seconds at most
    `burst + rate * w` slots are taken, however many workers ask.
    """

    def __init__(self, redis: Any, key: str, rate: float, burst: int = 1) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be a positive number, got {rate!r}")
        if burst < 1:
            raise ValueError(f"burst must be >= 1, got {burst!r}")
        self.key, self.rate, self.burst = key, rate, burst
        self._interval = 1.0 / rate
        self._take_script = redis.register_script(_TAKE)
        self._queue_script = redis.register_script(_QUEUE)

    def _args(self) -> list[str]:
        return [repr(self._interval), repr((self.burst - 1) * self._interval)]

    def _queue(self, timeout: float | None) -> float:
        """A place in line: seconds to sleep first; -1 (no place) if beyond `timeout`."""
        limit = -1.0 if timeout is None else max(0.0, timeout)
        keys = [f"{self.key}:line"]
        return float(self._queue_script(keys=keys, args=[*self._args(), repr(limit)]))

    def _take(self) -> float:
        """Take a slot if one is due now (returns 0), else the seconds until one is."""
        return float(self._take_script(keys=[self.key], args=self._args()))

    def acquire(
        self,
        sleep: Callable[[float], None] = time.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot; False, without taking one, if it is beyond `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = self._queue(timeout)
        if wait < 0:
            return False
        while True:
            if wait > 0:
                if deadline is not None and time.monotonic() + wait > deadline:
                    return False
                sleep(wait)
            wait = self._take()
            if wait == 0.0:
                return True

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """The asyncio twin of `acquire` (each Redis call runs in a thread)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = await asyncio.to_thread(self._queue, timeout)
        if wait < 0:
            return False
        while True:
            if wait > 0:
                if deadline is not None and time.monotonic() + wait > deadline:
                    return False
                await async_sleep(wait)
            wait = await asyncio.to_thread(self._take)
            if wait == 0.0:
                return True

    def __repr__(self) -> str:
        return f"RedisRateLimiter(key={self.key!r}, rate={self.rate!r}, burst={self.burst!r})"


class CeleryWaits:
    """Waits for jobs of one SDK client on a Celery fleet, one status read per task.

    `app` is the Celery app (its broker keeps the scheduled steps); `client` makes
    the SDK's sync `Client` a worker polls with, once per worker process; `redis`
    (a `redis.Redis`) holds the bookkeeping under `name`, which also names the task
    (`<name>.step`). Every process that follows jobs or runs workers builds the same
    `CeleryWaits` (as it defines the same tasks).

    Nothing is lost when a worker dies: its steps are acknowledged late, so the
    broker hands them to another worker (with Redis, after the transport's
    `visibility_timeout`); and a sweeper in each worker (one at a time, every
    `sweep_every` seconds) sends again the step of any wait that is more than
    `grace` seconds overdue, which covers a message lost in the broker itself (Redis
    loses one popped by a worker that dies before recording it as unacknowledged).
    A step that turns out to be a copy is dropped; `grace` must exceed how long a
    step can wait for a worker, or copies cost extra status reads. `sweep()` runs
    one sweep (for a beat schedule, if you prefer that to the workers' sweepers).

    A status endpoint that stays unavailable (`StatusUnavailable`) is read again
    after `unavailable_delay` seconds, on the same schedule; any other exception of a
    step is retried by Celery after `retry_delay` seconds, `max_retries` times, then
    reported as "error". `keep` is how long (seconds) the bookkeeping of a wait
    outlives its last step.

    The broker must keep a scheduled step longer than the longest delay: with Redis
    as the broker, set `broker_transport_options={"visibility_timeout": ...}` above
    the job's poll cap, its longest hint and the queueing time of a step (and as low
    as that allows: it is how long a killed worker's steps wait for another worker).
    """

    def __init__(
        self,
        app: Any,
        client: Callable[[], Any],
        *,
        redis: Any,
        name: str = "jobgen.fleet",
        grace: float = 60.0,
        sweep_every: float = 10.0,
        keep: float = 7 * 86400,
        unavailable_delay: float = 30.0,
        retry_delay: float = 10.0,
        max_retries: int = 10,
    ) -> None:
        self._app = app
        self._make_client = client
        self._redis = redis
        self.name = name
        self._grace, self._sweep_every = grace, sweep_every
        self._keep = max(1, int(keep))
        self._unavailable_delay = unavailable_delay
        self._retry_delay = retry_delay
        self._claim_script = redis.register_script(_CLAIM)
        self._expect_script = redis.register_script(_EXPECT)
        self._lock = threading.Lock()
        self._waiters: dict[str, SyncJobWaiter[Any, Any]] | None = None
        self._sweeper: threading.Thread | None = None

        def step(task: Any, message: dict[str, Any]) -> str:
            return self._step(task, message)

        #: The Celery task of one step (registered on `app` as `<name>.step`).
        self.task: Any = app.task(
            step,
            name=f"{name}.step",
            bind=True,
            acks_late=True,
            reject_on_worker_lost=True,
            ignore_result=True,
            max_retries=max_retries,
        )
        signals = importlib.import_module("celery.signals")
        signals.worker_ready.connect(self._start_sweeper, weak=False)

    def follow(
        self,
        handle: JobHandle[Any, Any] | AsyncJobHandle[Any, Any],
        on_done: Mapping[str, Any] | None = None,
    ) -> str:
        """Hand a job to the fleet; returns the wait's id. Sends no request to the API.

        `handle` is any handle of this SDK (`client.<jobs>.handle(job_id,
        deadline=...)`, or `start(...)`): its token carries the job, its schedule so
        far and its absolute deadline. `on_done` is a Celery signature
        (`my_task.s(...)`), called once with the report prepended to its arguments:
        a dict with `job_id`, `job` (the job's name in the SDK), `wait_id`,
        `outcome` ("success", "failure", "canceled", "timeout", or "error" for an
        undocumented state or a request the API refused), `state`, `record` (the
        job's last record as JSON, or None), `error` (a message, or None) and
        `resume_token` (to follow the job again after a timeout).
        Each call starts a wait of its own, reported once.
        """
        token = handle.resume_token
        wait_id = uuid.uuid4().hex
        message = {
            "job": decode_resume_token(token).job,
            "token": token,
            "wait": wait_id,
            "step": wait_id,
            "parent": "",
            "on_done": None if on_done is None else dict(on_done),
        }
        self._redis.pipeline().set(
            self._key(message, "next"), json.dumps(message), ex=self._keep
        ).zadd(self._due, {wait_id: time.time() + self._grace}).execute()
        self.task.apply_async((message,))
        return wait_id

    def sweep(self) -> int:
        """Send again the step of every wait more than `grace` seconds overdue (none
        if another sweep ran less than `sweep_every` seconds ago); returns how many."""
        lock = f"{self.name}:sweeping"
        if not self._redis.set(lock, "1", nx=True, px=int(self._sweep_every * 1000)):
            return 0
        now = time.time()
        overdue = self._redis.zrangebyscore(self._due, "-inf", now, start=0, num=1000)
        for member in overdue:
            wait = member.decode() if isinstance(member, bytes) else str(member)
            raw = self._redis.get(f"{self.name}:{wait}:next")
            if raw is None:  # its bookkeeping expired: nothing to send
                self._redis.zrem(self._due, wait)
                continue
            self._redis.zadd(self._due, {wait: now + self._grace}, xx=True)
            self.task.apply_async((json.loads(raw),))
            logger.info("fleet: wait %s was overdue; its step was sent again", wait)
        return len(overdue)

    # -- the worker side ----------------------------------------------------------------

    @property
    def _due(self) -> str:
        return f"{self.name}:due"

    def _key(self, message: Mapping[str, Any], what: str) -> str:
        return f"{self.name}:{message['wait']}:{what}"

    def _start_sweeper(self, **_: object) -> None:
        def sweep_forever() -> None:
            while True:
                time.sleep(self._sweep_every)
                try:
                    self.sweep()
                except Exception:  # a failed sweep must not stop the next ones
                    logger.warning("fleet: sweep failed", exc_info=True)

        with self._lock:
            if self._sweeper is None:
                self._sweeper = threading.Thread(
                    target=sweep_forever, name=f"{self.name}-sweeper", daemon=True
                )
                self._sweeper.start()

    def _waiter(self, job: str | None) -> SyncJobWaiter[Any, Any]:
        with self._lock:
            if self._waiters is None:
                self._waiters = _waiters_of(self._make_client())
            waiters = self._waiters
        if job in waiters:
            return waiters[job]
        if job is None and len(waiters) == 1:
            return next(iter(waiters.values()))
        raise LookupError(f"the client has no job named {job!r}: {sorted(waiters)}")

    def _book(
        self, script: Any, message: Mapping[str, Any], owner: str, due: float
    ) -> bool:
        keys = [self._key(message, "step"), self._key(message, "next"), self._due]
        args = [owner, message["parent"], self._keep, json.dumps(message)]
        return bool(script(keys=keys, args=[*args, time.time() + due, message["wait"]]))

    def _step(self, task: Any, message: dict[str, Any]) -> str:
        if not self._book(self._claim_script, message, message["step"], self._grace):
            return "superseded"  # a copy of a step another one already replaced
        token = message["token"]
        try:
            waiter = self._waiter(message["job"])
            decision = JobHandle(waiter, resume=token).poll()
        except StatusUnavailable:
            return self._next(message, token, self._unavailable_delay)
        except SDKError as error:
            timeout = error if isinstance(error, JobTimeout) else None
            return self._report(
                message,
                "error" if timeout is None else "timeout",
                state=getattr(error, "last_state", None),
                record=_record(
                    waiter,
                    getattr(error, "record", None),
                    getattr(error, "last_record", None),
                ),
                error=str(error),
                token=token if timeout is None else timeout.resume_token,
            )
        except Exception as error:  # noqa: BLE001 - retried by Celery, then reported
            if task.request.retries >= task.max_retries:
                return self._report(message, "error", error=repr(error), token=token)
            raise task.retry(exc=error, countdown=self._retry_delay) from None
        if decision.done:
            return self._report(
                message,
                decision.outcome or "success",
                state=decision.state,
                record=_record(waiter, decision.record, None),
                token=decision.resume_token,
            )
        return self._next(message, decision.resume_token, decision.delay or 0.0)

    def _next(self, message: dict[str, Any], token: str, delay: float) -> str:
        delay = max(0.0, delay)
        child = dict(
            message, token=token, step=uuid.uuid4().hex, parent=message["step"]
        )
        if not self._book(
            self._expect_script, child, message["step"], delay + self._grace
        ):
            return "superseded"
        self.task.apply_async((child,), countdown=delay)
        return "scheduled"

    def _report(
        self,
        message: Mapping[str, Any],
        outcome: str,
        *,
        state: str | None = None,
        record: object = None,
        error: str | None = None,
        token: str,
    ) -> str:
        sent = self._key(message, "reported")
        if self._redis.exists(sent):
            return "reported before"
        lease = max(1, int(self._grace))
        if not self._redis.set(self._key(message, "reporting"), "1", nx=True, ex=lease):
            return "reported elsewhere"  # a copy of this step is sending the report
        if message["on_done"] is not None:
            report = {
                "job_id": decode_resume_token(token).job_id,
                "job": message["job"],
                "wait_id": message["wait"],
                "outcome": outcome,
                "state": state,
                "record": record,
                "error": error,
                "resume_token": token,
            }
            callback = self._app.signature(message["on_done"]).clone(args=(report,))
            callback.apply_async(task_id=f"{self.name}:{message['wait']}")
        pipe = self._redis.pipeline().set(sent, outcome, ex=self._keep)
        pipe.zrem(self._due, message["wait"]).delete(
            self._key(message, "next")
        ).execute()
        return outcome


def _waiters_of(client: Any) -> dict[str, SyncJobWaiter[Any, Any]]:
    """Every job waiter of a sync client, by job name (its resources are looked up)."""
    found: dict[str, SyncJobWaiter[Any, Any]] = {}
    for name in dir(type(client)):
        attribute = inspect.getattr_static(type(client), name)
        if name.startswith("_") or not isinstance(attribute, functools.cached_property):
            continue
        resource = getattr(client, name)
        for value in getattr(resource, "__dict__", {}).values():
            if isinstance(value, SyncJobWaiter):
                found[value.spec.name] = value
    if not found:
        raise TypeError(
            f"{type(client).__name__} has no job waiters: pass a sync Client"
        )
    return found


def _record(waiter: SyncJobWaiter[Any, Any], typed: object, raw: object) -> object:
    """The job's record as JSON, inside any envelope: the typed record's `to_dict()`,
    else the raw status body's record, else None."""
    to_dict = getattr(typed, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if raw is None:
        return None
    record = dig(raw, waiter.spec.record_path)
    return raw if record is MISSING else record
