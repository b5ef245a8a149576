"""`jobgen serve` for a job keyed by more than its id (DeepL-style documents): create
issues a secret key, every later call must present it (a wrong or missing key is
answered like an unknown job, 404), and the binary result is served once."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from tests.helpers import SPECS

AUTH = {"authorization": "DeepL-Auth-Key key-1"}
DONE = json.dumps({"states": [{"state": "translating", "polls": 1}], "hint": 0})


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = run_server(SPECS / "deepl_documents.yaml").start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    server.reset()
    with httpx.Client(base_url=server.base_url, headers=AUTH) as http:
        yield http


def _upload(client: httpx.Client) -> tuple[str, str]:
    created = client.post(
        "/v2/document",
        files={"file": ("a.txt", b"hello")},
        data={"target_lang": "DE"},
        headers={"x-jobgen-scenario": DONE},
    )
    assert created.status_code == 200
    body = created.json()
    return body["document_id"], body["document_key"]


def test_create_issues_a_key_that_every_status_read_must_present(
    client: httpx.Client, server: RunningServer
) -> None:
    job_id, key = _upload(client)
    _, other_key = _upload(client)
    assert len(key) == 64 and key != other_key

    unknown = client.post("/v2/document/nope", json={"document_key": key})
    wrong = client.post(f"/v2/document/{job_id}", json={"document_key": other_key})
    right = client.post(f"/v2/document/{job_id}", json={"document_key": key})

    assert [r.status_code for r in (unknown, wrong)] == [404] * 2
    # Nothing tells a wrong key from an unknown job.
    assert wrong.json() == json.loads(unknown.text.replace("'nope'", f"'{job_id}'"))
    assert right.status_code == 200 and right.json()["status"] == "translating"
    faults = [r.fault for r in server.requests(job_id) if r.operation == "status"]
    assert faults == ["wrong_key", None]
    assert key not in repr(server.requests()) and other_key not in repr(server.requests())


def test_a_status_read_without_its_key_breaks_the_spec(client: httpx.Client) -> None:
    """DeepL's status body requires ``document_key``: the strict server refuses a read
    without it as the API would, 400, before it looks at the job."""
    job_id, _ = _upload(client)
    missing = client.post(f"/v2/document/{job_id}", json={})
    no_body = client.post(f"/v2/document/{job_id}")
    assert [missing.status_code, no_body.status_code] == [400, 400]
    assert "/body/document_key: is required" in missing.text
    assert "/body: is required" in no_body.text


def test_a_missing_key_is_answered_like_an_unknown_job_when_lenient() -> None:
    with (
        run_server(SPECS / "deepl_documents.yaml", strict=False) as lenient,
        httpx.Client(base_url=lenient.base_url, headers=AUTH) as client,
    ):
        job_id, key = _upload(client)
        unknown = client.post("/v2/document/nope", json={"document_key": key})
        missing = client.post(f"/v2/document/{job_id}", json={})
        no_body = client.post(f"/v2/document/{job_id}")
        assert [r.status_code for r in (unknown, missing, no_body)] == [404] * 3
        assert missing.json() == no_body.json()
        assert missing.json() == json.loads(unknown.text.replace("'nope'", f"'{job_id}'"))
        faults = [r.fault for r in lenient.requests(job_id) if r.operation == "status"]
        assert faults == ["wrong_key", "wrong_key"]


def test_the_binary_result_is_served_once_then_404(client: httpx.Client) -> None:
    job_id, key = _upload(client)
    while (
        client.post(f"/v2/document/{job_id}", json={"document_key": key}).json()["status"] != "done"
    ):
        pass

    wrong = client.post(f"/v2/document/{job_id}/result", json={"document_key": "X" * 64})
    first = client.post(f"/v2/document/{job_id}/result", json={"document_key": key})
    second = client.post(f"/v2/document/{job_id}/result", json={"document_key": key})

    assert wrong.status_code == 404  # a wrong key does not use up the download
    assert first.status_code == 200
    assert first.headers["content-type"] == "application/octet-stream"
    assert job_id.encode() in first.content
    with pytest.raises(UnicodeDecodeError):
        first.content.decode()
    assert second.status_code == 404 and "gone" in second.json()["message"]
