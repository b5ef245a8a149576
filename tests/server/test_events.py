"""The event stream of `jobgen serve`: its wire form, which operations stream, and a
stream that ends when its client goes away."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from jobgen.model.build import load_and_build
from jobgen.server import run_server
from jobgen.server.app import JobApp
from jobgen.server.streams import event_operations
from tests.helpers import SPECS

KEY = {"x-api-key": "key-1"}


def test_events_are_id_event_and_data_lines_ending_after_the_terminal_state() -> None:
    scenario = {"states": [{"state": "queued", "polls": 1}, {"state": "processing", "polls": 2}]}
    with run_server(SPECS / "sume.yaml") as server:
        job_id = server.create_job(scenario, credential="key-1")
        url = f"{server.base_url}/v1/jobs/{job_id}/events"
        with httpx.stream("GET", url, headers=KEY) as response:
            body = response.read().decode()

    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert "content-length" not in response.headers
    assert body.endswith("\n\n")
    blocks = [block.split("\n") for block in body.removesuffix("\n\n").split("\n\n")]
    assert [block[:2] for block in blocks] == [
        ["id: 1", "event: state"],
        ["id: 2", "event: state"],
        ["id: 3", "event: state"],
    ]
    records = [json.loads(block[2].removeprefix("data: ")) for block in blocks]
    assert all(len(block) == 3 and block[2].startswith("data: ") for block in blocks)
    assert [(r["id"], r["status"], r["terminal"]) for r in records] == [
        (job_id, "queued", False),
        (job_id, "processing", False),
        (job_id, "completed", True),
    ]


def test_only_a_get_streaming_a_jobs_records_on_its_id_is_served() -> None:
    sume = load_and_build(SPECS / "sume.yaml")
    assert [(job.name, op.operation_id) for job, op in event_operations(sume)] == [
        ("job", "streamJobEvents")
    ]
    others = ("stripe_report_runs", "salesforce_bulk", "azure_operations")
    assert all(event_operations(load_and_build(SPECS / f"{n}.yaml")) == [] for n in others)


def test_a_stream_of_a_job_that_never_ends_stops_when_the_client_goes_away() -> None:
    app = JobApp(load_and_build(SPECS / "sume.yaml"), sleep=lambda _: asyncio.sleep(0))
    scenario = {"states": [{"state": "processing", "polls": 1}], "final": "never"}
    job_id = app.create_job(scenario, credential="key-1")
    scope = {
        "type": "http",
        "method": "GET",
        "path": f"/v1/jobs/{job_id}/events",
        "query_string": b"",
        "headers": [(b"x-api-key", b"key-1"), (b"host", b"sume.test")],
    }
    sent: list[dict[str, Any]] = []
    first_event = asyncio.Event()
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await first_event.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            first_event.set()

    asyncio.run(asyncio.wait_for(app(scope, receive, send), timeout=30))

    assert sent[0]["status"] == 200
    bodies = [m["body"] for m in sent[1:]]
    assert len(bodies) == 1 and bodies[0].startswith(b"id: 1\nevent: state\ndata: ")
    (request,) = app.requests(job_id)
    assert (request.operation, request.status) == ("events", 200)
