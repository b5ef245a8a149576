"""Following a job's state changes: the event stream's data is the typed job record."""

from __future__ import annotations

import asyncio

from sume_sdk import AsyncClient, Client
from sume_sdk.models import Job


def follow(job_id: str) -> list[str]:
    states: list[str] = []
    with Client(api_key="key") as client:
        for event in client.jobs.stream_events(job_id):
            job: Job = event.data
            states.append(f"{event.id} {event.event} {job.status.value}")
            if job.terminal:
                break
    return states


async def last_state(job_id: str) -> Job | None:
    last: Job | None = None
    async with AsyncClient(api_key="key") as client:
        async for event in client.jobs.stream_events(job_id):
            last = event.data
    return last


if __name__ == "__main__":
    print(follow("job_1"), asyncio.run(last_state("job_1")))
