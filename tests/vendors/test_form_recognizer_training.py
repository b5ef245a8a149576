"""Form Recognizer 2.1's training and compose (`TrainCustomModelAsync`,
`ComposeCustomModelsAsync`: a `201` naming the model by `Location` alone, the model's
`modelInfo.status` saying `creating`, `ready` or `invalid`), served by `jobgen serve` from
the published spec over real HTTP, and waited for side by side by Microsoft's own client
(azure-ai-formrecognizer's `FormTrainingClient`, whose poller reads `modelInfo.status`)
and by the SDK jobgen generates with no side file, sync and async: both return the model
that became ready, and both fail on the model that became invalid, with the errors of
its `trainResult`."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from azure.ai.formrecognizer import FormTrainingClient
from azure.core.credentials import AzureKeyCredential
from azure.core.exceptions import HttpResponseError

from jobgen.model.build import load_and_build
from jobgen.server import run_server
from jobgen.server.runner import RunningServer
from tests.helpers import imported_sdk
from tests.waiters.support import FakeTime

AZURE = Path(__file__).resolve().parent / "specs" / "azure"
SPEC = AZURE / "cognitiveservices/data-plane/FormRecognizer/stable/v2.1/FormRecognizer.json"
KEY = "fr-key"
MODELS = "/formrecognizer/v2.1/custom/models"
#: An error of the training service's documentation ("2014: No valid blobs found...").
ERROR = {"code": "2014", "message": "No valid blobs found in the specified Azure blob container."}
READY = {"states": [{"state": "creating", "polls": 2}], "final": "ready"}
INVALID = {"states": [{"state": "creating", "polls": 2}], "final": "invalid", "error": ERROR}
SOURCE = "https://contoso.blob.core.windows.net/forms?sas"
COMPOSED = [
    "11111111-1111-4111-8111-111111111111",
    "22222222-2222-4222-8222-222222222222",
]


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("form_recognizer")
    with imported_sdk(SPEC, out, "fr21_sdk", ref_root=AZURE) as package:
        yield package


@pytest.fixture(scope="module")
def served() -> Iterator[RunningServer]:
    """The simulated service; an answer that breaks the spec fails the module."""
    with run_server(load_and_build(SPEC, ref_root=AZURE), self_check="strict") as server:
        yield server


@pytest.fixture
def server(served: RunningServer) -> RunningServer:
    served.reset()
    return served


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _microsoft(server: RunningServer) -> FormTrainingClient:
    return FormTrainingClient(server.base_url, AzureKeyCredential(KEY), api_version="2.1")


def _scenario(scenario: dict[str, Any]) -> dict[str, str]:
    return {"x-jobgen-scenario": json.dumps(scenario)}


def _jobgen(sdk: ModuleType, server: RunningServer, mode: str, call: str, **kwargs: Any) -> Any:
    """`client.<call>(**kwargs)` (`call`: `resource.method`) with the generated `Client` or `AsyncClient`, on
    a fake clock (the scenario counts reads, not seconds)."""
    time = FakeTime()
    config = sdk.WaitConfig(
        clock=time.clock,
        wall_clock=time.wall_clock,
        sleep=time.sleep,
        async_sleep=time.async_sleep,
        rng=lambda: 0.5,
    )
    if mode == "sync":
        with sdk.Client(base_url=server.base_url, api_key=KEY, wait_config=config) as client:
            return _method(client, call)(**kwargs)

    async def main() -> Any:
        async with sdk.AsyncClient(
            base_url=server.base_url, api_key=KEY, wait_config=config
        ) as client:
            return await _method(client, call)(**kwargs)

    return asyncio.run(main())


def _method(client: Any, call: str) -> Any:
    resource, method = call.split(".")
    return getattr(getattr(client, resource), method)


def _wire(server: RunningServer) -> list[tuple[str, str]]:
    """Each request's method and path, the model's id shown as `{modelId}`."""
    seen = []
    for record in server.requests():
        path = record.path
        if path.startswith(MODELS + "/") and path.count("/") == MODELS.count("/") + 1:
            path = MODELS + "/{modelId}"
        seen.append((record.method, path))
    return seen


def test_the_create_names_the_model_by_location_alone(server: RunningServer) -> None:
    """As the spec declares: the SDK acts on this answer, not on headers serve adds."""
    answer = httpx.post(
        server.base_url + MODELS,
        json={"source": SOURCE},
        headers={"Ocp-Apim-Subscription-Key": KEY, **_scenario(READY)},
    )

    assert answer.status_code == 201
    monitors = {"location", "operation-location", "azure-asyncoperation"}
    assert monitors & set(answer.headers) == {"location"}
    assert answer.headers["location"].startswith(server.base_url + MODELS + "/")
    model = httpx.get(answer.headers["location"], headers={"Ocp-Apim-Subscription-Key": KEY})
    assert model.json()["modelInfo"]["status"] == "creating"


def test_both_return_the_trained_model_once_it_is_ready(
    sdk: ModuleType, server: RunningServer, mode: str
) -> None:
    poller = _microsoft(server).begin_training(
        SOURCE, use_training_labels=False, polling_interval=0, headers=_scenario(READY)
    )
    theirs = poller.result()
    microsoft_wire = _wire(server)
    server.reset()

    ours = _jobgen(
        sdk,
        server,
        mode,
        "custom.train_custom_model_async_and_wait",
        body=sdk.models.TrainRequest(source=SOURCE),
        deadline=60,
        extra_headers=_scenario(READY),
    )

    assert theirs.status == "ready"
    assert isinstance(ours, sdk.models.Model)
    assert ours.model_info.status == "ready"
    # Each polls the Location until the model is no longer creating: two reads while
    # creating, a third that finds it ready.
    expected = [("POST", MODELS)] + [("GET", MODELS + "/{modelId}")] * 3
    assert microsoft_wire == _wire(server) == expected


def test_both_fail_on_an_invalid_model_with_its_training_errors(
    sdk: ModuleType, server: RunningServer, mode: str
) -> None:
    poller = _microsoft(server).begin_training(
        SOURCE, use_training_labels=False, polling_interval=0, headers=_scenario(INVALID)
    )
    with pytest.raises(HttpResponseError) as theirs:
        poller.result()
    server.reset()

    with pytest.raises(sdk.JobFailed) as ours:
        _jobgen(
            sdk,
            server,
            mode,
            "custom.train_custom_model_async_and_wait",
            body=sdk.models.TrainRequest(source=SOURCE),
            deadline=60,
            extra_headers=_scenario(INVALID),
        )

    assert str(theirs.value).startswith(f"({ERROR['code']}) {ERROR['message']}")
    assert "Invalid model created" in str(theirs.value)
    failed = ours.value
    assert type(failed).__name__ == "TrainCustomModelAsyncFailed"
    assert failed.last_state == "invalid"
    assert failed.error == [sdk.models.ErrorInformation(**ERROR)]
    assert failed.job_id.startswith(server.base_url + MODELS + "/")
    assert ERROR["message"] in str(failed)


def _model_id(server: RunningServer) -> str:
    """The id of the model the last create named in its ``Location``."""
    reads = {r.path for r in server.requests() if r.method == "GET"}
    assert len(reads) == 1, reads  # every read followed the one Location
    return reads.pop().rsplit("/", 1)[-1]


def test_both_report_the_id_the_location_names(
    sdk: ModuleType, server: RunningServer, mode: str
) -> None:
    """The model's ``modelInfo.modelId`` (and its ``trainResult``'s) is the id at the end
    of the create's ``Location``, as the service answers."""
    theirs = (
        _microsoft(server)
        .begin_training(
            SOURCE, use_training_labels=False, polling_interval=0, headers=_scenario(READY)
        )
        .result()
    )
    assert theirs.model_id == _model_id(server)
    uuid.UUID(theirs.model_id)
    server.reset()

    ours = _jobgen(
        sdk,
        server,
        mode,
        "custom.train_custom_model_async_and_wait",
        body=sdk.models.TrainRequest(source=SOURCE),
        deadline=60,
        extra_headers=_scenario(READY),
    )
    assert str(ours.model_info.model_id) == _model_id(server)
    assert str(ours.train_result.model_id) == _model_id(server)


@pytest.mark.parametrize("outcome", ["ready", "invalid"])
def test_both_wait_for_a_composed_model(
    sdk: ModuleType, server: RunningServer, mode: str, outcome: str
) -> None:
    """A composed model names itself by the ``Location``'s id, and each of its
    ``composedTrainResults`` by one of the models the request composed, which Microsoft's
    client turns into the composed model's submodels."""
    scenario = READY if outcome == "ready" else INVALID
    poller = _microsoft(server).begin_create_composed_model(
        COMPOSED, polling_interval=0, headers=_scenario(scenario)
    )
    call = "form.create_and_wait"  # the one job of the Form tag
    body = sdk.models.ComposeRequest(model_ids=[uuid.UUID(m) for m in COMPOSED])
    if outcome == "ready":
        theirs = poller.result()
        assert theirs.status == "ready"
        assert theirs.model_id == _model_id(server)
        assert [m.model_id for m in theirs.submodels] == COMPOSED
        assert [m.form_type for m in theirs.submodels] == [f"custom:{m}" for m in COMPOSED]
        server.reset()
        ours = _jobgen(
            sdk, server, mode, call, body=body, deadline=60, extra_headers=_scenario(scenario)
        )
        assert ours.model_info.status == "ready"
        assert str(ours.model_info.model_id) == _model_id(server)
        assert [str(r.model_id) for r in ours.composed_train_results] == COMPOSED
        return
    with pytest.raises(HttpResponseError):
        poller.result()
    server.reset()
    with pytest.raises(sdk.JobFailed) as ours_failed:
        _jobgen(sdk, server, mode, call, body=body, deadline=60, extra_headers=_scenario(scenario))
    assert ours_failed.value.last_state == "invalid"
    assert ours_failed.value.error == [sdk.models.ErrorInformation(**ERROR)]
