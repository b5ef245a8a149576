"""The in-process runner: start, use from sync and async code, stop without leftovers."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from pathlib import Path

import httpx
import pytest

from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from jobgen.server import ScenarioError, run_server
from tests.helpers import SPECS, write


def _open_fds() -> int | None:
    fd_dir = Path("/proc/self/fd")
    return len(os.listdir(fd_dir)) if fd_dir.is_dir() else None


def _refused(base_url: str) -> bool:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
    except OSError:
        return True
    return False


def test_stops_cleanly_without_threads_or_sockets_left() -> None:
    threads, fds = threading.active_count(), _open_fds()
    client = httpx.Client(headers={"x-api-key": "k"})
    try:
        with run_server(SPECS / "sume.yaml") as server:
            assert server.running and server.base_url.startswith("http://127.0.0.1:")
            job_id = server.create_job(credential="k")
            assert client.get(f"{server.base_url}/v1/jobs/{job_id}").status_code == 200
            name = f"jobgen-serve-{server.base_url}"
            thread = next(t for t in threading.enumerate() if t.name == name)
        # The client's keep-alive connection was still open when the server stopped.
    finally:
        client.close()
    assert not server.running and not thread.is_alive()
    assert threading.active_count() == threads
    assert _refused(server.base_url)
    if fds is not None:
        # Other tests' idle connections may close meanwhile; none of ours may stay open.
        assert (_open_fds() or 0) <= fds
    server.stop()  # idempotent


def test_usable_from_async_code() -> None:
    async def main() -> list[int]:
        async with run_server(SPECS / "stripe_report_runs.yaml") as server:
            job_id = server.create_job(
                {"states": [{"state": "pending", "polls": 1}]}, credential="sk"
            )
            async with httpx.AsyncClient(
                base_url=server.base_url, headers={"authorization": "Bearer sk"}
            ) as client:
                answers = await asyncio.gather(
                    *(client.get(f"/v1/reporting/report_runs/{job_id}") for _ in range(3))
                )
            assert sorted(r.poll or 0 for r in server.requests(job_id)) == [1, 2, 3]
            return sorted(a.status_code for a in answers)

    assert asyncio.run(main()) == [200, 200, 200]


def test_accepts_a_built_sdk_model() -> None:
    sdk = load_and_build(SPECS / "salesforce_bulk.yaml")
    with run_server(sdk) as server:
        job_id = server.create_job({"final": "Aborted", "states": []})
        answer = httpx.get(
            f"{server.base_url}/services/data/v60.0/jobs/ingest/{job_id}",
            headers={"authorization": "Bearer t"},
        )
        assert answer.json()["state"] == "Aborted"


def test_create_job_validates_the_scenario() -> None:
    with run_server(SPECS / "sume.yaml") as server:
        with pytest.raises(ScenarioError) as caught:
            server.create_job({"final": "soon"})
        assert caught.value.field == "final"
        with pytest.raises(ScenarioError):
            server.create_job(job_name="other")
        assert server.requests() == []


def test_a_spec_without_jobs_is_a_spec_error(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "plain.yaml",
        "openapi: 3.0.3\ninfo: {title: Plain, version: '1'}\npaths: {}\n",
    )
    with pytest.raises(SpecError) as caught:
        run_server(spec)
    assert "declares no jobs" in str(caught.value)


def test_two_servers_at_once() -> None:
    with run_server(SPECS / "sume.yaml") as one, run_server(SPECS / "sume.yaml") as two:
        assert one.base_url != two.base_url
        job_id = one.create_job(credential="k")
        url = f"{two.base_url}/v1/jobs/{job_id}"
        assert httpx.get(url, headers={"x-api-key": "k"}).status_code == 404
