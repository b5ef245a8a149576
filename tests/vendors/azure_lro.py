"""An Azure long-running-operation service, written from Microsoft's documents.

It follows, and checks that its clients follow:

- the Microsoft REST API Guidelines, "Long-running operations" (github.com/microsoft/
  api-guidelines, azure/Guidelines.md, and its "Considerations for Service Design"): an
  action that takes long answers `202 Accepted` with an `Operation-Location` header, the
  absolute URL of a status monitor, and may add `Retry-After` (seconds a client should
  wait before it polls); the status monitor answers `200` with the operation's `status`
  (and `Retry-After` while it runs), and every request carries the `api-version` query
  parameter, which the service requires (`400` without it);
- Azure AI Document Intelligence REST API 2024-11-30, "Document Models - Analyze
  Document" and "Document Models - Get Analyze Result" (learn.microsoft.com/rest/api/
  aiservices/document-models/analyze-document and .../get-analyze-result,
  api-version=2024-11-30): `POST {endpoint}/documentintelligence/documentModels/
  {modelId}:analyze?api-version=2024-11-30` with a JSON body holding `urlSource` or
  `base64Source` answers 202, no body, `Operation-Location: {endpoint}/
  documentintelligence/documentModels/{modelId}/analyzeResults/{resultId}?api-version=
  2024-11-30` and `Retry-After`; `GET` of that URL answers `{"status": "notStarted" |
  "running" | "succeeded" | "failed", "createdDateTime", "lastUpdatedDateTime",
  "analyzeResult" (succeeded), "error" (failed)}`; the key goes in
  `Ocp-Apim-Subscription-Key` (`401` without the right one); errors are
  `{"error": {"code", "message"}}`.

It is not jobgen's own simulator (`jobgen serve`): it shares no code with the SDK and
knows nothing of the job extension. It runs on the tests' fake clock as an
`httpx.MockTransport` handler, records every request (method, path, query, headers,
body) and every breach of the protocol by the client in `violations` (a status read
before the `Retry-After` the service last gave for that operation).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

API_VERSION = "2024-11-30"
ENDPOINT = "https://contoso.cognitiveservices.azure.com"
KEY = "di-key-0123456789"
STAMP = "2026-01-01T00:00:00Z"
_ANALYZE = "/documentintelligence/documentModels/{model}:analyze"
_RESULT = "/documentintelligence/documentModels/{model}/analyzeResults/{id}"


@dataclass(frozen=True)
class Request:
    """A request as the service received it."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float  # seconds on the service's clock since it started


@dataclass
class _Operation:
    model: str
    states: list[str]
    polls: int = 0
    not_before: float = 0.0


@dataclass
class AzureAnalyzeService:
    """Document Intelligence's analyze operation and its status monitor.

    Each operation runs through `states` (one per status read, the last repeated);
    `create_retry_after` and `status_retry_after` are the `Retry-After` seconds the
    202 and each unfinished status answer send. The state "succeeded-unwritten" answers
    `succeeded` without the `analyzeResult` (a result not written yet), with a
    `Retry-After`.
    """

    clock: Callable[[], float]
    states: list[str] = field(default_factory=lambda: ["notStarted", "running", "succeeded"])
    create_retry_after: int = 2
    status_retry_after: int = 1
    requests: list[Request] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    operations: dict[str, _Operation] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def operation_location(self, model: str, result_id: str) -> str:
        path = _RESULT.format(model=model, id=result_id)
        return f"{ENDPOINT}{path}?api-version={API_VERSION}"

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
            return self._answer(seen, now)

    def _answer(self, seen: Request, now: float) -> httpx.Response:
        if seen.headers.get("ocp-apim-subscription-key") != KEY:
            return _error(401, "401", "Access denied due to invalid subscription key.")
        version = httpx.QueryParams(seen.query).get("api-version")
        if version is None:
            return _error(
                400,
                "MissingApiVersionParameter",
                "The api-version query parameter (?api-version=) is required for all requests.",
            )
        if version != API_VERSION:
            return _error(400, "UnsupportedApiVersion", f"api-version {version} is not supported.")
        parts = seen.path.split("/")
        if parts[1:3] != ["documentintelligence", "documentModels"]:
            return _error(404, "NotFound", f"{seen.method} {seen.path} is not an operation.")
        if seen.method == "POST" and seen.path.endswith(":analyze") and len(parts) == 4:
            return self._analyze(seen, parts[3].removesuffix(":analyze"), now)
        if seen.method == "GET" and len(parts) == 6 and parts[4] == "analyzeResults":
            return self._status(parts[3], parts[5], now)
        return _error(404, "NotFound", f"{seen.method} {seen.path} is not an operation.")

    def _analyze(self, seen: Request, model: str, now: float) -> httpx.Response:
        if not seen.headers.get("content-type", "").startswith("application/json"):
            return _error(415, "UnsupportedMediaType", "Send the request as JSON.")
        try:
            body = json.loads(seen.body)
        except ValueError:
            return _error(400, "InvalidRequest", "The request body is not JSON.")
        sources = [k for k in ("urlSource", "base64Source") if isinstance(body, dict) and k in body]
        if len(sources) != 1:
            return _error(400, "InvalidRequest", "Give exactly one of urlSource, base64Source.")
        result_id = str(uuid.UUID(int=len(self.operations) + 1))
        self.operations[result_id] = _Operation(
            model, list(self.states), not_before=now + self.create_retry_after
        )
        return httpx.Response(
            202,
            headers={
                "Operation-Location": self.operation_location(model, result_id),
                "Retry-After": str(self.create_retry_after),
                "apim-request-id": result_id,
            },
        )

    def _status(self, model: str, result_id: str, now: float) -> httpx.Response:
        operation = self.operations.get(result_id)
        if operation is None or operation.model != model:
            return _error(404, "NotFound", f"Analyze result {result_id} was not found.")
        if now < operation.not_before:
            self.violations.append(
                f"GET {result_id} at {now:g}s, before its Retry-After ({operation.not_before:g}s)"
            )
        state = operation.states[min(operation.polls, len(operation.states) - 1)]
        operation.polls += 1
        # "succeeded-unwritten": a succeeded status whose analyzeResult is not written yet.
        unwritten = state == "succeeded-unwritten"
        state = "succeeded" if unwritten else state
        record: dict[str, Any] = {
            "status": state,
            "createdDateTime": STAMP,
            "lastUpdatedDateTime": STAMP,
        }
        headers: dict[str, str] = {}
        if unwritten:
            headers["Retry-After"] = str(self.status_retry_after)
            operation.not_before = now + self.status_retry_after
        elif state == "succeeded":
            record["analyzeResult"] = {
                "apiVersion": API_VERSION,
                "modelId": model,
                "content": "Contoso invoice INV-100",
            }
        elif state == "failed":
            record["error"] = {"code": "InvalidContent", "message": "The file is corrupted."}
        else:
            headers["Retry-After"] = str(self.status_retry_after)
            operation.not_before = now + self.status_retry_after
        return httpx.Response(200, json=record, headers=headers)


def _error(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": message}})
