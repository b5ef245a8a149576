"""A generated SDK against an Azure long-running-operation service written from
Microsoft's documents (`azure_lro`), sync and async, generated from a spec declaring
its job and from one carrying only Azure's `x-ms-long-running-operation`: `create_and_wait`, `start()` and
its handle, `wait_for_result` given the handle's job id. The service checks the wire;
the tests check the exact requests, the delays taken and the errors raised."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import TEST_SPECS, imported_sdk
from tests.vendors.azure_lro import API_VERSION, ENDPOINT, KEY, AzureAnalyzeService
from tests.waiters.support import FakeTime

MODEL = "prebuilt-invoice"
ANALYZE = f"/documentintelligence/documentModels/{MODEL}:analyze"
RESULT = f"/documentintelligence/documentModels/{MODEL}/analyzeResults/"
QUERY = f"api-version={API_VERSION}"


@pytest.fixture(
    scope="module",
    params=["azure_document_intelligence.yaml", "azure_document_intelligence_lro.yaml"],
    ids=["declared", "imported"],
)
def sdk(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ModuleType]:
    """The SDK of the spec declaring its job with x-jobgen, and of the same spec
    declaring nothing but Azure's own x-ms-long-running-operation (imported)."""
    out = tmp_path_factory.mktemp("azure_di")
    spec = TEST_SPECS / str(request.param)
    package = "azure_di_sdk" if request.param.endswith("intelligence.yaml") else "azure_di_lro_sdk"
    with imported_sdk(spec, out, package) as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Rig:
    """A client of one twin on the service, both on one fake clock."""

    def __init__(self, sdk: ModuleType, mode: str, **service: Any) -> None:
        self.sdk, self.mode = sdk, mode
        self.time = FakeTime()
        self.service = AzureAnalyzeService(self.time.clock, **service)
        config = sdk.WaitConfig(
            clock=self.time.clock,
            wall_clock=self.time.wall_clock,
            sleep=self.time.sleep,
            async_sleep=self.time.async_sleep,
            rng=lambda: 0.5,
        )
        cls = sdk.AsyncClient if mode == "async" else sdk.Client
        self.client = cls(
            api_key=KEY,
            base_url=f"{ENDPOINT}/documentintelligence",
            wait_config=config,
            transport=self.service.transport(),
        )
        self.body = sdk.models.AnalyzeDocumentRequest(url_source="https://contoso.example/inv.pdf")

    def run(self, fn: Any) -> Any:
        """`fn(document_models)`, awaited for the async twin."""
        if self.mode == "sync":
            return fn(self.client.document_models)

        async def main() -> Any:
            return await fn(self.client.document_models)

        return asyncio.run(main())

    def wire(self) -> list[tuple[str, str, str, float]]:
        return [(r.method, r.path, r.query, r.at) for r in self.service.requests]


def _result_id(rig: Rig) -> str:
    (result_id,) = rig.service.operations
    return result_id


def _analysis(sdk: ModuleType, outcome: Any) -> Any:
    """The analysis a wait for the result returns: the imported job's result is its
    status monitor's `analyzeResult`, typed (as Microsoft's SDK returns it); the declared
    job's is its terminal record, which holds it."""
    if sdk.__name__ == "azure_di_lro_sdk":
        assert isinstance(outcome, sdk.models.AnalyzeResult)
        return outcome
    assert outcome.status.value == "succeeded"
    return outcome.analyze_result


def test_create_and_wait_polls_the_operation_location_after_each_retry_after(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode)

    outcome = rig.run(lambda jobs: jobs.create_and_wait(MODEL, body=rig.body, deadline=60))

    result = RESULT + _result_id(rig)
    assert rig.wire() == [
        ("POST", ANALYZE, QUERY, 0.0),
        ("GET", result, QUERY, 2.0),  # the 202's Retry-After: 2
        ("GET", result, QUERY, 3.0),  # each running answer's Retry-After: 1
        ("GET", result, QUERY, 4.0),
    ]
    assert rig.time.sleeps == [2.0, 1.0, 1.0]
    assert rig.service.violations == []
    post = rig.service.requests[0]
    assert post.headers["content-type"] == "application/json"
    assert post.body == b'{"urlSource":"https://contoso.example/inv.pdf"}'
    assert all(r.headers["ocp-apim-subscription-key"] == KEY for r in rig.service.requests)
    assert _analysis(sdk, outcome).content == "Contoso invoice INV-100"
    # The record stays reachable: wait_for_job returns it (one more read).
    location = rig.service.operation_location(MODEL, _result_id(rig))
    record = rig.run(lambda jobs: jobs.wait_for_job(location, deadline=60))
    assert record.status.value == "succeeded"
    assert record.analyze_result.content == "Contoso invoice INV-100"


def test_a_handle_and_wait_for_result_take_the_operation_location(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode, create_retry_after=5)
    handles: list[Any] = []

    async def start_async(jobs: Any) -> Any:
        handles.append(await jobs.start(MODEL, body=rig.body, deadline=60))

    def start(jobs: Any) -> Any:
        handles.append(jobs.start(MODEL, body=rig.body, deadline=60))

    rig.run(start_async if mode == "async" else start)
    (handle,) = handles
    opening = rig.run(lambda _: handle.poll())  # the bare 202's decision: no request
    rig.time.sleep(opening.delay)  # a task queue's countdown, as the decision says
    decision = rig.run(lambda _: handle.poll())
    rig.time.sleep(decision.delay)
    outcome = rig.run(lambda jobs: jobs.wait_for_result(handle.job_id, deadline=60))

    assert handle.job_id == rig.service.operation_location(MODEL, _result_id(rig))
    assert (opening.done, opening.state, opening.delay, opening.source) == (
        False,
        None,
        5.0,
        "retry-after",
    )
    assert (decision.done, decision.state, decision.delay) == (False, "notStarted", 1.0)
    result = RESULT + _result_id(rig)
    assert rig.wire() == [
        ("POST", ANALYZE, QUERY, 0.0),
        ("GET", result, QUERY, 5.0),
        ("GET", result, QUERY, 6.0),  # api-version kept: the handle's id is the whole URL
        ("GET", result, QUERY, 7.0),
    ]
    assert rig.service.violations == []
    assert _analysis(sdk, outcome).model_id == MODEL


def test_the_handles_wait_makes_its_first_read_when_the_202_says(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode, create_retry_after=5)

    async def flow_async(jobs: Any) -> Any:
        return await (await jobs.start(MODEL, body=rig.body, deadline=60)).result(deadline=60)

    def flow(jobs: Any) -> Any:
        return jobs.start(MODEL, body=rig.body, deadline=60).result(deadline=60)

    outcome = rig.run(flow_async if mode == "async" else flow)

    assert [(m, at) for m, _, _, at in rig.wire()] == [
        ("POST", 0.0),
        ("GET", 5.0),
        ("GET", 6.0),
        ("GET", 7.0),
    ]
    assert rig.service.violations == []
    assert _analysis(sdk, outcome).model_id == MODEL


def test_a_failed_analysis_raises_the_jobs_failure_naming_the_operation(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode, states=["running", "failed"])

    with pytest.raises(sdk.errors.JobFailed) as caught:
        rig.run(lambda jobs: jobs.create_and_wait(MODEL, body=rig.body, deadline=60))

    error = caught.value
    location = rig.service.operation_location(MODEL, _result_id(rig))
    assert error.job_id == location
    assert location.split("?")[0] in str(error) and "api-version" not in str(error)
    assert error.error.code == "InvalidContent"
    assert [t for *_, t in rig.wire()] == [0.0, 2.0, 3.0]
    assert rig.service.violations == []


def test_a_retry_after_past_the_deadline_raises_before_any_status_read(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode, create_retry_after=30)

    with pytest.raises(sdk.errors.JobTimeout) as caught:
        rig.run(lambda jobs: jobs.create_and_wait(MODEL, body=rig.body, deadline=10))

    assert caught.value.job_id == rig.service.operation_location(MODEL, _result_id(rig))
    assert [m for m, *_ in rig.wire()] == ["POST"]
    assert rig.time.sleeps == []


def test_the_operation_url_without_its_api_version_is_refused_by_the_service(
    sdk: ModuleType, mode: str
) -> None:
    rig = Rig(sdk, mode)
    rig.run(lambda jobs: jobs.create_and_wait(MODEL, body=rig.body, deadline=60))
    bare = rig.service.operation_location(MODEL, _result_id(rig)).split("?")[0]

    with pytest.raises(sdk.errors.BadRequestError) as caught:
        rig.run(lambda jobs: jobs.wait_for_job(bare, deadline=60))

    assert caught.value.job_id == bare and bare in str(caught.value)
    assert rig.service.requests[-1].query == ""
