"""Doubles for the waiter tests of the committed SDKs.

`FakeTime` is a clock that moves only when something sleeps. `ScriptedAPI` is an
`httpx.MockTransport` handler that answers each job from a script and records every
request. `Flavour` describes one generated SDK: its paths, records and resources.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

MONO_START = 1000.0
WALL_START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
STAMP = "2026-01-01T00:00:00Z"


class FakeTime:
    """Monotonic and wall clocks that advance only by the (recorded) sleeps."""

    def __init__(self, *, start: float = MONO_START, wall: float = WALL_START) -> None:
        self.start = start
        self.now = start
        self.wall_offset = wall - start
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def clock(self) -> float:
        return self.now

    def wall_clock(self) -> float:
        return self.now + self.wall_offset

    @property
    def elapsed(self) -> float:
        return self.now - self.start

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, seconds
        with self._lock:
            self.sleeps.append(seconds)
            self.now += seconds

    async def async_sleep(self, seconds: float) -> None:
        self.sleep(seconds)
        await asyncio.sleep(0)  # let other tasks run, as a real sleep would


# -- the four committed SDKs -----------------------------------------------------------


@dataclass(frozen=True)
class Flavour:
    """What the tests need to know about one generated SDK."""

    package: str
    resource: str
    status_prefix: str
    create_path: str
    result_prefix: str | None
    result_suffix: str
    success: str
    failure: str
    canceled: str | None
    pending: tuple[str, ...]
    record: Callable[..., dict[str, Any]]
    result: Callable[[str], httpx.Response] | None
    create_reply: Callable[[dict[str, Any]], httpx.Response]
    create_body: Callable[[Any], Any]
    make_id: Callable[[int], str]
    credentials: dict[str, str]
    record_model: str
    idempotency_header: str | None

    @property
    def terminal(self) -> frozenset[str]:
        return frozenset(s for s in (self.success, self.failure, self.canceled) if s)


def _sume_record(
    job_id: str,
    state: str,
    *,
    hint: float | None = None,
    ready: bool | None = None,
    error: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    terminal = state in ("completed", "failed", "canceled")
    if error is None and state == "failed":
        error = {"code": "input_unreachable", "message": "the URL did not answer"}
    record = {
        "id": job_id,
        "status": state,
        "terminal": terminal,
        "result_ready": (state == "completed") if ready is None else ready,
        "next_poll_after_seconds": hint,
        "mode": "polling",
        "error": error,
        "created_at": STAMP,
        "updated_at": STAMP,
    }
    record.update(extra)
    return {"data": record}


def _stripe_record(job_id: str, state: str, *, error: Any = None, **extra: Any) -> dict[str, Any]:
    if error is None and state == "failed":
        error = "The report could not be generated."
    record = {
        "id": job_id,
        "object": "reporting.report_run",
        "created": 1767225600,
        "livemode": False,
        "parameters": {},
        "report_type": "balance.summary.1",
        "status": state,
        "result": None,
        "error": error,
        "succeeded_at": 1767225660 if state == "succeeded" else None,
    }
    record.update(extra)
    return record


def _salesforce_record(
    job_id: str, state: str, *, error: Any = None, **extra: Any
) -> dict[str, Any]:
    if error is None and state == "Failed":
        error = "InvalidBatch : Field name not found : Nmae"
    record = {
        "id": job_id,
        "object": "Account",
        "operation": "insert",
        "state": state,
        "numberRecordsProcessed": 3,
        "errorMessage": error,
    }
    record.update(extra)
    return record


def _azure_record(job_id: str, state: str, *, error: Any = None, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": job_id,
        "status": state,
        "createdDateTime": STAMP,
        "lastUpdatedDateTime": STAMP,
    }
    if error is None and state == "Failed":
        error = {"code": "InvalidDocument", "message": "Document text is empty."}
    if error is not None:
        record["error"] = error
    record.update(extra)
    return record


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers)


SUME = Flavour(
    package="sume_sdk",
    resource="jobs",
    status_prefix="/v1/jobs",
    create_path="/v1/jobs",
    result_prefix="/v1/jobs",
    result_suffix="/result",
    success="completed",
    failure="failed",
    canceled="canceled",
    pending=("queued", "processing"),
    record=_sume_record,
    result=lambda job_id: _json(200, {"data": {"job_id": job_id, "summary": "Short."}}),
    create_reply=lambda record: _json(202, record),
    create_body=lambda sdk: sdk.models.CreateJobRequest.from_dict(
        {"input": {"type": "text", "text": "A long text."}}
    ),
    make_id=lambda n: f"job_{n:02d}",
    credentials={"api_key": "sk-sume-secret"},
    record_model="Job",
    idempotency_header="Idempotency-Key",
)

STRIPE = Flavour(
    package="stripe_report_runs_sdk",
    resource="reporting",
    status_prefix="/v1/reporting/report_runs",
    create_path="/v1/reporting/report_runs",
    result_prefix=None,
    result_suffix="",
    success="succeeded",
    failure="failed",
    canceled=None,
    pending=("pending",),
    record=_stripe_record,
    result=None,
    create_reply=lambda record: _json(200, record),
    create_body=lambda sdk: sdk.models.PostReportingReportRunsRequest.from_dict(
        {"report_type": "balance.summary.1"}
    ),
    make_id=lambda n: f"frr_{n:02d}",
    credentials={"token": "sk_test_secret"},
    record_model="ReportingReportRun",
    idempotency_header="Idempotency-Key",
)

CSV = '"sf__Id","sf__Created",Name\n"001xx0000001",true,"Acme"\n'

SALESFORCE = Flavour(
    package="salesforce_bulk_sdk",
    resource="ingest",
    status_prefix="/services/data/v60.0/jobs/ingest",
    create_path="/services/data/v60.0/jobs/ingest",
    result_prefix="/services/data/v60.0/jobs/ingest",
    result_suffix="/successfulResults",
    success="JobComplete",
    failure="Failed",
    canceled="Aborted",
    pending=("Open", "UploadComplete", "InProgress"),
    record=_salesforce_record,
    result=lambda job_id: httpx.Response(
        200, text=CSV, headers={"content-type": "text/csv; charset=utf-8"}
    ),
    create_reply=lambda record: _json(200, record),
    create_body=lambda sdk: sdk.models.CreateIngestJobRequest.from_dict(
        {"object": "Account", "operation": "insert"}
    ),
    make_id=lambda n: f"750xx00000{n:02d}",
    credentials={"token": "00Dxx!secret"},
    record_model="IngestJobInfoFull",
    idempotency_header=None,
)

AZURE = Flavour(
    package="azure_operations_sdk",
    resource="analysis",
    status_prefix="/language/operations",
    create_path="/language/analyze",
    result_prefix="/language/analyses",
    result_suffix="",
    success="Succeeded",
    failure="Failed",
    canceled="Canceled",
    pending=("NotStarted", "Running"),
    record=_azure_record,
    result=lambda job_id: _json(200, {"modelVersion": "2024-05-01", "documents": [{"id": "d1"}]}),
    create_reply=lambda record: _json(
        202,
        record,
        {
            "Operation-Location": "https://example.cognitiveservices.azure.com/language"
            f"/operations/{record['id']}?api-version=2024-05-01"
        },
    ),
    create_body=lambda sdk: sdk.models.AnalyzeRequest.from_dict(
        {"documents": [{"kind": "inline", "id": "d1", "text": "Hello."}], "features": ["summary"]}
    ),
    make_id=lambda n: str(uuid.UUID(int=n)),
    credentials={"api_key": "azure-secret"},
    record_model="OperationStatus",
    idempotency_header="Repeatability-Request-ID",
)

FLAVOURS = (SUME, STRIPE, SALESFORCE, AZURE)


# -- the scripted API --------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer: a record in `state`, or any status, body and headers."""

    state: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    text: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


def answer(state: str, headers: dict[str, str] | None = None, **fields: Any) -> Reply:
    """A 200 with a record in `state`, extra record fields and response headers."""
    return Reply(state=state, headers=headers or {}, fields=fields)


def http(status: int, headers: dict[str, str] | None = None, body: Any = None) -> Reply:
    """An error answer."""
    if body is None:
        body = {"code": "error", "message": f"scripted {status}"}
    return Reply(status=status, headers=headers or {}, body=body)


@dataclass
class After:
    """Answer `step` only once `event` is set (see `ScriptedAPI.done`)."""

    event: threading.Event
    step: Any


@dataclass
class Timed:
    """Answer `before` until `at` fake seconds into the test, then `after`."""

    at: float
    before: Any
    after: Any


@dataclass
class Seen:
    """A request as the API received it."""

    kind: str  # status | result | create | other
    job_id: str | None
    method: str
    path: str
    query: str
    headers: dict[str, str]
    timeout: dict[str, float | None]
    at: float  # fake seconds since the start of the test
    body: bytes

    def key(self) -> tuple[str, str | None, str, str, str, float]:
        return (self.kind, self.job_id, self.method, self.path, self.query, self.at)


class ScriptedAPI:
    """A job API whose answers follow a per-job script; the last step repeats."""

    def __init__(self, flavour: Flavour, time: FakeTime | None = None) -> None:
        self.flavour = flavour
        self.time = time or FakeTime()
        self.scripts: dict[str, list[Any]] = {}
        self.positions: dict[str, int] = {}
        self.requests: list[Seen] = []
        self.create_steps: list[Any] = []
        self.result_steps: dict[str, list[Any]] = {}
        self.created: dict[str, str] = {}  # idempotency key (or a fresh marker) -> job id
        self.jobs_created: list[str] = []
        self.last_record: dict[str, dict[str, Any]] = {}
        self.finished: set[str] = set()
        self.violations: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.active: set[str] = set()
        self.max_active = 0
        self.gate: threading.Barrier | None = None
        self._gated = 0
        self._lock = threading.Lock()
        self._done_events: dict[str, threading.Event] = {}

    # -- scripting

    def script(self, job_id: str, *steps: Any) -> ScriptedAPI:
        self.scripts[job_id] = list(steps)
        self.positions[job_id] = 0
        return self

    def on_create(self, *steps: Any) -> ScriptedAPI:
        """Answers of successive create requests: an exception to raise, `"lost"` (create
        the job, then drop the connection), a `Reply`, or None (create and answer)."""
        self.create_steps = list(steps)
        return self

    def on_result(self, job_id: str, *steps: Any) -> ScriptedAPI:
        """Answers of the first result requests of `job_id` (then the result itself)."""
        self.result_steps[job_id] = list(steps)
        return self

    # -- inspection

    def of(self, kind: str, job_id: str | None = None) -> list[Seen]:
        return [r for r in self.requests if r.kind == kind and job_id in (None, r.job_id)]

    @property
    def kinds(self) -> list[str]:
        return [r.kind for r in self.requests]

    # -- transports

    def transport(self, is_async: bool) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle_async if is_async else self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        seen = self._enter(request)
        last = False
        try:
            if seen.kind == "status" and self._should_gate():
                assert self.gate is not None
                self.gate.wait(timeout=5)
            step, last = self._next_step(seen)
            if isinstance(step, After):
                assert step.event.wait(timeout=5), "the awaited event never came"
                step = step.step
            return self._answer(seen, step, request)
        finally:
            self._leave(seen, last)

    async def handle_async(self, request: httpx.Request) -> httpx.Response:
        seen = self._enter(request)
        last = False
        try:
            await asyncio.sleep(0)  # overlap with other waits while in flight
            step, last = self._next_step(seen)
            if isinstance(step, After):
                for _ in range(10_000):
                    if step.event.is_set():
                        break
                    await asyncio.sleep(0)
                assert step.event.is_set(), "the awaited event never came"
                step = step.step
            return self._answer(seen, step, request)
        finally:
            self._leave(seen, last)

    # -- internals

    def done(self, job_id: str) -> threading.Event:
        """Set once `job_id` has been answered a terminal state or its last scripted step."""
        with self._lock:
            return self._done_events.setdefault(job_id, threading.Event())

    def _finish(self, job_id: str) -> None:
        with self._lock:
            self.finished.add(job_id)
            self.active.discard(job_id)
        self.done(job_id).set()

    def _should_gate(self) -> bool:
        with self._lock:
            if self.gate is None or self._gated >= self.gate.parties:
                return False
            self._gated += 1
            return True

    def _classify(self, request: httpx.Request) -> tuple[str, str | None]:
        fl = self.flavour
        path = request.url.path
        if request.method == "POST" and path == fl.create_path:
            return "create", None
        if request.method == "GET" and fl.result_prefix is not None:
            head = fl.result_prefix + "/"
            if path.startswith(head) and path.endswith(fl.result_suffix):
                rest = path[len(head) : len(path) - len(fl.result_suffix)]
                if rest and "/" not in rest:
                    return "result", rest
        if request.method == "POST" and path.startswith(fl.status_prefix + "/"):
            rest = path[len(fl.status_prefix) + 1 :]
            if rest.endswith("/cancel") and rest.count("/") == 1:
                return "cancel", rest[: -len("/cancel")]
        if request.method == "GET" and path.startswith(fl.status_prefix + "/"):
            rest = path[len(fl.status_prefix) + 1 :]
            if rest and "/" not in rest:
                return "status", rest
        return "other", None

    def _enter(self, request: httpx.Request) -> Seen:
        kind, job_id = self._classify(request)
        timeout = dict(request.extensions.get("timeout", {}))
        seen = Seen(
            kind=kind,
            job_id=job_id,
            method=request.method,
            path=request.url.path,
            query=request.url.query.decode(),
            headers={k.lower(): v for k, v in request.headers.items()},
            timeout=timeout,
            at=self.time.elapsed,
            body=request.read(),
        )
        with self._lock:
            self.requests.append(seen)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if kind == "status" and job_id is not None and job_id not in self.finished:
                self.active.add(job_id)
                self.max_active = max(self.max_active, len(self.active))
        return seen

    def _leave(self, seen: Seen, last: bool) -> None:
        with self._lock:
            self.in_flight -= 1
        if last and seen.job_id is not None:
            self._finish(seen.job_id)

    def _next_step(self, seen: Seen) -> tuple[Any, bool]:
        """The step answering `seen`, and whether it is the last of its job's script."""
        if seen.kind == "create":
            with self._lock:
                return (self.create_steps.pop(0) if self.create_steps else None), False
        if seen.kind == "result" and seen.job_id is not None:
            with self._lock:
                steps = self.result_steps.get(seen.job_id)
                return (steps.pop(0) if steps else None), False
        if seen.kind != "status" or seen.job_id is None:
            return None, False
        with self._lock:
            script = self.scripts.get(seen.job_id)
            if not script:
                return http(404, body={"code": "not_found", "message": "No such job."}), False
            position = self.positions[seen.job_id]
            self.positions[seen.job_id] = position + 1
            return script[min(position, len(script) - 1)], position >= len(script) - 1

    def _answer(self, seen: Seen, step: Any, request: httpx.Request) -> httpx.Response:
        if isinstance(step, Timed):
            step = step.after if seen.at >= step.at else step.before
        if isinstance(step, BaseException):
            if isinstance(step, httpx.RequestError):
                raise type(step)(str(step), request=request)
            raise step
        if seen.kind == "create":
            return self._create(seen, step, request)
        if seen.kind == "cancel" and seen.job_id is not None:
            # Accepted: the job reports its cancel on a later status read.
            return _json(202, self.flavour.record(seen.job_id, self.flavour.pending[-1]))
        if seen.kind == "result":
            if isinstance(step, Reply):
                return _json(step.status, step.body, step.headers)
            return self._result(seen)
        if seen.kind != "status":
            self.violations.append(f"unexpected request {seen.method} {seen.path}")
            return _json(405, {"code": "unexpected", "message": "not scripted"})
        assert seen.job_id is not None
        if isinstance(step, str):
            step = Reply(state=step)
        assert isinstance(step, Reply), step
        if step.state is None:
            if step.text is not None:
                return httpx.Response(step.status, text=step.text, headers=step.headers)
            return _json(step.status, step.body, step.headers)
        record = self.flavour.record(seen.job_id, step.state, **step.fields)
        with self._lock:
            self.last_record[seen.job_id] = record
        if step.state in self.flavour.terminal:
            self._finish(seen.job_id)
        return _json(step.status, record, step.headers)

    def _result(self, seen: Seen) -> httpx.Response:
        assert seen.job_id is not None and self.flavour.result is not None
        record = self.last_record.get(seen.job_id)
        ready = record is not None and _ready(self.flavour, record)
        if not ready:
            self.violations.append(f"result of {seen.job_id} requested before it was ready")
            return _json(409, {"code": "job_not_completed", "message": "Not completed."})
        return self.flavour.result(seen.job_id)

    def _create(self, seen: Seen, step: Any, request: httpx.Request) -> httpx.Response:
        if isinstance(step, Reply):
            return _json(step.status, step.body, step.headers)
        fl = self.flavour
        key = seen.headers.get(fl.idempotency_header.lower()) if fl.idempotency_header else None
        with self._lock:
            marker = key if key else f"no-key-{len(self.requests)}"
            job_id = self.created.get(marker)
            if job_id is None:
                job_id = fl.make_id(len(self.jobs_created) + 1)
                self.created[marker] = job_id
                self.jobs_created.append(job_id)
        if step == "lost":
            raise httpx.ReadError("connection reset after the job was created", request=request)
        return fl.create_reply(fl.record(job_id, fl.pending[0]))


def _ready(flavour: Flavour, body: dict[str, Any]) -> bool:
    if flavour is SUME:
        return bool(body["data"]["result_ready"])
    state = body.get("status", body.get("state"))
    return state == flavour.success


# -- running a test against a twin -------------------------------------------------------


class Session:
    """A client of one twin, wired to a scripted API and a fake clock."""

    def __init__(self, twin: str, sdk: Any, api: ScriptedAPI, client: Any) -> None:
        self.twin = twin
        self.sdk = sdk
        self.errors = sdk.errors
        self.models = sdk.models
        self.api = api
        self.time = api.time
        self.client = client

    @property
    def is_async(self) -> bool:
        return self.twin == "async"

    def run(self, fn: Callable[[Any], Any]) -> Any:
        """Call `fn(client)`; for the async twin, await what it returns."""
        if not self.is_async:
            return fn(self.client)

        async def main() -> Any:
            return await fn(self.client)

        return asyncio.run(main())

    def collect(
        self, fn: Callable[[Any], Any], each: Callable[[Any], None] | None = None
    ) -> list[Any]:
        """Every item of the (async) iterator `fn(client)` returns, in order; `each`
        is called on every item as it arrives."""
        items: list[Any] = []

        def take(item: Any) -> None:
            items.append(item)
            if each is not None:
                each(item)

        if not self.is_async:
            for item in fn(self.client):
                take(item)
            return items

        async def main() -> None:
            async with fn(self.client) as outcomes:
                async for item in outcomes:
                    take(item)

        asyncio.run(main())
        return items


def make_session(
    twin: str,
    sdk: Any,
    api: ScriptedAPI,
    *,
    rng: Callable[[], float] = lambda: 0.5,
    wait: dict[str, Any] | None = None,
    **client_options: Any,
) -> Session:
    time = api.time
    config = sdk.WaitConfig(
        clock=time.clock,
        wall_clock=time.wall_clock,
        sleep=time.sleep,
        async_sleep=time.async_sleep,
        rng=rng,
        **(wait or {}),
    )
    cls = sdk.AsyncClient if twin == "async" else sdk.Client
    options = {**api.flavour.credentials, **client_options}
    client = cls(wait_config=config, transport=api.transport(twin == "async"), **options)
    return Session(twin, sdk, api, client)


def resource(client: Any, flavour: Flavour) -> Any:
    return getattr(client, flavour.resource)


class Twin:
    """One of the two clients; `connect` wires it to a scripted API and fake time."""

    def __init__(self, mode: str, sdks: dict[str, Any]) -> None:
        self.mode = mode
        self.sdks = sdks

    @property
    def is_async(self) -> bool:
        return self.mode == "async"

    def sdk(self, flavour: Flavour) -> Any:
        return self.sdks[flavour.package]

    def connect(self, api: ScriptedAPI, **options: Any) -> Session:
        return make_session(self.mode, self.sdk(api.flavour), api, **options)
