"""App Configuration's snapshots (the published 2023-11-01 spec, read with ``--ref-root``) as
``jobgen serve`` plays them, in strict self-check mode, over real HTTP.

CreateSnapshot (``PUT /snapshots/{name}``) answers 201 with the snapshot itself and an
``Operation-Location``: the job's states (NotStarted, Running, Succeeded, Failed) are on
that operation monitor, while the snapshot's own ``status`` is of its own enum
(provisioning, ready, archived, failed) and reports the job's phase. GetSnapshot, the
snapshot read at the PUT's URL once the job is done, is ``ready``. Every body is checked
with jsonschema (not the validator serve uses) against the spec's own definitions.
Microsoft's azure-appconfiguration (whose azure-core reads the create answer's ``status`` as
the operation's first state) drives the same operation side by side with the generated SDK,
sync and async.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import jsonschema
import pytest
from azure.appconfiguration import AzureAppConfigurationClient, ConfigurationSettingsFilter
from azure.core.credentials import AccessToken
from azure.core.exceptions import HttpResponseError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from jobgen.model.build import load_and_build
from jobgen.server import SCENARIO_HEADER, RunningServer, run_server
from tests.helpers import imported_sdk
from tests.real.azure import AZURE

SPEC = (
    AZURE
    / "appconfiguration/data-plane/Microsoft.AppConfiguration/stable/2023-11-01"
    / "appconfiguration.json"
)
TOKEN = "token-1"
NAME = "snap1"
SNAPSHOT_URL = f"/snapshots/{NAME}?api-version=2023-11-01"
ENTITY = {"filters": [{"key": "app1/*"}], "retention_period": 7200}
RUNNING = {"states": [{"state": "Running", "polls": 1}], "final": "Succeeded"}
FAILING = {"states": [{"state": "Running", "polls": 1}], "final": "Failed"}
FAILED_AT_ONCE = {"states": [], "final": "Failed"}


def _oracle(name: str) -> jsonschema.Draft4Validator:
    """A jsonschema validator of the spec's definition ``name`` (Swagger 2.0: draft 4)."""
    document = json.loads(SPEC.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(
        "urn:spec", Resource.from_contents(document, default_specification=DRAFT4)
    )
    return jsonschema.Draft4Validator(
        {"$ref": f"urn:spec#/definitions/{name}"},
        registry=registry,
        format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER,
    )


SNAPSHOT = _oracle("Snapshot")
OPERATION = _oracle("OperationDetails")


def _valid(validator: jsonschema.Draft4Validator, value: Any) -> None:
    problems = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(value)]
    assert problems == [], value


def _scenario(scenario: dict[str, Any]) -> dict[str, str]:
    return {SCENARIO_HEADER: json.dumps(scenario)}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    sdk = load_and_build(SPEC, ref_root=AZURE)
    with run_server(sdk, self_check="strict") as running:
        yield running


@pytest.fixture
def http(server: RunningServer) -> Iterator[httpx.Client]:
    server.reset()
    headers = {"authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server.base_url, headers=headers) as client:
        yield client


def test_the_snapshot_reports_the_jobs_phase_and_the_monitor_its_state(
    server: RunningServer, http: httpx.Client
) -> None:
    created = http.put(SNAPSHOT_URL, json=ENTITY, headers=_scenario(RUNNING))
    assert created.status_code == 201, created.text
    _valid(SNAPSHOT, created.json())
    assert created.json()["status"] == "provisioning"
    # The snapshot the PUT created is the one its path names, as the request described it.
    assert created.json()["name"] == NAME
    assert created.json()["filters"] == ENTITY["filters"]
    assert created.json()["retention_period"] == ENTITY["retention_period"]

    monitor = created.headers["operation-location"]
    reads = [http.get(monitor).json() for _ in range(2)]
    for read in reads:
        _valid(OPERATION, read)
    assert [r["status"] for r in reads] == ["Running", "Succeeded"]

    done = http.get(SNAPSHOT_URL)
    assert done.status_code == 200, done.text
    snapshot = done.json()
    _valid(SNAPSHOT, snapshot)
    assert snapshot["status"] == "ready"
    assert (snapshot["name"], snapshot["filters"]) == (NAME, ENTITY["filters"])
    assert snapshot["retention_period"] == ENTITY["retention_period"]
    assert server.self_check.count == 0


def test_a_failing_jobs_snapshot_is_provisioning_then_its_monitor_fails(
    server: RunningServer, http: httpx.Client
) -> None:
    created = http.put(SNAPSHOT_URL, json=ENTITY, headers=_scenario(FAILING))
    assert created.json()["status"] == "provisioning"
    reads = [http.get(created.headers["operation-location"]).json() for _ in range(2)]
    for read in reads:
        _valid(OPERATION, read)
    assert [r["status"] for r in reads] == ["Running", "Failed"]
    assert isinstance(reads[-1]["error"]["code"], str)
    assert server.self_check.count == 0


def test_a_job_failed_at_once_answers_a_failed_snapshot(
    server: RunningServer, http: httpx.Client
) -> None:
    created = http.put(SNAPSHOT_URL, json=ENTITY, headers=_scenario(FAILED_AT_ONCE))
    assert created.status_code == 201
    _valid(SNAPSHOT, created.json())
    assert created.json()["status"] == "failed"
    assert http.get(created.headers["operation-location"]).json()["status"] == "Failed"
    assert server.self_check.count == 0


# -- Microsoft's client beside the generated SDK ------------------------------------------


class _Credential:
    """A TokenCredential (azure-identity's protocol) giving the server's token."""

    def get_token(self, *scopes: str, **_: Any) -> AccessToken:
        return AccessToken(TOKEN, int(time.time()) + 3600)


def _microsoft(server: RunningServer, scenario: dict[str, Any]) -> Any:
    """``begin_create_snapshot(...).result()`` of azure-appconfiguration, against serve
    over plain HTTP (``enforce_https=False``: a bearer token on loopback)."""
    client = AzureAppConfigurationClient(server.base_url, _Credential(), api_version="2023-11-01")
    poller = client.begin_create_snapshot(
        NAME,
        [ConfigurationSettingsFilter(key="app1/*")],
        retention_period=7200,
        headers=_scenario(scenario),
        polling_interval=0,
        enforce_https=False,
    )
    return poller.result()


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("appconfig")
    with imported_sdk(SPEC, out, "appconfig_snapshot_sdk", ref_root=AZURE) as package:
        yield package


def _generated(sdk: ModuleType, server: RunningServer, scenario: dict[str, Any], mode: str) -> Any:
    """``snapshots.create_and_wait(...)`` of the generated SDK, sync or async."""
    config = sdk.WaitConfig(
        floor=0.0, first=0.01, cap=0.02, sleep=lambda seconds: None, async_sleep=_no_sleep
    )
    options: dict[str, Any] = {
        "base_url": server.base_url,
        "token": TOKEN,
        "wait_config": config,
        "headers": _scenario(scenario),
    }
    body = sdk.models.Snapshot(
        name=NAME, filters=[sdk.models.KeyValueFilter(key="app1/*")], retention_period=7200
    )
    if mode == "sync":
        with sdk.Client(**options) as client:
            return client.snapshots.create_and_wait(NAME, body=body, deadline=30)

    async def wait() -> Any:
        async with sdk.AsyncClient(**options) as client:
            return await client.snapshots.create_and_wait(NAME, body=body, deadline=30)

    return asyncio.run(wait())


def _calls(server: RunningServer) -> list[tuple[str, str, int]]:
    return [(r.method, r.path, r.status) for r in server.requests()]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_both_clients_return_the_ready_snapshot(
    server: RunningServer, sdk: ModuleType, mode: str
) -> None:
    server.reset()
    theirs = _microsoft(server, RUNNING)
    assert (theirs.name, theirs.status) == (NAME, "ready")
    assert [(f.key, f.label) for f in theirs.filters] == [("app1/*", None)]
    assert theirs.retention_period == 7200
    assert _calls(server) == [
        ("PUT", f"/snapshots/{NAME}", 201),
        ("GET", "/operations", 200),
        ("GET", "/operations", 200),
        ("GET", f"/snapshots/{NAME}", 200),
    ]

    server.reset()
    ours = _generated(sdk, server, RUNNING, mode)
    assert ours.status == sdk.models.SnapshotStatus.READY
    assert (ours.name, ours.retention_period) == (NAME, 7200)
    assert [f.key for f in ours.filters] == ["app1/*"]
    assert _calls(server) == [
        ("PUT", f"/snapshots/{NAME}", 201),
        ("GET", "/operations", 200),
        ("GET", "/operations", 200),
        ("GET", f"/snapshots/{NAME}", 200),
    ]
    assert server.self_check.count == 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_both_clients_raise_when_the_monitor_fails(
    server: RunningServer, sdk: ModuleType, mode: str
) -> None:
    server.reset()
    with pytest.raises(HttpResponseError):
        _microsoft(server, FAILING)
    server.reset()
    with pytest.raises(sdk.JobFailed) as failed:
        _generated(sdk, server, FAILING, mode)
    assert failed.value.record.status == "Failed"
    assert [(m, p) for m, p, _ in _calls(server)] == [
        ("PUT", f"/snapshots/{NAME}"),
        ("GET", "/operations"),
        ("GET", "/operations"),
    ]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_failed_snapshot_in_the_create_answer(
    server: RunningServer, sdk: ModuleType, mode: str
) -> None:
    """Microsoft's client reads the create answer's ``failed`` as the operation's first
    state and returns the failed snapshot without polling; the generated SDK does not
    take a snapshot for the monitor's record (no ``id``), reads the monitor once, and
    raises."""
    server.reset()
    theirs = _microsoft(server, FAILED_AT_ONCE)
    assert theirs.status == "failed"
    assert _calls(server) == [("PUT", f"/snapshots/{NAME}", 201)]

    server.reset()
    with pytest.raises(sdk.JobFailed) as failed:
        _generated(sdk, server, FAILED_AT_ONCE, mode)
    assert failed.value.record.status == "Failed"
    assert _calls(server) == [("PUT", f"/snapshots/{NAME}", 201), ("GET", "/operations", 200)]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_get_snapshot_returns_the_snapshot_not_a_page_of_its_filters(
    server: RunningServer, sdk: ModuleType, mode: str
) -> None:
    """GetSnapshot (``GET /snapshots/{name}``) declares a ``Link`` header and the
    snapshot has one array (``filters``): it is one snapshot all the same, as
    Microsoft's ``get_snapshot`` reads it, not a pager over its filters."""
    server.reset()
    _microsoft(server, RUNNING)
    client = AzureAppConfigurationClient(server.base_url, _Credential(), api_version="2023-11-01")
    theirs = client.get_snapshot(NAME, enforce_https=False)
    options: dict[str, Any] = {"base_url": server.base_url, "token": TOKEN}
    if mode == "sync":
        with sdk.Client(**options) as ours_client:
            ours = ours_client.snapshots.get_2(NAME)
    else:

        async def read() -> Any:
            async with sdk.AsyncClient(**options) as ours_client:
                return await ours_client.snapshots.get_2(NAME)

        ours = asyncio.run(read())
    assert isinstance(ours, sdk.models.Snapshot)
    assert ours.status == sdk.models.SnapshotStatus.READY
    assert ours.name == theirs.name
    assert [f.key for f in ours.filters] == [f.key for f in theirs.filters]
    assert ours.retention_period == theirs.retention_period
    assert [(m, p) for m, p, _ in _calls(server)][-2:] == [
        ("GET", f"/snapshots/{NAME}"),
        ("GET", f"/snapshots/{NAME}"),
    ]
    assert server.self_check.count == 0
