"""Webhook deliveries of the simulated API: signed, retried on the API's schedule, with faults.

A job whose kind declares ``webhooks:`` gets a delivery of its terminal record (the status
body, envelope included) once it becomes terminal, POSTed to the URL its create request
carried in ``url_field``, or the scenario's ``webhook.url``, or the server's
``--webhook-url``. Every delivery is signed with the server's secret under the declared
scheme; an attempt that is not answered with a 2xx is retried after ``first * 2**n``
seconds (at most ``cap``, times the scenario's ``retry_scale``), up to ``attempts``
attempts in all. Scenario faults (``webhook`` in the scenario) drop the delivery, lose its
first attempts, delay it, send it several times (same delivery id), send a stale
in-progress delivery after it, or sign it with a wrong secret.

The sender runs in its own thread from the first tracked job until ``close()``.
"""

from __future__ import annotations

import concurrent.futures
import heapq
import json
import secrets
import threading
from collections import deque
from typing import Any

import attrs
import httpx

from ..model import ir
from ..runtime.webhooks.deliveries import WebhookSpec, sign_webhook
from .jobs import Jobs, canceled_view
from .samples import JSON
from .scenario import WebhookFaults
from .store import SimJob
from .timeline import peek
from .wire import parse_json

__all__ = ["Delivery", "WebhookSender", "new_secret"]

TICK = 0.01
MAX_DELIVERIES_LOGGED = 10_000
SEND_TIMEOUT = 5.0


def new_secret() -> str:
    """A fresh Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    import base64

    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def runtime_spec(hooks: ir.Webhooks) -> WebhookSpec:
    """The runtime's signing settings of a declaration."""
    return WebhookSpec(
        scheme=hooks.scheme,
        id_header=hooks.id_header,
        timestamp_header=hooks.timestamp_header,
        signature_header=hooks.signature_header,
        tolerance=hooks.tolerance,
        record_path=hooks.record_path,
        job_id_path=hooks.id_path,
    )


@attrs.frozen
class Delivery:
    """One delivery attempt, as the sender log keeps it.

    ``outcome``: "delivered" (a 2xx), "failed" (another status or no answer), "lost" (a
    ``drop_attempts`` fault: never sent), "dropped" (a ``drop`` fault: no delivery at all).
    """

    job_id: str
    delivery_id: str
    attempt: int
    state: str
    url: str
    outcome: str
    status: int | None = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.define(order=True)
class _Pending:
    due: float
    seq: int
    job_id: str = attrs.field(order=False)
    delivery_id: str = attrs.field(order=False)
    body: bytes = attrs.field(order=False)
    state: str = attrs.field(order=False)
    url: str = attrs.field(order=False)
    hooks: ir.Webhooks = attrs.field(order=False)
    faults: WebhookFaults = attrs.field(order=False)
    attempts: int = attrs.field(default=0, order=False)


@attrs.define
class _Watch:
    url: str
    stale: bytes
    stale_state: str


class WebhookSender:
    """Sends the webhooks of the jobs of one :class:`Jobs` (it watches each new job)."""

    def __init__(self, jobs: Jobs, *, url: str | None, secret: str) -> None:
        self.jobs = jobs
        self.url = url
        self.secret = secret
        self._lock = threading.Lock()
        self._watched: dict[str, _Watch] = {}
        self._queue: list[_Pending] = []
        self._seq = 0
        self._log: deque[Delivery] = deque(maxlen=MAX_DELIVERIES_LOGGED)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._client: httpx.Client | None = None
        jobs.on_new_job(self.watch)

    # -- tracking (called with the store lock held) ----------------------------------

    def watch(self, sim: SimJob, raw: bytes | None, now: float) -> None:
        """Deliver the terminal record of the new job ``sim``; ``raw`` is its create
        request's body, which may name the job's webhook URL."""
        kind = self.jobs.kinds[sim.name]
        if kind.job.webhooks is None:
            return
        try:
            body = parse_json(raw) if raw else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        sim.progress, view = peek(sim.scenario, sim.progress, now)
        self.track(sim, body, kind.status_body(sim, view))

    def track(self, sim: SimJob, body: JSON, stale: JSON) -> None:
        """Deliver ``sim``'s terminal record once it has one; ``body`` is its create body."""
        job = self.jobs.kinds[sim.name].job
        hooks = job.webhooks
        if hooks is None:
            return
        url = sim.scenario.webhook.url or _url_in(body, hooks.url_field) or self.url
        if url is None:
            return
        state = _state_of(stale, job)
        with self._lock:
            self._watched[sim.id] = _Watch(url, json.dumps(stale).encode(), state)
            self._start()

    def deliveries(self, job_id: str | None = None) -> list[Delivery]:
        """The attempts made so far (``job_id``'s only, when given), oldest first."""
        with self._lock:
            return [d for d in self._log if job_id is None or d.job_id == job_id]

    def close(self) -> None:
        """Stop the sender thread; deliveries not yet sent are abandoned."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._client is not None:
            self._client.close()

    # -- the sender thread -----------------------------------------------------------

    def _start(self) -> None:
        if self._thread is not None or self._stop.is_set():
            return
        self._pool = concurrent.futures.ThreadPoolExecutor(4, "jobgen-webhook")
        self._client = httpx.Client(timeout=SEND_TIMEOUT)
        self._thread = threading.Thread(target=self._run, name="jobgen-webhooks", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            self._scan()
            now = self.jobs.clock()
            with self._lock:
                due = []
                while self._queue and self._queue[0].due <= now:
                    due.append(heapq.heappop(self._queue))
            for pending in due:
                if self._stop.is_set() or self._pool is None:
                    return
                self._pool.submit(self._attempt, pending)

    def _scan(self) -> None:
        """Schedule the deliveries of the watched jobs that became terminal."""
        with self._lock:
            watched = list(self._watched.items())
        if not watched:
            return
        with self.jobs.store.lock:
            now = self.jobs.clock()
            for job_id, watch in watched:
                sim = self.jobs.store.jobs.get(job_id)
                if sim is None:
                    with self._lock:
                        self._watched.pop(job_id, None)
                    continue
                kind = self.jobs.kinds[sim.name]
                sim.progress, view = peek(sim.scenario, sim.progress, now)
                view = canceled_view(kind.job, sim, view)
                if not view.terminal and view.kind != "undocumented":
                    continue
                body = json.dumps(kind.status_body(sim, view)).encode()
                with self._lock:
                    self._watched.pop(job_id, None)
                    self._schedule(sim, watch, body, view.state, now)

    def _schedule(self, sim: SimJob, watch: _Watch, body: bytes, state: str, now: float) -> None:
        hooks = self.jobs.kinds[sim.name].job.webhooks
        assert hooks is not None
        faults = sim.scenario.webhook
        delivery_id = "msg_" + secrets.token_hex(12)
        if faults.drop:
            self._log.append(Delivery(sim.id, delivery_id, 0, state, watch.url, "dropped"))
            return
        at = now + faults.delay
        copies = [(delivery_id, body, state)] * (1 + faults.duplicate)
        if faults.reorder:
            copies.append(("msg_" + secrets.token_hex(12), watch.stale, watch.stale_state))
        for index, (ident, payload, named) in enumerate(copies):
            self._seq += 1
            heapq.heappush(
                self._queue,
                _Pending(
                    at + index * TICK,
                    self._seq,
                    sim.id,
                    ident,
                    payload,
                    named,
                    watch.url,
                    hooks,
                    faults,
                ),
            )

    def _attempt(self, pending: _Pending) -> None:
        pending.attempts += 1
        hooks, faults = pending.hooks, pending.faults
        status: int | None = None
        if pending.attempts <= faults.drop_attempts:
            outcome = "lost"
        else:
            secret = new_secret() if faults.bad_signature else self.secret
            headers = sign_webhook(
                runtime_spec(hooks),
                secret,
                pending.body,
                delivery_id=pending.delivery_id,
                timestamp=int(self.jobs.wall()),
            )
            headers["content-type"] = "application/json"
            try:
                assert self._client is not None
                answer = self._client.post(pending.url, content=pending.body, headers=headers)
                status = answer.status_code
                outcome = "delivered" if answer.is_success else "failed"
            except (httpx.HTTPError, RuntimeError):
                outcome = "failed"
        with self._lock:
            self._log.append(
                Delivery(
                    pending.job_id,
                    pending.delivery_id,
                    pending.attempts,
                    pending.state,
                    pending.url,
                    outcome,
                    status,
                )
            )
            if outcome == "delivered" or pending.attempts >= hooks.attempts:
                return
            delay = min(hooks.retry_cap, hooks.retry_first * 2.0 ** (pending.attempts - 1))
            pending.due = self.jobs.clock() + delay * faults.retry_scale
            self._seq += 1
            pending.seq = self._seq
            heapq.heappush(self._queue, pending)


def _url_in(body: JSON, path: tuple[str, ...] | None) -> str | None:
    if path is None:
        return None
    value: Any = body
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) and value.startswith(("http://", "https://")) else None


def _state_of(body: JSON, job: ir.Job) -> str:
    value: Any = body
    for key in (*job.record_path, *(job.state_path or ())):
        value = value.get(key) if isinstance(value, dict) else None
    return str(value)
