"""Fleet-scale waits on Celery and Redis: no process holds a job while it runs.

`CeleryWaits` registers one Celery task, a *step*: it reads a job's status once with
a `JobHandle` (`poll()`), then either books the next step in Redis, due after the
decided delay on Redis's clock, with the handle's resume token, or, once the job has
ended, finishes the wait and sends your callback task its report. A sweeper in every
worker sends each step when it is due, so no schedule depends on a worker's clock
(nor on Celery's `countdown`, the sender's). Every change of a wait is one Redis
script: see `CeleryWaits` for what that guarantees.

`RedisRateLimiter` (`limit`) makes the cap on status reads fleet-wide; the
records in Redis are `store`'s. The caller passes its Celery app and its
`redis.Redis` (the SDK's `fleet` extra); nothing here imports them.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import attrs

from ..shared.errors import JobTimeout, SDKError, StatusUnavailable
from ..waiting.handle import AsyncJobHandle, JobHandle
from ..waiting.records import MISSING, dig
from ..waiting.resume import decode_resume_token, encode_resume_token
from ..waiting.waiter import SyncJobWaiter
from .limit import RedisRateLimiter
from .store import ReportBusy, ReportMismatch, WaitStore

__all__ = ["POINTS", "CeleryWaits", "RedisRateLimiter", "ReportBusy", "ReportMismatch"]

logger = logging.getLogger(__name__)

#: The named points of a step and of a report, in order, at which `CeleryWaits` calls
#: its `observe` hook: the step holds the wait ("claimed"), read the status ("read"),
#: booked its next step ("next booked"), which a sweep sent once due ("step sent"),
#: or finished the wait ("finished": the report is in the outbox) and sent the report
#: ("report sent"); a sweep sent a step or a report again ("step resent", "report
#: resent"); the callback acknowledged a report ("acknowledged").
POINTS = (
    "claimed",
    "read",
    "next booked",
    "step sent",
    "finished",
    "report sent",
    "step resent",
    "report resent",
    "acknowledged",
)


class CeleryWaits:
    """Waits for jobs of one SDK client on a Celery fleet, one status read per task.

    `app` is the Celery app; `client` makes the SDK's sync `Client` a worker polls
    with, once per worker process; `redis` (a `redis.Redis`, one server, not a
    cluster) holds the bookkeeping under `name`, which also names the tasks
    (`<name>.step`, `<name>.ack`, `<name>.sweep`). Every process that follows jobs or
    runs workers builds the same `CeleryWaits` (as it defines the same tasks).

    Every due time is kept in Redis and compared on its clock: a step books the next
    one, and the sweepers (every `sweep_every` seconds, in every worker; or
    `<name>.sweep`, `self.sweep_task`, from beat with `sweeper=False`) send each step
    when it is due. A step runs only if its wait expects it, it is due and no copy of
    it runs: under a lease of `lease` seconds its worker renews, so a dead worker's
    step is sent again when its lease ends, and a step (or a report) sent and started
    by no worker is sent again `resend` seconds later, then at doubling intervals up
    to 16 times `resend`. A report whose callback ended without its acknowledgement
    is sent again after `grace` seconds. Each finished wait's report so reaches the
    callback at least once, every delivery with the same `report_id` (`once()` runs
    an effect once per id); a finished wait is gone from Redis, so no copy of a step
    reads its status again. `observe(point, wait_id)`, if given, is called at each of
    `POINTS` (tracing, metrics; the fleet's tests stop a worker there).

    A status endpoint that stays unavailable (`StatusUnavailable`) is read again
    after `unavailable_delay` seconds, on the same schedule; any other exception of a
    step is retried after `retry_delay` seconds, `max_retries` times, then reported
    as "error".
    """

    def __init__(
        self,
        app: Any,
        client: Callable[[], Any],
        *,
        redis: Any,
        name: str = "jobgen.fleet",
        grace: float = 60.0,
        lease: float = 5.0,
        resend: float = 5.0,
        sweep_every: float = 1.0,
        sweeper: bool = True,
        unavailable_delay: float = 30.0,
        retry_delay: float = 10.0,
        max_retries: int = 10,
        observe: Callable[[str, str], None] | None = None,
    ) -> None:
        timeouts = {"grace": grace, "lease": lease, "resend": resend}
        for label, value in dict(timeouts, sweep_every=sweep_every).items():
            if not value > 0:
                raise ValueError(f"{label} must be a positive number, got {value!r}")
        self._app = app
        self._make_client = client
        self.name = name
        self._store = WaitStore(redis, name, grace=grace, lease=lease, resend=resend)
        self._lease, self._sweep_every, self._grace = lease, sweep_every, grace
        self._unavailable_delay = unavailable_delay
        self._retry_delay, self._max_retries = retry_delay, max_retries
        self._observe = observe
        self._lock = threading.Lock()
        self._waiters: dict[str, SyncJobWaiter[Any, Any]] | None = None
        self._sweeper: threading.Thread | None = None
        #: What this process holds (`WaitStore.beat`), and its heartbeat's pid.
        self._held: set[tuple[str, str]] = set()
        self._beating = 0
        #: Waited on between sweeps and beats (works where libfaketime breaks sleep).
        self._stopped = threading.Event()

        def step(message: dict[str, Any]) -> str:
            return self._step(message)

        def ack(report_id: str) -> bool:
            return self._ack(report_id)

        def sweep() -> int:
            return self.sweep()

        #: The Celery task of one step (registered on `app` as `<name>.step`).
        self.task: Any = app.task(
            step, name=f"{name}.step", acks_late=True, reject_on_worker_lost=True,
            ignore_result=True,
        )  # fmt: skip
        #: The task linked to every delivery of a report: the callback returned.
        self.ack_task: Any = app.task(
            ack, name=f"{name}.ack", acks_late=True, reject_on_worker_lost=True,
            ignore_result=True,
        )  # fmt: skip
        #: One sweep, for a beat schedule (`<name>.sweep`) when `sweeper=False`.
        self.sweep_task: Any = app.task(sweep, name=f"{name}.sweep", ignore_result=True)
        signals = importlib.import_module("celery.signals")
        signals.task_prerun.connect(self._callback_runs, weak=False)
        signals.task_postrun.connect(self._callback_ended, weak=False)
        if sweeper:
            signals.worker_ready.connect(self._start_sweeper, weak=False)

    def follow(
        self,
        handle: JobHandle[Any, Any] | AsyncJobHandle[Any, Any],
        on_done: Mapping[str, Any] | None = None,
    ) -> str:
        """Hand a job to the fleet; returns the wait's id. Sends no request to the API.

        `handle` is any handle of this SDK (`client.<jobs>.handle(job_id,
        deadline=...)`, or `start(...)`): its token carries the job, its schedule so
        far and its absolute deadline, which from here on is kept on Redis's clock
        (as is the first read's due time, after `start()`). `on_done` is a Celery
        task signature (`my_task.s(...)`), called with the report prepended to its
        arguments, at least once (until one call returns or `once()` has run its
        effect). The report is a dict: `report_id` (the same in every delivery),
        `job_id`, `job` (its name in the SDK), `wait_id`, `outcome` ("success",
        "failure", "canceled", "timeout" or "error"), `state`, `record` (the last
        record as JSON, or None), `error` (a message, or None) and `resume_token`.
        Each call starts a wait of its own, with one report.
        """
        token = handle.resume_token
        decoded = decode_resume_token(token)
        local, now = time.time(), self._store.now()
        delay = 0.0 if decoded.due_at is None else decoded.due_at - local
        wait_id = uuid.uuid4().hex
        message = {
            "job": decoded.job,
            "token": _shifted(token, now - local),
            "wait": wait_id,
            "step": wait_id,
            "on_done": None if on_done is None else dict(on_done),
        }
        if self._store.follow(wait_id, message, delay):
            self.task.apply_async((message,))
        return wait_id

    def once(
        self,
        report: Mapping[str, Any],
        effect: Callable[[Any], object],
        *,
        lease: float | None = None,
    ) -> bool:
        """Run `effect` once for this report, however often it is delivered; True if
        this call ran it.

        Call it in the callback task. `effect(pipeline)` gets a Redis transaction
        (`redis.pipeline()` after `MULTI`): the commands it queues run in one
        transaction with the report's acknowledgement, so an effect kept in this
        Redis happens exactly once. An effect elsewhere runs again only if its
        process dies after it and before that transaction; keep `report["report_id"]`
        with it (a unique key) to close that window too. While one delivery runs the
        effect, another raises `ReportBusy` (the report is sent again `lease` seconds
        later); the running one's worker renews its hold every `lease`/4 seconds
        (None: the `CeleryWaits`' lease), so it is let go `lease` seconds after that
        worker died, and at once if the effect raises. The effect is bound to what
        happened: a delivery whose report differs from the one recorded for its
        `report_id` when the wait finished (another `job_id`, `outcome`, `state`,
        `record` ...: forged or altered in the broker) raises `ReportMismatch`, is
        logged, and runs nothing; the genuine delivery still runs the effect.
        """
        report_id, delivery = str(report["report_id"]), uuid.uuid4().hex
        lease = self._lease if lease is None else lease
        self._hold(report_id, f"once:{delivery}:{lease!r}")
        try:
            return self._store.once(report, effect, lease, delivery)
        except ReportMismatch as mismatch:
            logger.warning("fleet: %s", mismatch)
            raise
        finally:
            self._let_go(report_id, f"once:{delivery}:{lease!r}")

    def lost(self, wait_ids: Iterable[str]) -> list[str]:
        """Of `wait_ids` (what `follow()` returned), those Redis knows nothing of: no
        open wait and no report waiting for its callback, in the order given.

        After a loss of Redis's data, these are the waits to follow again. Pass only
        waits whose report was not applied yet (an acknowledged one leaves nothing
        behind either), and keep those still not applied once it returns. A wait or
        a report without its schedule entry (a partial loss) is scheduled again.
        """
        return self._store.lost(wait_ids)

    def sweep(self) -> int:
        """Send every step that is due (or was sent and not taken in time, or whose
        step's worker let its lease run out), and every report not acknowledged in
        time; returns how many. Each choice and the message it sends are one atomic
        decision in Redis, so sweeps running at once never send the same message."""
        sent = 0
        for wait, message, count in self._store.due_steps():
            self.task.apply_async((message,))
            if count > 1:
                self._point("step resent", wait)
                logger.info("fleet: wait %s: its step was sent again (%d)", wait, count)
            else:
                self._point("step sent", wait)
            sent += 1
        for report_id, entry, _ in self._store.overdue_reports():
            self._send_report(entry)
            self._point("report resent", report_id)
            logger.info("fleet: report %s was not acknowledged; sent again", report_id)
            sent += 1
        return sent

    # -- the worker side ----------------------------------------------------------------

    def _point(self, point: str, wait_id: str) -> None:
        if self._observe is not None:
            self._observe(point, wait_id)

    def _start_sweeper(self, **_: object) -> None:
        def sweep_forever() -> None:
            while not self._stopped.wait(self._sweep_every):
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

    def _hold(self, wait_id: str, run: str) -> None:
        """Renew until `_let_go`, four times per lease (a thread per process): see
        `WaitStore.beat`."""
        with self._lock:
            self._held.add((wait_id, run))
            if self._beating == os.getpid():
                return
            self._beating = os.getpid()  # a forked pool child starts its own
            threading.Thread(
                target=self._heartbeat, name=f"{self.name}-leases", daemon=True
            ).start()

    def _let_go(self, wait_id: str, run: str) -> None:
        with self._lock:
            self._held.discard((wait_id, run))

    def _heartbeat(self) -> None:
        while not self._stopped.wait(self._lease / 4):
            with self._lock:
                held = list(self._held)
            try:
                if held:
                    self._store.beat(held)
            except Exception:  # the next beat tries again; the lease may run out
                logger.warning("fleet: renewing leases failed", exc_info=True)

    def _report_of(self, task_id: object) -> str | None:  # task id: <name>:<report>
        prefix = f"{self.name}:"
        if isinstance(task_id, str) and task_id.startswith(prefix):
            return task_id[len(prefix) :]
        return None

    def _callback_runs(self, task_id: object = None, **_: object) -> None:
        """A callback started: its report is re-sent only if it stops renewing."""
        report_id = self._report_of(task_id)
        if report_id is not None:
            self._store.touch([report_id], self._lease)
            self._hold(report_id, "")

    def _callback_ended(
        self, task_id: object = None, retval: object = None, **_: object
    ) -> None:
        """A callback returned or raised: unless acknowledged, re-sent after `grace`
        (after `lease` if another delivery held its effect: `ReportBusy`)."""
        report_id = self._report_of(task_id)
        if report_id is not None:
            self._let_go(report_id, "")
            busy = isinstance(retval, ReportBusy)
            self._store.touch([report_id], self._lease if busy else self._grace)

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

    def _step(self, message: dict[str, Any]) -> str:
        wait_id, run = message["wait"], uuid.uuid4().hex
        verdict, now = self._store.claim(wait_id, message["step"], run)
        if verdict != "claimed":
            return verdict  # "finished", "superseded", "early" or "busy" (a copy runs)
        self._hold(wait_id, run)
        try:
            return self._poll(message, run, time.time() - now)
        finally:
            self._let_go(wait_id, run)

    def _poll(self, message: dict[str, Any], run: str, offset: float) -> str:
        """One status read, the deadline on this worker's clock (`offset`: its clock
        less Redis's); every token booked or reported is back on Redis's clock."""
        wait_id = message["wait"]
        self._point("claimed", wait_id)
        token = message["token"]
        waiter: SyncJobWaiter[Any, Any] | None = None
        try:
            waiter = self._waiter(message["job"])
            decision = JobHandle(waiter, resume=_shifted(token, offset)).poll()
        except StatusUnavailable:
            self._point("read", wait_id)
            return self._next(message, run, token, self._unavailable_delay)
        except SDKError as error:
            self._point("read", wait_id)
            resume = _resume_token(error)
            return self._finish(
                message,
                run,
                "error" if resume is None else "timeout",
                state=getattr(error, "last_state", None),
                record=_record(
                    waiter,
                    getattr(error, "record", None),
                    getattr(error, "last_record", None),
                ),
                error=str(error),
                token=token if resume is None else _shifted(resume, -offset),
            )
        except Exception as error:  # retried, then reported
            retries = int(message.get("retries", 0))
            if retries >= self._max_retries:
                return self._finish(
                    message, run, "error", error=repr(error), token=token
                )
            logger.warning(
                "fleet: wait %s: step failed; retried", wait_id, exc_info=True
            )
            return self._next(message, run, token, self._retry_delay, retries + 1)
        self._point("read", wait_id)
        token = _shifted(decision.resume_token, -offset)
        if decision.done:
            return self._finish(
                message,
                run,
                decision.outcome or "success",
                state=decision.state,
                record=_record(waiter, decision.record, None),
                token=token,
            )
        return self._next(message, run, token, decision.delay or 0.0)

    def _next(
        self,
        message: dict[str, Any],
        run: str,
        token: str,
        delay: float,
        retries: int = 0,
    ) -> str:
        child = dict(message, token=token, step=uuid.uuid4().hex, retries=retries)
        if not self._store.book_next(run, child, delay):
            return "superseded"  # the lease ran out and another copy took over
        self._point("next booked", message["wait"])
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
        if not self._store.finish(wait_id, run, entry):
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
        acknowledged = self._store.ack(report_id)
        self._point("acknowledged", report_id)
        return acknowledged


def _shifted(token: str, offset: float) -> str:
    """`token` with its deadline moved by `offset` seconds (from one clock to another)
    and without a due time: the wait's due time is kept in Redis."""
    decoded = decode_resume_token(token)
    deadline_at = decoded.deadline_at
    if deadline_at is not None:
        deadline_at += offset
    return encode_resume_token(
        attrs.evolve(decoded, deadline_at=deadline_at, due_at=None)
    )


def _waiters_of(client: Any) -> dict[str, SyncJobWaiter[Any, Any]]:
    """Every job waiter of a sync client, by job name (its resources are looked up)."""
    found: dict[str, SyncJobWaiter[Any, Any]] = {}
    kind = type(cast(object, client))
    for name in dir(kind):
        attribute = inspect.getattr_static(kind, name)
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


def _resume_token(error: SDKError) -> str | None:
    """The resume token of a `JobTimeout`, else None."""
    return error.resume_token if isinstance(error, JobTimeout) else None


def _record(
    waiter: SyncJobWaiter[Any, Any] | None, typed: object, raw: object
) -> object:
    """The job's record as JSON, inside any envelope: the typed record's `to_dict()`,
    else the raw status body's record, else None."""
    to_dict = getattr(typed, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if raw is None or waiter is None:
        return raw
    record = dig(raw, waiter.spec.record_path)
    return raw if record is MISSING else record
