"""`jobgen serve` simulates the declared cancel operation, DELETE or POST as the spec says:
a running job then reports its canceled state; a finished job is refused with 409."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jobgen.server import run_server
from tests.helpers import SPECS, write

SUME: dict[str, Any] = yaml.safe_load((SPECS / "sume.yaml").read_text())
KEY = {"x-api-key": "key-1"}


def _spec(tmp_path: Path, method: str) -> tuple[Path, str]:
    """Sume with its cancel operation declared as ``method``, and the cancel's path."""
    spec = copy.deepcopy(SUME)
    cancel = spec["paths"].pop("/v1/jobs/{job_id}/cancel")["post"]
    if method == "delete":
        spec["paths"]["/v1/jobs/{job_id}"]["delete"] = cancel
        path = "/v1/jobs/{job_id}"
    else:
        spec["paths"]["/v1/jobs/{job_id}/cancel"] = {
            "parameters": [{"$ref": "#/components/parameters/JobId"}],
            "post": cancel,
        }
        path = "/v1/jobs/{job_id}/cancel"
    return write(tmp_path / "sume.yaml", yaml.safe_dump(spec, sort_keys=False)), path


@pytest.mark.parametrize("method", ["delete", "post"])
def test_cancel_as_declared_then_the_job_reports_canceled(tmp_path: Path, method: str) -> None:
    spec, path = _spec(tmp_path, method)
    scenario = {"x-jobgen-scenario": '{"states": [{"state": "processing", "polls": 5}]}'}
    with run_server(spec) as server, httpx.Client(base_url=server.base_url, headers=KEY) as http:
        job_id = http.post(
            "/v1/jobs", json={"input": {"type": "text", "text": "hi"}}, headers=scenario
        ).json()["data"]["id"]
        url = path.replace("{job_id}", job_id)
        other = "post" if method == "delete" else "delete"

        assert http.get(f"/v1/jobs/{job_id}").json()["data"]["status"] == "processing"
        wrong = http.request(other.upper(), url)
        accepted = http.request(method.upper(), url)
        again = http.request(method.upper(), url)
        status = http.get(f"/v1/jobs/{job_id}").json()["data"]
        result = http.get(f"/v1/jobs/{job_id}/result")
        strangers = http.request(method.upper(), url, headers={"x-api-key": "key-2"})
        log = [(r.operation, r.method, r.status) for r in server.requests(job_id)]

    assert wrong.status_code == 405
    assert accepted.status_code == 202
    assert accepted.json()["data"]["status"] == "canceled"
    assert again.status_code == 202  # canceling a canceled job changes nothing
    assert (status["status"], status["terminal"], status["result_ready"]) == (
        "canceled",
        True,
        False,
    )
    assert result.status_code == 409
    assert strangers.status_code == 401
    assert ("cancel", method.upper(), 202) in log


def test_a_finished_job_is_not_canceled(tmp_path: Path) -> None:
    with (
        run_server(_spec(tmp_path, "post")[0]) as server,
        httpx.Client(base_url=server.base_url, headers=KEY) as http,
    ):
        job_id = server.create_job({"states": []}, credential="key-1")
        refused = http.post(f"/v1/jobs/{job_id}/cancel")
        status = http.get(f"/v1/jobs/{job_id}").json()["data"]["status"]

    assert refused.status_code == 409
    assert refused.json()["code"] == "job_finished"  # shaped like the spec's Error schema
    assert status == "completed"
