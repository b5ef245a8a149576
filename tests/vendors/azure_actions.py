"""Azure long-running POST actions of three `final-state-via` kinds, written from
Microsoft's documents on the protocol `azure_rpc` describes (its module docstring gives
the sources they share): Communication Email and Key Vault full backup
(`azure-async-operation`), Document Translation (`operation-location`) and Azure Maps
Creator conversion (`location`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx

from tests.vendors.azure_rpc import STAMP, AzureService, Operation, Request, bearer, error

_TERMINAL = ("succeeded", "failed", "canceled", "cancelled", "validationfailed")


def _json_body(seen: Request) -> dict[str, Any] | None:
    if not seen.headers.get("content-type", "").startswith("application/json"):
        return None
    try:
        body = seen.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


# -- azure-async-operation ----------------------------------------------------------------


class EmailService(AzureService):
    """Azure Communication Services Email 2025-09-01, `Email_Send` (`POST /emails:send`,
    final-state-via azure-async-operation; CommunicationServicesEmail.json): `202` with an
    `EmailSendResult` body (`{id, status}`), `Operation-Location` (the spec's header, "Client
    side should further query the operation/message status using the URL specified in
    'Operation-Location'") and `retry-after`; `GET /emails/operations/{operationId}`
    (`Email_GetSendResult`) answers `{id, status, error}` with `retry-after` "only ... when
    the operation status is a non-terminal status". The client may name the operation
    with `Operation-Id` (Guidelines, lro-operation-id-request-header). The result is the
    status monitor's last answer: a POST with azure-async-operation has no final GET
    (azure-core `get_final_get_url`). Credential: the spec's apiKey header `Authorization`
    (the service signs it with HMAC-SHA256; the key stands for that signature here). The
    answers follow the spec's own examples (SendEmail.json: `202`, `{"id", "status":
    "Running"}`, `Operation-Location` with `api-version`, `retry-after`;
    GetOperationStatusReturnsFailedTerminalStatus.json: `error` `EmailDropped`). With
    `first_state="Succeeded"` the send is done before its answer, which "should still
    return a 202 Accepted with the status property set to the appropriate terminal state"
    (Considerations, "Long-Running Operations", step 6).
    """

    API_VERSION = "2025-09-01"
    ENDPOINT = "https://contoso.unitedstates.communication.azure.com"
    KEY = "acs-access-key-0123456789"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault(
            "failure", ("EmailDropped", "Email was dropped after several attempts to deliver.")
        )
        self.first_state = options.pop("first_state", "Running")
        super().__init__(clock, **options)

    def authorized(self, seen: Request) -> bool:
        return seen.headers.get("authorization") == self.KEY

    def route(self, seen: Request, now: float) -> httpx.Response:
        if seen.method == "POST" and seen.path == "/emails:send":
            return self._send(seen, now)
        prefix = "/emails/operations/"
        if seen.method == "GET" and seen.path.startswith(prefix):
            return self._status(seen.path.removeprefix(prefix), now)
        return self.not_found(seen)

    def _send(self, seen: Request, now: float) -> httpx.Response:
        body = _json_body(seen)
        if body is None or not {"senderAddress", "content", "recipients"} <= body.keys():
            return error(400, "BadRequest", "senderAddress, content and recipients are required.")
        op_id = seen.headers.get("operation-id")
        if op_id in self.operations:
            return error(400, "DuplicateOperationId", f"Operation {op_id} already exists.")
        operation = self.begin(now, op_id)
        headers = {"Operation-Location": self.url(f"/emails/operations/{operation.id}")}
        if self.first_state.lower() in _TERMINAL:  # done before the 202 (Considerations, 6.)
            operation.states, operation.done_at = [self.first_state], now
            operation.not_before = now
        elif self.create_retry_after is not None:
            headers["retry-after"] = str(self.create_retry_after)
        record = {"id": operation.id, "status": self.first_state}
        return httpx.Response(202, json=record, headers=headers)

    def _status(self, op_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(op_id)
        if operation is None:
            return error(404, "NotFound", f"Operation {op_id} was not found.")
        state, headers = self.read(operation, now)
        record: dict[str, Any] = {"id": op_id, "status": state}
        if (problem := self.error_of(state)) is not None:
            record["error"] = problem
        return httpx.Response(200, json=record, headers=headers)


class KeyVaultBackupService(AzureService):
    """Key Vault (Managed HSM) 2025-06-01, `FullBackup` (`POST /backup`, final-state-via
    azure-async-operation; backuprestore.json): `202` with a `FullBackupOperation` body,
    `Azure-AsyncOperation` ("The URI to poll for completion status") and `Retry-After`
    ("The recommended number of seconds to wait before calling the URI specified in
    Azure-AsyncOperation"); `GET /backup/{jobId}/pending` (`FullBackupStatus`) answers the
    `FullBackupOperation`, whose `status` is `InProgress`, `Succeeded`, `Canceled` or
    `Failed` (the spec's `OperationStatus`), with `azureStorageBlobContainerUri` once
    succeeded (null before, as the spec's own example answers). The result is that last
    status answer. Credential: Azure AD bearer token.
    """

    API_VERSION = "2025-06-01"
    ENDPOINT = "https://contoso.managedhsm.azure.net"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault("states", ("InProgress", "InProgress", "Succeeded"))
        options.setdefault("failure", ("StorageAccessDenied", "The SAS token is not valid."))
        super().__init__(clock, **options)

    def authorized(self, seen: Request) -> bool:
        return bearer(seen)

    def route(self, seen: Request, now: float) -> httpx.Response:
        parts = seen.path.split("/")[1:]
        if seen.method == "POST" and parts == ["backup"]:
            return self._backup(seen, now)
        if seen.method == "GET" and len(parts) == 3 and parts[0::2] == ["backup", "pending"]:
            return self._status(parts[1], now)
        return self.not_found(seen)

    def _record(self, operation: Operation, state: str) -> dict[str, Any]:
        record: dict[str, Any] = {
            "status": state,
            "statusDetails": f"Full backup is {state}",
            "error": self.error_of(state),
            "startTime": 1767225600,
            "endTime": None,
            "jobId": operation.id,
            "azureStorageBlobContainerUri": None,
        }
        if state.lower() in _TERMINAL:
            record["endTime"] = 1767225660
        if state.lower() == "succeeded":
            folder = f"{operation.data['container']}/mhsm-contoso-2026010100000000"
            record["azureStorageBlobContainerUri"] = folder
        return record

    def _backup(self, seen: Request, now: float) -> httpx.Response:
        body = _json_body(seen)
        if body is None or "storageResourceUri" not in body:
            return error(400, "BadParameter", "storageResourceUri is required.")
        operation = self.begin(now, container=body["storageResourceUri"])
        status = self.url(f"/backup/{operation.id}/pending")
        headers = {"Azure-AsyncOperation": status, **self.first_headers()}
        return httpx.Response(202, json=self._record(operation, "InProgress"), headers=headers)

    def _status(self, job_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(job_id)
        if operation is None:
            return error(404, "NotFound", f"Backup {job_id} was not found.")
        state, headers = self.read(operation, now)
        return httpx.Response(200, json=self._record(operation, state), headers=headers)


# -- operation-location -------------------------------------------------------------------


class TranslationService(AzureService):
    """Document Translation 2024-05-01, `DocumentTranslationOperations_StartTranslation`
    (`POST {endpoint}/translator/document/batches`, final-state-via operation-location,
    final-state-schema TranslationStatus; translation/.../2024-05-01/openapi.json): `202`,
    no body, `Operation-Location` to `GET /translator/document/batches/{id}`
    (`GetTranslationStatus`), which answers the `TranslationStatus` (`id`, `status`:
    `NotStarted`, `Running`, `Succeeded`, `Failed`, `Cancelled`, `Cancelling`,
    `ValidationFailed`; `summary`; `error` with a `TranslationErrorCode`). The result is
    that last status answer. Credential: `Ocp-Apim-Subscription-Key` (ApiKeyAuth).
    """

    API_VERSION = "2024-05-01"
    ENDPOINT = "https://contoso-translator.cognitiveservices.azure.com"
    KEY = "translator-key-0123456789"
    BATCHES = "/translator/document/batches"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault("failure", ("InvalidRequest", "The source container is empty."))
        super().__init__(clock, **options)

    def authorized(self, seen: Request) -> bool:
        return seen.headers.get("ocp-apim-subscription-key") == self.KEY

    def route(self, seen: Request, now: float) -> httpx.Response:
        if seen.method == "POST" and seen.path == self.BATCHES:
            return self._start(seen, now)
        if seen.method == "GET" and seen.path.startswith(self.BATCHES + "/"):
            return self._status(seen.path.removeprefix(self.BATCHES + "/"), now)
        if seen.method == "DELETE" and seen.path.startswith(self.BATCHES + "/"):
            return self._cancel(seen.path.removeprefix(self.BATCHES + "/"))
        return self.not_found(seen)

    def _cancel(self, batch_id: str) -> httpx.Response:
        """ "Cancel Translation" (`DELETE /document/batches/{id}`, CancelTranslation):
        a batch not yet finished goes `Cancelling`, then `Cancelled`; one already
        finished is left as it is. The answer is the batch's status (200)."""
        operation = self.operations.get(batch_id)
        if operation is None:
            return error(404, "ResourceNotFound", f"Batch {batch_id} was not found.")
        if operation.done_at is None:
            operation.states = [*operation.states[: operation.polls], "Cancelling", "Cancelled"]
            operation.data["canceled"] = True
        state = operation.states[min(operation.polls, len(operation.states) - 1)]
        return httpx.Response(200, json={**self._record(batch_id, operation, state)})

    def _start(self, seen: Request, now: float) -> httpx.Response:
        body = _json_body(seen)
        inputs = body.get("inputs") if body else None
        if not inputs or not all("source" in i and i.get("targets") for i in inputs):
            return error(400, "InvalidRequest", "Each input needs a source and targets.")
        operation = self.begin(now, documents=len(inputs))
        headers = {
            "Operation-Location": self.url(f"{self.BATCHES}/{operation.id}"),
            **self.first_headers(),
        }
        return httpx.Response(202, headers=headers)

    def _status(self, batch_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(batch_id)
        if operation is None:
            return error(404, "ResourceNotFound", f"Batch {batch_id} was not found.")
        state, headers = self.read(operation, now)
        return httpx.Response(200, json=self._record(batch_id, operation, state), headers=headers)

    def _record(self, batch_id: str, operation: Operation, state: str) -> dict[str, Any]:
        total = operation.data["documents"]
        done = state.lower() == "succeeded"
        record: dict[str, Any] = {
            "id": batch_id,
            "createdDateTimeUtc": STAMP,
            "lastActionDateTimeUtc": STAMP,
            "status": state,
            "summary": {
                "total": total,
                "failed": 0 if done or state.lower() not in _TERMINAL else total,
                "success": total if done else 0,
                "inProgress": 0 if state.lower() in _TERMINAL else total,
                "notYetStarted": 0,
                "cancelled": 0,
                "totalCharacterCharged": 1200 if done else 0,
            },
        }
        if (problem := self.error_of(state)) is not None:
            record["error"] = problem | {"target": "Operation"}
        return record


# -- location -------------------------------------------------------------------------------


class MapsConversionService(AzureService):
    """Azure Maps Creator 2023-07-01, `Conversion_Create` (`POST /conversions?udid=...&
    dwgPackageVersion=...`, final-state-via location; dwgconversion.json with Common
    common.json): `202` with `Operation-Location` (common.json `202AsyncV2`) to `GET
    /conversions/operations/{operationId}` (`Conversion_GetOperation`, a
    `LongRunningOperationResult` `{operationId, status: NotStarted | Running | Failed |
    Succeeded, created, error}`; "While in progress, an http200 will be returned with no
    extra headers - followed by an http200 with Resource-Location header once successfully
    completed"). final-state-via `location` is AutoRest's "the final response will be
    available at the uri pointed to by the header Location": the 202 here also carries
    `Location`, the URL of the conversion (`GET /conversions/{conversionId}`,
    `Conversion_Get`), which exists only once the conversion succeeded (`404` before,
    recorded as a violation). Credential: the `subscription-key` query parameter
    (SharedKey). `resource_reads` counts the reads of the conversion. With
    `location_header=False` the 202 is the spec's alone (Operation-Location only), as the
    Maps documents describe the service.
    """

    API_VERSION = "2023-07-01"
    ENDPOINT = "https://us.atlas.microsoft.com"
    KEY = "maps-key-0123456789"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault("status_retry_after", None)
        options.setdefault("failure", ("Conversion.ParseError", "The drawing package has errors."))
        self.location_header = options.pop("location_header", True)
        super().__init__(clock, **options)
        self.resource_reads = 0

    def authorized(self, seen: Request) -> bool:
        return seen.params.get("subscription-key") == self.KEY

    def route(self, seen: Request, now: float) -> httpx.Response:
        parts = seen.path.split("/")[1:]
        if parts[:1] != ["conversions"]:
            return self.not_found(seen)
        if seen.method == "POST" and len(parts) == 1:
            return self._create(seen, now)
        if seen.method == "GET" and len(parts) == 3 and parts[1] == "operations":
            return self._status(parts[2], now)
        if seen.method == "GET" and len(parts) == 2:
            return self._get(seen, parts[1])
        return self.not_found(seen)

    def conversion_url(self, conversion_id: str) -> str:
        return self.url(f"/conversions/{conversion_id}")

    def _create(self, seen: Request, now: float) -> httpx.Response:
        udid, version = seen.params.get("udid"), seen.params.get("dwgPackageVersion")
        if not udid or version not in ("1.0", "2.0"):
            return error(400, "BadRequest", "udid and dwgPackageVersion (1.0 or 2.0) are required.")
        operation = self.begin(now)
        conversion_id = str(uuid.UUID(int=0xC0 << 64 | len(self.operations)))
        operation.data |= {
            "conversion": conversion_id,
            "udid": udid,
            "description": seen.params.get("description"),
        }
        headers = {"Operation-Location": self.url(f"/conversions/operations/{operation.id}")}
        if self.location_header:
            headers["Location"] = self.conversion_url(conversion_id)
        return httpx.Response(202, headers=headers | self.first_headers())

    def _status(self, op_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(op_id)
        if operation is None:
            return error(404, "NotFound", f"Operation {op_id} was not found.")
        state, headers = self.read(operation, now)
        record: dict[str, Any] = {"operationId": op_id, "created": STAMP, "status": state}
        if (problem := self.error_of(state)) is not None:
            record["error"] = problem
        if operation.succeeded:
            headers["Resource-Location"] = self.conversion_url(operation.data["conversion"])
        return httpx.Response(200, json=record, headers=headers)

    def _get(self, seen: Request, conversion_id: str) -> httpx.Response:
        self.resource_reads += 1
        found = [op for op in self.operations.values() if op.data["conversion"] == conversion_id]
        if not found or not found[0].succeeded:
            self.violations.append(f"GET conversion {conversion_id} before its operation succeeded")
            return error(404, "NotFound", f"Conversion {conversion_id} was not found.")
        data = found[0].data
        record = {
            "conversionId": conversion_id,
            "udid": data["udid"],
            "created": STAMP,
            "description": data["description"] or "",
            "featureCounts": {"facility": 1, "level": 3, "unit": 42},
            "ontology": "facility-2.0",
        }
        return httpx.Response(200, json=record)
