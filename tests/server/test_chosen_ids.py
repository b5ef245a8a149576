"""A create whose own path names the job (``PUT /jobs/{job_id}``, as Azure Health Insights
and De-identification do) makes the job the caller named, over real HTTP: the id in the
answer and the URL the caller knows lead to it, and a second create there replaces it."""

from __future__ import annotations

import httpx

from jobgen.server import run_server
from tests.helpers import ROOT

SPEC = ROOT / "tests" / "server" / "specs" / "chosen.yaml"
TWO_POLLS = '{"states": [{"state": "running", "polls": 2}], "final": "succeeded"}'


def test_the_job_takes_the_id_its_create_names() -> None:
    with (
        run_server(SPEC) as server,
        httpx.Client(base_url=server.base_url, headers={"api-key": "k"}) as client,
    ):
        created = client.put(
            "/jobs/my-job-1", json={"input": "x"}, headers={"x-jobgen-scenario": TWO_POLLS}
        )
        assert created.status_code == 201, created.text
        assert created.json() == {"id": "my-job-1", "status": "running"}
        reads = [client.get("/jobs/my-job-1") for _ in range(3)]
        assert [r.status_code for r in reads] == [200, 200, 200]
        assert [r.json()["status"] for r in reads] == ["running", "running", "succeeded"]
        assert {r.job_id for r in server.requests()} == {"my-job-1"}

        again = client.put("/jobs/my-job-1", json={"input": "y"})
        assert again.status_code == 201 and again.json()["status"] == "running"
        assert client.get("/jobs/my-job-1").json()["status"] == "running"  # a new job
        assert client.get("/jobs/other").status_code == 404
