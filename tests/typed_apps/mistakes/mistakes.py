"""Mistakes the type checkers must catch: each line with an error comment is one."""

from __future__ import annotations

from sume_sdk import JobFailed, PollEvent
from sume_sdk.models import CreateJobRequest, Job, TextInput

TEXT = TextInput(type="text", text="hello")
CreateJobRequest(input=TEXT, mode="bogus")  # error


def show(event: PollEvent[Job]) -> None:
    print(event.record.percent)  # error


def handle(exc: JobFailed[Job]) -> str:
    return exc.record.error.message  # error: error may be None or UNSET


def eta(record: Job) -> float:
    return record.next_poll_after_seconds  # error: may be None or UNSET
