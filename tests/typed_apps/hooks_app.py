"""Hooks: a progress display fed by typed poll events."""

from __future__ import annotations

from typing import Any

from sume_sdk import Client, PollEvent, WaitConfig
from sume_sdk.models import Job


def show(event: PollEvent[Job]) -> None:
    record = event.record
    percent = record.progress.percent if record.progress else None
    print(f"{event.job_id}: {record.status.value} {percent or 0.0:.0f}%", event.delay)


def metrics(event: PollEvent[Any]) -> None:
    # A client-wide hook sees every job of the client.
    print(event.attempt, event.state, event.source, event.elapsed)


def wait(job_id: str) -> Job:
    with Client(api_key="key", wait_config=WaitConfig(on_poll=metrics)) as client:
        return client.jobs.wait_for_job(job_id, deadline=300, on_poll=show)
