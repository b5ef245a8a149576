"""Error handling: typed records and error payloads on the errors a wait raises."""

from __future__ import annotations

from sume_sdk import (
    APIStatusError,
    Client,
    JobCanceled,
    JobFailed,
    JobTimeout,
    StatusUnavailable,
    SumeJobCanceled,
    SumeJobFailed,
    SumeJobStalled,
    SumeJobTimeout,
)
from sume_sdk.models import Job, JobError, JobResultEnvelope


def fetch(client: Client, job_id: str) -> JobResultEnvelope | None:
    try:
        return client.jobs.wait_for_result(job_id, deadline=60)
    except SumeJobFailed as exc:
        if exc.error is not None:
            print(f"{exc.job_id} failed: {exc.error.code}: {exc.error.message}")
        print(exc.record.status.value, exc.record.updated_at.isoformat())
    except SumeJobCanceled as exc:
        print(exc.job_id, exc.last_state, exc.record.id)
    except SumeJobStalled as exc:
        stuck: Job | None = exc.record  # the job's own class: typed without a cast
        print(exc.unchanged_for, stuck.status.value if stuck else "never read")
    except SumeJobTimeout as exc:
        timed_out: JobTimeout[Job] = exc  # the job's class is the generic one, typed
        last = timed_out.record
        print(exc.resume_token, last.status.value if last else "never read")
        resumed: Job = client.jobs.wait_for_job(resume=exc.resume_token, deadline=600)
        print(resumed.status)
    except JobTimeout as exc:
        # Any job's timeout, by the bare name: its record is any job's (an object).
        anything: JobTimeout[object] = exc
        print(anything.job_id, exc.resume_token, exc.record is not None)
    except StatusUnavailable as exc:
        print(exc.attempts, exc.last_error)
    except APIStatusError as exc:
        print(exc.status_code)
    return None


def reason(exc: JobFailed[Job, JobError] | JobCanceled[Job, JobError]) -> str:
    """The generic classes, annotated by hand, read the same."""
    return exc.error.message if exc.error else "no reason given"


def catch_all(client: Client, job_id: str) -> str:
    """Any job's failure, untyped: still catchable through the base classes."""
    try:
        client.jobs.wait_for_result(job_id, deadline=60)
    except (JobFailed, JobCanceled) as exc:
        return exc.job_id or ""
    return ""
