"""Optional fields: absent (UNSET) and null (None) are both falsy, so one check reads them."""

from __future__ import annotations

from sume_sdk import Client, Unset
from sume_sdk.models import CreateJobRequest, Job, TextInput


def eta(record: Job) -> float:
    # Absent or null: the default.
    return record.next_poll_after_seconds or 0.0


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
