"""Jobs imported from vendor dialects, end to end: the example specs that declare their jobs
only in Speakeasy's ``x-speakeasy-polling`` (specs/speakeasy_example.yaml) and as
Google AIP-151 long-running operations (specs/aip151_example.yaml), generated with no
side file and no ``x-jobgen``; their committed SDKs wait on ``jobgen serve`` of the same
specs over real HTTP, sync and async, to success and to failure."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer, run_server
from tests.e2e.support import FAST, KEY, ROOT

SPEAKEASY = "speakeasy_example"
AIP = "aip151_example"


def _import(name: str) -> Iterator[ModuleType]:
    output = str(ROOT / "generated" / name)
    sys.path.insert(0, output)
    try:
        module = importlib.import_module(f"{name}_sdk")
        assert module.__file__ is not None and module.__file__.startswith(output)
        yield module
    finally:
        sys.path.remove(output)
        for loaded in [n for n in sys.modules if n.split(".")[0] == f"{name}_sdk"]:
            del sys.modules[loaded]


@pytest.fixture(scope="module")
def speakeasy() -> Iterator[ModuleType]:
    yield from _import(SPEAKEASY)


@pytest.fixture(scope="module")
def aip() -> Iterator[ModuleType]:
    yield from _import(AIP)


@pytest.fixture(scope="module")
def speakeasy_server() -> Iterator[RunningServer]:
    with run_server(ROOT / "specs" / f"{SPEAKEASY}.yaml") as running:
        yield running


@pytest.fixture(scope="module")
def aip_server() -> Iterator[RunningServer]:
    with run_server(ROOT / "specs" / f"{AIP}.yaml") as running:
        yield running


def _scenario(pending: str, polls: int, final: str) -> dict[str, str]:
    scenario = {"states": [{"state": pending, "polls": polls}], "final": final}
    return {"x-jobgen-scenario": json.dumps(scenario)}


def _run(mode: str, sdk: ModuleType, server: RunningServer, auth: str, call: Any) -> Any:
    """``call(client)`` with a ``Client`` (sync) or an ``AsyncClient`` (async, awaited)."""
    config = sdk.WaitConfig(**FAST)
    options: dict[str, Any] = {"base_url": server.base_url, auth: KEY, "wait_config": config}
    if mode == "sync":
        with sdk.Client(**options) as client:
            return call(client)

    async def main() -> Any:
        async with sdk.AsyncClient(**options) as client:
            return await call(client)

    return asyncio.run(main())


# -- x-speakeasy-polling ----------------------------------------------------------


def _transcribe(sdk: ModuleType, headers: dict[str, str]) -> Any:
    body = sdk.models.TranscriptRequest(audio_url="https://example.com/a.mp3")
    return lambda client: client.transcripts.create_and_wait(body=body, extra_headers=headers)


def test_a_speakeasy_job_waits_for_its_success_criteria(
    mode: str, speakeasy: ModuleType, speakeasy_server: RunningServer
) -> None:
    call = _transcribe(speakeasy, _scenario("processing", 3, "completed"))
    record = _run(mode, speakeasy, speakeasy_server, "token", call)
    assert isinstance(record, speakeasy.models.Transcript)
    assert record.status == "completed"
    log = speakeasy_server.requests(record.id)
    assert [(r.method, r.operation) for r in log] == [("POST", "create")] + [("GET", "status")] * 4
    assert {r.path for r in log[1:]} == {f"/v1/transcripts/{record.id}"}
    assert [r.status for r in log] == [201, 200, 200, 200, 200]


def test_a_speakeasy_job_meeting_its_failure_criteria_raises_its_failed_error(
    mode: str, speakeasy: ModuleType, speakeasy_server: RunningServer
) -> None:
    call = _transcribe(speakeasy, _scenario("queued", 1, "error"))
    with pytest.raises(speakeasy.errors.TranscriptFailed) as caught:
        _run(mode, speakeasy, speakeasy_server, "token", call)
    record = caught.value.record
    assert record.status == "error"
    assert caught.value.job_id == record.id
    assert caught.value.error == record.error and record.error


def test_a_speakeasy_job_keeps_polling_the_states_its_criteria_leave(
    mode: str, speakeasy: ModuleType, speakeasy_server: RunningServer
) -> None:
    scenario = {
        "states": [{"state": "queued", "polls": 2}, {"state": "processing", "polls": 2}],
        "final": "completed",
    }
    seen: list[str | None] = []
    body = speakeasy.models.TranscriptRequest(audio_url="https://example.com/b.mp3")
    headers = {"x-jobgen-scenario": json.dumps(scenario)}

    def call(client: Any) -> Any:
        return client.transcripts.create_and_wait(
            body=body, extra_headers=headers, on_poll=lambda e: seen.append(e.state)
        )

    assert _run(mode, speakeasy, speakeasy_server, "token", call).status == "completed"
    # The create answer is the first read (queued), then two more of each state.
    assert seen == ["queued", "queued", "queued", "processing", "processing", "completed"]


# -- AIP-151 --------------------------------------------------------------------


def _translate(sdk: ModuleType, headers: dict[str, str]) -> Any:
    body = sdk.models.TranslateDocumentRequest(
        source_uri="gs://bucket/a.pdf", target_language_code="de"
    )
    return lambda client: client.documents.create_and_wait(body=body, extra_headers=headers)


def test_an_aip151_operation_is_done_without_an_error(
    mode: str, aip: ModuleType, aip_server: RunningServer
) -> None:
    record = _run(
        mode, aip, aip_server, "api_key", _translate(aip, _scenario("running", 2, "success"))
    )
    assert isinstance(record, aip.models.Operation)
    assert record.done is True and record.error is aip.UNSET
    assert isinstance(record.response, aip.models.TranslateDocumentResponse)
    # The operation is named operations/{id}; it is read at /v1/operations/{id}.
    assert record.name.startswith("operations/")
    job_id = record.name.split("/", 1)[1]
    log = aip_server.requests(job_id)
    assert [(r.method, r.path, r.status) for r in log] == [
        ("POST", "/v1/documents:translate", 200),
        *[("GET", f"/v1/operations/{job_id}", 200)] * 3,
    ]


def test_an_aip151_operation_done_with_an_error_raises_its_failed_error(
    mode: str, aip: ModuleType, aip_server: RunningServer
) -> None:
    with pytest.raises(aip.errors.TranslateDocumentFailed) as caught:
        _run(mode, aip, aip_server, "api_key", _translate(aip, _scenario("running", 1, "failure")))
    failed = caught.value
    assert failed.record.done is True and failed.record.response is aip.UNSET
    assert isinstance(failed.error, aip.models.Status)
    assert failed.error.message == "the simulated job failed"
    assert failed.record.name == f"operations/{failed.job_id}"


def test_an_aip151_operation_not_done_is_read_again(
    mode: str, aip: ModuleType, aip_server: RunningServer
) -> None:
    polled: list[Any] = []
    body = aip.models.TranslateDocumentRequest(source_uri="gs://b/c.pdf", target_language_code="fr")
    headers = _scenario("running", 3, "success")

    def call(client: Any) -> Any:
        return client.documents.create_and_wait(
            body=body, extra_headers=headers, on_poll=lambda e: polled.append(e.record.done)
        )

    assert _run(mode, aip, aip_server, "api_key", call).done is True
    # The create answer is the first read, then three more not done, then done.
    assert polled == [False, False, False, False, True]
