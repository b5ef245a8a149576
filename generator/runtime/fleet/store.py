"""The Redis side of `waits.CeleryWaits`: the records of its waits and reports.

`WaitStore` keeps what `CeleryWaits` knows of its waits and reports: which step each
open wait expects, when that step is due, which run holds it, and each report until
its callback acknowledges it. Every due time is set and compared on Redis's clock
(`TIME`), never a worker's. Every change of a wait is one Lua script, so that a copy
of a step, a sweeper and the run that holds the wait never see half of one: the
sweeper's choice of a due step and the message it sends are one decision; `once()`
runs a report's effect in one transaction with its acknowledgement.

`redis` is the caller's `redis.Redis` (a single Redis, not a cluster: a sweep reads
the records of the waits it finds due); nothing here imports the redis package until
`once()` runs an effect.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["ReportBusy", "ReportMismatch", "WaitStore"]

_NOW = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local function at(t) return string.format('%.6f', t) end
"""

# A new wait: it expects its first step (whose id is the wait's), due in ARGV[3] s.
# A step due now is sent by the caller at once (1 is returned: it counts as sent, and
# is sent again `resend` s later should no worker take it). KEYS: wait, due, due's
# sends; ARGV: wait id, the first step's message, delay (s), resend (s).
_FOLLOW = (
    _NOW
    + """
local due = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'step', ARGV[1], 'next', ARGV[2], 'at', at(due), 'run', '')
if due > now then
  redis.call('ZADD', KEYS[2], at(due), ARGV[1])
  return 0
end
redis.call('HSET', KEYS[3], ARGV[1], 1)
redis.call('ZADD', KEYS[2], at(now + tonumber(ARGV[4])), ARGV[1])
return 1
"""
)

# A step takes over a wait: only while the wait is open (its hash exists: a finished
# wait has none), only the step the wait expects, only once that step is due (on
# Redis's clock), and only if no other copy of it holds the wait now (a lease, which
# the run renews while it works). The wait is then due again when the lease ends,
# should the run vanish. Returns the verdict and Redis's time. KEYS: wait, lease, due,
# due's sends; ARGV: step, run, lease (ms), wait id.
_CLAIM = (
    _NOW
    + """
local wait = redis.call('HMGET', KEYS[1], 'step', 'at')
if not wait[1] then return {'finished', at(now)} end
if wait[1] ~= ARGV[1] then return {'superseded', at(now)} end
if (tonumber(wait[2]) or 0) > now then return {'early', at(now)} end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
  return {'busy', at(now)}
end
redis.call('HSET', KEYS[1], 'run', ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[4])
redis.call('ZADD', KEYS[3], at(now + tonumber(ARGV[3]) / 1000), ARGV[4])
return {'claimed', at(now)}
"""
)

# The run that holds a wait renews its lease (a heartbeat), and the wait's due time
# with it. KEYS: lease, due; ARGV: run, lease (ms), wait id.
_RENEW = (
    _NOW
    + """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', at(now + tonumber(ARGV[2]) / 1000), ARGV[3])
return 1
"""
)

# The run that holds a wait books its next step, due in ARGV[4] s from now on Redis's
# clock: the wait now expects that step; the lease is let go. KEYS: wait, lease, due,
# due's sends; ARGV: run, next step, its message, delay (s), wait id.
_NEXT = (
    _NOW
    + """
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
local due = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'step', ARGV[2], 'next', ARGV[3], 'at', at(due), 'run', '')
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[4], ARGV[5])
redis.call('ZADD', KEYS[3], at(due), ARGV[5])
return 1
"""
)

# The run that holds a wait finishes it, in one step: the wait is gone (no copy of any
# step can take it over again) and, if it has a callback, its report is in the outbox,
# sent again after `resend` s unless its callback starts. KEYS: wait, lease, due, due's
# sends, report, outbox; ARGV: run, the report's entry ('' for none), resend (s),
# wait id.
_FINISH = (
    _NOW
    + """
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[4])
redis.call('HDEL', KEYS[4], ARGV[4])
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[5], ARGV[2])
  redis.call('ZADD', KEYS[6], at(now + tonumber(ARGV[3])), ARGV[4])
end
return 1
"""
)

# A report's callback started, runs or ended: the report is due to be sent again ARGV[1]
# s from now, if it still waits for its acknowledgement. KEYS: report, outbox;
# ARGV: seconds, report id.
_TOUCH = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 'XX', at(now + tonumber(ARGV[1])), ARGV[2])
return 1
"""
)

# One sweep of a schedule, one decision: take every entry due now (at most ARGV[1]),
# with the message it sends (read here, in the same script), and put it off: `first`
# s after its first sending, then twice as long each time, up to 16 times `first`
# (so that a backlog is not fed copies of what it holds). An entry whose record is
# gone is dropped; a wait a step of which holds its lease is not sent, but due again
# when the lease ends; nor is a step before its due time. Returns id, message and how
# often it was sent, in turn.
# KEYS: the schedule, its sends; ARGV: limit, first (s), the records' key prefix,
# the leases' key suffix ('' for reports: they have none).
_SWEEP = (
    _NOW
    + """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', at(now),
                       'LIMIT', 0, tonumber(ARGV[1]))
local found = {}
for _, member in ipairs(due) do
  local key = ARGV[3] .. member
  local message, due = nil, 0
  if ARGV[4] == '' then
    message = redis.call('GET', key)
  else
    local wait = redis.call('HMGET', key, 'next', 'at')
    message, due = wait[1], tonumber(wait[2]) or 0
  end
  local left = 0
  if message and ARGV[4] ~= '' then left = redis.call('PTTL', key .. ARGV[4]) end
  if not message then
    redis.call('ZREM', KEYS[1], member)
    redis.call('HDEL', KEYS[2], member)
  elseif left > 0 then
    redis.call('ZADD', KEYS[1], at(now + left / 1000), member)
  elseif due > now then
    redis.call('ZADD', KEYS[1], at(due), member)
  else
    local sent = redis.call('HINCRBY', KEYS[2], member, 1)
    local later = now + tonumber(ARGV[2]) * 2 ^ math.min(sent - 1, 4)
    redis.call('ZADD', KEYS[1], at(later), member)
    table.insert(found, member)
    table.insert(found, message)
    table.insert(found, sent)
  end
end
return found
"""
)

# Which of the waits named in ARGV exist nowhere: no open wait, no report waiting for
# its acknowledgement. A wait or a report whose schedule entry is missing (a partial
# loss) is scheduled again: due when its step is, or now. KEYS: due, outbox; ARGV:
# the waits' key prefix, the reports' key prefix, the wait ids.
_LOST = (
    _NOW
    + """
local lost = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local due = redis.call('HGET', ARGV[1] .. id, 'at')
  if due then
    redis.call('ZADD', KEYS[1], 'NX', at(math.max(now, tonumber(due) or 0)), id)
  elseif redis.call('EXISTS', ARGV[2] .. id) == 1 then
    redis.call('ZADD', KEYS[2], 'NX', at(now), id)
  else
    table.insert(lost, id)
  end
end
return lost
"""
)

# A delivery of a report asks to run its effect: "acknowledged" (an earlier delivery
# ran it, or the callback returned), "busy" (another delivery is running it now: it
# holds the report's lease and its worker keeps `<lease>:<delivery>` alive), or "run"
# (this one runs it, and holds the lease). KEYS: report, lease; ARGV: delivery,
# liveness (ms).
_ONCE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'acknowledged' end
local holder = redis.call('GET', KEYS[2])
if holder and redis.call('EXISTS', KEYS[2] .. ':' .. holder) == 1 then return 'busy' end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[2] .. ':' .. ARGV[1], '1', 'PX', ARGV[2])
return 'run'
"""

# Let go of a report's lease if it is still this delivery's. KEYS: lease; ARGV: delivery.
_UNLOCK = """
redis.call('DEL', KEYS[1] .. ':' .. ARGV[1])
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# The worker of a delivery running a report's effect keeps it alive, and the report's
# re-send off. KEYS: the delivery's liveness, outbox; ARGV: liveness (ms), report id.
_ALIVE = (
    _NOW
    + """
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 'XX', at(now + tonumber(ARGV[1]) / 1000), ARGV[2])
return 1
"""
)

# The callback acknowledged a report: it leaves the outbox.
# KEYS: report, lease, outbox, outbox's re-sends; ARGV: report id.
_ACK = """
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HDEL', KEYS[4], ARGV[1])
return redis.call('ZREM', KEYS[3], ARGV[1])
"""


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

    An open wait is a hash, `<name>:wait:<id>` (the step it expects, as `step`, that
    step's message, as `next`, when it is due on Redis's clock, as `at`, and the run
    that holds it, as `run`) with the run's lease, `<wait>:lease`; a finished wait has
    none. `<name>:due` schedules when each open wait's step is to be sent (when it is
    due, then again `resend` s later and at doubling intervals should no worker take
    it; while a run holds it, when its lease ends), and `<name>:due:sent` counts the
    sendings. A report not yet acknowledged is `<name>:report:<id>` (its callback and
    the report), with the delivery running its effect, `<report>:lease` (alive while
    `<report>:lease:<delivery>` is);
    `<name>:outbox` schedules when each is sent again (`resend` s after it was sent
    unless a callback started it, then at doubling intervals; `lease` s after its
    running callback last renewed it; `grace` s after the callback ended), and
    `<name>:outbox:sent` counts its sendings.
    """

    def __init__(
        self, redis: Any, name: str, *, grace: float, lease: float, resend: float
    ) -> None:
        self.name = name
        self._redis = redis
        self._grace, self._lease, self._resend = grace, lease, resend
        scripts = {
            "follow": _FOLLOW,
            "claim": _CLAIM,
            "renew": _RENEW,
            "next": _NEXT,
            "finish": _FINISH,
            "touch": _TOUCH,
            "sweep": _SWEEP,
            "lost": _LOST,
            "once": _ONCE,
            "alive": _ALIVE,
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
        """A wait's record and lease, the due schedule and its counts of sendings."""
        wait = self.wait_key(wait_id)
        return [wait, f"{wait}:lease", self.due, f"{self.due}:sent"]

    def now(self) -> float:
        """Redis's clock (epoch seconds), on which every due time is kept."""
        seconds, micros = self._redis.time()
        return float(seconds) + float(micros) / 1e6

    # -- a wait ---------------------------------------------------------------------

    def follow(self, wait_id: str, message: Mapping[str, Any], delay: float) -> bool:
        """Open a wait that expects its first step (`message`, whose step id is the
        wait's id), due in `delay` seconds; True if it is due now and the caller is
        to send it."""
        keys = [self.wait_key(wait_id), self.due, f"{self.due}:sent"]
        args = [wait_id, json.dumps(message), repr(max(0.0, delay)), repr(self._resend)]
        return bool(self._scripts["follow"](keys=keys, args=args))

    def claim(self, wait_id: str, step: str, run: str) -> tuple[str, float]:
        """Let the run `run` of step `step` hold the wait: "claimed", else "finished",
        "superseded" (not the step it expects), "early" (not due yet) or "busy" (a
        copy of it holds it); with Redis's time."""
        lease = max(1, int(self._lease * 1000))
        args = [step, run, lease, wait_id]
        verdict, now = self._scripts["claim"](keys=self._keys(wait_id), args=args)
        return _text(verdict), float(_text(now))

    def beat(self, held: Iterable[tuple[str, str]]) -> None:
        """Renew what a process holds: (wait id, run) a step's lease; (report id, "")
        a running callback's report; (report id, "once:<delivery>:<lease>") an
        effect's delivery. Each pushes the re-send of its wait or report off too."""
        ms = max(1, int(self._lease * 1000))
        with self._redis.pipeline(transaction=False) as pipe:
            for key, run in held:
                if run.startswith("once:"):
                    _, delivery, lease = run.split(":")
                    keys = [self.report_key(key, f":lease:{delivery}"), self.outbox]
                    args = [max(1, int(float(lease) * 1000)), key]
                    self._scripts["alive"](keys=keys, args=args, client=pipe)
                elif run:
                    keys = [f"{self.wait_key(key)}:lease", self.due]
                    self._scripts["renew"](keys=keys, args=[run, ms, key], client=pipe)
                else:
                    keys = [self.report_key(key, ""), self.outbox]
                    args = [repr(self._lease), key]
                    self._scripts["touch"](keys=keys, args=args, client=pipe)
            pipe.execute()

    def book_next(self, run: str, child: Mapping[str, Any], delay: float) -> bool:
        """The run that holds `child`'s wait books its next step, due in `delay`
        seconds on Redis's clock; False if it no longer holds the wait."""
        wait_id = child["wait"]
        args = [run, child["step"], json.dumps(child), repr(max(0.0, delay)), wait_id]
        return bool(self._scripts["next"](keys=self._keys(wait_id), args=args))

    def finish(self, wait_id: str, run: str, entry: Mapping[str, Any] | None) -> bool:
        """The run that holds the wait finishes it, putting `entry` (a report and its
        callback), if any, in the outbox; False if it no longer holds the wait."""
        keys = [*self._keys(wait_id), self.report_key(wait_id, ""), self.outbox]
        args = [
            run,
            "" if entry is None else json.dumps(entry),
            repr(self._resend),
            wait_id,
        ]
        return bool(self._scripts["finish"](keys=keys, args=args))

    def touch(self, report_ids: Iterable[str], seconds: float) -> None:
        """Each report not yet acknowledged is due to be sent again `seconds` from now
        (its callback started or runs: `lease`; it ended: `grace`)."""
        with self._redis.pipeline(transaction=False) as pipe:
            for report_id in report_ids:
                keys = [self.report_key(report_id, ""), self.outbox]
                args = [repr(seconds), report_id]
                self._scripts["touch"](keys=keys, args=args, client=pipe)
            pipe.execute()

    # -- the sweeper ----------------------------------------------------------------

    def due_steps(self, limit: int = 1000) -> list[tuple[str, dict[str, Any], int]]:
        """Each wait whose step is due now (or was sent and not taken in time), with
        that step's message and how often it was sent, now included; each put off."""
        keys = [self.due, f"{self.due}:sent"]
        prefix = self.wait_key("")
        args = [limit, repr(self._resend), prefix, ":lease"]
        return _triples(self._scripts["sweep"](keys=keys, args=args))

    def overdue_reports(
        self, limit: int = 1000
    ) -> list[tuple[str, dict[str, Any], int]]:
        """Each report not acknowledged in time with its outbox entry, put off again."""
        keys = [self.outbox, f"{self.outbox}:sent"]
        args = [limit, repr(self._resend), self.report_key("", ""), ""]
        return _triples(self._scripts["sweep"](keys=keys, args=args))

    def lost(self, wait_ids: Iterable[str]) -> list[str]:
        """Of `wait_ids`, those with neither an open wait nor a report to deliver."""
        ids = [str(wait_id) for wait_id in wait_ids]
        found: list[str] = []
        for start in range(0, len(ids), 500):
            args = [
                self.wait_key(""),
                self.report_key("", ""),
                *ids[start : start + 500],
            ]
            reply = self._scripts["lost"](keys=[self.due, self.outbox], args=args)
            found.extend(_text(item) for item in reply)
        return found

    # -- a report -------------------------------------------------------------------

    def once(
        self,
        report: Mapping[str, Any],
        effect: Callable[[Any], object],
        lease: float,
        delivery: str,
    ) -> bool:
        """Run `effect` in one transaction with the report's acknowledgement, unless
        it was acknowledged (False); `ReportBusy` while another delivery runs it,
        `ReportMismatch` when `report` is not the one recorded for its id (see
        `CeleryWaits.once`); `delivery` is kept alive for `lease` seconds."""
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
                pipe.delete(*keys, f"{keys[1]}:{delivery}").zrem(self.outbox, report_id)
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


def _triples(reply: list[Any]) -> list[tuple[str, dict[str, Any], int]]:
    return [
        (_text(reply[i]), json.loads(reply[i + 1]), int(reply[i + 2]))
        for i in range(0, len(reply), 3)
    ]


def _text(value: object) -> str:
    """A Redis reply as text, whether the client decodes replies or not."""
    return value.decode() if isinstance(value, bytes) else str(value)
