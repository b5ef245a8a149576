"""Key Vault's challenge-based authentication and the Managed HSM full backup (7.4), as
Microsoft documents them; no jobgen code.

From https://learn.microsoft.com/azure/key-vault/general/authentication-requests-and-responses
("Authentication"): every request carries `Authorization: Bearer <token>` for the vault's
resource; a request without one (or with a token the vault does not accept) is answered
401 with a challenge naming where to get one and for what:
`WWW-Authenticate: Bearer authorization="https://login.microsoftonline.com/<tenant>",
resource="https://vault.azure.net"` (a Managed HSM names `https://managedhsm.azure.net`;
newer vaults name a `scope` instead of a `resource`). The client then gets a token for
that resource and sends the request again.

From https://learn.microsoft.com/rest/api/keyvault/keyvault/full-backup/full-backup (7.4) and
the spec's examples: `POST /backup?api-version=7.4` with `{storageResourceUri, token}`
answers 202 with the `FullBackupOperation` (`status` `InProgress`, `jobId`, `startTime`),
an `Azure-AsyncOperation` header naming `/backup/{jobId}/pending?api-version=7.4` and a
`Retry-After`; that URL answers the operation, `Succeeded` with the backup's
`azureStorageBlobContainerUri` and `endTime`.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from tests.vendors.server import Answer, Seen, json_answer

TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
HSM = "https://managedhsm.azure.net"
SCOPE = HSM + "/.default"
CONTAINER = "https://contoso.blob.core.windows.net/backups"


@attrs.define
class Token:
    """What an Azure AD token carries for the vault: whom it is for, until when."""

    token: str
    expires_on: int


@attrs.define
class ManagedHsm:
    """A Managed HSM; `accepted` are the tokens Azure AD issued for its resource.
    `challenge` is what its 401 names (`resource=` by default, `scope=` if set)."""

    host: str = "contoso.managedhsm.azure.net"
    accepted: set[str] = attrs.field(factory=set)
    states: tuple[str, ...] = ("InProgress", "Succeeded")
    resource: str = HSM
    by_scope: bool = False
    retry_after: str = "2"
    reads: dict[str, int] = attrs.field(factory=dict)

    def __call__(self, seen: Seen) -> Answer:
        auth = seen.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.accepted:
            named = (
                f'scope="{self.resource}/.default"'
                if self.by_scope
                else f'resource="{self.resource}"'
            )
            challenge = (
                f'Bearer authorization="https://login.microsoftonline.com/{TENANT}", {named}'
            )
            body = {
                "error": {
                    "code": "Unauthorized",
                    "message": "AKV10000: Request is missing a Bearer or PoP token.",
                }
            }
            return json_answer(401, body, **{"WWW-Authenticate": challenge})
        if ("api-version", "7.4") not in seen.query:
            return json_answer(400, {"error": {"code": "BadParameter", "message": "api-version"}})
        if seen.method == "POST" and seen.path == "/backup":
            body: dict[str, Any] = json.loads(seen.body)
            if "storageResourceUri" not in body or "token" not in body:
                return json_answer(400, {"error": {"code": "BadParameter", "message": "body"}})
            job = f"job{len(self.reads) + 1}"
            self.reads[job] = 0
            monitor = f"https://{self.host}/backup/{job}/pending?api-version=7.4"
            return json_answer(
                202,
                self.record(job, "InProgress"),
                **{"Azure-AsyncOperation": monitor, "Retry-After": self.retry_after},
            )
        parts = seen.path.strip("/").split("/")
        if seen.method == "GET" and len(parts) == 3 and parts[::2] == ["backup", "pending"]:
            job = parts[1]
            if job not in self.reads:
                return json_answer(404, {"error": {"code": "NotFound", "message": job}})
            state = self.states[min(self.reads[job], len(self.states) - 1)]
            self.reads[job] += 1
            return json_answer(200, self.record(job, state))
        return json_answer(404, {"error": {"code": "NotFound", "message": seen.path}})

    def record(self, job: str, state: str) -> dict[str, Any]:
        record: dict[str, Any] = {
            "status": state,
            "statusDetails": f"The backup is {state}.",
            "startTime": 1627334448,
            "jobId": job,
        }
        if state == "Succeeded":
            record["endTime"] = 1627334508
            record["azureStorageBlobContainerUri"] = f"{CONTAINER}/mhsm-contoso-{job}"
        return record
