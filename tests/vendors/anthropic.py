"""Anthropic's Message Batches API, as its public documentation describes it.

Written from https://docs.anthropic.com/en/api/creating-message-batches,
https://docs.anthropic.com/en/api/retrieving-message-batches,
https://docs.anthropic.com/en/api/canceling-message-batches,
https://docs.anthropic.com/en/api/retrieving-message-batch-results,
https://docs.anthropic.com/en/api/errors and https://docs.anthropic.com/en/api/versioning
(not from jobgen's simulator or docs):

- every request sends `x-api-key` (else 401 `authentication_error`) and
  `anthropic-version` (else 400 `invalid_request_error`); errors are
  `{"type": "error", "error": {"type": ..., "message": ...}}`;
- `POST /v1/messages/batches` takes `{"requests": [{"custom_id", "params"}]}` and answers
  200 with the Message Batch: `processing_status` `in_progress`, `request_counts` with
  every request `processing`, `results_url` null;
- `GET /v1/messages/batches/{id}` answers the batch; `processing_status` is
  `in_progress`, `canceling` or `ended`; once ended, `ended_at` and `results_url` are set;
- `POST /v1/messages/batches/{id}/cancel` answers the batch `canceling`
  (`cancel_initiated_at` set); it then ends as `ended`, the requests not processed counted
  `canceled` (there is no canceled status);
- `GET .../results` (the `results_url`) streams the results as `.jsonl`, one
  `{"custom_id", "result": {"type": "succeeded" | "errored" | "canceled" | "expired"}}`
  per line, once the batch ended;
- 529 `overloaded_error` is answered when the API is temporarily overloaded.

A batch's status reads follow its `script`: one entry per read (`in_progress`, `ended`,
or `overloaded` for a 529), the last repeated.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from tests.vendors.server import Answer, Seen, json_answer

KEY = "sk-ant-test"
VERSION = "2023-06-01"
CREATED = "2024-09-24T18:37:24.100435Z"
EXPIRES = "2024-09-25T18:37:24.100435Z"
ENDED = "2024-09-24T18:40:00.000000Z"
CANCELED = "2024-09-24T18:38:00.000000Z"

_BATCH = re.compile(r"^/v1/messages/batches/(msgbatch_[0-9A-Za-z]+)(/cancel|/results)?$")


def error(status: int, kind: str, message: str) -> Answer:
    return json_answer(status, {"type": "error", "error": {"type": kind, "message": message}})


@attrs.define
class Batch:
    id: str
    custom_ids: list[str]
    script: list[str]
    status: str = "in_progress"
    reads: int = 0
    cancel_initiated_at: str | None = None


@attrs.define
class AnthropicBatches:
    """The API; `scripts` gives each new batch its status reads, in creation order."""

    base_url: str = "https://api.anthropic.com"
    scripts: list[list[str]] = attrs.field(factory=list)
    batches: dict[str, Batch] = attrs.field(factory=dict)

    def __call__(self, seen: Seen) -> Answer:
        if seen.headers.get("x-api-key") != KEY:
            return error(401, "authentication_error", "invalid x-api-key")
        if seen.headers.get("anthropic-version") != VERSION:
            return error(400, "invalid_request_error", "anthropic-version: header is required")
        if seen.path == "/v1/messages/batches" and seen.method == "POST":
            return self.create(seen)
        found = _BATCH.match(seen.path)
        batch = self.batches.get(found.group(1)) if found else None
        if found is None or batch is None:
            return error(404, "not_found_error", "Not found")
        action = found.group(2)
        if action is None and seen.method == "GET":
            return self.retrieve(batch)
        if action == "/cancel" and seen.method == "POST":
            return self.cancel(batch)
        if action == "/results" and seen.method == "GET":
            return self.results(batch)
        return error(405, "invalid_request_error", "Method not allowed")

    def create(self, seen: Seen) -> Answer:
        if seen.headers.get("content-type") != "application/json":
            return error(400, "invalid_request_error", "content-type must be application/json")
        body = seen.json()
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            return error(400, "invalid_request_error", "requests: field required")
        batch_id = f"msgbatch_{len(self.batches) + 1:02d}"
        script = self.scripts[len(self.batches)] if len(self.batches) < len(self.scripts) else []
        batch = Batch(batch_id, [r["custom_id"] for r in requests], list(script) or ["ended"])
        self.batches[batch_id] = batch
        return json_answer(200, self.record(batch))

    def retrieve(self, batch: Batch) -> Answer:
        step = batch.script[min(batch.reads, len(batch.script) - 1)]
        batch.reads += 1
        if step == "overloaded":
            return error(529, "overloaded_error", "Overloaded")
        batch.status = step
        return json_answer(200, self.record(batch))

    def cancel(self, batch: Batch) -> Answer:
        if batch.status == "ended":
            return error(400, "invalid_request_error", f"Batch {batch.id} has already ended")
        batch.status = "canceling"
        batch.cancel_initiated_at = CANCELED
        # From now on the batch reports canceling once, then ends.
        batch.script = batch.script[: batch.reads] + ["canceling", "ended"]
        return json_answer(200, self.record(batch))

    def results(self, batch: Batch) -> Answer:
        if batch.status != "ended":
            return error(400, "invalid_request_error", f"Batch {batch.id} has not ended")
        lines = [json.dumps(self.result(batch, custom_id)) for custom_id in batch.custom_ids]
        body = "".join(line + "\n" for line in lines).encode()
        return Answer(200, body, {"Content-Type": "application/x-jsonl"})

    def result(self, batch: Batch, custom_id: str) -> dict[str, Any]:
        if batch.cancel_initiated_at is not None:
            return {"custom_id": custom_id, "result": {"type": "canceled"}}
        message = {
            "id": f"msg_{custom_id}",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-sonnet-20240620",
            "content": [{"type": "text", "text": f"Hello from {custom_id}"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        return {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}

    def record(self, batch: Batch) -> dict[str, Any]:
        ended = batch.status == "ended"
        n = len(batch.custom_ids)
        canceled = n if ended and batch.cancel_initiated_at is not None else 0
        counts = {
            "processing": 0 if ended else n,
            "succeeded": n - canceled if ended else 0,
            "errored": 0,
            "canceled": canceled,
            "expired": 0,
        }
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.status,
            "request_counts": counts,
            "ended_at": ENDED if ended else None,
            "created_at": CREATED,
            "expires_at": EXPIRES,
            "cancel_initiated_at": batch.cancel_initiated_at,
            "archived_at": None,
            "results_url": (
                f"{self.base_url}/v1/messages/batches/{batch.id}/results" if ended else None
            ),
        }
