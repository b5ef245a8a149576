"""The generic waiter errors and the webhook receiver by their bare names: any job's,
typed (records and events as `object`), with no type arguments and nothing unknown."""

from __future__ import annotations

from sume_sdk import (
    Client,
    JobCanceled,
    JobFailed,
    JobStalled,
    JobTimeout,
    SumeJobFailed,
    WebhookReceiver,
)


def describe(exc: JobFailed | JobCanceled) -> str:
    record: object = exc.record
    error: object | None = exc.error
    return f"{exc.job_id}: {record!r} {error!r}"


def resume_token(exc: JobTimeout | JobStalled) -> str | None:
    last: object | None = exc.record
    print(last)
    return exc.resume_token


def wait(client: Client, job_id: str) -> str:
    try:
        client.jobs.wait_for_job(job_id, deadline=60)
    except JobTimeout as exc:  # any job's timeout
        return exc.resume_token
    except (JobFailed, JobCanceled) as exc:
        return describe(exc)
    return "done"


def reason(error: Exception) -> str:
    # isinstance against the job's own class keeps its types (the generic one, under
    # pyright, leaves its type arguments unknown: catch it with `except` instead).
    if isinstance(error, SumeJobFailed) and error.error is not None:
        return error.error.message
    return str(error)


def mount(receiver: WebhookReceiver) -> object:
    return receiver.asgi_app()


def receivers(client: Client) -> list[WebhookReceiver]:
    secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0IQ=="
    return [client.jobs.webhook_receiver(secret=secret)]  # a job's receiver is one
