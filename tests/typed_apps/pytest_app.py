"""A pytest suite of an application's promises, against the simulated Sume API (run_server):
an SLO asserted with pytest.raises(JobTimeout) and with the job's own SumeJobTimeout, and a
create_and_wait that returns the typed result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sume_sdk import Client, JobTimeout, SumeJobTimeout, WaitConfig
from sume_sdk.models import CreateJobRequest, Job, JobResultEnvelope, JobStatus, TextInput

from jobgen.server import RunningServer, ScaledTime, run_server

SPEC = Path(__file__).resolve().parents[2] / "specs" / "sume.yaml"
SCALE = 100
# The server runs its jobs a hundred times faster; so does the SDK's clock: Sume's 2 s
# hints and floor, and the deadlines below, are a hundredth as long in real time (a summary
# may take 6 s of real time on a loaded machine; a stuck job is given up on after 0.2 s).
FAST = WaitConfig(**ScaledTime(SCALE).wait_config())
REQUEST = CreateJobRequest(input=TextInput(type="text", text="summarise me"))


@pytest.fixture(scope="module")
def sume_api() -> Iterator[RunningServer]:
    with run_server(SPEC, time_scale=SCALE) as server:
        yield server


@pytest.fixture
def client(sume_api: RunningServer) -> Iterator[Client]:
    with Client(base_url=sume_api.base_url, api_key="key-1", wait_config=FAST) as client:
        yield client


def test_a_summary_comes_back(client: Client) -> None:
    result: JobResultEnvelope = client.jobs.create_and_wait(body=REQUEST, deadline=600)
    assert result.data.summary


def test_a_stuck_job_breaks_the_slo(sume_api: RunningServer, client: Client) -> None:
    job_id = sume_api.create_job({"final": "never"}, credential="key-1")
    with pytest.raises(JobTimeout) as caught:
        client.jobs.wait_for_job(job_id, deadline=20)
    assert caught.value.job_id == job_id and caught.value.resume_token


def test_the_timeout_is_the_jobs_own(sume_api: RunningServer, client: Client) -> None:
    job_id = sume_api.create_job({"final": "never"}, credential="key-1")
    with pytest.raises(SumeJobTimeout) as caught:
        client.jobs.wait_for_job(job_id, deadline=20)
    last: Job | None = caught.value.record
    assert last is not None and last.status is not JobStatus.COMPLETED
