"""The simulated job API: an ASGI app serving a spec's job operations, and ``jobgen serve``.

Only the operations the job extension declares (create, status, result, cancel), list
operations of a job's records (:mod:`.listing`) and event streams of one job's state
(:mod:`.streams`) are served, on
the spec's own paths and methods, at the root of the server (a path in the spec's server
URL, such as Azure's ``/language``, is not part of them). Control endpoints live under
``/_jobgen/``; they are not part of the request log. Jobs, idempotency keys and the log
are bounded (see :mod:`.store`) and belong to the credential that made them.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from ..model import ir
from ..model.build import load_and_build
from ..problems import Location, NoJobs, pointer_join
from .answers import Declared, SelfCheck, self_check_mode
from .auth import Credentials, read_credential
from .control import (
    CONTROL_PREFIX,
    SCENARIO_HEADER,
    Control,
    control_error,
    describe,
    handle_control,
)
from .errors import ErrorShapes, read_spec
from .flows import operation_headers, original_job, ruled_status
from .jobs import Jobs, canceled_view, record_of
from .keys import matches, place, secret_wires
from .kinds import JSON_LINES, JobKind, format_retry_after, id_slot, in_query, timestamp
from .listen import base_url, bind, make_server
from .listing import list_operations, page_of
from .log import RequestRecord, mask_body, mask_headers, mask_query
from .routes import Matched, Others, Route, Router
from .scenario import CreateFault, RetryAfter, Scenario, ScenarioError
from .store import Limits, Replay, SimJob
from .streams import event_operations, follow
from .timeline import (
    Dropped,
    ErrorAnswer,
    Malformed,
    create_fault,
    peek,
    read,
    status_fault,
)
from .validate import RequestChecks, Violation
from .webhooks import Delivery, WebhookSender, new_secret
from .wire import (
    Answer,
    BodyTooLarge,
    Receive,
    Request,
    Scope,
    Send,
    json_answer,
    parse_json,
    read_request,
    send_answer,
    send_stream,
)

__all__ = ["CONTROL_PREFIX", "SCENARIO_HEADER", "JobApp", "serve"]

#: The GIL switch interval of ``jobgen serve`` (seconds).
SWITCH_INTERVAL = 0.001

MALFORMED_BODY = b'{"data": {"id": <html><title>502 Bad Gateway</title></html>'


@attrs.define
class _Exchange:
    """What one request did, for its log record."""

    operation: str | None = None
    job_name: str | None = None
    job_id: str | None = None
    poll: int | None = None
    idempotency_key: str | None = None
    fault: str | None = None
    replayed: bool = False
    violations: tuple[str, ...] = ()
    caller: str | None = None
    #: Not logged: the operation answered, and the pointers of the answer that the
    #: scenario itself set off the spec (a ``hint`` below the spec's minimum).
    op: ir.Operation | None = attrs.field(default=None, metadata={"log": False})
    spared: tuple[str, ...] = attrs.field(default=(), metadata={"log": False})

    def logged(self) -> dict[str, Any]:
        return attrs.asdict(self, filter=lambda a, _: a.metadata.get("log", True))


#: Headers that name where the job is: filled with its status URL.
LOCATION_HEADERS = frozenset({"location", "operation-location", "azure-asyncoperation"})
#: The scenario's deliberate faults: answers off the spec by design, never self-checked.
DELIBERATE_FAULTS = frozenset({"status_error", "drop_connection", "malformed"})


class JobApp:
    """The ASGI application simulating the jobs of one SDK."""

    def __init__(
        self,
        sdk: ir.Sdk,
        *,
        spec_path: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        limits: Limits | None = None,
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        strict: bool = True,
        time_scale: float = 1.0,
        self_check: str | None = None,
    ) -> None:
        if not sdk.jobs:
            raise NoJobs.at(
                Location(str(spec_path) if spec_path else sdk.title, "/x-jobgen"),
                "declares no jobs: there is nothing to simulate",
            )
        #: The jobs, their store and clocks (the layer control and webhooks share).
        self.jobs = Jobs(sdk, clock=clock, wall=wall, limits=limits, time_scale=time_scale)
        self.sdk = sdk
        self.clock = clock
        self.wall = wall
        #: Waits between the looks of an event stream at its job.
        self.sleep = sleep
        self.kinds = self.jobs.kinds
        self.store = self.jobs.store
        self.errors = ErrorShapes(sdk, spec_path, timestamp=timestamp(wall()))
        for kind in self.kinds.values():
            kind.documents_retry_after = self.errors.documents_header(
                kind.job.status, "retry-after"
            )
        self.router = Router(sdk.jobs, tuple(list_operations(sdk)), tuple(event_operations(sdk)))
        spec = sdk.spec if sdk.spec is not None else read_spec(spec_path)
        #: The operations outside any job, answered from their examples or schemas.
        self.others = Others(sdk, self.router)
        operations = [r.operation for r in self.router.routes]
        #: The request contracts checked (None with ``strict=False``: anything goes).
        self.checks: RequestChecks | None = None
        if strict and spec is not None:
            self.checks = RequestChecks(spec, operations)
        self._spec = spec if strict else None
        operations += self.others.operations
        #: The responses each operation declares (None when the spec cannot be read).
        self.declared = (
            Declared(spec, operations, timestamp=timestamp(wall())) if spec is not None else None
        )
        #: Every answer checked against its declared response before it is sent.
        self.self_check = SelfCheck(self.declared, self_check_mode(self_check))
        for kind in self.kinds.values():
            kind.declared = self.declared
        keys = [a for a in sdk.auths if isinstance(a, ir.ApiKeyAuth)]
        carried_query, carried_headers = secret_wires(sdk.jobs)
        self._secret_params = (
            frozenset(a.wire.lower() for a in keys if a.where == "query") | carried_query
        )
        self._secret_headers = (
            frozenset(a.wire.lower() for a in keys if a.where == "header") | carried_headers
        )
        #: Body fields masked in the log besides the usual names: carried values.
        self._secret_fields = frozenset(
            c.wire.lower() for j in sdk.jobs for c in j.carry if c.target == "body"
        )
        self._kept_headers = frozenset(
            {SCENARIO_HEADER}
            | {j.idempotency_header.lower() for j in sdk.jobs if j.idempotency_header}
        )
        #: Sends the webhooks of the jobs that declare them (None when none does).
        self.webhooks: WebhookSender | None = None
        if any(job.webhooks is not None for job in sdk.jobs):
            secret = webhook_secret or new_secret()
            self.webhooks = WebhookSender(self.jobs, url=webhook_url, secret=secret)
        self.control = Control(
            self.jobs, self.webhooks, tuple(self.router.routes), self_check=self.self_check
        )

    def close(self) -> None:
        """Stop sending webhooks (idempotent)."""
        if self.webhooks is not None:
            self.webhooks.close()

    def deliveries(self, job_id: str | None = None) -> list[Delivery]:
        """The webhook delivery attempts made so far (``job_id``'s only, when given)."""
        return [] if self.webhooks is None else self.webhooks.deliveries(job_id)

    # -- ASGI -------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            request = await read_request(scope, receive)
        except BodyTooLarge:
            await send_answer(send, control_error(413, "", "the request body is too large"))
            return
        if request.body:
            # Reading and checking a body is bounded, but not free: off the event loop, so
            # other clients are answered meanwhile (see docs/serve.md#bounded-work).
            answer = await asyncio.to_thread(self.handle, request)
        else:
            answer = self.handle(request)
        if answer.stream is not None:
            await send_stream(send, receive, answer)
        else:
            await send_answer(send, answer)

    def handle(self, request: Request) -> Answer:
        """Answer one request (and log it, unless it is a control request)."""
        if request.path == CONTROL_PREFIX or request.path.startswith(CONTROL_PREFIX + "/"):
            return handle_control(self.control, request)
        exchange = _Exchange(caller=self.caller_of(request))
        # Matching and checking the request, and masking it for the log, touch no job:
        # done before taking the lock, so no other request waits for them.
        checked = self._check(request, exchange)
        query = mask_query(request.query, self._secret_params)
        headers = mask_headers(request.headers, self._secret_headers, self._kept_headers)
        body = mask_body(request.body, request.headers.get("content-type"), self._secret_fields)
        with self.store.lock:
            now = self.clock()
            self.store.expire(now)
            if isinstance(checked, Answer):
                answer = checked
            else:
                found, credentials = checked
                answer = self._dispatch(request, found, credentials, exchange, now)
            if exchange.fault not in DELIBERATE_FAULTS:
                answer = self._declared_headers(exchange, answer, request.origin)
                answer = self.self_check.review(
                    exchange.op,
                    request.method,
                    request.path,
                    answer,
                    spared=exchange.spared,
                    caller=exchange.caller,
                )
            self.store.seq += 1
            self.store.append(
                RequestRecord(
                    seq=self.store.seq,
                    time=now,
                    method=request.method,
                    path=request.path,
                    query=query,
                    status=None if answer.drop else answer.status,
                    headers=headers,
                    body=body,
                    **exchange.logged(),
                )
            )
        return answer

    def _declared_headers(self, exchange: _Exchange, answer: Answer, origin: str) -> Answer:
        """``answer`` with the headers its operation declares for its status and it lacks:
        a ``Location`` (or ``Operation-Location``) naming the job's status URL, any other
        made from its schema. Hint headers are sent only as the scenario says (a
        required one excepted)."""
        if self.declared is None or exchange.op is None or answer.drop:
            return answer
        sent = {name for name, _ in answer.headers}
        sim = self.store.jobs.get(exchange.job_id) if exchange.job_id else None
        kind = self.kinds.get(sim.name) if sim is not None else None
        hints = {"retry-after"}
        if kind is not None:
            hints |= {h.name.lower() for h in kind.job.header_hints}
        added: list[tuple[str, str]] = []
        for header in self.declared.headers_of(exchange.op, answer.status):
            name = header.name.lower()
            if name in sent or (name in hints and not header.required):
                continue
            result_location = kind is not None and kind.job.final_from == "create-location"
            if name == "location" and not header.required and result_location:
                continue  # it would name the result, which is served as the record
            value: str | None = None
            if name in LOCATION_HEADERS and sim is not None and kind is not None:
                value = kind.status_url(origin, sim)
            if value is None:
                value = self.declared.header_value(exchange.op, answer.status, header.name)
            if value is not None:
                added.append((name, value))
        if not added:
            return answer
        return attrs.evolve(answer, headers=(*answer.headers, *added))

    # -- callers and in-process control -------------------------------------------------

    def fingerprint(self, credential: str | None) -> str | None:
        """Who owns what a credential made: a keyed hash of it (None for no credential)."""
        return self.jobs.fingerprint(credential)

    def caller_of(self, request: Request) -> str | None:
        """The fingerprint of the credential ``request`` carries, in any of the spec's schemes."""
        return self.jobs.caller_of(request)

    def job_for(self, job_name: str | None) -> ir.Job:
        """The declared job called ``job_name`` (optional when the spec declares one)."""
        return self.jobs.job_for(job_name)

    def create_job(
        self,
        scenario: Mapping[str, Any] | None = None,
        *,
        job_name: str | None = None,
        credential: str | None = None,
    ) -> str:
        """Create a job directly; it answers to ``credential`` only (any credential if None)."""
        return self.jobs.create_job(scenario, job_name=job_name, credential=credential)

    def add_job(self, job: ir.Job, scenario: Scenario, owner: str | None) -> str:
        """Create a job of kind ``job`` with an already parsed scenario; returns its id."""
        return self.jobs.add_job(job, scenario, owner)

    def requests(self, job_id: str | None = None) -> list[RequestRecord]:
        """Every caller's logged requests (``job_id``'s only, when given), oldest first."""
        return self.store.records(job_id)

    def reset(self) -> None:
        """Forget every caller's jobs, keys and requests."""
        with self.store.lock:
            self.store.clear(everyone=True)

    # -- the job API ------------------------------------------------------------------

    def _error(
        self,
        op: ir.Operation | None,
        status: int,
        message: str,
        *,
        code: str | None = None,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> Answer:
        body = self.errors.body(op, status, message, code)
        if self.declared is not None:
            body = self.declared.conform(op, status, body)
        return json_answer(status, body, headers)

    def _check(self, request: Request, exchange: _Exchange) -> Answer | tuple[Matched, Credentials]:
        """The route and credentials of ``request``, or the answer refusing it (no route,
        no credential, a request breaking its operation's contract); an operation outside
        the jobs is answered here (it touches no job)."""
        found = self.router.match(request.method, request.path, request.headers.get("content-type"))
        if not isinstance(found, Matched):
            other = self.others.match(request.method, request.path)
            if other is not None:
                return self._other(request, exchange, *other)
        if found is None:
            return self._error(None, 404, f"no job operation at {request.method} {request.path}")
        if isinstance(found, list):
            allow = ", ".join(found)
            return self._error(
                None,
                405,
                f"{request.method} is not allowed here; use {allow}",
                headers=(("allow", allow),),
            )
        route = found.route
        exchange.operation, exchange.job_name = route.role, route.job.name
        exchange.op = route.operation
        if route.role != "create":
            exchange.job_id = job_id_of(route.job, found.params, request.params) or None
        credentials = read_credential(
            self.sdk.auths, route.operation.security, request.headers, request.params
        )
        refused = self._refused(
            route.operation, request, found.params, credentials, exchange, self.checks
        )
        if refused is not None:
            return refused
        if self.checks is None:
            missing = [
                p.wire
                for p in route.operation.parameters
                if p.location == "query" and p.required and p.wire not in request.params
            ]
            if missing:
                return self._error(
                    route.operation, 400, f"missing required query parameter {missing[0]}"
                )
            sent = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
            if (
                route.role == "create"
                and request.body
                and (sent == "application/json" or sent.endswith("+json"))
            ):
                try:
                    parse_json(request.body)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return self._error(route.operation, 400, "the request body is not JSON")
        return found, credentials

    def _refused(
        self,
        op: ir.Operation,
        request: Request,
        params: dict[str, str],
        credentials: Credentials,
        exchange: _Exchange,
        checks: RequestChecks | None,
    ) -> Answer | None:
        """The answer refusing ``request`` to ``op``: a 401 without a credential, else the
        status its contract (``checks``; None: unchecked) gives; None when it may go on."""
        if credentials.problem:
            exchange.fault = "missing_credentials"
            challenge = (
                (("www-authenticate", credentials.challenge),) if credentials.challenge else ()
            )
            return self._error(op, 401, credentials.problem, headers=challenge)
        problems = checks.check(op, request, params) if checks is not None else []
        if checks is None or not problems:
            return None
        exchange.fault = "invalid_request"
        exchange.violations = tuple(str(p) for p in problems)
        return self._error(op, checks.status(op, problems), refusal(problems))

    def _dispatch(
        self,
        request: Request,
        found: Matched,
        credentials: Credentials,
        exchange: _Exchange,
        now: float,
    ) -> Answer:
        """Answer a checked request to ``found``'s operation (with the store's lock held)."""
        route = found.route
        if route.role == "create":
            return self._create(request, found, credentials, exchange, now)
        if route.role == "list":
            return self._list(request, route, credentials, now)
        return self._read(request, found, credentials, exchange, now)

    def _other(
        self, request: Request, exchange: _Exchange, op: ir.Operation, params: dict[str, str]
    ) -> Answer:
        """An operation outside the jobs: checked like any, answered with its first
        success response, from the spec's example or made up from its schema."""
        exchange.operation, exchange.op = "other", op
        credentials = read_credential(self.sdk.auths, op.security, request.headers, request.params)
        checks = self.others.checks(op, self._spec)
        refused = self._refused(op, request, params, credentials, exchange, checks)
        if refused is not None:
            return refused
        if self.declared is None:
            return Answer(200, b"")
        return self.declared.example_answer(op)

    def _read(
        self,
        request: Request,
        found: Matched,
        credentials: Credentials,
        exchange: _Exchange,
        now: float,
    ) -> Answer:
        route = found.route
        job_id = job_id_of(route.job, found.params, request.params)
        if route.role == "result" and route.job.final_from == "original-uri":
            names = {
                r.job.name
                for r in self.router.routes
                if r.role == "result"
                and r.method == route.method
                and r.operation.path == route.operation.path
            }
            job_id = original_job(self.store.jobs, names, found.params) or ""
            exchange.job_id = job_id or None
        sim = self.store.jobs.get(job_id)
        if sim is not None and sim.name != route.job.name:
            shared = self.router.for_job(route, sim.name)
            if shared is not None:
                route, found = shared, Matched(shared, found.params)
                exchange.job_name, exchange.op = sim.name, shared.operation
        if sim is None or sim.name != route.job.name:
            return self._error(route.operation, 404, f"no job {job_id!r}")
        if not matches(route.job, sim.carried, request, found.params):
            # A wrong or missing key is answered like an unknown job: keys are secret.
            exchange.fault = "wrong_key"
            return self._error(route.operation, 404, f"no job {job_id!r}")
        if sim.owner is not None and credentials.required and credentials.value != sim.owner:
            exchange.fault = "wrong_credentials"
            return self._error(
                route.operation, 401, "this job was created with a different credential"
            )
        if route.role == "status":
            return self._status(route, sim, exchange, now, request.origin)
        if route.role == "cancel":
            return self._cancel(route, sim, now)
        if route.role == "events":
            return self._events(route, sim)
        return self._result(route, sim, now)

    def _events(self, route: Route, sim: SimJob) -> Answer:
        """A ``text/event-stream`` of ``sim``'s state changes (see :mod:`.streams`)."""
        kind = self.kinds[sim.name]

        def look() -> tuple[str, bool, Any] | None:
            with self.store.lock:
                if self.store.jobs.get(sim.id) is not sim:
                    return None
                sim.progress, view = read(sim.scenario, sim.progress, self.clock())
                view = canceled_view(route.job, sim, view)
                body = kind.status_body(sim, view)
            return view.state, view.terminal, record_of(route.job, body)

        status = route.operation.response.status
        headers = (("content-type", "text/event-stream"), ("cache-control", "no-cache"))
        stream = follow(look, self.sleep)
        return Answer(int(status) if status.isdigit() else 200, headers=headers, stream=stream)

    def _list(self, request: Request, route: Route, credentials: Credentials, now: float) -> Answer:
        """A page of the caller's jobs of the route's kind, oldest first (no poll counted)."""
        kind = self.kinds[route.job.name]
        records: list[tuple[str, Any]] = []
        for sim in self.store.jobs.values():
            if sim.name != route.job.name:
                continue
            if sim.owner is not None and credentials.required and credentials.value != sim.owner:
                continue
            sim.progress, view = peek(sim.scenario, sim.progress, now)
            records.append((sim.id, record_of(route.job, kind.status_body(sim, view))))
        params = {name: values[-1] for name, values in request.params.items()}
        body, headers = page_of(route.operation, records, params, kind.sampler(self.wall()))
        status = route.operation.response.status
        return json_answer(int(status) if status.isdigit() else 200, body, headers)

    def _cancel(self, route: Route, sim: SimJob, now: float) -> Answer:
        """Accept a cancel of a running job: from now on it reports a canceled state."""
        kind = self.kinds[sim.name]
        sim.progress, view = peek(sim.scenario, sim.progress, now)
        view = canceled_view(route.job, sim, view)
        if view.terminal and not sim.canceled:
            return self._error(
                route.operation, 409, f"job {sim.id} is already {view.state}", code="job_finished"
            )
        sim.canceled = True
        view = canceled_view(route.job, sim, view)
        status = route.operation.response.status
        value = kind.answer_body(route.operation, sim, view)
        code = int(status) if status.isdigit() else 200
        if value is None:
            return Answer(code, b"")
        return json_answer(code, value)

    def _status(
        self, route: Route, sim: SimJob, exchange: _Exchange, now: float, origin: str
    ) -> Answer:
        kind = self.kinds[sim.name]
        exchange.spared = spared(kind, sim)
        sim.polls += 1
        exchange.poll = sim.polls
        fault = status_fault(sim.scenario, sim.polls)
        if isinstance(fault, ErrorAnswer):
            exchange.fault = "status_error"
            return self._fault_answer(route.operation, fault.status, fault.retry_after)
        if isinstance(fault, Dropped):
            exchange.fault = "drop_connection"
            return Answer(200, b'{"', (("content-type", "application/json"),), drop=True)
        if isinstance(fault, Malformed):
            exchange.fault = "malformed"
            return Answer(200, MALFORMED_BODY, (("content-type", "application/json"),))
        sim.progress, view = read(sim.scenario, sim.progress, now)
        view = canceled_view(route.job, sim, view)
        hints = () if view.terminal else kind.hint_headers(sim.scenario, self.wall())
        status = route.operation.response.status
        body = kind.status_body(sim, view)
        ruled = ruled_status(kind, view.state, body, sim, origin)
        if ruled is not None:
            # The job extension's status_rules declare this answer's status.
            exchange.spared = (*exchange.spared, "/status")
            code, value, headers = ruled
            if code >= 400:
                message = f"job {sim.id} is {view.state}"
                return self._error(route.operation, code, message, code="job_gone")
            if value is None:
                return Answer(code, b"", (*headers, *hints))
            return json_answer(code, value, (*headers, *hints))
        return json_answer(int(status) if status.isdigit() else 200, body, hints)

    def _result(self, route: Route, sim: SimJob, now: float) -> Answer:
        kind = self.kinds[sim.name]
        if sim.downloaded:
            return self._error(route.operation, 404, f"the result of job {sim.id} is gone")
        sim.progress, view = peek(sim.scenario, sim.progress, now)
        view = canceled_view(route.job, sim, view)
        if not view.ready:
            return self._error(
                route.operation,
                409,
                f"job {sim.id} is {view.state}: its result is not ready",
                code="job_not_completed",
            )
        status, body, content_type, value = kind.result(sim, view)
        response = route.operation.response
        media = (response.media_type or "").split(";")[0].strip().lower()
        if media in JSON_LINES:
            item = self.errors.media_example(route.operation, response.status, media)
            body, content_type = kind.json_lines(sim, item), response.media_type
        sim.downloaded = route.job.result_once
        if value is not None:
            return json_answer(status, value)
        headers = (("content-type", content_type),) if content_type else ()
        return Answer(status, body, headers)

    def _create(
        self,
        request: Request,
        found: Matched,
        credentials: Credentials,
        exchange: _Exchange,
        now: float,
    ) -> Answer:
        route = found.route
        kind = self.kinds[route.job.name]
        raw = request.headers.get(SCENARIO_HEADER)
        try:
            scenario = self.jobs.scenario(parse_json(raw) if raw else None, route.job)
        except json.JSONDecodeError as exc:
            exchange.op = None  # the control plane's answer, in its own shape
            return control_error(400, SCENARIO_HEADER, f"is not JSON: {exc.msg}")
        except ScenarioError as exc:
            exchange.op = None
            return control_error(400, exc.field, f"{SCENARIO_HEADER}: {exc.message}")
        header = route.job.idempotency_header
        key = request.headers.get(header.lower()) if header else None
        exchange.idempotency_key = key
        # Keys, counters and replays are per caller: another credential's key is unknown.
        caller = self.fingerprint(credentials.value)
        attempt = 1
        correlation = key or raw
        if correlation:
            attempt = self.store.attempt((caller, route.job.name, correlation), now)
        fault = create_fault(scenario, attempt)
        if fault is not None and not fault.after_create:
            return self._create_fault(route, fault, exchange)
        replay_key = (caller, route.job.name, key) if key else None
        replay = self.store.replays.get(replay_key) if replay_key else None
        if replay is not None:
            exchange.job_id, exchange.replayed = replay.job_id, True
            replayed = self.store.jobs.get(replay.job_id)
            if replayed is not None:
                exchange.spared = spared(kind, replayed)
            answer = replay.answer
        else:
            # A create whose own path names the id (PUT /jobs/{id}) makes the job the
            # caller named, so the URLs it knows lead to it.
            slot = id_slot(route.job)
            own = {p.wire for p in route.operation.path_parameters}
            chosen = found.params.get(slot) if slot in own else None
            sim = self.jobs.new_job(
                kind, scenario, credentials.value, now, request.body, chosen=chosen
            )
            sim.path = dict(found.params)
            exchange.job_id = sim.id
            exchange.spared = spared(kind, sim)
            answer = self._created(request, kind, sim, now)
            if replay_key:
                self.store.replays[replay_key] = Replay(sim.id, answer)
                sim.replay_key = replay_key
        if fault is not None:
            return self._create_fault(route, fault, exchange)
        return answer

    def _create_fault(self, route: Route, fault: CreateFault, exchange: _Exchange) -> Answer:
        if fault.drop_connection:
            exchange.fault = "drop_connection"
            return Answer(200, b'{"', (("content-type", "application/json"),), drop=True)
        assert fault.status is not None
        exchange.fault = "status_error"
        return self._fault_answer(route.operation, fault.status, fault.retry_after)

    def _fault_answer(
        self, op: ir.Operation, status: int, retry_after: RetryAfter | None
    ) -> Answer:
        headers: tuple[tuple[str, str], ...] = ()
        if retry_after is not None:
            headers = (("retry-after", format_retry_after(retry_after, self.wall())),)
        return self._error(op, status, f"simulated {status} answer", headers=headers)

    def _created(self, request: Request, kind: JobKind, sim: SimJob, now: float) -> Answer:
        create = kind.job.create
        assert create is not None
        sim.progress, view = peek(sim.scenario, sim.progress, now)
        headers = operation_headers(kind, sim, request.origin, request.params)
        if kind.job.id_header:
            headers = ((kind.job.id_header.lower(), kind.status_url(request.origin, sim)),)
        status = int(create.response.status) if create.response.status.isdigit() else 200
        if status == 202 and not view.terminal:
            headers = (*headers, *kind.create_hints(sim.scenario, self.wall()))
        value, headers = place(kind.job, sim.carried, kind.create_body(sim, view), headers)
        if value is None:
            return Answer(status, b"", headers)
        return json_answer(status, value, headers)


def spared(kind: JobKind, sim: SimJob) -> tuple[str, ...]:
    """The parts of ``sim``'s answers its scenario sets off the spec on purpose, by
    pointer: the state of an ``undocumented_state``, and the hints it gives (a ``hint``
    below the spec's minimum, a ``retry_after`` of ``"raw:soon"``)."""
    job, scenario = kind.job, sim.scenario
    out: list[str] = []
    if scenario.final_kind == "undocumented" and job.state_path:
        out.append(pointer_join("/body", *job.record_path, *job.state_path))
    if scenario.hint is not None and job.hint_path:
        out.append(pointer_join("/body", *job.record_path, *job.hint_path))
    if scenario.retry_after is not None:
        out.append("/header/retry-after")
    if scenario.poll_after_ms is not None:
        out += [pointer_join("/header", h.name.lower()) for h in job.header_hints]
    return tuple(out)


#: The violations a refusal's message names; the rest are counted.
MAX_NAMED_VIOLATIONS = 20


def refusal(problems: list[Violation]) -> str:
    """The message of an answer refusing a request: each violation by its JSON pointer."""
    named = "; ".join(str(p) for p in problems[:MAX_NAMED_VIOLATIONS])
    more = len(problems) - MAX_NAMED_VIOLATIONS
    tail = f"; and {more} more" if more > 0 else ""
    return f"the request does not match the spec: {named}{tail}"


def serve(
    spec: Path,
    *,
    jobs: Path | None,
    host: str,
    port: int,
    limits: Limits | None = None,
    webhook_url: str | None = None,
    webhook_secret: str | None = None,
    strict: bool = True,
    time_scale: float = 1.0,
    self_check: str | None = None,
) -> int:
    """Run the simulated API for ``spec`` until Ctrl-C; bad input raises SpecError.

    ``strict=False`` (``--lenient``) answers requests the spec forbids instead of refusing them.
    """
    sdk = load_and_build(spec, jobs_file=jobs)
    app = JobApp(
        sdk,
        spec_path=spec,
        limits=limits,
        webhook_url=webhook_url,
        webhook_secret=webhook_secret,
        strict=strict,
        time_scale=time_scale,
        self_check=self_check,
    )
    # A body is read and checked in a worker thread: a GIL switch interval of 1 ms (not
    # Python's 5 ms) lets the event loop take its turns meanwhile, answering other clients.
    sys.setswitchinterval(SWITCH_INTERVAL)
    sock = bind(host, port)
    try:
        print(describe(app.control, base_url(sock)), flush=True)
        server = make_server(app)
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass
    finally:
        sock.close()
        app.close()
    return 0


def job_id_of(job: ir.Job, path: Mapping[str, str], query: Mapping[str, list[str]]) -> str:
    """The job id a request to one of ``job``'s operations names: in its path, or in its
    query where the status operation keeps it there (see kinds.id_slot)."""
    slot = id_slot(job)
    if slot in path or not in_query(job):
        return path.get(slot, "")
    return (query.get(slot) or [""])[-1]
