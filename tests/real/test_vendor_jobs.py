"""The jobs declared for vendor specs in specs/vendor/*.jobs.yaml, waited for end to end.

Each SDK is generated from the published spec plus its side file, and waits against the
simulated server (``run_server(spec, jobs=side_file)``) over real HTTP on loopback.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import attrs
import pytest

from jobgen.server.runner import run_server
from tests.real.conftest import RealSdks
from tests.real.realspecs import SPECS, RealSpec

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

FAST = {"floor": 0.0, "first": 0.01, "cap": 0.05}
CREDENTIAL = "key-1"
# The simulated server names a new job `<job>_<16 hex digits>` unless the status path
# parameter is a UUID (generator/server/kinds.py, JobKind.new_id), and writes that string
# into the record's id field whatever its type. AssemblyAI's Transcript.id is a UUID and
# DigitalOcean's action.id an integer, so their records fail to decode.


@attrs.frozen
class VendorJob:
    spec_id: str
    job: str
    resource: str
    auth: dict[str, str]
    states: dict[str, str]
    """Outcome kind -> the terminal state it ends in."""


JOBS = (
    VendorJob(
        "openai",
        "batch",
        "batch",
        {"api_key_auth_token": CREDENTIAL},
        {"success": "completed", "failure": "failed", "canceled": "cancelled"},
    ),
    VendorJob(
        "openai",
        "fine_tuning_job",
        "fine_tuning",
        {"api_key_auth_token": CREDENTIAL},
        {"success": "succeeded", "failure": "failed", "canceled": "cancelled"},
    ),
    VendorJob(
        "assemblyai",
        "transcript",
        "transcript",
        {"api_key": CREDENTIAL},
        {"success": "completed", "failure": "error"},
    ),
    VendorJob(
        "stripe",
        "report_run",
        "reporting",
        {"token": CREDENTIAL},
        {"success": "succeeded", "failure": "failed"},
    ),
    VendorJob(
        "digitalocean",
        "droplet_action",
        "actions",
        {"bearer_auth_token": CREDENTIAL},
        {"success": "completed", "failure": "errored"},
    ),
)

CASES = [
    pytest.param(
        job,
        outcome,
        id=f"{job.spec_id}-{job.job}-{outcome}",
    )
    for job in JOBS
    for outcome in job.states
]


def _spec(spec_id: str) -> RealSpec:
    return next(s for s in SPECS if s.id == spec_id)


def _wait_method(resource: Any, job: str) -> Any:
    return getattr(resource, "wait_for_job", None) or getattr(resource, f"wait_for_{job}")


@pytest.mark.parametrize(("job", "outcome"), CASES)
def test_vendor_job_waits_until_its_terminal_state(
    real_sdks: RealSdks, job: VendorJob, outcome: str
) -> None:
    spec = _spec(job.spec_id)
    built = real_sdks.get(spec)
    sdk = built.package
    polled: list[Any] = []
    with (
        run_server(spec.spec, jobs=spec.side_file) as server,
        sdk.Client(
            base_url=server.base_url, wait_config=sdk.WaitConfig(**FAST), **job.auth
        ) as client,
    ):
        job_id = server.create_job(
            {"final": outcome},
            job_name=job.job,
            credential=CREDENTIAL,
        )
        wait = _wait_method(getattr(client, job.resource), job.job)
        record = wait(job_id, deadline=30, on_poll=polled.append)
        assert record.to_dict()["status"] == job.states[outcome]
        assert polled and polled[-1].state == job.states[outcome]
        reads = server.requests(job_id)
        assert reads and all(r.operation == "status" and r.path.endswith(job_id) for r in reads)


def test_openai_batch_create_and_wait(real_sdks: RealSdks) -> None:
    spec = _spec("openai")
    sdk = real_sdks.get(spec).package
    models = sdk.models
    body = models.CreateBatchRequest(
        input_file_id="file-abc123",
        endpoint=models.CreateBatchRequestEndpoint("/v1/chat/completions"),
    )
    # ``completion_window`` allows one value ("24h"): a Literal defaulting to it.
    assert body.to_dict()["completion_window"] == "24h"
    scenario = {
        "states": [{"state": "validating", "polls": 1}, {"state": "in_progress", "polls": 2}]
    }
    with (
        run_server(spec.spec, jobs=spec.side_file) as server,
        sdk.Client(
            base_url=server.base_url,
            wait_config=sdk.WaitConfig(**FAST),
            api_key_auth_token=CREDENTIAL,
        ) as client,
    ):
        record = client.batch.create_and_wait(
            body=body, deadline=30, extra_headers={"x-jobgen-scenario": json.dumps(scenario)}
        )
        assert record.status == "completed"
        log = server.requests()
        assert [r.operation for r in log] == ["create"] + ["status"] * (len(log) - 1)
        assert [r.status for r in log] == [200] * len(log)


def test_stripe_report_run_create_and_wait_fails_typed(real_sdks: RealSdks) -> None:
    spec = _spec("stripe")
    sdk = real_sdks.get(spec).package
    models = importlib.import_module(f"{sdk.__name__}.models")  # not left to test order
    body = models.PostReportingReportRunsBody(report_type="balance.summary.1")
    with (
        run_server(spec.spec, jobs=spec.side_file) as server,
        sdk.Client(
            base_url=server.base_url, wait_config=sdk.WaitConfig(**FAST), token=CREDENTIAL
        ) as client,
    ):
        record = client.reporting.create_and_wait(
            body=body,
            deadline=30,
            extra_headers={"x-jobgen-scenario": json.dumps({"final": "failure"})},
        )
        assert record.status == "failed"
        create = next(r for r in server.requests() if r.operation == "create")
        assert create.idempotency_key  # the waiter sent one, so a retried create is safe


@pytest.mark.parametrize(("final", "state"), [("success", "Succeeded"), ("failure", "Failed")])
def test_keyvault_backup_is_polled_at_its_azure_async_operation_url(
    real_sdks: RealSdks, final: str, state: str
) -> None:
    """Key Vault's Swagger 2.0 spec: the create answers 202 with Azure-AsyncOperation, the
    waiter polls that URL (api-version included) and the final status record is the result."""
    spec = _spec("azure-keyvault")
    sdk = real_sdks.get(spec).package
    scenario = {"states": [{"state": "InProgress", "polls": 2}], "final": final}
    polled: list[Any] = []
    with (
        run_server(spec.spec, jobs=spec.side_file) as server,
        sdk.Client(
            token=CREDENTIAL, base_url=server.base_url, wait_config=sdk.WaitConfig(**FAST)
        ) as client,
    ):
        headers = {"x-jobgen-scenario": json.dumps(scenario)}
        if final == "success":
            record = client.full_backup.create_and_wait(
                api_version="7.4", deadline=30, on_poll=polled.append, extra_headers=headers
            )
        else:
            handle = client.full_backup.start(api_version="7.4", extra_headers=headers)
            with pytest.raises(sdk.errors.JobFailed) as failed:
                handle.result(deadline=30)
            record = failed.value.record
            assert failed.value.job_id == handle.job_id == polled_url(server, handle.job_id)
        assert record.status == state
        log = server.requests()
        assert [r.operation for r in log] == ["create", "status", "status", "status"]
        assert all(r.query == "api-version=7.4" for r in log)
        assert {r.path for r in log[1:]} == {f"/backup/{log[0].job_id}/pending"}


def polled_url(server: Any, job_id: str) -> str:
    """The id of a job polled at its URL: that URL, its query included, so it can be
    passed back to any call taking a job id."""
    (create,) = [r for r in server.requests() if r.operation == "create"]
    return f"{server.base_url}/backup/{create.job_id}/pending?api-version=7.4"
