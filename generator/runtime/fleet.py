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
every worker shares through `WaitConfig(status_limiter=...)`. It, and the records
of the waits in Redis (`WaitStore`), live in `fleetstore`; this module is the
Celery side.

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

import functools
import importlib
import inspect
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, cast

from .errors import JobTimeout, SDKError, StatusUnavailable
from .fleetstore import RedisRateLimiter, ReportBusy, ReportMismatch, WaitStore
from .handle import AsyncJobHandle, JobHandle
from .records import MISSING, dig
from .resume import decode_resume_token
from .waiter import SyncJobWaiter

__all__ = ["POINTS", "CeleryWaits", "RedisRateLimiter", "ReportBusy", "ReportMismatch"]

logger = logging.getLogger(__name__)

#: The outcomes a report can carry.
OUTCOMES = ("success", "failure", "canceled", "timeout", "error")

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
        self.name = name
        self._store = WaitStore(redis, name, grace)
        self._grace, self._sweep_every = grace, sweep_every
        self._unavailable_delay = unavailable_delay
        self._retry_delay = retry_delay
        self._observe = observe
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
        self._store.follow(wait_id, message)
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
        acknowledged; an effect that raises lets go at once. The effect is bound to
        what happened: a delivery whose report differs from the one recorded for its
        `report_id` when the wait finished (another `job_id`, `outcome`, `state`,
        `record` ...: forged or altered in the broker) raises `ReportMismatch`, is
        logged, and runs nothing; the genuine delivery still runs the effect.
        """
        try:
            return self._store.once(report, effect, lease)
        except ReportMismatch as mismatch:
            logger.warning("fleet: %s", mismatch)
            raise

    def sweep(self) -> int:
        """Send again the step of every wait, and every report not yet acknowledged,
        that is overdue: by `grace` seconds, then by twice as long after each time it
        was sent again, up to 16 times `grace` (none if another sweep ran less than
        `sweep_every` seconds ago); returns how many."""
        if not self._store.start_sweep(self._sweep_every):
            return 0
        sent = 0
        for wait, message in self._store.overdue_steps():
            self.task.apply_async((message,))
            self._point("step resent", wait)
            logger.info("fleet: wait %s was overdue; its step was sent again", wait)
            sent += 1
        for report_id, entry in self._store.overdue_reports():
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

    def _step(self, task: Any, message: dict[str, Any]) -> str:
        wait_id, run = message["wait"], uuid.uuid4().hex
        claim = self._store.claim(wait_id, message["step"], run)
        if claim != "claimed":
            return claim  # "finished", "superseded" (a copy) or "busy" (a copy running)
        self._point("claimed", wait_id)
        token = message["token"]
        waiter: SyncJobWaiter[Any, Any] | None = None
        try:
            waiter = self._waiter(message["job"])
            decision = JobHandle(waiter, resume=token).poll()
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
                token=token if resume is None else resume,
            )
        except Exception as error:  # noqa: BLE001 - retried by Celery, then reported
            if task.request.retries >= task.max_retries:
                return self._finish(
                    message, run, "error", error=repr(error), token=token
                )
            self._store.release(wait_id, run)
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
        if not self._store.book_next(run, child, delay + self._grace):
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
