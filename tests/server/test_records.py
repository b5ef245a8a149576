"""Records and results that follow the request and the media type: the create's fields
come back in the record, results are served as their media type says, jobs may share
their status and result operations, every path parameter of an operation URL is filled,
a 202 create carries the Retry-After its status operation documents, and the request
log keeps bodies (secrets masked, capped)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from jobgen.server.log import MAX_LOGGED_BODY

SPEC = Path(__file__).parent / "specs" / "media.yaml"
KEY = {"x-api-key": "key-1"}
RENDER = {"source_url": "https://example.com/a.mov", "preset": "slow"}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = run_server(SPEC).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    server.reset()
    with httpx.Client(base_url=server.base_url, headers=KEY) as http:
        yield http


def test_the_create_fields_the_record_has_come_back(client: httpx.Client) -> None:
    """``preset`` and ``source_url`` are echoed; ``quality`` is not, since the record's
    ``quality`` is a string and the request's an integer; ``notes`` is not in the record."""
    created = client.post("/models/m-7/renders", json={**RENDER, "quality": 3, "notes": "n"})
    assert created.status_code == 202, created.text
    record = client.get(created.headers["operation-location"]).json()
    assert (record["preset"], record["source_url"]) == ("slow", RENDER["source_url"])
    assert record.get("quality") != 3 and "notes" not in record
    other = client.post("/models/m-7/renders", json={**RENDER, "preset": "fast"})
    assert client.get(other.headers["operation-location"]).json()["preset"] == "fast"


def test_every_path_parameter_of_the_operation_url_is_filled(
    client: httpx.Client, server: RunningServer
) -> None:
    created = client.post("/models/m-42/renders", json=RENDER)
    url = httpx.URL(created.headers["operation-location"])
    job_id = created.json()["id"]
    assert url.path == f"/models/m-42/renders/{job_id}"
    assert client.get(url).status_code == 200


def test_a_202_create_carries_the_retry_after_its_status_operation_documents(
    client: httpx.Client,
) -> None:
    assert client.post("/models/m-1/renders", json=RENDER).headers["retry-after"] == "0"
    hinted = client.post(
        "/models/m-1/renders",
        json=RENDER,
        headers={"x-jobgen-scenario": json.dumps({"retry_after": 7})},
    )
    assert hinted.headers["retry-after"] == "7"
    # getTask documents no Retry-After: the scan's create sends none.
    assert "retry-after" not in client.post("/scans", json={"depth": 1}).headers


def test_jobs_sharing_a_status_and_result_operation_are_each_reachable(
    client: httpx.Client, server: RunningServer
) -> None:
    done = json.dumps({"states": [], "final": "success"})
    scan = client.post("/scans", json={}, headers={"x-jobgen-scenario": done}).json()["id"]
    image = client.post(
        "/images",
        content=b"\x89PNG",
        headers={"content-type": "image/png", "x-jobgen-scenario": done},
    ).json()["id"]
    for job_id in (scan, image):
        assert client.get(f"/tasks/{job_id}").json() == {"id": job_id, "status": "done"}
        assert client.get(f"/tasks/{job_id}/result").status_code == 200
    kinds = [(r.job_name, r.operation) for r in server.requests() if r.operation != "create"]
    assert kinds == [
        ("scan", "status"),
        ("scan", "result"),
        ("image", "status"),
        ("image", "result"),
    ]


def test_a_json_lines_result_is_lines_of_its_item_schema(client: httpx.Client) -> None:
    done = json.dumps({"states": [], "final": "success"})
    job_id = client.post("/scans", json={}, headers={"x-jobgen-scenario": done}).json()["id"]
    result = client.get(f"/tasks/{job_id}/result")
    assert result.headers["content-type"] == "application/jsonl"
    lines = [json.loads(line) for line in result.content.decode("utf-8").splitlines()]
    assert len(lines) == 2
    assert all(set(line) == {"line", "text"} and isinstance(line["line"], int) for line in lines)


def test_the_log_keeps_bodies_with_secrets_masked_and_cut(
    client: httpx.Client, server: RunningServer
) -> None:
    client.post("/models/m-1/renders", json={**RENDER, "api_token": "s3cr3t"})
    client.post("/models/m-1/renders", json={**RENDER, "notes": "x" * 10_000})
    client.post("/images", content=b"\x89PNG\xff", headers={"content-type": "image/png"})
    first, long, image = (r.body for r in server.requests())
    assert first is not None and json.loads(first) == {**RENDER, "api_token": "***"}
    assert long is not None and len(long) < MAX_LOGGED_BODY + 40
    assert long.endswith(" bytes in all)") and long.startswith('{"source_url"')
    assert image == "<5 bytes>"
