"""Fleet-scale waits on Celery and Redis: no process holds a job while it runs.

`CeleryWaits` registers one Celery task, a *step*: it reads a job's status once with
a `JobHandle` (`poll()`), then either schedules the next step with `countdown` set
to the decided delay, carrying the handle's resume token (job id, absolute deadline,
poll count), or, once the job has ended, finishes the wait and sends your callback
task its report (see `CeleryWaits.follow`). Redis keeps each wait single: a step
runs only if its wait expects it and no copy of it is running, and a finished wait
is gone, so no copy of a step reads its status again. The final decision and the
report's outbox entry are written in one atomic script; a sweeper sends again a
step the broker lost and a report whose callback has not returned, so every report
reaches the callback at least once, each delivery with the same `report_id`
(`CeleryWaits.once` runs an effect once per id).

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

    @app.task(acks_late=True)
    def summary_done(report):
        waits.once(report, lambda pipe: pipe.rpush("summaries", report["job_id"]))

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

__all__ = ["POINTS", "CeleryWaits", "RedisRateLimiter", "ReportBusy"]

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

# A new wait: it expects its first step (whose id is the wait's), which the sweeper
# sends again if it has not run `grace` s from now. KEYS: wait, due; ARGV: wait id,
# the first step's message, grace (s).
_FOLLOW = """
redis.call('HSET', KEYS[1], 'step', ARGV[1], 'next', ARGV[2])
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZADD', KEYS[2], string.format('%.6f', now + tonumber(ARGV[3])), ARGV[1])
return 1
"""

# A step takes over a wait: only while the wait is open (its hash exists: a finished
# wait has none), only the step the wait expects (the one `follow` or the step before
# it named), and only if no other copy of that step holds it now (a lease). The
# holder is then the run `run`, and the wait is due again in `grace` s should the run
# vanish. KEYS: wait, lease, due; ARGV: step, run, lease (ms), grace (s), wait id.
_CLAIM = """
local step = redis.call('HGET', KEYS[1], 'step')
if not step then return 'finished' end
if step ~= ARGV[1] then return 'superseded' end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return 'busy' end
redis.call('HSET', KEYS[1], 'run', ARGV[2])
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZADD', KEYS[3], string.format('%.6f', now + tonumber(ARGV[4])), ARGV[5])
return 'claimed'
"""

# The run that holds a wait books its next step: the wait now expects that step (and
# the sweeper re-sends it once `due` s overdue, its count of re-sends back at 0); the
# lease is let go. KEYS: wait, lease, due, due's re-sends; ARGV: run, next step, its
# message, due (s), wait id.
_NEXT = """
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'step', ARGV[2], 'next', ARGV[3], 'run', '')
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[4], ARGV[5])
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZADD', KEYS[3], string.format('%.6f', now + tonumber(ARGV[4])), ARGV[5])
return 1
"""

# The run that holds a wait finishes it, in one step: the wait is gone (no copy of any
# step can take it over again) and, if it has a callback, its report is in the outbox,
# sent again after `grace` s until the callback acknowledges it. KEYS: wait, lease,
# due, due's re-sends, report, outbox; ARGV: run, the report's entry ('' for none),
# grace (s), wait id.
_FINISH = """
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[4])
redis.call('HDEL', KEYS[4], ARGV[4])
if ARGV[2] ~= '' then
  local now = redis.call('TIME')
  now = tonumber(now[1]) + tonumber(now[2]) / 1000000
  redis.call('SET', KEYS[5], ARGV[2])
  redis.call('ZADD', KEYS[6], string.format('%.6f', now + tonumber(ARGV[3])), ARGV[4])
end
return 1
"""

# A run lets go of a wait it holds (before Celery retries its step). KEYS: wait,
# lease; ARGV: run.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'run', '')
redis.call('DEL', KEYS[2])
return 1
"""

# Take every entry of a schedule (`due` or `outbox`) that is due, at most ARGV[1] of
# them, and put each off again: `grace` s after its first re-send, then twice as long
# each time, up to 16 times `grace` (so that a backlog is not fed copies of what it
# holds). KEYS: the schedule, its re-sends; ARGV: limit, grace (s).
_OVERDUE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%.6f', now),
                       'LIMIT', 0, tonumber(ARGV[1]))
for _, member in ipairs(due) do
  local sent = redis.call('HINCRBY', KEYS[2], member, 1)
  local later = now + tonumber(ARGV[2]) * 2 ^ math.min(sent - 1, 4)
  redis.call('ZADD', KEYS[1], string.format('%.6f', later), member)
end
return due
"""

# A wait the sweeper found overdue while a step of it is running (its lease is held):
# not sent again, nor counted as sent; due again when the lease ends. KEYS: lease,
# due, due's re-sends; ARGV: wait id.
_DEFER = """
local left = redis.call('PTTL', KEYS[1])
if left <= 0 then return 0 end
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('HINCRBY', KEYS[3], ARGV[1], -1)
redis.call('ZADD', KEYS[2], 'XX', string.format('%.6f', now + left / 1000), ARGV[1])
return 1
"""

# A delivery of a report asks to run its effect: "acknowledged" (an earlier delivery
# ran it, or the callback returned), "busy" (another delivery is running it now), or
# "run" (this one runs it, under a lease). KEYS: report, lease; ARGV: delivery,
# lease (ms).
_ONCE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'acknowledged' end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'busy' end
return 'run'
"""

# Let go of a lease if it is still this holder's. KEYS: lease; ARGV: holder.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# The callback acknowledged a report: it leaves the outbox.
# KEYS: report, lease, outbox, outbox's re-sends; ARGV: report id.
_ACK = """
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HDEL', KEYS[4], ARGV[1])
return redis.call('ZREM', KEYS[3], ARGV[1])
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


#: The named points of a step and of a report, in order, at which `CeleryWaits` calls
#: its `observe` hook: the step holds the wait ("claimed"), read the status ("read"),
#: booked its next step ("next booked") and sent it ("next sent"), or finished the wait
#: ("finished": the report is in the outbox) and sent the report ("report sent"); a
#: sweep sent a step or a report again ("step resent", "report resent"); the callback
#: acknowledged a report ("acknowledged").
POINTS = (
    "claimed",
    "read",
    "next booked",
    "next sent",
    "finished",
    "report sent",
    "step resent",
    "report resent",
    "acknowledged",
)


class ReportBusy(Exception):
    """Another delivery of the same report is running its effect (`CeleryWaits.once`).

    Raised into the callback task, which then fails and is not acknowledged: the
    sweeper sends the report again later, and that delivery finds the effect done, or
    runs it if the one that was running it died."""


class CeleryWaits:
    """Waits for jobs of one SDK client on a Celery fleet, one status read per task.

    `app` is the Celery app (its broker keeps the scheduled steps); `client` makes
    the SDK's sync `Client` a worker polls with, once per worker process; `redis`
    (a `redis.Redis`) holds the bookkeeping under `name`, which also names the tasks
    (`<name>.step`, `<name>.ack`, `<name>.sweep`). Every process that follows jobs or
    runs workers builds the same `CeleryWaits` (as it defines the same tasks).

    Each finished wait's report reaches the callback at least once, whatever process
    dies when: the final decision and the report's outbox entry are written in one
    atomic step, and the sweeper sends the report again (after `grace` seconds, then
    at doubling intervals up to 16 times `grace`) until the callback task has
    returned (an acknowledgement linked to it) or `once()` ran its effect. Every delivery
    of a report carries the same `report_id`; `once()` runs an effect once per id.
    A finished wait is gone from Redis, so no copy of any step can take it over or
    read its status again.

    Nothing of a running wait is lost either: its steps are acknowledged late, so the
    broker hands a dead worker's steps to another worker (with Redis, after the
    transport's `visibility_timeout`); and a sweeper (one at a time, every
    `sweep_every` seconds) sends again the step of any wait more than `grace` seconds
    overdue, which covers a message lost in the broker itself. A step runs only if
    its wait expects it and no copy of it is running (a lease of `grace` seconds), so
    a copy is dropped; `grace` must exceed how long a step can wait for a worker and
    run (or copies cost extra status reads), and how long the callback can take.

    The sweeper runs in every worker's main process (`sweeper=True`); with
    `sweeper=False` none does, and `<name>.sweep` (`self.sweep_task`) is run from a
    beat schedule instead. `observe(point, wait_id)`, if given, is called at each of
    `POINTS` (tracing, metrics; the fleet's tests stop a worker there).

    A status endpoint that stays unavailable (`StatusUnavailable`) is read again
    after `unavailable_delay` seconds, on the same schedule; any other exception of a
    step is retried by Celery after `retry_delay` seconds, `max_retries` times, then
    reported as "error".

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
        sweeper: bool = True,
        unavailable_delay: float = 30.0,
        retry_delay: float = 10.0,
        max_retries: int = 10,
        observe: Callable[[str, str], None] | None = None,
    ) -> None:
        if not grace > 0:
            raise ValueError(f"grace must be a positive number, got {grace!r}")
        self._app = app
        self._make_client = client
        self._redis = redis
        self.name = name
        self._grace, self._sweep_every = grace, sweep_every
        self._unavailable_delay = unavailable_delay
        self._retry_delay = retry_delay
        self._observe = observe
        scripts = {
            "follow": _FOLLOW,
            "claim": _CLAIM,
            "next": _NEXT,
            "finish": _FINISH,
            "release": _RELEASE,
            "defer": _DEFER,
            "overdue": _OVERDUE,
            "once": _ONCE,
            "ack": _ACK,
            "unlock": _UNLOCK,
        }
        self._scripts = {
            key: redis.register_script(text) for key, text in scripts.items()
        }
        self._lock = threading.Lock()
        self._waiters: dict[str, SyncJobWaiter[Any, Any]] | None = None
        self._sweeper: threading.Thread | None = None

        def step(task: Any, message: dict[str, Any]) -> str:
            return self._step(task, message)

        def ack(report_id: str) -> bool:
            return self._ack(report_id)

        def sweep() -> int:
            return self.sweep()

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
        #: The task linked to every delivery of a report: the callback returned.
        self.ack_task: Any = app.task(
            ack, name=f"{name}.ack", acks_late=True, reject_on_worker_lost=True,
            ignore_result=True,
        )  # fmt: skip
        #: One sweep, for a beat schedule (`<name>.sweep`) when `sweeper=False`.
        self.sweep_task: Any = app.task(sweep, name=f"{name}.sweep", ignore_result=True)
        if sweeper:
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
        far and its absolute deadline. `on_done` is a Celery task signature
        (`my_task.s(...)`), called with the report prepended to its arguments, at
        least once: sent again (after `grace` seconds, then at doubling intervals)
        until one call returns or `once()` has run its effect. The report
        is a dict with `report_id` (the same in every delivery), `job_id`, `job`
        (the job's name in the SDK), `wait_id`, `outcome` ("success", "failure",
        "canceled", "timeout", or "error" for an undocumented state or a request
        the API refused), `state`, `record` (the job's last record as JSON, or
        None), `error` (a message, or None) and `resume_token` (to follow the job
        again after a timeout). Each call starts a wait of its own, with one report.
        """
        token = handle.resume_token
        wait_id = uuid.uuid4().hex
        message = {
            "job": decode_resume_token(token).job,
            "token": token,
            "wait": wait_id,
            "step": wait_id,
            "on_done": None if on_done is None else dict(on_done),
        }
        keys = [self._wait_key(wait_id), self._due]
        args = [wait_id, json.dumps(message), repr(self._grace)]
        self._scripts["follow"](keys=keys, args=args)
        self.task.apply_async((message,))
        return wait_id

    def once(
        self,
        report: Mapping[str, Any],
        effect: Callable[[Any], object],
        *,
        lease: float = 60.0,
    ) -> bool:
        """Run `effect` once for this report, however often it is delivered; True if
        this call ran it.

        Call it in the callback task. `effect(pipeline)` gets a Redis transaction
        (`redis.pipeline()` after `MULTI`): the commands it queues there run in one
        transaction with the report's acknowledgement, so an effect kept in this
        Redis happens exactly once, and the report is not sent again. An effect
        elsewhere (a database row, an e-mail) runs again only if its process dies
        after it and before that transaction (one Redis round trip); keep
        `report["report_id"]` with it (a unique key) to close that window too. While
        one delivery runs the effect (up to `lease` seconds), another raises
        `ReportBusy`, so that the report is sent again later rather than
        acknowledged; an effect that raises lets go at once.
        """
        report_id = str(report["report_id"])
        keys = [self._report_key(report_id, ""), self._report_key(report_id, ":lease")]
        delivery = uuid.uuid4().hex
        ms = max(1, int(lease * 1000))
        state = _text(self._scripts["once"](keys=keys, args=[delivery, ms]))
        if state == "acknowledged":
            return False
        if state == "busy":
            raise ReportBusy(f"report {report_id} is being handled by another delivery")
        watch = importlib.import_module("redis.exceptions").WatchError
        with self._redis.pipeline() as pipe:
            try:
                pipe.watch(keys[1])
                held = pipe.get(keys[1])
                if held is None or _text(held) != delivery:
                    raise ReportBusy(f"report {report_id}: the lease ran out")
                pipe.multi()
                effect(pipe)
                pipe.delete(*keys).zrem(self._outbox, report_id)
                pipe.hdel(f"{self._outbox}:sent", report_id).execute()
            except watch:
                raise ReportBusy(f"report {report_id}: the lease ran out") from None
            except BaseException:
                # the effect did not happen: let the next delivery run it at once
                self._scripts["unlock"](keys=[keys[1]], args=[delivery])
                raise
        return True

    def sweep(self) -> int:
        """Send again the step of every wait, and every report not yet acknowledged,
        that is overdue: by `grace` seconds, then by twice as long after each time it
        was sent again, up to 16 times `grace` (none if another sweep ran less than
        `sweep_every` seconds ago); returns how many."""
        lock = f"{self.name}:sweeping"
        if not self._redis.set(
            lock, "1", nx=True, px=max(1, int(self._sweep_every * 1000))
        ):
            return 0
        sent = 0
        for wait in self._overdue(self._due):
            raw = self._redis.hget(self._wait_key(wait), "next")
            if raw is None:  # finished meanwhile
                self._redis.zrem(self._due, wait)
                continue
            keys = [f"{self._wait_key(wait)}:lease", self._due, f"{self._due}:sent"]
            if self._scripts["defer"](keys=keys, args=[wait]):
                continue  # a step of it is running: look again when its lease ends
            self.task.apply_async((json.loads(raw),))
            self._point("step resent", wait)
            logger.info("fleet: wait %s was overdue; its step was sent again", wait)
            sent += 1
        for report_id in self._overdue(self._outbox):
            raw = self._redis.get(self._report_key(report_id, ""))
            if raw is None:  # acknowledged meanwhile
                self._redis.zrem(self._outbox, report_id)
                continue
            self._send_report(json.loads(raw))
            self._point("report resent", report_id)
            logger.info("fleet: report %s was not acknowledged; sent again", report_id)
            sent += 1
        return sent

    # -- the worker side ----------------------------------------------------------------

    @property
    def _due(self) -> str:
        return f"{self.name}:due"

    @property
    def _outbox(self) -> str:
        return f"{self.name}:outbox"

    def _wait_key(self, wait_id: str) -> str:
        return f"{self.name}:wait:{wait_id}"

    def _report_key(self, report_id: str, suffix: str) -> str:
        return f"{self.name}:report:{report_id}{suffix}"

    def _point(self, point: str, wait_id: str) -> None:
        if self._observe is not None:
            self._observe(point, wait_id)

    def _overdue(self, schedule: str) -> list[str]:
        keys = [schedule, f"{schedule}:sent"]
        found = self._scripts["overdue"](keys=keys, args=[1000, repr(self._grace)])
        return [_text(member) for member in found]

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

    def _keys(self, wait_id: str) -> list[str]:
        """A wait's record and lease, the due schedule and its counts of re-sends."""
        wait = self._wait_key(wait_id)
        return [wait, f"{wait}:lease", self._due, f"{self._due}:sent"]

    def _step(self, task: Any, message: dict[str, Any]) -> str:
        wait_id, run = message["wait"], uuid.uuid4().hex
        lease = max(1, int(self._grace * 1000))
        args = [message["step"], run, lease, repr(self._grace), wait_id]
        claim = self._scripts["claim"](keys=self._keys(wait_id), args=args)
        claim = _text(claim)
        if claim != "claimed":
            return claim  # "finished", "superseded" (a copy) or "busy" (a copy running)
        self._point("claimed", wait_id)
        token = message["token"]
        try:
            waiter = self._waiter(message["job"])
            decision = JobHandle(waiter, resume=token).poll()
        except StatusUnavailable:
            self._point("read", wait_id)
            return self._next(message, run, token, self._unavailable_delay)
        except SDKError as error:
            self._point("read", wait_id)
            timeout = error if isinstance(error, JobTimeout) else None
            return self._finish(
                message,
                run,
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
                return self._finish(
                    message, run, "error", error=repr(error), token=token
                )
            self._scripts["release"](keys=self._keys(wait_id)[:2], args=[run])
            raise task.retry(exc=error, countdown=self._retry_delay) from None
        self._point("read", wait_id)
        if decision.done:
            return self._finish(
                message,
                run,
                decision.outcome or "success",
                state=decision.state,
                record=_record(waiter, decision.record, None),
                token=decision.resume_token,
            )
        return self._next(message, run, decision.resume_token, decision.delay or 0.0)

    def _next(self, message: dict[str, Any], run: str, token: str, delay: float) -> str:
        delay = max(0.0, delay)
        child = dict(message, token=token, step=uuid.uuid4().hex)
        args = [
            run,
            child["step"],
            json.dumps(child),
            repr(delay + self._grace),
            child["wait"],
        ]
        if not self._scripts["next"](keys=self._keys(message["wait"]), args=args):
            return "superseded"  # the lease ran out and another copy took over
        self._point("next booked", message["wait"])
        self.task.apply_async((child,), countdown=delay)
        self._point("next sent", message["wait"])
        return "scheduled"

    def _finish(
        self,
        message: Mapping[str, Any],
        run: str,
        outcome: str,
        *,
        state: str | None = None,
        record: object = None,
        error: str | None = None,
        token: str,
    ) -> str:
        wait_id = message["wait"]
        entry = None
        if message["on_done"] is not None:
            report = {
                "report_id": wait_id,  # a wait has one report
                "job_id": decode_resume_token(token).job_id,
                "job": message["job"],
                "wait_id": wait_id,
                "outcome": outcome,
                "state": state,
                "record": record,
                "error": error,
                "resume_token": token,
            }
            entry = {"report": report, "on_done": message["on_done"]}
        keys = [*self._keys(wait_id), self._report_key(wait_id, ""), self._outbox]
        args = [
            run,
            "" if entry is None else json.dumps(entry),
            repr(self._grace),
            wait_id,
        ]
        if not self._scripts["finish"](keys=keys, args=args):
            return "superseded"  # the lease ran out and another copy took over
        self._point("finished", wait_id)
        if entry is not None:
            self._send_report(entry)
            self._point("report sent", wait_id)
        return outcome

    def _send_report(self, entry: Mapping[str, Any]) -> None:
        report = entry["report"]
        callback = self._app.signature(entry["on_done"]).clone(args=(report,))
        callback.link(self.ack_task.si(report["report_id"]))
        callback.apply_async(task_id=f"{self.name}:{report['report_id']}")

    def _ack(self, report_id: str) -> bool:
        keys = [self._report_key(report_id, ""), self._report_key(report_id, ":lease")]
        keys += [self._outbox, f"{self._outbox}:sent"]
        acknowledged = bool(self._scripts["ack"](keys=keys, args=[report_id]))
        self._point("acknowledged", report_id)
        return acknowledged


def _text(value: object) -> str:
    """A Redis reply as text, whether the client decodes replies or not."""
    return value.decode() if isinstance(value, bytes) else str(value)


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
