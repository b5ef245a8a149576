"""Error handling: typed records on the errors a wait raises."""

from __future__ import annotations

from sume_sdk import (
    APIStatusError,
    Client,
    JobCanceled,
    JobFailed,
    JobTimeout,
    StatusUnavailable,
)
from sume_sdk.models import Job, JobResultEnvelope


def fetch(client: Client, job_id: str) -> JobResultEnvelope | None:
    try:
        return client.jobs.wait_for_result(job_id, deadline=60)
    except JobFailed as exc:
        failed: JobFailed[Job] = exc
        if failed.record.error:
            print(f"{failed.job_id} failed: {failed.record.error.message}")
        print("server said:", exc.error)
    except JobCanceled as exc:
        print(exc.job_id, exc.last_state)
    except JobTimeout as exc:
        timed_out: JobTimeout[Job] = exc
        last = timed_out.record
        print(exc.resume_token, last.status.value if last else "never read")
        resumed: Job = client.jobs.wait_for_job(resume=exc.resume_token, deadline=600)
        print(resumed.status)
    except StatusUnavailable as exc:
        print(exc.attempts, exc.last_error)
    except APIStatusError as exc:
        print(exc.status_code)
    return None
