"""Fixtures of the end-to-end suite: the committed SDKs, imported from generated/, one
simulated server per spec, and `e2e`: every spec, with `Client` and with `AsyncClient`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from types import ModuleType

import pytest

from jobgen.server import RunningServer, run_server
from tests.e2e.support import APIS, BY_ID, E2E
from tests.helpers import CommittedSdks


@pytest.fixture
def e2e_sdks(committed_sdks: CommittedSdks) -> Iterator[dict[str, ModuleType]]:
    """Every example SDK, imported from its committed folder, by API name."""
    with committed_sdks.active() as modules:
        yield {api.name: modules[api.package] for api in APIS.values()}


@pytest.fixture(scope="session")
def e2e_servers() -> Iterator[dict[str, RunningServer]]:
    """One simulated API per spec on 127.0.0.1 for the whole session."""
    started: dict[str, RunningServer] = {}
    try:
        for name, api in APIS.items():
            started[name] = run_server(api.spec).start()
        yield started
    finally:
        for server in started.values():
            server.stop()


@pytest.fixture(autouse=True)
def no_collector_pauses() -> Iterator[None]:
    """Keep the cycle collector out of measured windows.

    In a full test session a generation-2 collection takes about 0.1 s; landing inside a
    wait it would stretch a deadline or bunch requests in the server's log. Collections
    that fall due during a test run right after it instead.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=BY_ID)
def spec_name(request: pytest.FixtureRequest) -> str:
    """The specs whose jobs are known by id (those polled at an operation URL have
    their own tests: test_operation_urls.py)."""
    return str(request.param)


@pytest.fixture
def e2e(
    spec_name: str,
    mode: str,
    e2e_sdks: dict[str, ModuleType],
    e2e_servers: dict[str, RunningServer],
) -> E2E:
    """One spec's SDK against its own server (jobs and log reset), sync or async."""
    server = e2e_servers[spec_name]
    server.reset()
    return E2E(APIS[spec_name], e2e_sdks[spec_name], server, mode)
