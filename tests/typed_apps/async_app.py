"""An async application: many jobs at once, each outcome as it ends."""

from __future__ import annotations

import asyncio

from sume_sdk import AsyncClient
from sume_sdk.models import Job, JobResultEnvelope


async def wait_all(job_ids: list[str]) -> dict[str, str]:
    states: dict[str, str] = {}
    async with AsyncClient(api_key="key") as client:
        async for outcome in client.jobs.wait_for_jobs(job_ids, concurrency=4):
            record: Job | None = outcome.record
            states[outcome.job_id] = record.status.value if record else "error"
    return states


async def result(job_id: str) -> str:
    async with AsyncClient(api_key="key") as client:
        envelope: JobResultEnvelope = await client.jobs.wait_for_result(job_id, deadline=30)
        return envelope.data.summary


if __name__ == "__main__":
    print(asyncio.run(wait_all(["job_1", "job_2"])))
