"""The Redis side of fleet-scale waits: a fleet-wide rate limit, and the records of
`fleet.CeleryWaits`.

`RedisRateLimiter` turns the client-wide cap on status reads into a fleet-wide one:
a token bucket in Redis (one Lua script, on Redis's clock), which the client of
every worker shares through `WaitConfig(status_limiter=...)`.

`WaitStore` keeps what `CeleryWaits` knows of its waits and reports: which step each
open wait expects, which run holds it, when it is overdue, and each report until its
callback acknowledges it. Every change of a wait is one Lua script, so that a copy of
a step, a sweeper and the run that holds the wait never see half of one; `once()`
runs a report's effect in one transaction with its acknowledgement.

`redis` is the caller's `redis.Redis`; nothing here imports the redis package until
`once()` runs an effect.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

__all__ = ["RedisRateLimiter", "ReportBusy", "ReportMismatch", "WaitStore"]

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


class ReportBusy(Exception):
    """Another delivery of the same report is running its effect (`CeleryWaits.once`).

    Raised into the callback task, which then fails and is not acknowledged: the
    sweeper sends the report again later, and that delivery finds the effect done, or
    runs it if the one that was running it died."""


class ReportMismatch(Exception):
    """A delivery whose report is not the one the outbox recorded for its `report_id`
    (another job, outcome, state or record: forged, or altered on the way); its effect
    is not run (`CeleryWaits.once`), and the genuine delivery still runs it."""

    def __init__(self, report_id: str, fields: list[str]) -> None:
        super().__init__(
            f"a delivery of report {report_id} differs from what happened in"
            f" {', '.join(fields)}; its effect was not run"
        )
        self.report_id, self.fields = report_id, fields


class WaitStore:
    """The records of one `CeleryWaits` in Redis, every key under `name`.

    An open wait is a hash, `<name>:wait:<id>` (the step it expects, as `step`, and
    that step's message, as `next`; the run that holds it, as `run`) with the run's
    lease, `<wait>:lease`; a finished wait has none. `<name>:due` schedules when each
    open wait is overdue, and `<name>:due:sent` counts its step's re-sends. A report
    not yet acknowledged is `<name>:report:<id>` (its callback and the report), with
    the lease of the delivery running its effect, `<report>:lease`; `<name>:outbox`
    schedules when each is sent again, and `<name>:outbox:sent` counts its re-sends.
    A wait or a report overdue by `grace` seconds is sent again, then at doubling
    intervals up to 16 times `grace`; a step's lease lasts `grace` seconds.
    """

    def __init__(self, redis: Any, name: str, grace: float) -> None:
        self.name = name
        self._redis = redis
        self._grace = grace
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

    @property
    def due(self) -> str:
        return f"{self.name}:due"

    @property
    def outbox(self) -> str:
        return f"{self.name}:outbox"

    def wait_key(self, wait_id: str) -> str:
        return f"{self.name}:wait:{wait_id}"

    def report_key(self, report_id: str, suffix: str) -> str:
        return f"{self.name}:report:{report_id}{suffix}"

    def _keys(self, wait_id: str) -> list[str]:
        """A wait's record and lease, the due schedule and its counts of re-sends."""
        wait = self.wait_key(wait_id)
        return [wait, f"{wait}:lease", self.due, f"{self.due}:sent"]

    # -- a wait ---------------------------------------------------------------------

    def follow(self, wait_id: str, message: Mapping[str, Any]) -> None:
        """Open a wait that expects its first step (`message`, whose step id is the
        wait's id)."""
        keys = [self.wait_key(wait_id), self.due]
        args = [wait_id, json.dumps(message), repr(self._grace)]
        self._scripts["follow"](keys=keys, args=args)

    def claim(self, wait_id: str, step: str, run: str) -> str:
        """Let the run `run` of step `step` hold the wait: "claimed", else "finished",
        "superseded" (not the step it expects) or "busy" (a copy of it holds it)."""
        lease = max(1, int(self._grace * 1000))
        args = [step, run, lease, repr(self._grace), wait_id]
        return _text(self._scripts["claim"](keys=self._keys(wait_id), args=args))

    def book_next(self, run: str, child: Mapping[str, Any], due: float) -> bool:
        """The run that holds `child`'s wait books its next step, overdue in `due`
        seconds; False if it no longer holds the wait."""
        wait_id = child["wait"]
        args = [run, child["step"], json.dumps(child), repr(due), wait_id]
        return bool(self._scripts["next"](keys=self._keys(wait_id), args=args))

    def finish(self, wait_id: str, run: str, entry: Mapping[str, Any] | None) -> bool:
        """The run that holds the wait finishes it, putting `entry` (a report and its
        callback), if any, in the outbox; False if it no longer holds the wait."""
        keys = [*self._keys(wait_id), self.report_key(wait_id, ""), self.outbox]
        args = [
            run,
            "" if entry is None else json.dumps(entry),
            repr(self._grace),
            wait_id,
        ]
        return bool(self._scripts["finish"](keys=keys, args=args))

    def release(self, wait_id: str, run: str) -> None:
        """The run lets go of a wait it holds."""
        self._scripts["release"](keys=self._keys(wait_id)[:2], args=[run])

    # -- the sweeper ----------------------------------------------------------------

    def start_sweep(self, every: float) -> bool:
        """True if no other sweep started less than `every` seconds ago."""
        lock = f"{self.name}:sweeping"
        return bool(self._redis.set(lock, "1", nx=True, px=max(1, int(every * 1000))))

    def overdue_steps(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each overdue wait with the message of the step it expects, put off again;
        not a wait finished meanwhile, nor one a step of which is running (due again
        when its lease ends)."""
        for wait in self._overdue(self.due):
            raw = self._redis.hget(self.wait_key(wait), "next")
            if raw is None:  # finished meanwhile
                self._redis.zrem(self.due, wait)
                continue
            keys = [f"{self.wait_key(wait)}:lease", self.due, f"{self.due}:sent"]
            if self._scripts["defer"](keys=keys, args=[wait]):
                continue  # a step of it is running: look again when its lease ends
            yield wait, json.loads(raw)

    def overdue_reports(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each report not acknowledged in time with its outbox entry, put off again."""
        for report_id in self._overdue(self.outbox):
            raw = self._redis.get(self.report_key(report_id, ""))
            if raw is None:  # acknowledged meanwhile
                self._redis.zrem(self.outbox, report_id)
                continue
            yield report_id, json.loads(raw)

    def _overdue(self, schedule: str) -> list[str]:
        keys = [schedule, f"{schedule}:sent"]
        found = self._scripts["overdue"](keys=keys, args=[1000, repr(self._grace)])
        return [_text(member) for member in found]

    # -- a report -------------------------------------------------------------------

    def once(
        self, report: Mapping[str, Any], effect: Callable[[Any], object], lease: float
    ) -> bool:
        """Run `effect` in one transaction with the report's acknowledgement, unless
        it was acknowledged (False); `ReportBusy` while another delivery runs it,
        `ReportMismatch` when `report` is not the one recorded for its id (see
        `CeleryWaits.once`)."""
        report_id = str(report["report_id"])
        keys = [self.report_key(report_id, ""), self.report_key(report_id, ":lease")]
        # The outbox entry is written once, when the wait finishes, and deleted when
        # the report is acknowledged: what happened, to compare the delivery with.
        raw = self._redis.get(keys[0])
        if raw is None:
            return False
        recorded = json.loads(raw)["report"]
        differ = [key for key in recorded if report.get(key) != recorded[key]]
        if differ:
            raise ReportMismatch(report_id, differ)
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
                pipe.delete(*keys).zrem(self.outbox, report_id)
                pipe.hdel(f"{self.outbox}:sent", report_id).execute()
            except watch:
                raise ReportBusy(f"report {report_id}: the lease ran out") from None
            except BaseException:
                # the effect did not happen: let the next delivery run it at once
                self._scripts["unlock"](keys=[keys[1]], args=[delivery])
                raise
        return True

    def ack(self, report_id: str) -> bool:
        """The callback acknowledged the report: it leaves the outbox."""
        keys = [self.report_key(report_id, ""), self.report_key(report_id, ":lease")]
        keys += [self.outbox, f"{self.outbox}:sent"]
        return bool(self._scripts["ack"](keys=keys, args=[report_id]))


def _text(value: object) -> str:
    """A Redis reply as text, whether the client decodes replies or not."""
    return value.decode() if isinstance(value, bytes) else str(value)
