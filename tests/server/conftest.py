"""Servers for the four example specs, and how to talk to each over HTTP."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from jobgen.model import ir
from jobgen.server import RunningServer, run_server
from tests.helpers import SPECS


@attrs.frozen
class Api:
    """One example spec: its credentials, a valid create request and its job model."""

    name: str
    auth: dict[str, str]
    other_auth: dict[str, str]
    params: dict[str, str]
    body: dict[str, Any]
    form: bool = False

    @property
    def spec(self) -> Path:
        return SPECS / f"{self.name}.yaml"


APIS = {
    "sume": Api(
        "sume",
        {"x-api-key": "key-1"},
        {"x-api-key": "key-2"},
        {},
        {"input": {"type": "text", "text": "hello"}},
    ),
    "stripe_report_runs": Api(
        "stripe_report_runs",
        {"authorization": "Bearer sk_test_1"},
        {"authorization": "Bearer sk_test_2"},
        {},
        {"report_type": "balance.summary.1"},
        form=True,
    ),
    "salesforce_bulk": Api(
        "salesforce_bulk",
        {"authorization": "Bearer session-1"},
        {"authorization": "Bearer session-2"},
        {},
        {"object": "Account", "operation": "insert"},
    ),
    "azure_operations": Api(
        "azure_operations",
        {"api-key": "key-1"},
        {"api-key": "key-2"},
        {"api-version": "2024-05-01"},
        {"documents": [{"kind": "inline", "id": "1", "text": "hi"}], "features": ["summary"]},
    ),
}


@attrs.define
class Session:
    """A running server for one spec, and an httpx client with that spec's credentials."""

    api: Api
    server: RunningServer
    client: httpx.Client

    @property
    def job(self) -> ir.Job:
        return self.server.app.sdk.jobs[0]

    def url(self, op: ir.Operation, job_id: str) -> str:
        return op.path.replace("{" + self.job.id_parameter + "}", job_id)

    def create(self, scenario: str | None = None, **headers: str) -> httpx.Response:
        create = self.job.create
        assert create is not None
        sent = dict(headers)
        if scenario is not None:
            sent["x-jobgen-scenario"] = scenario
        if self.api.form:
            return self.client.post(create.path, data=self.api.body, headers=sent)
        return self.client.post(create.path, json=self.api.body, headers=sent)

    def id_of(self, response: httpx.Response) -> str:
        if self.job.operation_url and self.job.operation_url[0] in response.headers:
            path = httpx.URL(response.headers[self.job.operation_url[0]]).path
            hole = re.escape("{" + self.job.id_parameter + "}")
            pattern = re.escape(self.job.status.path).replace(hole, "(?P<id>[^/]+)")
            found = re.search(pattern + "$", path)
            assert found is not None, path
            return found["id"]
        value: Any = response.json()
        for key in self.job.id_path or (*self.job.record_path, "id"):
            value = value[key]
        assert isinstance(value, str)
        return value

    def status(self, job_id: str, **headers: str) -> httpx.Response:
        return self.client.get(self.url(self.job.status, job_id), headers=headers)

    def result(self, job_id: str) -> httpx.Response:
        assert self.job.result is not None
        return self.client.get(self.url(self.job.result, job_id))

    def record(self, response: httpx.Response) -> dict[str, Any]:
        value: Any = response.json()
        for key in self.job.record_path:
            value = value[key]
        assert isinstance(value, dict)
        return value

    def state(self, response: httpx.Response) -> str:
        value: Any = self.record(response)
        for key in self.job.state_path or ():
            value = value[key]
        assert isinstance(value, str)
        return value


class StoppableClock:
    """The servers' monotonic clock: real time, until a test stops it to step it by hand."""

    def __init__(self) -> None:
        self._stopped: float | None = None

    def __call__(self) -> float:
        return time.monotonic() if self._stopped is None else self._stopped

    @contextlib.contextmanager
    def stopped(self) -> Iterator[StoppableClock]:
        self._stopped = time.monotonic()
        try:
            yield self
        finally:
            self._stopped = None

    def advance(self, seconds: float) -> None:
        assert self._stopped is not None, "advance() needs a stopped clock"
        self._stopped += seconds


CLOCK = StoppableClock()


@pytest.fixture(scope="session")
def servers() -> Iterator[dict[str, RunningServer]]:
    """One server per example spec for the whole session (reset before each test)."""
    started: dict[str, RunningServer] = {}
    try:
        for name, api in APIS.items():
            started[name] = run_server(api.spec, clock=CLOCK).start()
        yield started
    finally:
        for server in started.values():
            server.stop()


@pytest.fixture(params=sorted(APIS))
def session(request: pytest.FixtureRequest, servers: dict[str, RunningServer]) -> Iterator[Session]:
    """Each example spec in turn, with a fresh job store and log."""
    yield from _session(str(request.param), servers)


def _session(name: str, servers: dict[str, RunningServer]) -> Iterator[Session]:
    api, server = APIS[name], servers[name]
    server.reset()
    with httpx.Client(
        base_url=server.base_url, headers=api.auth, params=api.params, timeout=10
    ) as client:
        yield Session(api, server, client)


@pytest.fixture
def sume(servers: dict[str, RunningServer]) -> Iterator[Session]:
    yield from _session("sume", servers)


@pytest.fixture
def azure(servers: dict[str, RunningServer]) -> Iterator[Session]:
    yield from _session("azure_operations", servers)


@pytest.fixture
def salesforce(servers: dict[str, RunningServer]) -> Iterator[Session]:
    yield from _session("salesforce_bulk", servers)
