"""Transcode several videos at once and report each as it ends (the async client)."""

from __future__ import annotations

import asyncio
import os
import sys

from transcoder_sdk import AsyncClient, WaitConfig
from transcoder_sdk.models import Transcode, TranscodeRequest


async def transcode_all(sources: list[str]) -> dict[str, str]:
    states: dict[str, str] = {}
    async with AsyncClient(
        base_url=os.environ["TRANSCODER_URL"],
        token=os.environ["TRANSCODER_TOKEN"],
        wait_config=WaitConfig(floor=0.05, first=0.05, cap=0.2),
    ) as client:
        started: list[Transcode] = [
            await client.transcodes.create(body=TranscodeRequest(source_url=url, format="webm"))
            for url in sources
        ]
        ids = [transcode.id for transcode in started]
        async for outcome in client.transcodes.wait_for_jobs(ids, deadline=20):
            record = outcome.record
            states[outcome.job_id] = record.status.value if record else f"error: {outcome.error}"
    return states


if __name__ == "__main__":
    for job_id, state in sorted(asyncio.run(transcode_all(sys.argv[1:])).items()):
        print(f"{job_id}: {state}")
