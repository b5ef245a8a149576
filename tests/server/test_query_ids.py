"""A job whose monitor has no path parameter and names the job in a required query
parameter (``GET /operations?snapshot=...``, as Azure App Configuration's snapshots do) is
handed an operation URL that names it there, and is read at it over real HTTP."""

from __future__ import annotations

import httpx

from jobgen.server import run_server
from tests.helpers import ROOT

SPEC = ROOT / "tests" / "server" / "specs" / "query_id.yaml"
ONE_POLL = '{"states": [{"state": "Running", "polls": 1}], "final": "Succeeded"}'


def test_the_operation_url_names_the_job_in_its_query() -> None:
    with (
        run_server(SPEC) as server,
        httpx.Client(base_url=server.base_url, headers={"api-key": "k"}) as client,
    ):
        created = client.put("/snapshots/snap1", headers={"x-jobgen-scenario": ONE_POLL})
        assert created.status_code == 201, created.text
        job_id = created.json()["id"]
        url = httpx.URL(created.headers["operation-location"])
        assert url.path == "/operations" and url.params["snapshot"] == job_id
        reads = [client.get(url) for _ in range(2)]
        assert [r.status_code for r in reads] == [200, 200]
        assert [r.json() for r in reads] == [
            {"id": job_id, "status": "Running"},
            {"id": job_id, "status": "Succeeded"},
        ]
        assert [r.job_id for r in server.requests() if r.operation == "status"] == [job_id] * 2
        # Another name is another (unknown) job; none at all breaks the operation's contract.
        assert client.get("/operations", params={"snapshot": "other"}).status_code == 404
        assert client.get("/operations").status_code == 400
