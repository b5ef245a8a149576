"""SDKs generated with no side file from real Azure specs (`specs/azure/`, as published),
against the Azure services of `azure_rpc` and `azure_actions`, sync and async: one
long-running operation of each `final-state-via` kind, its jobs read from
`x-ms-long-running-operation` alone. Each test checks the exact requests and when they
came (the services record any read before a `Retry-After`), the value returned and the
error raised for a failed operation."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import imported_sdk
from tests.vendors.azure_actions import (
    EmailService,
    KeyVaultBackupService,
    MapsConversionService,
    TranslationService,
)
from tests.vendors.azure_rpc import TOKEN, AzureService, DeidService, DevBoxService
from tests.waiters.support import FakeTime

AZURE = Path(__file__).resolve().parent / "specs" / "azure"
SPECS = {
    "deid": "healthdataaiservices/data-plane/HealthDataAIServices.DeidServices/stable/2024-11-15/HealthDataAIServices.DeidServices.json",
    "email": "communication/data-plane/Email/stable/2025-09-01/CommunicationServicesEmail.json",
    "keyvault": "keyvault/data-plane/Microsoft.KeyVault/stable/2025-06-01/backuprestore.json",
    "translation": "translation/data-plane/DocumentTranslation/stable/2024-05-01/openapi.json",
    "maps": "maps/data-plane/Creator/stable/2023-07-01/dwgconversion.json",
    "devcenter": "devcenter/data-plane/Microsoft.DevCenter/stable/2023-04-01/devcenter.json",
}


@pytest.fixture(scope="module")
def sdks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], ModuleType]]:
    """The SDK of one of `SPECS`, generated (no side file) and imported on first use."""
    out = tmp_path_factory.mktemp("azure_final_states")
    made: dict[str, ModuleType] = {}
    opened: list[Any] = []

    def sdk(name: str) -> ModuleType:
        if name not in made:
            context = imported_sdk(AZURE / SPECS[name], out, f"az_{name}", ref_root=AZURE)
            made[name] = context.__enter__()
            opened.append(context)
        return made[name]

    yield sdk
    for context in reversed(opened):
        context.__exit__(None, None, None)


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
        base_url: str,
        credential: dict[str, str],
        **service: Any,
    ) -> None:
        self.sdk, self.mode = sdk, mode
        self.time = FakeTime()
        self.service = make(self.time.clock, **service)
        config = sdk.WaitConfig(
            clock=self.time.clock,
            wall_clock=self.time.wall_clock,
            sleep=self.time.sleep,
            async_sleep=self.time.async_sleep,
            rng=lambda: 0.5,
        )
        cls = sdk.AsyncClient if mode == "async" else sdk.Client
        self.client = cls(
            base_url=base_url, wait_config=config, transport=self.service.transport(), **credential
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

    def versions(self) -> set[str | None]:
        return {r.params.get("api-version") for r in self.service.requests}


def _only(service: AzureService) -> str:
    (op_id,) = service.operations
    return op_id


# -- original-uri: Health Data de-identification, PUT /jobs/{name} ------------------------


def _deid(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("deid")
    return Rig(sdk, mode, DeidService, DeidService.ENDPOINT, {"token": TOKEN}, **service)


def _deid_job(sdk: ModuleType) -> Any:
    """The PUT's body. The spec lists the read-only `name`, `status`, `createdAt` and
    `lastUpdatedAt` as required, so the one model of request and answer needs them."""
    m = sdk.models
    made = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    return m.DeidentificationJob(
        name="job-1",
        status="NotStarted",
        created_at=made,
        last_updated_at=made,
        source_location=m.SourceStorageLocation(
            location="https://contoso.blob.core.windows.net/in", prefix="notes/"
        ),
        target_location=m.TargetStorageLocation(
            location="https://contoso.blob.core.windows.net/out", prefix="clean/"
        ),
    )


def test_original_uri_put_ends_with_one_get_of_the_resource(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _deid(sdks, mode, create_retry_after=3)
    job = _deid_job(rig.sdk)

    outcome = rig.run(lambda c: c.jobs.create_and_wait("job-1", body=job, deadline=60))

    monitor = f"/jobs/job-1/operations/{_only(rig.service)}"
    assert rig.wire() == [
        ("PUT", "/jobs/job-1", 0.0),
        ("GET", monitor, 3.0),  # the 201's Retry-After: 3
        ("GET", monitor, 4.0),  # each running answer's Retry-After: 1
        ("GET", monitor, 5.0),
        ("GET", "/jobs/job-1", 5.0),  # the original URI, once, after Succeeded
    ]
    assert rig.service.resource_reads == ["after"]
    assert rig.service.violations == [] and rig.versions() == {"2024-11-15"}
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in rig.service.requests)
    assert isinstance(outcome, rig.sdk.models.DeidentificationJob)
    assert outcome.name == "job-1" and outcome.summary.successful == 3
    assert outcome.status.value == "Succeeded"


def test_original_uri_failure_raises_the_jobs_failed_error_with_the_monitors_error(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _deid(sdks, mode, states=["Running", "Failed"])
    job = _deid_job(rig.sdk)

    with pytest.raises(rig.sdk.errors.DeidentifyDocumentsFailed) as caught:
        rig.run(lambda c: c.jobs.create_and_wait("job-1", body=job, deadline=60))

    assert caught.value.error.code == "SourceNotFound"
    assert caught.value.error.message == "The source location has no documents."
    assert [m for m, *_ in rig.wire()] == ["PUT", "GET", "GET"]  # no resource read
    assert rig.service.violations == []


def test_a_put_jobs_handle_ends_with_the_get_of_the_original_uri(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _deid(sdks, mode, create_retry_after=5)
    job = _deid_job(rig.sdk)

    async def flow_async(c: Any) -> Any:
        handle = await c.jobs.start("job-1", body=job, deadline=60)
        return await handle.result(deadline=60)

    def flow(c: Any) -> Any:
        return c.jobs.start("job-1", body=job, deadline=60).result(deadline=60)

    outcome = rig.run(flow_async if mode == "async" else flow)

    assert [(m, p.split("/operations/")[0], t) for m, p, t in rig.wire()] == [
        ("PUT", "/jobs/job-1", 0.0),
        ("GET", "/jobs/job-1", 5.0),
        ("GET", "/jobs/job-1", 6.0),
        ("GET", "/jobs/job-1", 7.0),
        ("GET", "/jobs/job-1", 7.0),
    ]
    assert rig.service.resource_reads == ["after"] and rig.service.violations == []
    assert outcome.name == "job-1" and outcome.summary.total == 3


def test_a_put_jobs_resume_token_keeps_the_original_uri(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _deid(sdks, mode)
    job = _deid_job(rig.sdk)
    tokens: list[str] = []

    async def start_async(c: Any) -> None:
        tokens.append((await c.jobs.start("job-1", body=job, deadline=60)).resume_token)

    def start(c: Any) -> None:
        tokens.append(c.jobs.start("job-1", body=job, deadline=60).resume_token)

    rig.run(start_async if mode == "async" else start)
    outcome = rig.run(lambda c: c.jobs.handle(resume=tokens[0]).result(deadline=60))

    assert [m for m, *_ in rig.wire()] == ["PUT", "GET", "GET", "GET", "GET"]
    assert rig.wire()[-1][1] == "/jobs/job-1"
    assert rig.service.resource_reads == ["after"] and rig.service.violations == []
    assert outcome.name == "job-1"


def test_a_put_jobs_result_is_refused_given_its_operation_url_alone(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _deid(sdks, mode, create_retry_after=0)
    job = _deid_job(rig.sdk)
    rig.run(lambda c: c.jobs.start("job-1", body=job, deadline=60))
    monitor = rig.service.url(f"/jobs/job-1/operations/{_only(rig.service)}")

    with pytest.raises(rig.sdk.errors.OperationUrlRefused) as caught:
        rig.run(lambda c: c.jobs.wait_for_result(monitor, deadline=60))

    assert "URL of the request that created it" in str(caught.value)
    assert rig.service.resource_reads == []


# -- azure-async-operation: Communication Email, POST /emails:send ----------------------


def _email(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("email")
    credential = {"api_key": EmailService.KEY}
    return Rig(sdk, mode, EmailService, EmailService.ENDPOINT, credential, **service)


def _message(sdk: ModuleType) -> Any:
    m = sdk.models
    return m.EmailMessage(
        sender_address="donotreply@contoso.com",
        content=m.EmailContent(subject="Invoice", plain_text="Attached."),
        recipients=m.EmailRecipients(to=[m.EmailAddress(address="ana@contoso.com")]),
    )


def _send(client: Any, message: Any) -> Any:
    return client.email_send.create_and_wait(body=message, deadline=60)


@pytest.mark.parametrize("states", [["Running", "Succeeded"], ["running", "succeeded"]])
def test_azure_async_operation_post_returns_the_last_status_in_any_casing(
    sdks: Callable[[str], ModuleType], mode: str, states: list[str]
) -> None:
    rig = _email(sdks, mode, states=states)
    message = _message(rig.sdk)

    outcome = rig.run(lambda c: _send(c, message))

    monitor = f"/emails/operations/{_only(rig.service)}"
    assert rig.wire() == [
        ("POST", "/emails:send", 0.0),
        ("GET", monitor, 2.0),
        ("GET", monitor, 3.0),  # and no final GET: the status monitor is the result
    ]
    assert rig.service.violations == [] and rig.versions() == {"2025-09-01"}
    assert all(r.headers["authorization"] == EmailService.KEY for r in rig.service.requests)
    assert outcome.id == _only(rig.service)
    assert outcome.status.value == states[-1]


def test_a_202_that_is_already_terminal_needs_no_status_read(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _email(sdks, mode, first_state="Succeeded")
    message = _message(rig.sdk)

    outcome = rig.run(lambda c: _send(c, message))

    assert rig.wire() == [("POST", "/emails:send", 0.0)]
    assert rig.time.sleeps == []
    assert outcome.id == _only(rig.service) and outcome.status.value == "Succeeded"


def test_azure_async_operation_failure_carries_the_services_code_and_message(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _email(sdks, mode, states=["Running", "Failed"])
    message = _message(rig.sdk)

    with pytest.raises(rig.sdk.errors.SendFailed) as caught:
        rig.run(lambda c: _send(c, message))

    assert caught.value.error.code == "EmailDropped"
    assert caught.value.error.message == "Email was dropped after several attempts to deliver."
    assert rig.service.violations == []


def test_a_canceled_send_raises_the_jobs_canceled_error(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _email(sdks, mode, states=["Running", "Canceled"])
    message = _message(rig.sdk)

    with pytest.raises(rig.sdk.errors.SendCanceled) as caught:
        rig.run(lambda c: _send(c, message))

    assert caught.value.job_id == rig.service.url(f"/emails/operations/{_only(rig.service)}")
    assert [at for *_, at in rig.wire()] == [0.0, 2.0, 3.0]


# -- azure-async-operation: Key Vault full backup, POST /backup (Azure-AsyncOperation) ---


def _keyvault(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("keyvault")
    base = KeyVaultBackupService.ENDPOINT
    return Rig(sdk, mode, KeyVaultBackupService, base, {"token": TOKEN}, **service)


def _backup(rig: Rig) -> Callable[[Any], Any]:
    body = rig.sdk.models.SASTokenParameter(
        storage_resource_uri="https://contoso.blob.core.windows.net/backups", token="sas"
    )
    return lambda c: c.backup.create_and_wait(body=body, deadline=120)


def test_azure_asyncoperation_header_is_polled_after_its_retry_after(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _keyvault(sdks, mode, create_retry_after=10)

    outcome = rig.run(_backup(rig))

    pending = f"/backup/{_only(rig.service)}/pending"
    assert rig.wire() == [
        ("POST", "/backup", 0.0),
        ("GET", pending, 10.0),
        ("GET", pending, 11.0),
        ("GET", pending, 12.0),
    ]
    assert rig.service.violations == [] and rig.versions() == {"2025-06-01"}
    assert outcome.status.value == "Succeeded"
    assert outcome.azure_storage_blob_container_uri.startswith(
        "https://contoso.blob.core.windows.net/backups/mhsm-"
    )


def test_key_vault_backup_failure_raises_with_the_vaults_error(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _keyvault(sdks, mode, states=["InProgress", "Failed"])

    with pytest.raises(rig.sdk.errors.FullBackupFailed) as caught:
        rig.run(_backup(rig))

    assert caught.value.error.code == "StorageAccessDenied"
    assert caught.value.error.message == "The SAS token is not valid."


# -- operation-location: Document Translation, POST /document/batches -------------------


def _translation(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("translation")
    base = TranslationService.ENDPOINT
    credential = {"api_key": TranslationService.KEY}
    return Rig(sdk, mode, TranslationService, base, credential, **service)


def _translate(rig: Rig) -> Callable[[Any], Any]:
    body = _body(rig)
    return lambda c: c.document.create_and_wait(body=body, deadline=60)


def _body(rig: Rig) -> Any:
    m = rig.sdk.models
    return m.StartTranslationDetails(
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


def test_operation_location_post_returns_the_final_translation_status(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _translation(sdks, mode)

    outcome = rig.run(_translate(rig))

    batch = f"{TranslationService.BATCHES}/{_only(rig.service)}"
    assert rig.wire() == [
        ("POST", TranslationService.BATCHES, 0.0),
        ("GET", batch, 2.0),
        ("GET", batch, 3.0),
        ("GET", batch, 4.0),
    ]
    assert rig.service.violations == [] and rig.versions() == {"2024-05-01"}
    assert all(
        r.headers["ocp-apim-subscription-key"] == TranslationService.KEY
        for r in rig.service.requests
    )
    assert isinstance(outcome, rig.sdk.models.TranslationStatus)
    assert outcome.summary.success == 1 and outcome.summary.total_character_charged == 1200


def test_wait_for_result_given_a_translation_handles_job_id(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _translation(sdks, mode, create_retry_after=6)
    handles: list[Any] = []

    async def start_async(c: Any) -> None:
        handles.append(await c.document.start(body=_body(rig), deadline=60))

    def start(c: Any) -> None:
        handles.append(c.document.start(body=_body(rig), deadline=60))

    rig.run(start_async if mode == "async" else start)
    (handle,) = handles
    rig.time.sleep(6)  # the 202's Retry-After, as a task queue's countdown would
    outcome = rig.run(lambda c: c.document.wait_for_result(handle.job_id, deadline=60))

    batch = f"{TranslationService.BATCHES}/{_only(rig.service)}"
    assert handle.job_id == rig.service.url(batch)
    assert rig.wire() == [
        ("POST", TranslationService.BATCHES, 0.0),
        ("GET", batch, 6.0),
        ("GET", batch, 7.0),
        ("GET", batch, 8.0),
    ]
    assert rig.service.violations == []
    assert outcome.status.value == "Succeeded"


@pytest.mark.parametrize("failure", ["Failed", "ValidationFailed"])
def test_a_failed_translation_raises_with_its_translation_error(
    sdks: Callable[[str], ModuleType], mode: str, failure: str
) -> None:
    rig = _translation(sdks, mode, states=["NotStarted", failure])

    with pytest.raises(rig.sdk.errors.StartTranslationFailed) as caught:
        rig.run(_translate(rig))

    assert caught.value.error.code.value == "InvalidRequest"
    assert caught.value.error.message == "The source container is empty."
    assert [at for *_, at in rig.wire()] == [0.0, 2.0, 3.0]


def test_a_cancelled_translation_ends_the_wait_as_canceled(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    # Document Translation spells it "Cancelled" (its Status enum; the service's SDK,
    # azure-ai-translation-document, counts it among the finished states).
    rig = _translation(sdks, mode, states=["Running", "Cancelled"])

    with pytest.raises(rig.sdk.errors.StartTranslationCanceled):
        rig.run(_translate(rig))

    assert [at for *_, at in rig.wire()] == [0.0, 2.0, 3.0]


# -- location: Azure Maps Creator conversion, POST /conversions --------------------------


def _maps(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("maps")
    credential = {"shared_key_api_key": MapsConversionService.KEY}
    base = MapsConversionService.ENDPOINT
    return Rig(sdk, mode, MapsConversionService, base, credential, **service)


def _convert(rig: Rig) -> Callable[[Any], Any]:
    version = rig.sdk.models.ConversionCreateDwgPackageVersion("2.0")
    return lambda c: c.conversions.create_and_wait(
        udid="udid-25", dwg_package_version=version, deadline=120
    )


def test_location_post_ends_with_one_get_of_the_202s_location(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _maps(sdks, mode, create_retry_after=4, status_retry_after=5)

    outcome = rig.run(_convert(rig))

    operation = rig.service.operations[_only(rig.service)]
    conversion = operation.data["conversion"]
    monitor = f"/conversions/operations/{operation.id}"
    assert rig.wire() == [
        ("POST", "/conversions", 0.0),
        ("GET", monitor, 4.0),
        ("GET", monitor, 9.0),
        ("GET", monitor, 14.0),
        ("GET", f"/conversions/{conversion}", 14.0),  # the 202's Location, once
    ]
    assert rig.service.violations == [] and rig.versions() == {"2023-07-01"}
    assert all(
        r.params.get("subscription-key") == MapsConversionService.KEY for r in rig.service.requests
    )
    assert rig.service.resource_reads == 1
    assert outcome.conversion_id == conversion and outcome.udid == "udid-25"


def test_a_failed_conversion_raises_with_the_maps_error(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _maps(sdks, mode, states=["Running", "Failed"], status_retry_after=1)

    with pytest.raises(rig.sdk.errors.CreateFailed) as caught:
        rig.run(_convert(rig))

    assert caught.value.error.code == "Conversion.ParseError"
    assert rig.service.resource_reads == 0 and rig.service.violations == []


def test_location_post_without_a_location_header_returns_the_terminal_status(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    # The 202 as the Maps spec declares it (Operation-Location alone): azure-core's
    # get_final_get_url then has no Location and no `resourceLocation`, and a POST takes
    # the status monitor's last answer.
    rig = _maps(sdks, mode, location_header=False, status_retry_after=1)

    outcome = rig.run(_convert(rig))

    assert [m for m, *_ in rig.wire()] == ["POST", "GET", "GET", "GET"]
    assert rig.service.resource_reads == 0 and rig.service.violations == []
    assert isinstance(outcome, rig.sdk.models.LongRunningOperationResult)
    assert outcome.operation_id == _only(rig.service)


# -- no final-state-via: Dev Center, DELETE a dev box ------------------------------------


def _devcenter(sdks: Callable[[str], ModuleType], mode: str, **service: Any) -> Rig:
    sdk = sdks("devcenter")
    return Rig(sdk, mode, DevBoxService, DevBoxService.ENDPOINT, {"token": TOKEN}, **service)


def _delete(client: Any) -> Any:
    return client.projects.delete_dev_box_and_wait("sprint", "me", "box-1", deadline=60)


def test_delete_ends_on_succeeded_with_no_final_get(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _devcenter(sdks, mode, create_retry_after=3, status_retry_after=2)

    outcome = rig.run(_delete)

    monitor = f"/projects/sprint/operationstatuses/{_only(rig.service)}"
    assert rig.wire() == [
        ("DELETE", "/projects/sprint/users/me/devboxes/box-1", 0.0),
        ("GET", monitor, 3.0),
        ("GET", monitor, 5.0),
        ("GET", monitor, 7.0),
    ]
    assert rig.service.violations == [] and rig.versions() == {"2023-04-01"}
    assert rig.service.dev_boxes == set()
    # no result to fetch: the wait returns the monitor's terminal record
    assert isinstance(outcome, rig.sdk.models.OperationStatus)
    assert outcome.status.value == "Succeeded"


def test_a_failed_delete_raises_with_the_dev_centers_error(
    sdks: Callable[[str], ModuleType], mode: str
) -> None:
    rig = _devcenter(sdks, mode, states=["Running", "Failed"])

    with pytest.raises(rig.sdk.errors.DeleteDevBoxFailed) as caught:
        rig.run(_delete)

    assert caught.value.error.code == "DevBoxDeleteFailed"
    assert caught.value.error.message == "The dev box could not be deleted."
    assert ("sprint", "me", "box-1") in rig.service.dev_boxes
