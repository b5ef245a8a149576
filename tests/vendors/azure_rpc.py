"""Azure long-running operations of each `final-state-via` kind, written from Microsoft's
documents: what every service shares, and the two resource-shaped ones (PUT, DELETE).

The common protocol, from the Microsoft REST API Guidelines (github.com/microsoft/
api-guidelines, azure/Guidelines.md "Long-Running Operations & Jobs" and azure/
ConsiderationsForServiceDesign.md "Long-Running Operations"):

- the request that starts an operation answers with the absolute URL of a status monitor
  (`Operation-Location`; older services `Azure-AsyncOperation`), and may add `Retry-After`:
  "after waiting at least the amount of time specified by the previous response's
  Retry-after header, the client issues a GET request to the status monitor";
- the status monitor answers `200` with `status` (`NotStarted`, `Running`, `Succeeded`,
  `Failed`, `Canceled`; each service spells its own, and azure-core's `base_polling`
  compares them lower-cased), a `Retry-After` header while the operation is not complete,
  and, when `Failed`, an `error` object with `code` and `message`;
- "clients specify the version of the API to be used in every request to the service,
  even requests to an `Operation-Location` or `nextLink` URL" (Guidelines, "API
  Versioning"): every request here needs `api-version` (`400 MissingApiVersionParameter`);
- each service checks the credential its spec's `securityDefinitions` declares (`401`).

Which final request follows a `Succeeded` status is the spec's `x-ms-long-running-
operation-options.final-state-via` (AutoRest's "x-ms-long-running-operation-options";
azure-core 1.32 `OperationResourcePolling.get_final_get_url`): `original-uri`, a GET of
the URL the PUT was sent to; `location`, a GET of the first answer's `Location`;
`azure-async-operation` and `operation-location` on a POST, none (the status monitor's
last answer is the result); a DELETE with none declared, none.

None of this is jobgen's simulator (`jobgen serve`): it shares no code with the SDK and
knows nothing of the job extension. Each service runs on the tests' fake clock as an
`httpx.MockTransport` handler, records every request in `requests` and every breach of the
protocol by its client in `violations`.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

STAMP = "2026-01-01T00:00:00Z"
TOKEN = "aad-token-0123456789"  # the bearer token of the OAuth 2 specs
_TERMINAL = {"succeeded", "failed", "canceled", "cancelled", "validationfailed"}


@dataclass(frozen=True)
class Request:
    """A request as the service received it (header names lower-case)."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float  # seconds on the service's clock since it started

    @property
    def params(self) -> httpx.QueryParams:
        return httpx.QueryParams(self.query)

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Operation:
    """One operation: the states its status monitor reports, one per read (the last
    repeated), and what the service keeps about it in `data`."""

    id: str
    states: list[str]
    data: dict[str, Any] = field(default_factory=dict)
    polls: int = 0
    not_before: float = 0.0
    done_at: float | None = None

    @property
    def state(self) -> str:
        """The state the last status read reported (the first one before any)."""
        return self.states[max(0, min(self.polls - 1, len(self.states) - 1))]

    @property
    def succeeded(self) -> bool:
        return self.done_at is not None and self.state.lower() == "succeeded"


def error(status: int, code: str, message: str, **headers: str) -> httpx.Response:
    """An error answer as Azure's guidelines shape it: `{"error": {"code", "message"}}`,
    with the code again in `x-ms-error-code`."""
    body = {"error": {"code": code, "message": message}}
    return httpx.Response(status, json=body, headers={"x-ms-error-code": code, **headers})


class AzureService:
    """What every service here shares; a subclass gives `API_VERSION`, `ENDPOINT`,
    `authorized` and `route`.

    `states` are the statuses the monitor reports, one per read; `create_retry_after` and
    `status_retry_after` the `Retry-After` seconds of the first answer and of each
    unfinished status answer (None: no header); `failure` the `(code, message)` of a
    `Failed` operation.
    """

    API_VERSION = ""
    ENDPOINT = ""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        states: Sequence[str] = ("NotStarted", "Running", "Succeeded"),
        create_retry_after: int | None = 2,
        status_retry_after: int | None = 1,
        failure: tuple[str, str] = ("InternalServerError", "The operation failed."),
    ) -> None:
        self.clock = clock
        self.started = clock()
        self.states = list(states)
        self.create_retry_after = create_retry_after
        self.status_retry_after = status_retry_after
        self.failure = failure
        self.requests: list[Request] = []
        self.violations: list[str] = []
        self.operations: dict[str, Operation] = {}
        self._lock = threading.Lock()

    # -- the wire ----------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        now = self.clock() - self.started
        seen = Request(
            request.method,
            request.url.path,
            request.url.query.decode(),
            {k.lower(): v for k, v in request.headers.items()},
            request.read(),
            now,
        )
        with self._lock:
            self.requests.append(seen)
            if not self.authorized(seen):
                return error(401, "Unauthorized", "Access denied: the credential is missing.")
            version = seen.params.get("api-version")
            if version is None:
                self.violations.append(f"{seen.method} {seen.path} without api-version")
                return error(
                    400,
                    "MissingApiVersionParameter",
                    "The api-version query parameter (?api-version=) is required for all requests.",
                )
            if version != self.API_VERSION:
                return error(
                    400, "UnsupportedApiVersion", f"api-version {version} is not supported."
                )
            return self.route(seen, now)

    def url(self, path: str, **query: str) -> str:
        """The absolute URL of `path` on this service, with its `api-version`."""
        params = httpx.QueryParams({"api-version": self.API_VERSION, **query})
        return f"{self.ENDPOINT}{path}?{params}"

    def authorized(self, seen: Request) -> bool:
        raise NotImplementedError

    def route(self, seen: Request, now: float) -> httpx.Response:
        raise NotImplementedError

    def not_found(self, seen: Request) -> httpx.Response:
        return error(404, "NotFound", f"{seen.method} {seen.path} is not an operation.")

    # -- operations --------------------------------------------------------------------

    def begin(self, now: float, operation_id: str | None = None, **data: Any) -> Operation:
        """A new operation; its first status read is due after `create_retry_after`."""
        op_id = operation_id or str(uuid.UUID(int=len(self.operations) + 1))
        wait = self.create_retry_after or 0
        operation = Operation(op_id, list(self.states), dict(data), not_before=now + wait)
        self.operations[op_id] = operation
        return operation

    def first_headers(self) -> dict[str, str]:
        """`Retry-After` of the answer that starts an operation, if the service sends one."""
        if self.create_retry_after is None:
            return {}
        return {"Retry-After": str(self.create_retry_after)}

    def read(self, operation: Operation, now: float) -> tuple[str, dict[str, str]]:
        """One status read: the state it reports and the headers of its answer.

        A read before the `Retry-After` the service last gave is a violation
        (ConsiderationsForServiceDesign.md, step 3)."""
        if now < operation.not_before:
            self.violations.append(
                f"GET status of {operation.id} at {now:g}s, "
                f"before its Retry-After ({operation.not_before:g}s)"
            )
        operation.polls += 1
        state = operation.state
        headers: dict[str, str] = {}
        if state.lower() in _TERMINAL:
            if operation.done_at is None:
                operation.done_at = now
        elif self.status_retry_after is not None:
            headers["Retry-After"] = str(self.status_retry_after)
            operation.not_before = now + self.status_retry_after
        else:
            operation.not_before = now
        return state, headers

    def error_of(self, state: str) -> dict[str, str] | None:
        """The `error` a status monitor reports in `state` (Guidelines, OperationStatus)."""
        if state.lower() in ("failed", "validationfailed"):
            code, message = self.failure
            return {"code": code, "message": message}
        return None


def bearer(seen: Request) -> bool:
    """An OAuth 2 (Azure AD) spec's credential: `Authorization: Bearer <token>`."""
    return seen.headers.get("authorization") == f"Bearer {TOKEN}"


# -- original-uri: a PUT that creates a resource with additional processing --------------


class DeidService(AzureService):
    """Azure Health Data Services de-identification 2024-11-15, `DeidentifyDocuments`
    (`PUT /jobs/{name}`, x-ms-long-running-operation, final-state-via original-uri;
    HealthDataAIServices.DeidServices.json), in the pattern of Considerations, "PUT with
    additional long-running processing": the PUT answers `201 Created` with the resource
    (`status: NotStarted`) and an `Operation-Location` to a status monitor `{id, status,
    error}`; when the monitor says `Succeeded` the client reads the resource at the
    original URI (`GET /jobs/{name}`, "the client can perform a GET on the resource to
    observe the result"). Credential: Azure AD bearer token (securityDefinitions.AadToken).
    `resource_reads` lists when each `GET /jobs/{name}` came, after the monitor's
    terminal answer or before it.
    """

    API_VERSION = "2024-11-15"
    ENDPOINT = "https://contoso.api.deid.services.azure.com"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault("failure", ("SourceNotFound", "The source location has no documents."))
        super().__init__(clock, **options)
        self.jobs: dict[str, dict[str, Any]] = {}
        self.resource_reads: list[str] = []

    def authorized(self, seen: Request) -> bool:
        return bearer(seen)

    def monitor_url(self, name: str, op_id: str) -> str:
        return self.url(f"/jobs/{name}/operations/{op_id}")

    def route(self, seen: Request, now: float) -> httpx.Response:
        parts = seen.path.split("/")[1:]
        if parts[:1] != ["jobs"] or len(parts) not in (2, 4):
            return self.not_found(seen)
        name = parts[1]
        if len(parts) == 4 and parts[2] == "operations" and seen.method == "GET":
            return self._status(name, parts[3], now)
        if len(parts) == 2 and seen.method == "PUT":
            return self._create(seen, name, now)
        if len(parts) == 2 and seen.method == "GET":
            return self._get(seen, name)
        return self.not_found(seen)

    def _create(self, seen: Request, name: str, now: float) -> httpx.Response:
        try:
            body = seen.json()
        except ValueError:
            return error(400, "InvalidRequestBody", "The request body is not JSON.")
        for key in ("sourceLocation", "targetLocation"):
            place = body.get(key) if isinstance(body, dict) else None
            if not isinstance(place, dict) or not {"location", "prefix"} <= place.keys():
                return error(400, "InvalidRequestBody", f"{key} needs location and prefix.")
        if name in self.jobs:
            return error(409, "JobNameAlreadyExists", f"A job named {name} already exists.")
        operation = self.begin(now, seen.headers.get("operation-id"), name=name)
        job = {
            "name": name,
            "operation": body.get("operation", "Surrogate"),
            "sourceLocation": body["sourceLocation"],
            "targetLocation": body["targetLocation"],
            "status": "NotStarted",
            "createdAt": STAMP,
            "lastUpdatedAt": STAMP,
        }
        self.jobs[name] = job | {"_operation": operation.id}
        headers = {
            "Operation-Location": self.monitor_url(name, operation.id),
            "Operation-Id": operation.id,
            **self.first_headers(),
        }
        return httpx.Response(201, json=job, headers=headers)

    def _status(self, name: str, op_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(op_id)
        if operation is None or operation.data["name"] != name:
            return error(404, "NotFound", f"Operation {op_id} was not found.")
        state, headers = self.read(operation, now)
        monitor: dict[str, Any] = {"id": op_id, "status": state}
        if (problem := self.error_of(state)) is not None:
            monitor["error"] = problem
        return httpx.Response(200, json=monitor, headers=headers)

    def _get(self, seen: Request, name: str) -> httpx.Response:
        job = self.jobs.get(name)
        if job is None:
            return error(404, "JobNotFound", f"No job named {name}.")
        operation = self.operations[job["_operation"]]
        self.resource_reads.append("after" if operation.done_at is not None else "before")
        record = {k: v for k, v in job.items() if not k.startswith("_")}
        record["status"] = operation.state if operation.polls else "NotStarted"
        if operation.succeeded:
            record["summary"] = {"successful": 3, "failed": 0, "canceled": 0, "total": 3}
            record["summary"] |= {"bytesProcessed": 2048}
            record["startedAt"] = record["lastUpdatedAt"] = STAMP
        elif (problem := self.error_of(record["status"])) is not None:
            record["error"] = problem
        return httpx.Response(200, json=record)


# -- a DELETE with no final-state-via ----------------------------------------------------


class DevBoxService(AzureService):
    """Dev Center 2023-04-01, `DevBoxes_DeleteDevBox` (`DELETE /projects/{projectName}/
    users/{userId}/devboxes/{devBoxName}`, x-ms-long-running-operation, no final-state-
    via; devcenter.json): `202` with the `OperationStatus` as body and `Operation-Location`
    and `Location` headers (both declared) to `GET /projects/{projectName}/
    operationstatuses/{operationId}` (`OperationStatuses_Get`). Considerations, "Long-
    running delete operation": the dev box stays visible until the delete succeeds, and no
    final GET follows (azure-core: a DELETE has no final URL). Credential: Azure AD bearer
    token (securityDefinitions.OAuth2Auth).
    """

    API_VERSION = "2023-04-01"
    ENDPOINT = "https://contoso-devcenter.westus3.devcenter.azure.com"

    def __init__(self, clock: Callable[[], float], **options: Any) -> None:
        options.setdefault("failure", ("DevBoxDeleteFailed", "The dev box could not be deleted."))
        super().__init__(clock, **options)
        self.dev_boxes: set[tuple[str, str, str]] = {("sprint", "me", "box-1")}

    def authorized(self, seen: Request) -> bool:
        return bearer(seen)

    def monitor_url(self, project: str, op_id: str) -> str:
        return self.url(f"/projects/{project}/operationstatuses/{op_id}")

    def route(self, seen: Request, now: float) -> httpx.Response:
        parts = seen.path.split("/")[1:]
        monitor = len(parts) == 4 and parts[0] == "projects" and parts[2] == "operationstatuses"
        if monitor and seen.method == "GET":
            return self._status(parts[1], parts[3], now)
        if len(parts) == 6 and parts[0] == "projects" and parts[2:5:2] == ["users", "devboxes"]:
            key = (parts[1], parts[3], parts[5])
            if seen.method == "DELETE":
                return self._delete(key, now)
            if seen.method == "GET":
                return self._get(key)
        return self.not_found(seen)

    def _record(self, operation: Operation, state: str) -> dict[str, Any]:
        project, user, box = operation.data["box"]
        record: dict[str, Any] = {
            "id": f"/projects/{project}/operationstatuses/{operation.id}",
            "name": operation.id,
            "status": state,
            "resourceId": f"/projects/{project}/users/{user}/devboxes/{box}",
            "startTime": STAMP,
        }
        if state.lower() in _TERMINAL:
            record["endTime"] = STAMP
        if (problem := self.error_of(state)) is not None:
            record["error"] = problem
        return record

    def _delete(self, key: tuple[str, str, str], now: float) -> httpx.Response:
        if key not in self.dev_boxes:
            return httpx.Response(204)
        operation = self.begin(now, box=key)
        status = self.monitor_url(key[0], operation.id)
        headers = {"Operation-Location": status, "Location": status, **self.first_headers()}
        return httpx.Response(202, json=self._record(operation, "NotStarted"), headers=headers)

    def _status(self, project: str, op_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(op_id)
        if operation is None or operation.data["box"][0] != project:
            return error(404, "NotFound", f"Operation {op_id} was not found.")
        state, headers = self.read(operation, now)
        if operation.succeeded:
            self.dev_boxes.discard(operation.data["box"])
        return httpx.Response(200, json=self._record(operation, state), headers=headers)

    def _get(self, key: tuple[str, str, str]) -> httpx.Response:
        if key not in self.dev_boxes:
            return error(404, "DevBoxNotFound", f"Dev box {key[2]} was not found.")
        deleting = any(op.data["box"] == key for op in self.operations.values())
        state = "Deleting" if deleting else "Succeeded"
        return httpx.Response(
            200,
            json={
                "name": key[2],
                "projectName": key[0],
                "poolName": "pool",
                "provisioningState": state,
            },
        )
