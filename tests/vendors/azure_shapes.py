"""Azure services answering as real ones do beside their specs, written from Microsoft's
documents and azure-core's `base_polling.py` (no jobgen code here).

- Key Vault (Managed HSM) backup 7.4 (backuprestore.json, `FullBackup`): the service
  sends `"statusDetails": null`, `"endTime": null` and, while `InProgress`, an `error`
  whose `code` and `message` are null (as the recordings of Microsoft's own SDK tests
  show: azure-keyvault-administration's `tests/recordings`), where the spec types them
  as strings. azure-keyvault-administration returns the backup's folder URL.
- Dev Center 2023-04-01 (devcenter.json, `DevBoxes_CreateDevBox` declares `200` and
  `201`, `DevBoxes_DeleteDevBox` `202` and `204`): the PUT may answer at once, `200`
  with the dev box and no monitor header; the DELETE of a dev box already gone `204`;
  a PUT `201` whose `provisioningState` is `Failed`, no header. azure-core reads an
  answer with no `Operation-Location`, `Azure-AsyncOperation` or `Location` as final
  (`StatusCheckPolling`: status `Succeeded`).
- A monitor named by `Location` alone (azure-core's `LocationPolling`): `GET` of it
  answers `202` while the operation runs (with `Retry-After`), then `200` with the
  resource; every `Retry-After` is the least wait before the next read (REST API
  Guidelines, "Long-running operations").

Each service records every request and every read before its `Retry-After` in
`violations` (the pattern of `azure_rpc`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.vendors.azure_actions import KeyVaultBackupService
from tests.vendors.azure_rpc import AzureService, Request, bearer, error


class KeyVault74BackupService(KeyVaultBackupService):
    """Key Vault 7.4 `FullBackup`, its answers shaped as the service sends them. A request
    with no `Authorization` gets the challenge Key Vault documents ("Authentication,
    requests and responses"): `401` with `WWW-Authenticate: Bearer authorization=<the
    tenant's authority>, resource=<the vault's resource>`, which Microsoft's clients
    answer with a token for that resource."""

    API_VERSION = "7.4"
    CHALLENGE = (
        'Bearer authorization="https://login.microsoftonline.com/contoso.onmicrosoft.com",'
        ' resource="https://managedhsm.azure.net"'
    )

    def handle(self, request: httpx.Request) -> httpx.Response:
        if "authorization" not in request.headers:
            now = self.clock() - self.started
            headers = {k.lower(): v for k, v in request.headers.items()}
            seen = Request(
                request.method,
                request.url.path,
                request.url.query.decode(),
                headers,
                request.read(),
                now,
            )
            self.requests.append(seen)
            return error(
                401,
                "Unauthorized",
                "Request is missing a Bearer or PoP token.",
                **{"WWW-Authenticate": self.CHALLENGE},
            )
        return super().handle(request)

    def _record(self, operation: Any, state: str) -> dict[str, Any]:
        record = super()._record(operation, state)
        record["statusDetails"] = None
        if state == "InProgress":
            record["error"] = {"code": None, "message": None, "innererror": None}
        return record


class DevBoxAnswersService(AzureService):
    """Dev Center 2023-04-01 dev boxes whose PUT and DELETE answer at once, or through a
    `Location` monitor alone.

    `create` is how `PUT .../devboxes/{name}` answers: "200" (the dev box, no header),
    "201-failed" (the dev box with `provisioningState: Failed`, no header) or
    "location" (`202`, `Location` and `Retry-After`, no body: the monitor answers `202`
    through `states`' unfinished reads, then `200` with the dev box). A DELETE of a dev
    box that is not there answers `204`.
    """

    API_VERSION = "2023-04-01"
    ENDPOINT = "https://contoso-devcenter.westus3.devcenter.azure.com"

    def __init__(self, clock: Callable[[], float], create: str = "200", **options: Any) -> None:
        options.setdefault("states", ("Running", "Running", "Succeeded"))
        super().__init__(clock, **options)
        self.create = create
        self.dev_boxes: dict[tuple[str, str, str], dict[str, Any]] = {}

    def authorized(self, seen: Request) -> bool:
        return bearer(seen)

    def route(self, seen: Request, now: float) -> httpx.Response:
        parts = seen.path.split("/")[1:]
        if len(parts) == 7 and parts[0] == "projects" and parts[6] == "monitor":
            return self._monitor(parts[5], now)
        if len(parts) == 6 and parts[0] == "projects" and parts[2:5:2] == ["users", "devboxes"]:
            key = (parts[1], parts[3], parts[5])
            if seen.method == "PUT":
                return self._put(key, seen, now)
            if seen.method == "DELETE":
                return self._delete(key)
            if seen.method == "GET":
                box = self.dev_boxes.get(key)
                if box is None:
                    return error(404, "DevBoxNotFound", f"Dev box {key[2]} was not found.")
                request_id = {"x-ms-request-id": f"req-{len(self.requests)}"}
                return httpx.Response(200, json=box, headers=request_id)
        return self.not_found(seen)

    def _box(self, key: tuple[str, str, str], pool: str, state: str) -> dict[str, Any]:
        return {
            "name": key[2],
            "projectName": key[0],
            "poolName": pool,
            "provisioningState": state,
            "user": key[1],
        }

    def _put(self, key: tuple[str, str, str], seen: Request, now: float) -> httpx.Response:
        pool = seen.json().get("poolName")
        if not isinstance(pool, str):
            return error(400, "BadParameter", "poolName is required.")
        if self.create == "200":
            self.dev_boxes[key] = self._box(key, pool, "Succeeded")
            return httpx.Response(200, json=self.dev_boxes[key])
        if self.create == "201-failed":
            self.dev_boxes[key] = self._box(key, pool, "Failed")
            return httpx.Response(201, json=self.dev_boxes[key])
        operation = self.begin(now, key=key, pool=pool)
        self.dev_boxes[key] = self._box(key, pool, "Creating")
        monitor = self.url(f"/projects/{key[0]}/users/{key[1]}/devboxes/{operation.id}/monitor")
        return httpx.Response(202, headers={"Location": monitor, **self.first_headers()})

    def _monitor(self, op_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(op_id)
        if operation is None:
            return error(404, "NotFound", f"Operation {op_id} was not found.")
        state, headers = self.read(operation, now)
        if state.lower() != "succeeded":
            return httpx.Response(202, headers=headers)
        key = operation.data["key"]
        self.dev_boxes[key] = self._box(key, operation.data["pool"], "Succeeded")
        return httpx.Response(200, json=self.dev_boxes[key])

    def _delete(self, key: tuple[str, str, str]) -> httpx.Response:
        self.dev_boxes.pop(key, None)
        return httpx.Response(204)
