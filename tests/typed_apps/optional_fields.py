"""Optional fields: one check reads absent (UNSET) and null (None) as absent, and keeps 0."""

from __future__ import annotations

from sume_sdk import Client, Unset
from sume_sdk.models import CreateJobRequest, Job, TextInput


def eta(record: Job, default: float = 1.0) -> float:
    # Absent or null: the default; 0 stays 0 (the SDK README's idiom).
    hint = record.next_poll_after_seconds
    return default if hint is None or isinstance(hint, Unset) else hint


def eta_of_field(record: Job, default: float = 1.0) -> float:
    # The README's idiom as written, on the field itself.
    return (
        default
        if record.next_poll_after_seconds is None
        or isinstance(record.next_poll_after_seconds, Unset)
        else record.next_poll_after_seconds
    )


def failure_message(record: Job) -> str:
    if record.error:  # neither UNSET nor None
        return record.error.message
    return ""


def webhook(record: Job) -> str | None:
    # Where absent and null differ (a request), Unset is there to test for.
    if isinstance(record.webhook_url, Unset):
        return None
    return record.webhook_url


def submit(client: Client, text: str) -> Job:
    request = CreateJobRequest(input=TextInput(type="text", text=text))
    return client.jobs.create(body=request).data
