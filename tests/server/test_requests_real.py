"""Published specs through their generated SDKs against `jobgen serve`: Document
Intelligence 2024-11-30's two analyze overloads (one URL, routed by Content-Type), and
AssemblyAI's create refused with each violation named in the SDK's exception."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.model.build import load_and_build
from jobgen.server import RunningServer, run_server
from tests.helpers import REAL_SPECS, ROOT, imported_sdk

pytestmark = pytest.mark.slow

AZURE = REAL_SPECS / "azure"
DI = AZURE / "ai/data-plane/DocumentIntelligence/stable/2024-11-30/DocumentIntelligence.json"
ASSEMBLYAI = REAL_SPECS / "assemblyai-openapi.yml"
FAST = {"floor": 0.0, "first": 0.01, "cap": 0.05}
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


@pytest.fixture(scope="module")
def di(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, RunningServer]]:
    out = tmp_path_factory.mktemp("di")
    with (
        imported_sdk(DI, out, "di_routing_sdk", ref_root=AZURE) as sdk,
        run_server(load_and_build(DI, ref_root=AZURE)) as server,
    ):
        yield sdk, server


def _creates_and_reads(server: RunningServer) -> tuple[list[tuple[Any, ...]], list[Any]]:
    log = server.requests()
    creates = [(r.job_name, r.status, r.job_id) for r in log if r.operation == "create"]
    reads = [r for r in log if r.operation == "status"]
    return creates, reads


def _check(server: RunningServer, results: list[Any]) -> None:
    """Each overload reached its own operation and returned the operation's result (the
    succeeded record's `analyzeResult`), and every status read its job (the id is the
    operation URL's last segment, not an all-zero placeholder)."""
    assert [type(r).__name__ for r in results] == ["AnalyzeResult", "AnalyzeResult"]
    creates, reads = _creates_and_reads(server)
    assert [(name, status) for name, status, _ in creates] == [
        ("analyze_document", 202),
        ("analyze_document_from_stream", 202),
    ]
    ids = {job_id for _, _, job_id in creates}
    assert reads and {r.job_id for r in reads} == ids
    assert all(r.status == 200 and r.path.endswith(r.job_id) for r in reads)
    assert not any(r.job_id.strip("0-") == "" for r in reads)


def test_both_analyze_overloads_run_end_to_end(di: tuple[ModuleType, RunningServer]) -> None:
    sdk, server = di
    server.reset()
    request = sdk.models.AnalyzeDocumentRequest(url_source="https://example.com/a.pdf")
    with sdk.Client(
        base_url=server.base_url, api_key="key-1", wait_config=sdk.WaitConfig(**FAST)
    ) as client:
        models = client.document_models
        records = [
            models.analyze_document_and_wait("prebuilt-read", body=request, deadline=30),
            models.analyze_document_from_stream_and_wait(
                "prebuilt-read", body=PDF, content_type="application/pdf", deadline=30
            ),
        ]
    _check(server, records)


def test_both_analyze_overloads_run_end_to_end_async(
    di: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = di
    server.reset()
    request = sdk.models.AnalyzeDocumentRequest(url_source="https://example.com/a.pdf")

    async def run() -> list[Any]:
        async with sdk.AsyncClient(
            base_url=server.base_url, api_key="key-1", wait_config=sdk.WaitConfig(**FAST)
        ) as client:
            models = client.document_models
            first = await models.analyze_document_and_wait(
                "prebuilt-read", body=request, deadline=30
            )
            second = await models.analyze_document_from_stream_and_wait(
                "prebuilt-read", body=PDF, content_type="application/pdf", deadline=30
            )
            return [first, second]

    _check(server, asyncio.run(run()))


def test_assemblyai_s_refusal_names_each_violation_in_the_sdk_s_exception(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """AssemblyAI's TranscriptParams is an allOf whose members each say
    ``additionalProperties: false``: no body can pass it (``jobgen validate`` warns). The
    refusal is in AssemblyAI's error shape, ``{"error": ...}``, which its SDK shows."""
    side = ROOT / "specs" / "vendor" / "assemblyai.jobs.yaml"
    out = tmp_path_factory.mktemp("assemblyai")
    with (
        imported_sdk(ASSEMBLYAI, out, "assemblyai_refusal_sdk", jobs=side) as sdk,
        run_server(ASSEMBLYAI, jobs=side) as server,
        sdk.Client(base_url=server.base_url, api_key="key-1") as client,
    ):
        params = sdk.models.TranscriptParams(
            audio_url="https://example.com/a.mp3", speech_models=["universal-3-pro"]
        )
        with pytest.raises(sdk.errors.BadRequestError) as refused:
            client.transcript.create(body=params)
    message = str(refused.value)
    assert message.endswith(
        "the request does not match the spec: "
        "/body/audio_url: is not allowed (the schema says additionalProperties: false); "
        "/body/speech_models: is not allowed (the schema says additionalProperties: false)"
    )
    assert refused.value.body["error"] == message.split(": ", 1)[1]


def test_a_media_type_neither_overload_takes_is_refused_with_a_415(
    di: tuple[ModuleType, RunningServer],
) -> None:
    _, server = di
    server.reset()
    answer = httpx.post(
        f"{server.base_url}/documentintelligence/documentModels/prebuilt-read:analyze",
        params={"api-version": "2024-11-30"},
        headers={"ocp-apim-subscription-key": "key-1", "content-type": "text/csv"},
        content=b"a,b\n",
    )
    assert answer.status_code == 415
    message = answer.json()["error"]["message"]
    assert message.startswith(
        "the request does not match the spec: /header/Content-Type: text/csv: the operation "
        "takes application/octet-stream, application/pdf, image/jpeg"
    )
    (record,) = server.requests()
    assert record.job_name == "analyze_document_from_stream"
