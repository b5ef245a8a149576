"""Microsoft's clients on the same services as `test_azure_shapes`, side by side with
jobgen's SDKs (docs/real-specs.md, "Azure LROs side by side"): azure-developer-devcenter
for Dev Center's answers with no monitor, azure-core's `LROBasePolling` for a monitor
named by `Location` alone. What each returns is the row of the table."""

from __future__ import annotations

import time

from azure.core import PipelineClient
from azure.core.pipeline.policies import HeadersPolicy, RequestIdPolicy
from azure.core.polling import LROPoller
from azure.core.polling.base_polling import LROBasePolling
from azure.core.rest import HttpRequest
from azure.developer.devcenter import DevCenterClient

from tests.vendors.azure_rpc import TOKEN
from tests.vendors.azure_shapes import DevBoxAnswersService
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
