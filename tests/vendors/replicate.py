"""Replicate's predictions, as its public HTTP API documentation describes them.

Written from https://replicate.com/docs/reference/http (predictions.create,
predictions.get, predictions.cancel), https://replicate.com/docs/topics/predictions/lifecycle
and https://replicate.com/docs/topics/predictions/create-a-prediction (sync mode), not
from jobgen's simulator or docs:

- every request sends `Authorization: Bearer <token>` (else 401, a problem-details
  body `{"title", "detail", "status"}`);
- `POST /v1/predictions` takes `{"version", "input"}` and answers 201 Created with the
  prediction, `status` `starting`. With `Prefer: wait` (or `wait=n`) the request is
  held until the prediction finishes: the answer is then the finished prediction
  (`succeeded` with its `output`, or `failed` with its `error`) when the model was
  quick enough, else the prediction as it stands;
- `GET /v1/predictions/{prediction_id}` answers the prediction: `starting`,
  `processing`, `succeeded`, `failed` or `canceled`; the output is in it;
- `POST /v1/predictions/{prediction_id}/cancel` answers the prediction `canceled`;
- an unknown prediction is a 404 `{"detail": "Not found.", "status": 404}`.

A prediction's status reads follow its `Plan`: one state per read, the last repeated;
`quick` makes a `Prefer: wait` create answer the last state at once.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from tests.vendors.server import Answer, Seen, json_answer

TOKEN = "r8_test_token"
VERSION = "5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa"
CREATED = "2024-05-01T12:00:00.000000Z"
DONE = "2024-05-01T12:00:07.000000Z"
OUTPUT = ["https://replicate.delivery/pbxt/out-0.png"]
_PREDICTION = re.compile(r"^/v1/predictions/([0-9a-z]+)(/cancel)?$")
_PREFER = re.compile(r"^wait(=([1-9]|[1-5][0-9]|60))?$")


@attrs.frozen
class Plan:
    states: tuple[str, ...]
    quick: bool = False


@attrs.define
class Prediction:
    id: str
    input: dict[str, Any]
    plan: Plan
    status: str = "starting"
    reads: int = 0


@attrs.define
class ReplicatePredictions:
    """The API; `plans` gives each new prediction its course, in creation order."""

    base_url: str = "https://api.replicate.com"
    plans: list[Plan] = attrs.field(factory=list)
    predictions: dict[str, Prediction] = attrs.field(factory=dict)

    def __call__(self, seen: Seen) -> Answer:
        if seen.headers.get("authorization") != f"Bearer {TOKEN}":
            body = {
                "title": "Unauthenticated",
                "detail": "You did not pass a valid authentication token",
                "status": 401,
            }
            return json_answer(401, body)
        if seen.path == "/v1/predictions" and seen.method == "POST":
            return self.create(seen)
        found = _PREDICTION.match(seen.path)
        prediction = self.predictions.get(found.group(1)) if found else None
        if found is None or prediction is None:
            return json_answer(404, {"detail": "Not found.", "status": 404})
        if found.group(2) == "/cancel" and seen.method == "POST":
            if prediction.status not in ("succeeded", "failed", "canceled"):
                prediction.status = "canceled"
                prediction.plan = Plan(("canceled",))
                prediction.reads = 0
            return json_answer(200, self.record(prediction))
        if found.group(2) is None and seen.method == "GET":
            states = prediction.plan.states
            prediction.status = states[min(prediction.reads, len(states) - 1)]
            prediction.reads += 1
            return json_answer(200, self.record(prediction))
        return json_answer(405, {"detail": "Method not allowed.", "status": 405})

    def create(self, seen: Seen) -> Answer:
        body = seen.json()
        if not isinstance(body, dict) or "version" not in body or "input" not in body:
            return json_answer(
                422,
                {
                    "title": "Input validation failed",
                    "detail": "version and input are required",
                    "status": 422,
                },
            )
        prefer = seen.headers.get("prefer")
        if prefer is not None and not _PREFER.match(prefer):
            return json_answer(
                400, {"title": "Invalid Prefer header", "detail": prefer, "status": 400}
            )
        n = len(self.predictions) + 1
        plan = self.plans[n - 1] if n <= len(self.plans) else Plan(("succeeded",))
        prediction = Prediction(f"gm3qorzdhgbfurvjtvhg6dck{n:02d}", body["input"], plan)
        self.predictions[prediction.id] = prediction
        if prefer is not None and plan.quick:
            # Held open until the prediction finished: the answer is the finished one,
            # and later reads find it so.
            prediction.status = plan.states[-1]
            prediction.plan = Plan((plan.states[-1],))
        return json_answer(201, self.record(prediction))

    def record(self, prediction: Prediction) -> dict[str, Any]:
        status = prediction.status
        finished = status in ("succeeded", "failed", "canceled")
        urls = {
            "get": f"{self.base_url}/v1/predictions/{prediction.id}",
            "cancel": f"{self.base_url}/v1/predictions/{prediction.id}/cancel",
            "web": f"https://replicate.com/p/{prediction.id}",
        }
        return {
            "id": prediction.id,
            "model": "stability-ai/sdxl",
            "version": VERSION,
            "input": prediction.input,
            "logs": "" if status == "starting" else "Using seed: 42\n",
            "output": OUTPUT if status == "succeeded" else None,
            "data_removed": False,
            "error": "CUDA out of memory" if status == "failed" else None,
            "status": status,
            "created_at": CREATED,
            "started_at": None if status == "starting" else CREATED,
            "completed_at": DONE if finished else None,
            "urls": urls,
            **({"metrics": {"predict_time": 6.5}} if status == "succeeded" else {}),
        }
