"""SDKs generated with no side file from Key Vault 7.4 and Dev Center 2023-04-01, against
the services of `azure_shapes`, which answer as the real services do beside their specs,
sync and async: a succeeded backup whose record holds nulls where the spec says string
ends as success (W15); a create answering at once, with no monitor header, ends the wait
as azure-core's `StatusCheckPolling` ends it; a monitor named by `Location` alone is
polled by HTTP status, after every `Retry-After` (azure-core's `LocationPolling`)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from jobgen.cli import main
from tests.helpers import imported_sdk
from tests.vendors.azure_actions import TranslationService
from tests.vendors.azure_lro import ENDPOINT as ANALYZE_ENDPOINT
from tests.vendors.azure_lro import KEY as ANALYZE_KEY
from tests.vendors.azure_lro import AzureAnalyzeService
from tests.vendors.azure_rpc import TOKEN, AzureService
from tests.vendors.azure_shapes import DevBoxAnswersService, KeyVault74BackupService
from tests.waiters.support import FakeTime

AZURE = Path(__file__).resolve().parent / "specs" / "azure"
KEYVAULT = "keyvault/data-plane/Microsoft.KeyVault/stable/7.4/backuprestore.json"
DEVCENTER = "devcenter/data-plane/Microsoft.DevCenter/stable/2023-04-01/devcenter.json"
TRANSLATION = "translation/data-plane/DocumentTranslation/stable/2024-05-01/openapi.json"
BEARER = {"Authorization": f"Bearer {TOKEN}"}  # Key Vault 7.4 declares no credential


@pytest.fixture(scope="module")
def keyvault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(AZURE / KEYVAULT, tmp_path_factory.mktemp("kv74"), "kv74_sdk") as sdk:
        yield sdk


@pytest.fixture(scope="module")
def devcenter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("devcenter")
    with imported_sdk(AZURE / DEVCENTER, out, "dc_shapes_sdk", ref_root=AZURE) as sdk:
        yield sdk


@pytest.fixture(scope="module")
def translation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("translation")
    with imported_sdk(AZURE / TRANSLATION, out, "tr_shapes_sdk") as sdk:
        yield sdk


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Rig:
    """One twin of an SDK's client on one service, both on one fake clock."""

    def __init__(
        self,
        sdk: ModuleType,
        mode: str,
        make: Callable[..., AzureService],
        wait: dict[str, Any] | None = None,
        **service: Any,
    ) -> None:
        self.sdk, self.mode = sdk, mode
        self.time = FakeTime()
        self.service = make(self.time.clock, **service)
        self.events: list[Any] = []
        config = sdk.WaitConfig(
            clock=self.time.clock,
            wall_clock=self.time.wall_clock,
            sleep=self.time.sleep,
            async_sleep=self.time.async_sleep,
            rng=lambda: 0.5,
            on_poll=self.events.append,
            **(wait or {}),
        )
        cls = sdk.AsyncClient if mode == "async" else sdk.Client
        credential: dict[str, Any] = {"token": TOKEN}
        if make is KeyVault74BackupService:
            credential = {"headers": BEARER}
        elif make is TranslationService:
            credential = {"api_key": TranslationService.KEY}
        self.client = cls(
            base_url=self.service.ENDPOINT,
            wait_config=config,
            transport=self.service.transport(),
            **credential,
        )

    def run(self, fn: Callable[[Any], Any]) -> Any:
        """`fn(client)`, awaited for the async twin."""
        if self.mode == "sync":
            return fn(self.client)

        async def main() -> Any:
            return await fn(self.client)

        return asyncio.run(main())

    def wire(self) -> list[tuple[str, str, float]]:
        return [(r.method, r.path, r.at) for r in self.service.requests]


# -- Key Vault 7.4: nulls where the spec says string ------------------------------------


def _backup(rig: Rig) -> Callable[[Any], Any]:
    body = rig.sdk.models.SASTokenParameter(
        storage_resource_uri="https://contoso.blob.core.windows.net/backups", token="sas"
    )
    return lambda c: c.full_backup.create_and_wait(body=body, api_version="7.4", deadline=120)


def test_a_real_shaped_key_vault_backup_ends_as_success_with_its_folder(
    keyvault: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    rig = Rig(keyvault, mode, KeyVault74BackupService)
    caplog.set_level(logging.WARNING)

    outcome = rig.run(_backup(rig))

    assert outcome.status == "Succeeded"
    assert outcome.azure_storage_blob_container_uri == (
        "https://contoso.blob.core.windows.net/backups/mhsm-contoso-2026010100000000"
    )
    assert outcome.status_details is keyvault.UNSET  # null, where a string is declared
    assert rig.service.violations == []
    (job_id,) = rig.service.operations
    pending = f"/backup/{job_id}/pending"
    assert rig.wire() == [
        ("POST", "/backup", 0.0),
        ("GET", pending, 2.0),
        ("GET", pending, 3.0),
        ("GET", pending, 4.0),
    ]
    # Each drift reported once: on the first poll event, and in one log line each.
    drifted = [d.path for e in rig.events for d in e.drift]
    assert sorted(drifted) == sorted(
        ["$.statusDetails", "$.error.code", "$.error.message", "$.azureStorageBlobContainerUri"]
    )
    for path in drifted:
        assert len([m for m in caplog.messages if f"at {path}:" in m]) == 1


def test_strict_decoding_still_refuses_the_real_shape(keyvault: ModuleType, mode: str) -> None:
    rig = Rig(keyvault, mode, KeyVault74BackupService, wait={"decoding": "strict"})

    with pytest.raises(keyvault.errors.RecordDecodeError) as caught:
        rig.run(_backup(rig))

    assert caught.value.path == "$.statusDetails" and caught.value.state == "Succeeded"


def test_a_plain_status_read_is_tolerant_too(
    keyvault: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    rig = Rig(keyvault, mode, KeyVault74BackupService)
    rig.run(_backup(rig))
    (job_id,) = rig.service.operations
    caplog.clear()
    caplog.set_level(logging.WARNING)

    status = rig.run(lambda c: c.full_backup.status(job_id, api_version="7.4"))
    again = rig.run(lambda c: c.full_backup.status(job_id, api_version="7.4"))

    assert status.status == "Succeeded" and status.status_details is keyvault.UNSET
    assert status.job_id == job_id and again == status
    # Logged once for the client, not once a call: the GET, the field, how it was read.
    logged = (
        f"GET /backup/{job_id}/pending answered a value beside the spec at $.statusDetails:"
        " expected a string, got null; read as absent"
    )
    assert caplog.messages == [logged]
    # And through the raw view: its parse() reads as the client does.
    raw = rig.run(lambda c: c.full_backup.with_raw_response.status(job_id, api_version="7.4"))
    assert raw.http_response.status_code == 200
    assert raw.parse().status_details is keyvault.UNSET


def test_strict_decoding_applies_to_a_plain_call_too(keyvault: ModuleType, mode: str) -> None:
    rig = Rig(keyvault, mode, KeyVault74BackupService)
    rig.run(_backup(rig))
    (job_id,) = rig.service.operations
    rig.client = type(rig.client)(  # a second client of the same vault, strict
        base_url=rig.service.ENDPOINT,
        wait_config=keyvault.WaitConfig(decoding="strict"),
        transport=rig.service.transport(),
        headers=BEARER,
    )

    with pytest.raises(keyvault.errors.DecodeError) as caught:
        rig.run(lambda c: c.full_backup.status(job_id, api_version="7.4"))

    assert caught.value.path == "$.statusDetails" and caught.value.status_code == 200


# -- Dev Center: answers with no monitor header -----------------------------------------

BOX = "/projects/sprint/users/me/devboxes/box-1"


def _create(rig: Rig) -> Callable[[Any], Any]:
    body = rig.sdk.models.DevBox(name="box-1", pool_name="pool")
    return lambda c: c.projects.create_dev_box_and_wait(
        "sprint", "me", "box-1", body=body, deadline=60
    )


def test_a_put_answering_200_with_no_monitor_returns_the_dev_box(
    devcenter: ModuleType, mode: str
) -> None:
    rig = Rig(devcenter, mode, DevBoxAnswersService, create="200")

    box = rig.run(_create(rig))

    assert isinstance(box, devcenter.models.DevBox)
    assert box.name == "box-1" and box.provisioning_state == "Succeeded"
    # No status read: the answer was the end; the resource is read at its own URL.
    assert rig.wire() == [("PUT", BOX, 0.0), ("GET", BOX, 0.0)]


def test_a_put_201_whose_provisioning_state_failed_raises_failed(
    devcenter: ModuleType, mode: str
) -> None:
    rig = Rig(devcenter, mode, DevBoxAnswersService, create="201-failed")

    with pytest.raises(devcenter.errors.CreateDevBoxFailed) as caught:
        rig.run(_create(rig))

    assert caught.value.last_state == "Failed"
    assert rig.wire() == [("PUT", BOX, 0.0)]


def test_a_delete_answering_204_ends_the_wait_as_success(devcenter: ModuleType, mode: str) -> None:
    rig = Rig(devcenter, mode, DevBoxAnswersService)

    outcome = rig.run(
        lambda c: c.projects.delete_dev_box_and_wait("sprint", "me", "box-1", deadline=60)
    )

    assert outcome.status == "Succeeded"
    assert rig.wire() == [("DELETE", BOX, 0.0)]


# -- Location alone: polled by HTTP status, after every Retry-After ----------------------


def test_a_location_monitor_is_polled_by_status_after_every_retry_after(
    devcenter: ModuleType, mode: str
) -> None:
    rig = Rig(
        devcenter,
        mode,
        DevBoxAnswersService,
        create="location",
        create_retry_after=1,
        status_retry_after=3,
    )

    box = rig.run(_create(rig))

    (op_id,) = rig.service.operations
    monitor = f"/projects/sprint/users/me/devboxes/{op_id}/monitor"
    assert rig.wire() == [
        ("PUT", BOX, 0.0),
        ("GET", monitor, 1.0),
        ("GET", monitor, 4.0),
        ("GET", monitor, 7.0),
        ("GET", BOX, 7.0),
    ]
    assert rig.service.violations == []
    # The 202's Retry-After put the first read at 1 s; each 202 of the monitor its own.
    assert [(e.state, e.delay, e.source) for e in rig.events] == [
        ("Running", 3.0, "retry-after"),
        ("Running", 3.0, "retry-after"),
        ("Succeeded", None, None),
    ]
    assert box.name == "box-1" and box.provisioning_state == "Succeeded"


# -- Cancel at the operation URL: Document Translation's DELETE /document/batches/{id} ----


def test_an_imported_job_is_canceled_at_its_operation_url(
    translation: ModuleType, mode: str
) -> None:
    rig = Rig(translation, mode, TranslationService, states=["NotStarted", "Running", "Running"])
    m = translation.models
    body = m.StartTranslationDetails(
        inputs=[
            m.BatchRequest(
                source=m.SourceInput(source_url="https://contoso.blob.core.windows.net/src"),
                targets=[
                    m.TargetInput(
                        target_url="https://contoso.blob.core.windows.net/fr", language="fr"
                    )
                ],
            )
        ]
    )

    async def in_async(c: Any) -> Any:
        handle = await c.document.start(body=body)
        await handle.cancel()
        with pytest.raises(translation.errors.StartTranslationCanceled) as caught:
            await handle.result(deadline=60)
        return caught.value

    def in_sync(c: Any) -> Any:
        handle = c.document.start(body=body)
        handle.cancel()
        with pytest.raises(translation.errors.StartTranslationCanceled) as caught:
            handle.result(deadline=60)
        return caught.value

    canceled = rig.run(in_async if mode == "async" else in_sync)

    (batch,) = rig.service.operations
    at = f"{TranslationService.BATCHES}/{batch}"
    assert [(method, path) for method, path, _ in rig.wire()] == [
        ("POST", TranslationService.BATCHES),
        ("DELETE", at),
        ("GET", at),
        ("GET", at),
    ]
    assert {r.params.get("api-version") for r in rig.service.requests} == {"2024-05-01"}
    assert canceled.last_state == "Cancelled" and canceled.job_id == rig.service.url(at)
    assert rig.service.operations[batch].data["canceled"] is True


# -- result_field: the member of the record as the result (docs/job-extension.md) ---------

DOC = Path(__file__).resolve().parents[2] / "docs" / "job-extension.md"
ANALYZE_SPEC = Path(__file__).resolve().parents[1] / "specs" / "azure_document_intelligence.yaml"


def _documented_declaration() -> dict[str, Any]:
    """The YAML block of "A member of the record as the result", as the docs show it."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## A member of the record as the result") :]
    start = section.index("```yaml\n") + len("```yaml\n")
    block = section[start : section.index("```\n", start)]
    return dict(yaml.safe_load(block))


@pytest.fixture(scope="module")
def documented(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The Document Intelligence spec with the docs' declaration as its x-jobgen."""
    out = tmp_path_factory.mktemp("result_field")
    spec = yaml.safe_load(ANALYZE_SPEC.read_text(encoding="utf-8"))
    spec["x-jobgen"] = _documented_declaration()
    path = out / "analyze.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    with imported_sdk(path, out, "result_field_sdk") as sdk:
        yield sdk


def _analyze_rig(sdk: ModuleType, mode: str, **service: Any) -> tuple[Any, Any, FakeTime]:
    time = FakeTime()
    analyze = AzureAnalyzeService(time.clock, **service)
    config = sdk.WaitConfig(
        clock=time.clock,
        wall_clock=time.wall_clock,
        sleep=time.sleep,
        async_sleep=time.async_sleep,
        rng=lambda: 0.5,
    )
    cls = sdk.AsyncClient if mode == "async" else sdk.Client
    client = cls(
        api_key=ANALYZE_KEY,
        base_url=f"{ANALYZE_ENDPOINT}/documentintelligence",
        wait_config=config,
        transport=analyze.transport(),
    )
    return client, analyze, time


def _in_mode(mode: str, fn: Callable[[], Any]) -> Any:
    if mode == "sync":
        return fn()

    async def main() -> Any:
        return await fn()

    return asyncio.run(main())


def test_the_documented_result_field_returns_the_member_typed(
    documented: ModuleType, mode: str
) -> None:
    client, analyze, _ = _analyze_rig(documented, mode)
    body = documented.models.AnalyzeDocumentRequest(url_source="https://contoso.example/a.pdf")

    result = _in_mode(
        mode, lambda: client.document_models.create_and_wait("prebuilt-invoice", body=body)
    )

    assert isinstance(result, documented.models.AnalyzeResult)
    assert result.content == "Contoso invoice INV-100" and result.model_id == "prebuilt-invoice"
    (result_id,) = analyze.operations
    location = analyze.operation_location("prebuilt-invoice", result_id)
    record = _in_mode(mode, lambda: client.document_models.wait_for_job(location))
    assert record.status == "succeeded" and record.analyze_result == result


def test_a_succeeded_record_without_its_result_member_is_not_ready(
    documented: ModuleType, mode: str
) -> None:
    states = ["running", "succeeded-unwritten", "succeeded"]
    client, analyze, time = _analyze_rig(documented, mode, states=states)
    body = documented.models.AnalyzeDocumentRequest(url_source="https://contoso.example/a.pdf")

    result = _in_mode(
        mode, lambda: client.document_models.create_and_wait("prebuilt-invoice", body=body)
    )

    assert result.content == "Contoso invoice INV-100"
    assert [r.method for r in analyze.requests] == ["POST", "GET", "GET", "GET"]
    assert time.sleeps == [2.0, 1.0, 1.0] and analyze.violations == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"result_field": "/analyzeOutcome"},
            (
                "/x-jobgen/jobs/analyze/result_field: the record (AnalyzeOperation) has no"
                " property 'analyzeOutcome' (it has: createdDateTime, lastUpdatedDateTime,"
                " status, analyzeResult, error)"
            ),
        ),
        (
            {"final_from": "original-uri", "result": "getAnalyzeResult"},
            (
                "/x-jobgen/jobs/analyze/result_field: the result is a member of the terminal"
                " record only with final_from: record (this job's is original-uri)"
            ),
        ),
    ],
)
def test_a_result_field_off_the_record_is_refused(
    tmp_path: Path, change: dict[str, str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = yaml.safe_load(ANALYZE_SPEC.read_text(encoding="utf-8"))
    declaration = _documented_declaration()
    declaration["jobs"]["analyze"].update(change)
    spec["x-jobgen"] = declaration
    path = tmp_path / "analyze.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")

    assert main(["generate", str(path), "-o", str(tmp_path / "out")]) == 2

    err = capsys.readouterr().err
    assert f"{path}#{problem}" in err
    assert not (tmp_path / "out").exists()


# -- A POST ...:cancel of the status monitor, sent to the operation URL --------------------

OPERATIONS_SPEC = Path(__file__).resolve().parents[2] / "specs" / "azure_operations.yaml"
TEXT = "https://text.example.com/language"


@pytest.fixture(scope="module")
def cancelable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """specs/azure_operations.yaml with the Guidelines' cancel action on its monitor,
    `POST /operations/{operationId}:cancel`, declared as the job's cancel."""
    out = tmp_path_factory.mktemp("cancel_action")
    spec = yaml.safe_load(OPERATIONS_SPEC.read_text(encoding="utf-8"))
    monitor = spec["paths"]["/operations/{operationId}"]
    spec["paths"]["/operations/{operationId}:cancel"] = {
        "parameters": monitor["parameters"],
        "post": {
            "operationId": "cancelOperation",
            "tags": ["analysis"],
            "responses": {"202": {"description": "Cancellation requested."}},
        },
    }
    spec["x-jobgen"]["jobs"]["analysis"]["cancel"] = "cancelOperation"
    path = out / "azure_operations.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    with imported_sdk(path, out, "cancel_action_sdk") as sdk:
        yield sdk


def test_a_cancel_action_is_posted_to_the_operation_url(cancelable: ModuleType, mode: str) -> None:
    seen: list[tuple[str, str, str]] = []
    canceled: list[bool] = []

    op_id = "6f1c2d3e-0000-4000-8000-000000000001"

    def status(state: str) -> dict[str, str]:
        return {"id": op_id, "status": state, "createdDateTime": "2026-01-01T00:00:00Z"}

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path, request.url.query.decode()))
        if request.method == "POST" and request.url.path == "/language/analyze":
            url = f"{TEXT}/operations/{op_id}?api-version=2024-05-01"
            headers = {"Operation-Location": url, "Retry-After": "1"}
            return httpx.Response(202, headers=headers, json=status("NotStarted"))
        if request.method == "POST" and request.url.path == f"/language/operations/{op_id}:cancel":
            canceled.append(True)
            return httpx.Response(202)
        return httpx.Response(200, json=status("Canceled" if canceled else "Running"))

    time = FakeTime()
    config = cancelable.WaitConfig(
        clock=time.clock, wall_clock=time.wall_clock, sleep=time.sleep, async_sleep=time.async_sleep
    )
    cls = cancelable.AsyncClient if mode == "async" else cancelable.Client
    client = cls(
        api_key="key", base_url=TEXT, wait_config=config, transport=httpx.MockTransport(answer)
    )
    body = cancelable.models.AnalyzeRequest.from_dict(
        {"documents": [{"kind": "inline", "id": "1", "text": "hi"}], "features": ["summary"]}
    )

    async def flow_async() -> Any:
        handle = await client.analysis.start_analysis_job(body=body)
        await handle.cancel()
        return await handle.wait(deadline=60)

    def flow() -> Any:
        handle = client.analysis.start_analysis_job(body=body)
        handle.cancel()
        return handle.wait(deadline=60)

    record = asyncio.run(flow_async()) if mode == "async" else flow()

    assert record.status == "Canceled"
    query = "api-version=2024-05-01"
    assert seen == [
        ("POST", "/language/analyze", query),
        ("POST", f"/language/operations/{op_id}:cancel", query),
        ("GET", f"/language/operations/{op_id}", query),
    ]


# -- A decoding error that does happen names the answer (W15) ----------------------------


def test_a_response_that_cannot_be_typed_names_its_status_request_id_and_body(
    devcenter: ModuleType, mode: str
) -> None:
    rig = Rig(devcenter, mode, DevBoxAnswersService)
    rig.service.dev_boxes[("sprint", "me", "box-1")] = {"name": "box-1"}  # no poolName

    with pytest.raises(devcenter.errors.DecodeError) as caught:
        rig.run(lambda c: c.projects.dev_boxes_get_dev_box_by_user("sprint", "me", "box-1"))

    error = caught.value
    assert error.path == "$.poolName" and error.status_code == 200
    assert error.request_id == "req-1" and error.body == '{"name":"box-1"}'


def test_a_location_monitor_is_kept_by_handles_and_resume_tokens(
    devcenter: ModuleType, mode: str
) -> None:
    states = ["Running", "Running", "Running", "Succeeded"]
    rig = Rig(
        devcenter,
        mode,
        DevBoxAnswersService,
        create="location",
        states=states,
        create_retry_after=1,
        status_retry_after=3,
    )
    body = devcenter.models.DevBox(name="box-1", pool_name="pool")

    async def timed_out_async(c: Any) -> Any:
        handle = await c.projects.begin_create_dev_box("sprint", "me", "box-1", body=body)
        with pytest.raises(devcenter.errors.CreateDevBoxTimeout) as caught:
            await handle.result(deadline=5)
        return caught.value

    def timed_out(c: Any) -> Any:
        handle = c.projects.begin_create_dev_box("sprint", "me", "box-1", body=body)
        with pytest.raises(devcenter.errors.CreateDevBoxTimeout) as caught:
            handle.result(deadline=5)
        return caught.value

    error = rig.run(timed_out_async if mode == "async" else timed_out)
    token = json.loads(error.resume_token)
    assert token["by_status"] is True and error.last_state == "Running"

    # The token alone continues the wait, reading the monitor by HTTP status again.
    record = rig.run(
        lambda c: c.projects.wait_for_create_dev_box(resume=error.resume_token, deadline=60)
    )

    assert record.status == "Succeeded"
    (op_id,) = rig.service.operations
    monitor = f"/projects/sprint/users/me/devboxes/{op_id}/monitor"
    assert rig.wire() == [
        ("PUT", BOX, 0.0),
        ("GET", monitor, 1.0),
        ("GET", monitor, 4.0),
        ("GET", monitor, 7.0),
        ("GET", monitor, 10.0),
    ]
    assert rig.service.violations == []
