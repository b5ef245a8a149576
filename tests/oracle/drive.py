"""Every job of a spec, created and waited for through its generated SDK, sync or async,
to success, failure or cancel: what the Prism tests and the corpus sweep share.

Cancel: a job declaring a cancel operation is canceled through the SDK's handle while it
runs; a job that only documents canceled states is canceled by the server (a scenario's
``final: canceled``). The create call's arguments are made from the spec: each required
parameter and the body get a value of the schema the spec declares for them (its example
where one validates; else one made within its type, format, pattern and bounds), decoded
into the SDK's own types by the SDK's own decoders. Every HTTP exchange the client makes
is recorded (method, path, status, headers), so a caller can read what a proxy said.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Literal

import attrs
import httpx

from jobgen.model import ir
from jobgen.model.names import snake
from jobgen.render.views.jobs import method_names
from jobgen.server.samples import Sampler
from jobgen.server.validate import OperationCheck
from jobgen.server.values import Values
from tests.real.realspecs import Decoders

Outcome = Literal["success", "failure", "cancel"]
Mode = Literal["sync", "async"]
CREDENTIAL = "key-1"
USER, PASSWORD = "user-1", "password-1"
#: The binary body sent where a create takes bytes (a PDF's first line).
BYTES = b"%PDF-1.4\n% simulated\n"
TIMESTAMP = "2024-01-02T03:04:05Z"


@attrs.frozen
class Exchange:
    method: str
    path: str
    status: int
    headers: Mapping[str, str]
    body: bytes


@attrs.frozen
class Case:
    """One job of a spec, with the resource of the SDK that holds its methods."""

    job: ir.Job
    resource: ir.Resource

    @property
    def name(self) -> str:
        return self.job.name

    def _methods(self) -> dict[str, str]:
        """The job's method names, as the generator names them."""
        taken = frozenset(op.name for op in self.resource.operations)
        single = len(self.resource.jobs) == 1
        names = method_names(snake(self.job.name, "job"), single, taken)
        return {key: str(value) for key, value in names.items()}

    @property
    def create_and_wait(self) -> str:
        return self._methods()["create_and_wait"]

    @property
    def start(self) -> str:
        return self._methods()["start"]

    def outcomes(self, *, through_proxy: bool = False) -> list[Outcome]:
        """The ends to drive the job to. Through Prism, not a success a redirect announces
        (a ``status_rules`` 303): Prism's proxy follows every redirect itself and judges
        the resource it reaches against the status operation (stoplightio/prism#1977), so
        that answer cannot reach the client unchanged; the corpus sweep and the e2e suite
        check it with serve's self-check."""
        redirects = any(
            any(300 <= status < 400 for status in rule.status) and rule.state in self.job.success
            for rule in self.job.status_rules
        )
        found: list[Outcome] = [] if through_proxy and redirects else ["success"]
        found.append("failure")
        if self.job.canceled:
            found.append("cancel")
        return found


def cases(sdk: ir.Sdk) -> list[Case]:
    """Every job that the SDK can create, in the spec's order."""
    return [
        Case(job, resource)
        for resource in sdk.resources
        for job in resource.jobs
        if job.create is not None
    ]


class _Recording(httpx.BaseTransport):
    def __init__(self, seen: list[Exchange]) -> None:
        self._inner = httpx.HTTPTransport()
        self._seen = seen

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        body = response.read()
        self._seen.append(
            Exchange(request.method, request.url.path, response.status_code, response.headers, body)
        )
        return response

    def close(self) -> None:
        self._inner.close()


class _AsyncRecording(httpx.AsyncBaseTransport):
    def __init__(self, seen: list[Exchange]) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._seen = seen

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        body = await response.aread()
        self._seen.append(
            Exchange(request.method, request.url.path, response.status_code, response.headers, body)
        )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@attrs.define
class Run:
    """What one wait did: the outcome reached (or the error), and every exchange."""

    case: Case
    outcome: Outcome
    mode: Mode
    state: str | None = None
    error: str | None = None
    exchanges: list[Exchange] = attrs.field(factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


class Driver:
    """Drives the jobs of one spec's SDK (``package``, built from ``sdk``) at ``base_url``.

    ``headers`` are sent with every request (``X-Forwarded-Host`` behind a proxy). Waits
    do not really sleep: the schedule is the SDK's, the time is not spent.
    """

    def __init__(
        self,
        sdk: ir.Sdk,
        package: ModuleType,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.sdk = sdk
        self.package = package
        self.base_url = base_url
        self.headers = dict(headers or {})
        self.decoders = Decoders(sdk, package)
        self.sampler = Sampler(sdk.schemas, timestamp=TIMESTAMP)
        errors = package.errors
        self.failed = errors.JobFailed
        self.canceled = errors.JobCanceled
        self.no_result = errors.NoResultOperation
        self.decode_error = errors.DecodeError

    # -- the client ---------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        options: dict[str, str] = {}
        for auth in self.sdk.auths[:1]:
            if isinstance(auth, ir.BasicAuth):
                options[auth.username_param] = USER
                options[auth.password_param] = PASSWORD
            else:
                options[auth.param] = CREDENTIAL
        return options

    @property
    def credential(self) -> str:
        """The credential the server knows this client's requests by."""
        basic = self.sdk.auths[:1] and isinstance(self.sdk.auths[0], ir.BasicAuth)
        return f"{USER}:{PASSWORD}" if basic else CREDENTIAL

    def _options(self) -> dict[str, Any]:
        config = self.package.WaitConfig(
            floor=0.0, first=0.01, cap=0.02, sleep=lambda seconds: None, async_sleep=_no_sleep
        )
        return {
            "base_url": self.base_url,
            "wait_config": config,
            "headers": self.headers,
            **self._auth(),
        }

    # -- the create's arguments ----------------------------------------------------------

    def _value(self, t: ir.TypeRef, schema: Any) -> Any:
        """A value of the spec's ``schema`` (bundled), typed as ``t`` in the SDK."""
        made = None
        if schema is not None:
            try:
                made = Values(schema, timestamp=TIMESTAMP, seed="oracle").make()
            except RecursionError:
                pass  # a schema the value maker cannot finish: sampled instead
        decode = self.decoders.decoder(t)
        sampled = self.sampler.sample(t, force=True)
        if made is None:
            return decode(sampled, "$")
        for _ in range(MAX_FILLS):
            try:
                return decode(made, "$")
            except self.decode_error as exc:
                # The SDK's model requires what the spec marks readOnly (a resource's
                # name), which a request leaves out: the sampler's value fills it in.
                missing = _MISSING.search(str(exc))
                if missing is None:
                    break
                made = _fill(made, sampled, missing[1].split(".")[1:])
        return decode(sampled, "$")

    def _check(self, op: ir.Operation) -> OperationCheck | None:
        spec = self.sdk.spec
        if spec is None:
            return None
        version = (
            str(spec.root.data.get("openapi", "3.0")) if isinstance(spec.root.data, dict) else ""
        )
        return OperationCheck(op, spec, not version.startswith("3.1"))

    def arguments(self, job: ir.Job) -> dict[str, Any]:
        """The create call's required arguments, typed as the SDK takes them."""
        op = job.create
        assert op is not None
        check = self._check(op)
        params = {(p.where, p.name): p.validator.schema for p in check.params} if check else {}
        found: dict[str, Any] = {}
        idempotency = (job.idempotency_header or "").lower()
        for p in op.parameters:
            if not p.required or p.has_default or p.wire.lower() == idempotency:
                continue
            found[p.name] = self._value(p.type, params.get((p.location, p.wire)))
        body = op.body
        if body is not None:
            if body.kind == "binary":
                found["body"] = BYTES
            elif body.kind == "text":
                found["body"] = "simulated text"
            else:
                media = [m for m in check.media if m.media_type == body.media_type] if check else []
                validator = media[0].validator if media else None
                found["body"] = self._value(
                    body.type, validator.schema if validator is not None else None
                )
        return found

    # -- one wait ------------------------------------------------------------------------

    def wait(self, case: Case, scenario: Mapping[str, Any], seen: list[Exchange]) -> Any:
        """Create ``case``'s job with ``scenario`` and wait for it (sync), noting each
        exchange in ``seen``; what the wait returns or raises."""
        extra = {"x-jobgen-scenario": json.dumps(scenario)}
        with self.package.Client(transport=_Recording(seen), **self._options()) as client:
            handle = getattr(getattr(client, case.resource.attr), case.start)(
                **self.arguments(case.job), extra_headers=extra
            )
            return handle.wait(deadline=30)

    def scenario(self, case: Case, outcome: Outcome) -> dict[str, Any]:
        pending = case.job.pending[:1]
        final = {"success": "success", "failure": "failure", "cancel": "canceled"}[outcome]
        if outcome == "cancel" and case.job.cancel is not None:
            final = "never"  # until the SDK's cancel
        scenario: dict[str, Any] = {"final": final}
        if pending:
            scenario["states"] = [{"state": pending[0], "polls": 1}]
        return scenario

    def run(self, case: Case, outcome: Outcome, mode: Mode) -> Run:
        run = Run(case, outcome, mode)
        extra = {"x-jobgen-scenario": json.dumps(self.scenario(case, outcome))}
        try:
            args = self.arguments(case.job)
            if mode == "sync":
                self._sync(run, args, extra)
            else:
                asyncio.run(self._async(run, args, extra))
        except Exception as exc:  # noqa: BLE001 - reported in the run (the sweep counts it)
            run.error = f"{type(exc).__name__}: {exc}"[:500]
        return run

    def run_by_id(self, case: Case, outcome: Outcome, job_id: str) -> Run:
        """Wait (sync) for a job made apart from the SDK (``job_id``, made with
        :meth:`scenario`) with the job's ``wait_for_job``; its last state tells."""
        run = Run(case, outcome, "sync")
        single = len(case.resource.jobs) == 1
        method = "wait_for_job" if single else f"wait_for_{snake(case.job.name, 'job')}"
        events: list[Any] = []
        try:
            with self.package.Client(transport=_Recording(run.exchanges), **self._options()) as c:
                wait = getattr(getattr(c, case.resource.attr), method)
                wait(job_id, deadline=30, on_poll=events.append)
        except Exception as exc:  # noqa: BLE001 - reported in the run (the sweep counts it)
            run.error = f"{type(exc).__name__}: {exc}"[:500]
            return run
        job = case.job
        wanted = {"success": job.success, "failure": job.failure, "cancel": job.canceled}[outcome]
        run.state = events[-1].state if events else None
        fold = str.lower if job.ignore_case else str
        if wanted and (run.state is None or fold(run.state) not in {fold(s) for s in wanted}):
            run.error = f"{outcome}: the wait ended in {run.state!r}, not one of {wanted}"
        return run

    def _ended(self, run: Run, events: list[Any]) -> None:
        """Note the terminal state the wait saw; an error unless it is of the outcome's kind."""
        job = run.case.job
        run.state = events[-1].state if events else None
        wanted = job.failure if run.outcome == "failure" else job.canceled
        if not wanted:
            return  # a job without states (AIP-151's done): its result() tells
        fold = str.lower if job.ignore_case else str
        if run.state is None or fold(run.state) not in {fold(s) for s in wanted}:
            run.error = f"{run.outcome}: the wait ended in {run.state!r}, not one of {wanted}"

    def _sync(self, run: Run, args: dict[str, Any], extra: dict[str, str]) -> None:
        case = run.case
        transport = _Recording(run.exchanges)
        with self.package.Client(transport=transport, **self._options()) as client:
            resource = getattr(client, case.resource.attr)
            if run.outcome == "success":
                getattr(resource, case.create_and_wait)(**args, extra_headers=extra, deadline=30)
                run.state = run.outcome
                return
            events: list[Any] = []
            handle = getattr(resource, case.start)(
                **args, extra_headers=extra, on_poll=events.append
            )
            if run.outcome == "cancel" and case.job.cancel is not None:
                handle.cancel()
            handle.wait(deadline=30)
            self._ended(run, events)
            expected = self.failed if run.outcome == "failure" else self.canceled
            try:
                handle.result(deadline=30)
            except expected:
                return
            except self.no_result:
                return  # the terminal state was checked
            run.error = f"{run.outcome}: the result was returned, not {expected.__name__}"

    async def _async(self, run: Run, args: dict[str, Any], extra: dict[str, str]) -> None:
        case = run.case
        transport = _AsyncRecording(run.exchanges)
        async with self.package.AsyncClient(transport=transport, **self._options()) as client:
            resource = getattr(client, case.resource.attr)
            if run.outcome == "success":
                await getattr(resource, case.create_and_wait)(
                    **args, extra_headers=extra, deadline=30
                )
                run.state = run.outcome
                return
            events: list[Any] = []
            handle = await getattr(resource, case.start)(
                **args, extra_headers=extra, on_poll=events.append
            )
            if run.outcome == "cancel" and case.job.cancel is not None:
                await handle.cancel()
            await handle.wait(deadline=30)
            self._ended(run, events)
            expected = self.failed if run.outcome == "failure" else self.canceled
            try:
                await handle.result(deadline=30)
            except expected:
                return
            except self.no_result:
                return  # the terminal state was checked
            run.error = f"{run.outcome}: the result was returned, not {expected.__name__}"


_MISSING = re.compile(r"cannot decode (\$[^ :]*): required field is missing")
#: The most fields filled in from the sampler before a request value is sampled whole.
MAX_FILLS = 8


def _fill(made: Any, sampled: Any, path: list[str]) -> Any:
    """``made`` with the value ``sampled`` has at ``path`` (object keys) set there."""
    if not path or not isinstance(made, dict) or not isinstance(sampled, dict):
        return sampled
    key = path[0]
    return {**made, key: _fill(made.get(key), sampled.get(key), path[1:])}
