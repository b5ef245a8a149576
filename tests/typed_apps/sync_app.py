"""A sync application: create a job, wait for its result, read the record."""

from __future__ import annotations

from sume_sdk import Client
from sume_sdk.models import (
    CreateJobRequest,
    Job,
    JobEnvelope,
    JobResult,
    JobStatus,
    TextInput,
)


def summarise(text: str) -> str:
    with Client(api_key="key") as client:
        request = CreateJobRequest(input=TextInput(type="text", text=text))
        result = client.jobs.create_and_wait(body=request, deadline=120)
        summary: JobResult = result.data
        return summary.summary


def status_of(client: Client, job_id: str) -> JobStatus:
    record: Job = client.jobs.wait_for_job(job_id, deadline=60, cancel_on_timeout=True)
    if record.status is JobStatus.FAILED and record.error:
        print(record.error.code, record.error.message)
    return record.status


def progress_of(client: Client, job_id: str) -> float:
    record = client.jobs.get(job_id).data
    return record.progress.percent or 0.0 if record.progress else 0.0


def traced(client: Client, job_id: str) -> tuple[int, str | None, Job]:
    raw = client.jobs.with_raw_response.get(job_id, timeout=5.0, extra_headers={"X-Trace": "1"})
    envelope: JobEnvelope = raw.parse()
    return raw.status_code, raw.request_id, envelope.data


def streamed(client: Client, job_id: str) -> Job:
    with client.jobs.with_streaming_response.get(job_id, max_retries=1) as response:
        size = sum(len(chunk) for chunk in response.iter_bytes())
        print(size, response.headers.get("content-type"))
        envelope: JobEnvelope = response.parse()
        return envelope.data
