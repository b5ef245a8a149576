"""The Azure services of `azure_rpc` and `azure_actions`, driven by plain httpx as a
client following Microsoft's rules would drive them (`GuidelineClient`: the monitor URL
from `Operation-Location`, then `Azure-AsyncOperation`; each read after the last
`Retry-After`; statuses compared lower-cased; the final GET azure-core's
`get_final_get_url` chooses), to show the services right before any SDK meets them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.vendors.azure_actions import (
    EmailService,
    KeyVaultBackupService,
    MapsConversionService,
    TranslationService,
)
from tests.vendors.azure_rpc import TOKEN, AzureService, DeidService, DevBoxService
from tests.waiters.support import FakeTime

BEARER = {"Authorization": f"Bearer {TOKEN}"}


class Failed(Exception):
    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body["error"]["message"])
        self.body = body


class GuidelineClient:
    """An LRO client written from the guidelines and azure-core's `base_polling`."""

    def __init__(self, service: AzureService, time: FakeTime, **client: Any) -> None:
        self.time = time
        self.http = httpx.Client(transport=service.transport(), **client)
        self.query: dict[str, str] = {}  # a credential sent in the query, kept on every URL

    def get(self, url: str) -> httpx.Response:
        return self.http.get(httpx.URL(url).copy_merge_params(self.query))

    def wait(self, first: httpx.Response, final_state_via: str | None) -> httpx.Response:
        """Poll the monitor `first` names until a terminal status; then the final GET."""
        assert first.status_code in (200, 201, 202), first.text
        monitor = first.headers.get("operation-location") or first.headers["azure-asyncoperation"]
        location = first.headers.get("location")
        answer = first
        while True:
            self.time.sleep(float(answer.headers.get("retry-after", 0)))
            answer = self.get(monitor)
            assert answer.status_code == 200, answer.text
            status = answer.json()["status"].lower()
            if status in ("succeeded", "failed", "canceled", "cancelled", "validationfailed"):
                break
        if status != "succeeded":
            raise Failed(answer.json())
        method = first.request.method
        if final_state_via == "location" and location:
            return self.get(location)
        if final_state_via in ("azure-async-operation", "operation-location") and method == "POST":
            return answer
        if method in ("PUT", "PATCH"):
            return self.get(str(first.request.url))
        return answer


def _rig(
    make: Callable[..., AzureService], **options: Any
) -> tuple[AzureService, FakeTime, GuidelineClient]:
    time = FakeTime()
    service = make(time.clock, **options)
    headers = BEARER if make in (DeidService, DevBoxService, KeyVaultBackupService) else {}
    return service, time, GuidelineClient(service, time, headers=headers)


def _wire(service: AzureService) -> list[tuple[str, str, float]]:
    return [(r.method, r.path, r.at) for r in service.requests]


# -- original-uri (PUT) -----------------------------------------------------------------

DEID_BODY = {
    "sourceLocation": {"location": "https://contoso.blob.core.windows.net/in", "prefix": "notes/"},
    "targetLocation": {"location": "https://contoso.blob.core.windows.net/out", "prefix": "clean/"},
}


def _deid_put(client: GuidelineClient, name: str = "job-1") -> httpx.Response:
    url = DeidService.ENDPOINT + f"/jobs/{name}"
    return client.http.put(url, params={"api-version": "2024-11-15"}, json=DEID_BODY)


def test_deid_put_answers_201_with_the_resource_then_the_resource_is_read_once_at_its_uri() -> None:
    service, _time, client = _rig(DeidService)

    first = _deid_put(client)
    final = client.wait(first, "original-uri")

    assert first.status_code == 201 and first.json()["status"] == "NotStarted"
    assert first.headers["operation-location"] == service.url(
        "/jobs/job-1/operations/" + first.headers["operation-id"]
    )
    assert _wire(service) == [
        ("PUT", "/jobs/job-1", 0.0),
        ("GET", f"/jobs/job-1/operations/{first.headers['operation-id']}", 2.0),
        ("GET", f"/jobs/job-1/operations/{first.headers['operation-id']}", 3.0),
        ("GET", f"/jobs/job-1/operations/{first.headers['operation-id']}", 4.0),
        ("GET", "/jobs/job-1", 4.0),
    ]
    assert final.json()["status"] == "Succeeded" and final.json()["summary"]["successful"] == 3
    assert service.resource_reads == ["after"]
    assert service.violations == []


def test_deid_monitor_reports_a_failure_under_error() -> None:
    _service, _time, client = _rig(DeidService, states=["Running", "Failed"])

    with pytest.raises(Failed) as caught:
        client.wait(_deid_put(client), "original-uri")

    assert caught.value.body["error"] == {
        "code": "SourceNotFound",
        "message": "The source location has no documents.",
    }
    assert set(caught.value.body) == {"id", "status", "error"}


def test_deid_needs_the_bearer_token_and_a_unique_job_name() -> None:
    service, _time, client = _rig(DeidService)
    stranger = httpx.Client(transport=service.transport())

    refused = stranger.put(
        DeidService.ENDPOINT + "/jobs/job-1?api-version=2024-11-15", json=DEID_BODY
    )
    _deid_put(client)
    again = _deid_put(client)

    assert refused.status_code == 401 and refused.json()["error"]["code"] == "Unauthorized"
    assert again.status_code == 409 and again.headers["x-ms-error-code"] == "JobNameAlreadyExists"


# -- the rules every service shares -----------------------------------------------------


def test_a_status_read_before_the_retry_after_is_a_violation() -> None:
    service, time, client = _rig(DeidService, create_retry_after=5)
    monitor = _deid_put(client).headers["operation-location"]

    time.sleep(4)
    client.http.get(monitor)

    assert service.violations == [
        f"GET status of {next(iter(service.operations))} at 4s, before its Retry-After (5s)"
    ]


def test_a_request_without_api_version_is_refused_and_recorded() -> None:
    service, time, client = _rig(DeidService)
    monitor = _deid_put(client).headers["operation-location"]

    time.sleep(2)
    answer = client.http.get(monitor.split("?")[0])

    assert (
        answer.status_code == 400 and answer.json()["error"]["code"] == "MissingApiVersionParameter"
    )
    assert service.violations == [f"GET {httpx.URL(monitor).path} without api-version"]


# -- no final-state-via (DELETE) --------------------------------------------------------


def test_devbox_delete_ends_on_succeeded_with_no_final_get_and_the_box_gone() -> None:
    service, _time, client = _rig(DevBoxService, create_retry_after=3, status_retry_after=2)
    box = DevBoxService.ENDPOINT + "/projects/sprint/users/me/devboxes/box-1"
    params = {"api-version": "2023-04-01"}

    first = client.http.delete(box, params=params)
    during = client.http.get(box, params=params)
    final = client.wait(first, None)
    after = client.http.get(box, params=params)

    (op_id,) = service.operations
    monitor = f"/projects/sprint/operationstatuses/{op_id}"
    assert first.status_code == 202 and first.json()["status"] == "NotStarted"
    assert first.headers["location"] == first.headers["operation-location"] == service.url(monitor)
    assert during.json()["provisioningState"] == "Deleting"
    assert [(m, p, t) for m, p, t in _wire(service) if p == monitor] == [
        ("GET", monitor, 3.0),
        ("GET", monitor, 5.0),
        ("GET", monitor, 7.0),
    ]
    assert final.json()["status"] == "Succeeded" and "error" not in final.json()
    assert after.status_code == 404
    assert client.http.delete(box, params=params).status_code == 204
    assert service.violations == []


# -- azure-async-operation (POST) -------------------------------------------------------

EMAIL = {
    "senderAddress": "donotreply@contoso.com",
    "content": {"subject": "Invoice", "plainText": "Attached."},
    "recipients": {"to": [{"address": "ana@contoso.com"}]},
}


def test_email_send_is_polled_at_its_operation_location_and_answers_the_status_monitor() -> None:
    service, _time, client = _rig(EmailService, states=["running", "succeeded"])
    client.http.headers["Authorization"] = EmailService.KEY

    first = client.http.post(
        EmailService.ENDPOINT + "/emails:send",
        params={"api-version": "2025-09-01"},
        json=EMAIL,
        headers={"Operation-Id": "mail-7"},
    )
    final = client.wait(first, "azure-async-operation")

    assert first.status_code == 202 and first.json() == {"id": "mail-7", "status": "Running"}
    assert first.headers["retry-after"] == "2"
    assert [t for *_, t in _wire(service)] == [0.0, 2.0, 3.0]
    assert final.json() == {"id": "mail-7", "status": "succeeded"}
    assert "retry-after" not in final.headers  # only while the status is non-terminal
    assert service.violations == []


def test_email_done_before_its_answer_says_so_in_the_202() -> None:
    service, _time, client = _rig(EmailService, first_state="Succeeded")
    client.http.headers["Authorization"] = EmailService.KEY

    first = client.http.post(
        EmailService.ENDPOINT + "/emails:send", params={"api-version": "2025-09-01"}, json=EMAIL
    )

    assert first.status_code == 202 and first.json()["status"] == "Succeeded"
    assert "retry-after" not in first.headers
    assert client.get(first.headers["operation-location"]).json()["status"] == "Succeeded"
    assert service.violations == []


def test_email_refuses_a_send_without_its_authorization_header() -> None:
    _service, _time, client = _rig(EmailService)

    answer = client.http.post(
        EmailService.ENDPOINT + "/emails:send?api-version=2025-09-01", json=EMAIL
    )

    assert answer.status_code == 401


def test_key_vault_backup_is_polled_at_azure_asyncoperation_and_answers_the_backup() -> None:
    service, _time, client = _rig(KeyVaultBackupService, create_retry_after=10)
    container = "https://contoso.blob.core.windows.net/backups"

    first = client.http.post(
        KeyVaultBackupService.ENDPOINT + "/backup",
        params={"api-version": "2025-06-01"},
        json={"storageResourceUri": container, "token": "sas"},
    )
    final = client.wait(first, "azure-async-operation")

    assert first.status_code == 202 and "operation-location" not in first.headers
    assert first.json()["status"] == "InProgress"
    assert [t for *_, t in _wire(service)] == [0.0, 10.0, 11.0, 12.0]
    assert final.json()["status"] == "Succeeded"
    assert final.json()["azureStorageBlobContainerUri"].startswith(container + "/mhsm-")
    assert service.violations == []


def test_key_vault_backup_failure_carries_the_error() -> None:
    _service, _time, client = _rig(KeyVaultBackupService, states=["InProgress", "Failed"])

    with pytest.raises(Failed) as caught:
        first = client.http.post(
            KeyVaultBackupService.ENDPOINT + "/backup?api-version=2025-06-01",
            json={"storageResourceUri": "https://x.blob.core.windows.net/b"},
        )
        client.wait(first, "azure-async-operation")

    assert caught.value.body["error"]["code"] == "StorageAccessDenied"


# -- operation-location (POST) ----------------------------------------------------------

BATCH = {
    "inputs": [
        {
            "source": {"sourceUrl": "https://contoso.blob.core.windows.net/src"},
            "targets": [
                {"targetUrl": "https://contoso.blob.core.windows.net/fr", "language": "fr"}
            ],
        }
    ]
}


def _start_batch(client: GuidelineClient) -> httpx.Response:
    client.http.headers["Ocp-Apim-Subscription-Key"] = TranslationService.KEY
    url = TranslationService.ENDPOINT + TranslationService.BATCHES
    return client.http.post(url, params={"api-version": "2024-05-01"}, json=BATCH)


def test_translation_answers_a_bare_202_and_its_last_status_is_the_result() -> None:
    service, _time, client = _rig(TranslationService)

    first = _start_batch(client)
    final = client.wait(first, "operation-location")

    assert first.status_code == 202 and first.content == b""
    assert [t for *_, t in _wire(service)] == [0.0, 2.0, 3.0, 4.0]
    assert final.json()["status"] == "Succeeded" and final.json()["summary"]["success"] == 1
    assert service.violations == []


def test_translation_validation_failure_is_terminal_with_an_error() -> None:
    _service, _time, client = _rig(TranslationService, states=["NotStarted", "ValidationFailed"])

    with pytest.raises(Failed) as caught:
        client.wait(_start_batch(client), "operation-location")

    assert caught.value.body["status"] == "ValidationFailed"
    assert caught.value.body["error"]["code"] == "InvalidRequest"


# -- location (POST) --------------------------------------------------------------------


def _convert(client: GuidelineClient) -> httpx.Response:
    params = {
        "api-version": "2023-07-01",
        "udid": "udid-25",
        "dwgPackageVersion": "2.0",
        "subscription-key": MapsConversionService.KEY,
    }
    return client.http.post(MapsConversionService.ENDPOINT + "/conversions", params=params)


def test_maps_conversion_ends_with_one_get_of_the_202s_location() -> None:
    service, _time, client = _rig(MapsConversionService, create_retry_after=4)
    client.query["subscription-key"] = MapsConversionService.KEY

    first = _convert(client)
    final = client.wait(first, "location")

    (operation,) = service.operations.values()
    conversion = operation.data["conversion"]
    assert first.headers["location"] == service.conversion_url(conversion)
    assert [t for *_, t in _wire(service)] == [
        0.0,
        4.0,
        4.0,
        4.0,
        4.0,
    ]  # no Retry-After while running
    assert service.requests[-2].path == f"/conversions/operations/{operation.id}"
    assert final.json()["conversionId"] == conversion and final.json()["udid"] == "udid-25"
    assert service.resource_reads == 1 and service.violations == []


def test_maps_success_names_the_resource_in_resource_location_and_hides_it_before() -> None:
    service, _time, client = _rig(MapsConversionService, location_header=False)
    client.query["subscription-key"] = MapsConversionService.KEY

    first = _convert(client)
    (operation,) = service.operations.values()
    early = client.get(service.conversion_url(operation.data["conversion"]))
    last = client.wait(first, "location")  # no Location: the status monitor's last answer

    assert "location" not in first.headers
    assert early.status_code == 404
    assert service.violations == [
        f"GET conversion {operation.data['conversion']} before its operation succeeded"
    ]
    assert last.headers["resource-location"] == service.conversion_url(operation.data["conversion"])


def test_maps_needs_its_subscription_key_on_every_request() -> None:
    _service, time, client = _rig(MapsConversionService)

    first = _convert(client)
    time.sleep(2)
    answer = client.http.get(first.headers["operation-location"])

    assert first.status_code == 202 and answer.status_code == 401
