"""Microsoft's clients on the same services as `test_azure_shapes`, side by side with
jobgen's SDKs (docs/real-specs.md, "The same answers, side by side"):
azure-keyvault-administration for Key Vault 7.4's real-shaped backup,
azure-ai-documentintelligence for an analysis's result, azure-ai-translation-document for
a cancel,
azure-developer-devcenter for Dev Center's answers with no monitor, azure-core's
`LROBasePolling` for a monitor named by `Location` alone. What each returns is its row of
the table. The services run on the real monotonic clock here, with `Retry-After: 0`
where a delay would only slow the test."""

from __future__ import annotations

import time

from azure.ai.documentintelligence import DocumentIntelligenceClient
from azure.ai.documentintelligence.models import AnalyzeDocumentRequest
from azure.ai.translation.document import DocumentTranslationClient
from azure.core import PipelineClient
from azure.core.credentials import AzureKeyCredential
from azure.core.pipeline.policies import HeadersPolicy, RequestIdPolicy
from azure.core.polling import LROPoller
from azure.core.polling.base_polling import LROBasePolling
from azure.core.rest import HttpRequest
from azure.developer.devcenter import DevCenterClient
from azure.keyvault.administration import KeyVaultBackupClient

from tests.vendors.azure_actions import TranslationService
from tests.vendors.azure_lro import API_VERSION as ANALYZE_VERSION
from tests.vendors.azure_lro import ENDPOINT as ANALYZE_ENDPOINT
from tests.vendors.azure_lro import KEY as ANALYZE_KEY
from tests.vendors.azure_lro import AzureAnalyzeService
from tests.vendors.azure_rpc import TOKEN
from tests.vendors.azure_shapes import DevBoxAnswersService, KeyVault74BackupService
from tests.vendors.microsoft import Credential, transport

BOX = "/projects/sprint/users/me/devboxes/box-1"


def _devcenter(service: DevBoxAnswersService) -> DevCenterClient:
    return DevCenterClient(
        service.ENDPOINT, Credential(), transport=transport(service), api_version="2023-04-01"
    )


def test_devcenter_sdk_returns_the_dev_box_of_a_200_with_no_monitor() -> None:
    service = DevBoxAnswersService(time.monotonic, create="200")

    box = _devcenter(service).begin_create_dev_box("sprint", "me", "box-1", {"poolName": "pool"})

    assert box.result()["provisioningState"] == "Succeeded"
    assert [(r.method, r.path) for r in service.requests] == [("PUT", BOX)]


def test_devcenter_sdk_returns_a_201_whose_provisioning_state_failed() -> None:
    """Microsoft returns the failed dev box; jobgen raises `CreateDevBoxFailed`."""
    service = DevBoxAnswersService(time.monotonic, create="201-failed")

    box = _devcenter(service).begin_create_dev_box("sprint", "me", "box-1", {"poolName": "pool"})

    assert box.result()["provisioningState"] == "Failed"


def test_devcenter_sdk_returns_none_for_a_delete_answering_204() -> None:
    service = DevBoxAnswersService(time.monotonic)

    assert _devcenter(service).begin_delete_dev_box("sprint", "me", "box-1").result() is None
    assert [(r.method, r.path) for r in service.requests] == [("DELETE", BOX)]


def test_azure_core_polls_a_location_monitor_by_status() -> None:
    service = DevBoxAnswersService(
        time.monotonic, create="location", create_retry_after=None, status_retry_after=None
    )
    client = PipelineClient(
        service.ENDPOINT,
        transport=transport(service),
        policies=[RequestIdPolicy(), HeadersPolicy({"Authorization": f"Bearer {TOKEN}"})],
    )
    request = HttpRequest(
        "PUT", service.url(BOX), json={"poolName": "pool"}, headers={"Accept": "application/json"}
    )
    initial = client.send_request(request, _return_pipeline_response=True)
    poller = LROPoller(
        client, initial, lambda response: response.http_response.json(), LROBasePolling(0)
    )

    box = poller.result()

    assert box["provisioningState"] == "Succeeded"
    (op_id,) = service.operations
    monitor = f"/projects/sprint/users/me/devboxes/{op_id}/monitor"
    assert [(r.method, r.path) for r in service.requests] == [("PUT", BOX)] + [("GET", monitor)] * 3


def test_keyvault_sdk_returns_the_folder_of_a_real_shaped_backup() -> None:
    service = KeyVault74BackupService(time.monotonic, create_retry_after=0, status_retry_after=0)
    client = KeyVaultBackupClient(
        service.ENDPOINT,
        Credential(),
        transport=transport(service),
        api_version="7.4",
        verify_challenge_resource=False,  # the fake vault is not on a Key Vault domain
    )

    backup = client.begin_backup(
        "https://contoso.blob.core.windows.net/backups",
        sas_token="sas",
        _polling_interval=0,  # its poller's own default is 5 s; Retry-After: 0 defers to it
    )

    assert backup.result().folder_url == (
        "https://contoso.blob.core.windows.net/backups/mhsm-contoso-2026010100000000"
    )
    (job_id,) = service.operations
    pending = f"/backup/{job_id}/pending"
    # The challenge first (no token), then the backup and its monitor, with a token.
    assert [(r.method, r.path, "authorization" in r.headers) for r in service.requests] == [
        ("POST", "/backup", False),
        ("POST", "/backup", True),
        ("GET", pending, True),
        ("GET", pending, True),
        ("GET", pending, True),
    ]


def test_document_intelligence_sdk_returns_the_analyze_result() -> None:
    service = AzureAnalyzeService(time.monotonic, create_retry_after=0, status_retry_after=0)
    client = DocumentIntelligenceClient(
        ANALYZE_ENDPOINT,
        AzureKeyCredential(ANALYZE_KEY),
        transport=transport(service),
        api_version=ANALYZE_VERSION,
    )
    body = AnalyzeDocumentRequest(url_source="https://contoso.example/a.pdf")

    result = client.begin_analyze_document("prebuilt-invoice", body, polling_interval=0).result()

    assert type(result).__name__ == "AnalyzeResult"
    assert result.content == "Contoso invoice INV-100" and result.model_id == "prebuilt-invoice"
    assert [r.method for r in service.requests] == ["POST", "GET", "GET", "GET"]


def test_translation_sdk_cancels_at_the_batch_url() -> None:
    """Its poller runs in a thread of its own on the real clock: how many reads come
    before the cancel varies; where the cancel goes and how the batch ends does not."""
    service = TranslationService(time.monotonic, create_retry_after=0, status_retry_after=1)
    service.states = ["NotStarted"]
    client = DocumentTranslationClient(
        TranslationService.ENDPOINT,
        AzureKeyCredential(TranslationService.KEY),
        transport=transport(service),
        api_version="2024-05-01",
    )
    poller = client.begin_translation(
        "https://contoso.blob.core.windows.net/src",
        "https://contoso.blob.core.windows.net/fr",
        "fr",
    )

    client.cancel_translation(poller.id)
    poller.result()

    batch = f"{TranslationService.BATCHES}/{poller.id}"
    cancels = [r for r in service.requests if r.method == "DELETE"]
    assert [r.path for r in cancels] == [batch]
    assert service.operations[poller.id].data["canceled"] is True
    assert poller.details.status.lower().startswith("cancel")
