"""OpenAI's Batch API and file download, as its public documentation describes them.

Written from https://platform.openai.com/docs/api-reference/batch (create, retrieve,
cancel, the batch object), https://platform.openai.com/docs/api-reference/files/retrieve-contents
and https://platform.openai.com/docs/guides/batch (not from jobgen's simulator or docs):

- every request is authenticated with `Authorization: Bearer <key>` (else 401, with
  `{"error": {"message", "type": "invalid_request_error", "param", "code"}}`);
- `POST /v1/batches` takes `input_file_id`, `endpoint` and `completion_window` ("24h")
  and answers 200 with the batch object, `status` `validating`;
- `GET /v1/batches/{batch_id}` answers the batch: `validating`, `in_progress`,
  `finalizing`, `completed`; or `failed` (the input did not validate: `errors` is a
  list object of `{code, message, param, line}`), `expired` (not completed within the
  window: the outputs of the requests done are in `output_file_id`, the others in
  `error_file_id`), `cancelling` then `cancelled`. Each state sets its `*_at` time;
- `POST /v1/batches/{batch_id}/cancel` answers the batch `cancelling`;
- `GET /v1/files/{file_id}/content` answers the file's bytes (a JSONL file here: one
  `{"id", "custom_id", "response", "error"}` per line), 404 for an unknown file.

A batch's status reads follow its `Plan`: one state per read, the last repeated.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from tests.vendors.server import Answer, Seen, json_answer

KEY = "sk-test-openai"
CREATED = 1711471533
_BATCH = re.compile(r"^/v1/batches/(batch_[0-9a-z]+)(/cancel)?$")
_FILE = re.compile(r"^/v1/files/([^/]+)/content$")


def error(status: int, message: str, code: str | None = None) -> Answer:
    body = {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    }
    return json_answer(status, body)


def output_line(custom_id: str) -> dict[str, Any]:
    body = {"id": f"chatcmpl-{custom_id}", "object": "chat.completion", "choices": []}
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": {"status_code": 200, "request_id": f"req_{custom_id}", "body": body},
        "error": None,
    }


def error_line(custom_id: str) -> dict[str, Any]:
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": None,
        "error": {
            "code": "batch_expired",
            "message": "This request could not be executed before the completion window expired.",
        },
    }


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@attrs.frozen
class Plan:
    """How a batch goes: its states read by read, and what it ends with."""

    states: tuple[str, ...]
    outputs: tuple[str, ...] = ()  # custom_ids whose outputs are in the output file
    errors: tuple[str, ...] = ()  # custom_ids in the error file
    output_file: bool = True  # whether a finished batch names an output file at all
    error_file_kept: bool = True  # False: the error file it names is gone (404)


@attrs.define
class Batch:
    id: str
    body: dict[str, Any]
    plan: Plan
    status: str = "validating"
    reads: int = 0


@attrs.define
class OpenAIBatches:
    """The API; `plans` gives each new batch its course, in creation order."""

    plans: list[Plan] = attrs.field(factory=list)
    batches: dict[str, Batch] = attrs.field(factory=dict)
    files: dict[str, bytes] = attrs.field(factory=dict)

    def __call__(self, seen: Seen) -> Answer:
        if seen.headers.get("authorization") != f"Bearer {KEY}":
            return error(401, "Incorrect API key provided", "invalid_api_key")
        if seen.path == "/v1/batches" and seen.method == "POST":
            return self.create(seen)
        found = _FILE.match(seen.path)
        if found and seen.method == "GET":
            content = self.files.get(found.group(1))
            if content is None:
                return error(404, f"No such File object: {found.group(1)}")
            return Answer(200, content, {"Content-Type": "application/octet-stream"})
        found = _BATCH.match(seen.path)
        batch = self.batches.get(found.group(1)) if found else None
        if found is None or batch is None:
            return error(404, "No batch found")
        if found.group(2) == "/cancel" and seen.method == "POST":
            if batch.status in ("completed", "failed", "expired", "cancelled"):
                return error(400, f"Cannot cancel a batch with status '{batch.status}'.")
            batch.status = "cancelling"
            batch.plan = attrs.evolve(
                batch.plan, states=(*batch.plan.states[: batch.reads], "cancelling", "cancelled")
            )
            return json_answer(200, self.record(batch))
        if found.group(2) is None and seen.method == "GET":
            states = batch.plan.states
            batch.status = states[min(batch.reads, len(states) - 1)]
            batch.reads += 1
            return json_answer(200, self.record(batch))
        return error(405, "Method not allowed")

    def create(self, seen: Seen) -> Answer:
        body = seen.json()
        missing = [k for k in ("input_file_id", "endpoint", "completion_window") if k not in body]
        if missing:
            return error(
                400, f"Missing required parameter: '{missing[0]}'.", "missing_required_parameter"
            )
        if body["completion_window"] != "24h":
            return error(400, "completion_window must be 24h", "invalid_value")
        n = len(self.batches) + 1
        plan = self.plans[n - 1] if n <= len(self.plans) else Plan(("completed",))
        batch = Batch(f"batch_{n:03d}", body, plan)
        self.batches[batch.id] = batch
        return json_answer(200, self.record(batch))

    def record(self, batch: Batch) -> dict[str, Any]:
        status, plan = batch.status, batch.plan
        finished = status in ("completed", "expired", "cancelled")
        output_id = error_id = None
        if finished and plan.outputs and plan.output_file:
            output_id = f"file-out-{batch.id}"
            self.files[output_id] = jsonl([output_line(c) for c in plan.outputs])
        if finished and plan.errors:
            error_id = f"file-err-{batch.id}"
            if plan.error_file_kept:
                self.files.setdefault(error_id, jsonl([error_line(c) for c in plan.errors]))
        errors = None
        if status == "failed":
            errors = {
                "object": "list",
                "data": [
                    {
                        "code": "invalid_json_line",
                        "message": "This line is not parseable as valid JSON.",
                        "param": None,
                        "line": 1,
                    }
                ],
            }
        total = len(plan.outputs) + len(plan.errors)
        at = {
            name: None
            for name in (
                "in_progress_at",
                "finalizing_at",
                "completed_at",
                "failed_at",
                "expired_at",
                "cancelling_at",
                "cancelled_at",
            )
        }
        stamp = {
            "in_progress": "in_progress_at",
            "finalizing": "finalizing_at",
            "completed": "completed_at",
            "failed": "failed_at",
            "expired": "expired_at",
            "cancelling": "cancelling_at",
            "cancelled": "cancelled_at",
        }
        if status in stamp:
            at[stamp[status]] = CREATED + 60
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.body["endpoint"],
            "errors": errors,
            "input_file_id": batch.body["input_file_id"],
            "completion_window": "24h",
            "status": status,
            "output_file_id": output_id,
            "error_file_id": error_id,
            "created_at": CREATED,
            "expires_at": CREATED + 86400,
            **at,
            "request_counts": {
                "total": total,
                "completed": len(plan.outputs) if finished else 0,
                "failed": len(plan.errors) if finished else 0,
            },
            "metadata": batch.body.get("metadata"),
        }
