"""An async application: many jobs at once, each outcome as it ends."""

from __future__ import annotations

import asyncio

from sume_sdk import AsyncClient
from sume_sdk.models import Job, JobEnvelope, JobResultEnvelope


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


async def traced(job_id: str) -> tuple[int, Job]:
    async with AsyncClient(api_key="key") as client:
        raw = await client.jobs.with_raw_response.get(job_id, timeout=5.0)
        envelope: JobEnvelope = raw.parse()
        async with client.jobs.with_streaming_response.get(job_id) as response:
            async for chunk in response.iter_bytes():
                print(len(chunk))
            again: JobEnvelope = await response.parse()
        return raw.status_code, again.data if envelope.data.id else envelope.data


if __name__ == "__main__":
    print(asyncio.run(wait_all(["job_1", "job_2"])))
