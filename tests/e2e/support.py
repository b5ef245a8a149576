"""The committed SDKs against the simulated API over real HTTP: what each spec offers,
and a harness that runs one wait with `Client` or `AsyncClient`."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import httpx

from jobgen.server import RunningServer
from jobgen.server.log import RequestRecord

ROOT = Path(__file__).resolve().parents[2]
KEY = "key-1"
OTHER_KEY = "key-2"

#: Small poll schedule and status-retry budget: real seconds stay in hundredths.
FLOOR = 0.01
#: The e2e suite decodes strictly: every answer of `jobgen serve` is exact (W16).
FAST: dict[str, Any] = {"first": 0.01, "floor": FLOOR, "cap": 0.02, "decoding": "strict"}
#: Leeway for clocks read on two sides of a socket (sleep never returns early by more).
EPSILON = 0.002


@attrs.frozen(kw_only=True)
class Api:
    """One example spec and what its job declares."""

    name: str
    package: str
    resource: str
    auth: str  # keyword of Client taking the credential
    pending: str  # an in-progress state to build timelines from
    success: str
    failure: str
    canceled: str | None
    has_ready_field: bool
    has_body_hint: bool
    idempotency_header: str | None
    state_attr: str
    error_attr: str
    error_key: str  # the error field in the raw record
    body_model: str
    body: Mapping[str, Any]
    result_type: str | None  # the class name of what wait_for_result returns
    start: str = "start"  # the method that creates a job and returns its handle
    cancel: str | None = None  # the resource's method that cancels a job, if declared
    has_progress: bool = False  # the job declares a progress field
    #: The status monitor's path and query ("{}": the id) of a job polled at its
    #: operation URL: what its SDK is given as the job id.
    operation_url: str | None = None

    @property
    def has_result(self) -> bool:
        return self.result_type is not None

    @property
    def spec(self) -> Path:
        return ROOT / "specs" / f"{self.name}.yaml"

    @property
    def output(self) -> Path:
        return ROOT / "generated" / self.name

    def scenario(self, **fields: Any) -> dict[str, Any]:
        """A scenario for this spec; Sume's body hint (2 s by default) is lowered to 0."""
        base: dict[str, Any] = {"hint": 0} if self.has_body_hint else {}
        base.update(fields)
        return base

    def stages(self, polls: int) -> list[dict[str, Any]]:
        return [{"state": self.pending, "polls": polls}]


APIS = {
    api.name: api
    for api in (
        Api(
            name="sume",
            cancel="cancel",
            has_progress=True,
            package="sume_sdk",
            resource="jobs",
            auth="api_key",
            pending="processing",
            success="completed",
            failure="failed",
            canceled="canceled",
            has_ready_field=True,
            has_body_hint=True,
            idempotency_header="Idempotency-Key",
            state_attr="status",
            error_attr="error",
            error_key="error",
            body_model="CreateJobRequest",
            body={"input": {"type": "text", "text": "hello"}},
            result_type="JobResultEnvelope",
        ),
        Api(
            name="stripe_report_runs",
            package="stripe_report_runs_sdk",
            resource="reporting",
            auth="token",
            pending="pending",
            success="succeeded",
            failure="failed",
            canceled=None,
            has_ready_field=False,
            has_body_hint=False,
            idempotency_header="Idempotency-Key",
            state_attr="status",
            error_attr="error",
            error_key="error",
            body_model="PostReportingReportRunsRequest",
            body={"report_type": "balance.summary.1"},
            result_type=None,
        ),
        Api(
            name="salesforce_bulk",
            package="salesforce_bulk_sdk",
            resource="ingest",
            auth="token",
            pending="InProgress",
            success="JobComplete",
            failure="Failed",
            canceled="Aborted",
            has_ready_field=False,
            has_body_hint=False,
            idempotency_header=None,
            state_attr="state",
            error_attr="error_message",
            error_key="errorMessage",
            body_model="CreateIngestJobRequest",
            body={"object": "Account", "operation": "insert"},
            result_type="str",
        ),
        Api(
            name="azure_operations",
            start="start_analysis_job",  # `start` is the API's own create operation
            package="azure_operations_sdk",
            resource="analysis",
            auth="api_key",
            pending="Running",
            success="Succeeded",
            failure="Failed",
            canceled="Canceled",
            has_ready_field=False,
            has_body_hint=False,
            idempotency_header="Repeatability-Request-ID",
            state_attr="status",
            error_attr="error",
            error_key="error",
            body_model="AnalyzeRequest",
            body={
                "documents": [{"kind": "inline", "id": "1", "text": "hi"}],
                "features": ["summary"],
            },
            result_type="OperationStatus",  # final_from: record
            operation_url="/operations/{}?api-version=2024-05-01",
        ),
        Api(
            name="async_request_reply",
            has_progress=True,
            package="async_request_reply_sdk",
            resource="exports",
            auth="token",
            pending="Running",
            success="Completed",
            failure="Failed",
            canceled=None,
            has_ready_field=False,
            has_body_hint=False,
            idempotency_header=None,
            state_attr="status",
            error_attr="error",
            error_key="error",
            body_model="ExportRequest",
            body={"report": "sales"},
            result_type="Export",  # final_from: location (the 303's)
            operation_url="/exports/{}/status",
        ),
    )
}


#: The specs whose jobs are known by id, the parameters of the suite's shared tests.
BY_ID = sorted(name for name, api in APIS.items() if api.operation_url is None)


class _Sends(httpx.BaseTransport):
    """A loopback transport that notes when the client hands it each request
    (monotonic seconds, method, path): when a request starts, by the client's clock."""

    def __init__(self, sent: list[tuple[float, str, str]]) -> None:
        self._inner = httpx.HTTPTransport(verify=False)
        self._sent = sent

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._sent.append((time.monotonic(), request.method, request.url.path))
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class _AsyncSends(httpx.AsyncBaseTransport):
    """The async twin of `_Sends`."""

    def __init__(self, sent: list[tuple[float, str, str]]) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=False)
        self._sent = sent

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._sent.append((time.monotonic(), request.method, request.url.path))
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class E2E:
    """One spec's SDK and server, driven through `Client` or `AsyncClient`."""

    def __init__(self, api: Api, sdk: ModuleType, server: RunningServer, mode: str) -> None:
        self.api = api
        self.sdk = sdk
        self.server = server
        self.mode = mode
        #: When the last `run` called the SDK (monotonic, the server's clock too), and
        #: the seconds it spent there (client setup and the resource's import excluded).
        self.started = 0.0
        self.duration = 0.0
        #: The requests the last `run` handed to its transport: (monotonic time, method,
        #: path), so a test can tell when a request started without the server's lag.
        self.sent: list[tuple[float, str, str]] = []

    @property
    def is_async(self) -> bool:
        return self.mode == "async"

    # -- the SDK --------------------------------------------------------------------

    def config(self, **overrides: Any) -> Any:
        """A WaitConfig on the fast schedule, with a status-retry budget in hundredths."""
        retry = self.sdk._runtime.RetryPolicy(attempts=5, budget=5.0, first=0.01, cap=0.02)
        settings: dict[str, Any] = {**FAST, "status_retry": retry}
        settings.update(overrides)
        return self.sdk.WaitConfig(**settings)

    def body(self) -> Any:
        return getattr(self.sdk.models, self.api.body_model).from_dict(dict(self.api.body))

    def run(
        self,
        call: Callable[[Any], Any],
        *,
        key: str = KEY,
        client_options: Mapping[str, Any] | None = None,
        **config: Any,
    ) -> Any:
        """`call(resource)` on a fresh client; awaited when the client is async."""
        options = {
            "base_url": self.server.base_url,
            self.api.auth: key,
            "wait_config": self.config(**config),
            **(client_options or {}),
        }
        # Plain HTTP on loopback: transports without a CA bundle to load keep clients cheap.
        self.sent = []
        if not self.is_async:
            with self.sdk.Client(transport=_Sends(self.sent), **options) as client:
                resource = getattr(client, self.api.resource)  # imported on first use
                self.started = time.monotonic()
                try:
                    return call(resource)
                finally:
                    self.duration = time.monotonic() - self.started

        async def main() -> Any:
            transport = _AsyncSends(self.sent)
            async with self.sdk.AsyncClient(transport=transport, **options) as client:
                resource = getattr(client, self.api.resource)
                self.started = time.monotonic()
                try:
                    outcome = call(resource)
                    if inspect.isawaitable(outcome):
                        outcome = await outcome
                    return outcome
                finally:
                    self.duration = time.monotonic() - self.started

        return asyncio.run(main())

    def collect(self, call: Callable[[Any], Any], **config: Any) -> list[Any]:
        """Every outcome of a `wait_for_jobs(...)` that `call` starts."""
        if not self.is_async:
            return self.run(lambda jobs: list(call(jobs)), **config)

        async def drain(outcomes: Any) -> list[Any]:
            async with outcomes:
                return [outcome async for outcome in outcomes]

        return self.run(lambda jobs: drain(call(jobs)), **config)

    def state(self, record: Any) -> str:
        value = getattr(record, self.api.state_attr)
        return str(getattr(value, "value", value))

    # -- the server -----------------------------------------------------------------

    def job(self, scenario: Mapping[str, Any] | None = None, *, key: str = KEY) -> str:
        """A job with this spec's scenario defaults, readable with ``key`` only: its id,
        or the absolute operation URL of a job polled there."""
        job_id = self.server.create_job(self.api.scenario(**(scenario or {})), credential=key)
        if self.api.operation_url is None:
            return job_id
        return self.server.base_url + self.api.operation_url.format(job_id)

    def sim_id(self, job_id: str) -> str:
        """The server's id of a job the SDK knows by ``job_id`` (maybe its URL)."""
        if self.api.operation_url is None or "://" not in job_id:
            return job_id
        prefix, _, suffix = self.api.operation_url.partition("{}")
        path = httpx.URL(job_id).raw_path.decode().split("?")[0]
        path = path.removeprefix(httpx.URL(self.server.base_url).path.rstrip("/"))
        return path.removeprefix(prefix).removesuffix(suffix.split("?")[0])

    def shown(self, job_id: str) -> str:
        """The job id as the SDK's errors and events name it."""
        return job_id.split("?")[0]

    def log(self, job_id: str | None = None) -> list[RequestRecord]:
        return self.server.requests(None if job_id is None else self.sim_id(job_id))

    def polls(self, job_id: str) -> list[RequestRecord]:
        """The job's status requests, oldest first."""
        return [r for r in self.log(job_id) if r.operation == "status"]

    def reads(self, job_id: str) -> list[RequestRecord]:
        """The job's status requests answered with its record."""
        return [r for r in self.polls(job_id) if r.fault is None and r.status == 200]

    def results(self, job_id: str) -> list[RequestRecord]:
        return [r for r in self.log(job_id) if r.operation == "result"]

    def cancels(self, job_id: str) -> list[RequestRecord]:
        return [r for r in self.log(job_id) if r.operation == "cancel"]

    def creates(self) -> list[RequestRecord]:
        return [r for r in self.log() if r.operation == "create"]


def gaps(records: Sequence[RequestRecord]) -> list[float]:
    """Seconds between consecutive requests, on the server's monotonic clock."""
    return [b.time - a.time for a, b in itertools.pairwise(records)]


def scenario_header(scenario: Mapping[str, Any]) -> dict[str, str]:
    return {"x-jobgen-scenario": json.dumps(scenario)}


def max_overlap(spans: Sequence[tuple[float, float]]) -> int:
    """The most closed intervals that share one instant."""
    return max(sum(1 for lo, hi in spans if lo <= start <= hi) for start, _ in spans)


def own_error(sdk: Any, base: type) -> type:
    """The job's own subclass of ``base`` (``SumeJobTimeout``), which its waits raise so
    that ``exc.record`` is typed in its record model."""
    (own,) = [
        c
        for c in vars(sdk.errors).values()
        if isinstance(c, type) and issubclass(c, base) and c is not base
    ]
    assert own.__name__.endswith(base.__name__.removeprefix("Job"))
    return own
