"""Replicate predictions, end to end: a generated SDK (sync and async) against a server
written from Replicate's documentation (`tests/vendors/replicate.py`).

The output is in the prediction: the job's result is its terminal record
(`final_from: record`), so `wait_for_result`, `create_and_wait` and a handle's
`result()` return the succeeded `Prediction`, typed, and raise `PredictionFailed` /
`PredictionCanceled` otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.vendors.replicate import OUTPUT, TOKEN, VERSION, Plan, ReplicatePredictions
from tests.vendors.server import Sleeps, VendorServer, drive, vendor_sdk

INPUT = {"prompt": "an astronaut riding a rainbow unicorn"}
CREATE = {"version": VERSION, "input": INPUT}
FIRST = "gm3qorzdhgbfurvjtvhg6dck01"
PREDICTION = f"/v1/predictions/{FIRST}"
#: Headers of the transport itself, left out of the comparisons.
TRANSPORT = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length"})


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("replicate")
    with vendor_sdk(out, "replicate_predictions", "replicate_sdk") as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def body(sdk: ModuleType) -> Any:
    return sdk.models.PredictionRequest.from_dict(CREATE)


def run(
    mode: str, sdk: ModuleType, plans: list[Plan], steps: Any
) -> tuple[Any, VendorServer, Sleeps]:
    """`steps(client, done)` against a fresh API whose predictions follow `plans`."""
    api = ReplicatePredictions(plans=plans)
    server = VendorServer(api)
    api.base_url = server.url
    sleeps = Sleeps()
    config = sleeps.config(sdk)
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    with server.running():
        made = drive(
            mode, lambda: client(token=TOKEN, base_url=server.url, wait_config=config), steps
        )
    return made, server, sleeps


def assert_wire(server: VendorServer, prefer: str | None = None) -> None:
    """The create's JSON body byte for byte (with `Prefer` when given); every request
    authenticated as the docs say, with no query and (but the create) no body."""
    create = server.seen[0]
    assert create.body == json.dumps(CREATE, separators=(",", ":")).encode()
    for seen in server.seen:
        headers = {k: v for k, v in seen.headers.items() if k not in TRANSPORT}
        expected = {"accept": "application/json", "authorization": f"Bearer {TOKEN}"}
        if seen is create:
            expected["content-type"] = "application/json"
            if prefer is not None:
                expected["prefer"] = prefer
        else:
            assert seen.body == b""
        assert headers == expected
        assert seen.query == ()


def assert_succeeded(sdk: ModuleType, prediction: Any) -> None:
    """The succeeded prediction, typed, with its output."""
    assert isinstance(prediction, sdk.models.Prediction)
    assert prediction.id == FIRST
    assert prediction.status == "succeeded"
    assert prediction.output == OUTPUT
    assert prediction.error is None


def test_wait_for_result_returns_the_succeeded_prediction(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        created = await done(client.predictions.create(body=body(sdk)))
        assert created.status == "starting"
        return await done(client.predictions.wait_for_result(created.id))

    prediction, server, sleeps = run(mode, sdk, [Plan(("processing", "succeeded"))], steps)
    assert_succeeded(sdk, prediction)
    assert server.lines() == [
        ("POST", "/v1/predictions"),
        ("GET", PREDICTION),
        ("GET", PREDICTION),
    ]
    assert_wire(server)
    assert sleeps.delays == [1.0]


def test_a_handle_by_id_returns_the_succeeded_prediction(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        created = await done(client.predictions.create(body=body(sdk)))
        handle = client.predictions.handle(created.id)
        first = await done(handle.poll())
        assert (first.state, first.done, first.delay) == ("starting", False, 1.0)
        return await done(handle.result())

    plan = Plan(("starting", "processing", "succeeded"))
    prediction, server, sleeps = run(mode, sdk, [plan], steps)
    assert_succeeded(sdk, prediction)
    assert server.lines() == [("POST", "/v1/predictions")] + [("GET", PREDICTION)] * 3
    assert_wire(server)
    assert sleeps.delays == [2.0]


def test_a_failed_prediction_raises_prediction_failed(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        created = await done(client.predictions.create(body=body(sdk)))
        with pytest.raises(sdk.PredictionFailed) as caught:
            await done(client.predictions.wait_for_result(created.id))
        return caught.value

    error, server, sleeps = run(mode, sdk, [Plan(("processing", "failed"))], steps)
    assert error.job_id == FIRST and FIRST in str(error)
    assert error.error == "CUDA out of memory"
    assert isinstance(error.record, sdk.models.Prediction)
    assert error.record.status == "failed"
    assert server.lines() == [("POST", "/v1/predictions"), ("GET", PREDICTION), ("GET", PREDICTION)]
    assert_wire(server)
    assert sleeps.delays == [1.0]


def test_a_canceled_prediction_raises_prediction_canceled(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        created = await done(client.predictions.create(body=body(sdk)))
        handle = client.predictions.handle(created.id)
        await done(handle.cancel())
        with pytest.raises(sdk.PredictionCanceled) as caught:
            await done(handle.result())
        return caught.value

    error, server, sleeps = run(mode, sdk, [Plan(("processing",))], steps)
    assert error.job_id == FIRST and FIRST in str(error)
    assert error.record.status == "canceled"
    assert server.lines() == [
        ("POST", "/v1/predictions"),
        ("POST", PREDICTION + "/cancel"),
        ("GET", PREDICTION),
    ]
    assert_wire(server)
    assert sleeps.delays == []


def test_an_unknown_prediction_raises_naming_it(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.NotFoundError) as caught:
            await done(client.predictions.wait_for_result("unknown01"))
        return caught.value

    error, server, _ = run(mode, sdk, [], steps)
    assert error.job_id == "unknown01" and "unknown01" in str(error)
    assert server.lines() == [("GET", "/v1/predictions/unknown01")]


def test_prefer_wait_a_quick_prediction_needs_no_status_read(mode: str, sdk: ModuleType) -> None:
    """`Prefer: wait` answers the finished prediction: create_and_wait returns it
    without a single status read."""

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.predictions.create_and_wait(body=body(sdk), prefer="wait"))

    prediction, server, sleeps = run(mode, sdk, [Plan(("succeeded",), quick=True)], steps)
    assert_succeeded(sdk, prediction)
    assert server.lines() == [("POST", "/v1/predictions")]
    assert_wire(server, prefer="wait")
    assert sleeps.delays == []


def test_prefer_wait_a_quick_failure_raises_without_a_status_read(
    mode: str, sdk: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        handle = await done(client.predictions.start(body=body(sdk), prefer="wait=5"))
        with pytest.raises(sdk.PredictionFailed) as caught:
            await done(handle.result())
        return caught.value

    error, server, sleeps = run(mode, sdk, [Plan(("failed",), quick=True)], steps)
    assert error.job_id == FIRST and error.error == "CUDA out of memory"
    assert server.lines() == [("POST", "/v1/predictions")]
    assert_wire(server, prefer="wait=5")
    assert sleeps.delays == []


def test_prefer_wait_a_slow_prediction_is_polled_after_its_create_answer(
    mode: str, sdk: ModuleType
) -> None:
    """The create answer (still `starting`) is the first read: the first status read
    comes one backoff interval after it."""

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.predictions.create_and_wait(body=body(sdk), prefer="wait"))

    prediction, server, sleeps = run(mode, sdk, [Plan(("processing", "succeeded"))], steps)
    assert_succeeded(sdk, prediction)
    assert server.lines() == [("POST", "/v1/predictions"), ("GET", PREDICTION), ("GET", PREDICTION)]
    assert_wire(server, prefer="wait")
    assert sleeps.delays == [1.0, 2.0]


def test_the_readme_says_wait_for_result_returns_the_record(sdk: ModuleType) -> None:
    readme = (Path(sdk.__file__).parents[1] / "README.md").read_text()
    assert (
        "`wait_for_result` returns the succeeded record (the result is in it),"
        " or raises `JobFailed` / `JobCanceled`."
    ) in readme
