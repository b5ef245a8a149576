"""Webhooks: a receiver named by its public type, mounted, and given to a wait."""

from __future__ import annotations

from sume_sdk import Client, WebhookReceiver
from sume_sdk.models import Job, JobEnvelope


def receiver(client: Client) -> WebhookReceiver[JobEnvelope]:
    return client.jobs.webhook_receiver(secret="whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0IQ==")


def wait(client: Client, hooks: WebhookReceiver[JobEnvelope], job_id: str) -> Job:
    return client.jobs.wait_for_job(job_id, deadline=600, events=hooks)
