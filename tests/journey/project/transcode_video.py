"""Transcode one video and print where the output is (the sync client)."""

from __future__ import annotations

import os
import sys

from transcoder_sdk import Client, TranscodeFailed, WaitConfig
from transcoder_sdk.models import TranscodeOutput, TranscodeRequest


def transcode(source_url: str) -> TranscodeOutput:
    with Client(
        base_url=os.environ["TRANSCODER_URL"],
        token=os.environ["TRANSCODER_TOKEN"],
        wait_config=WaitConfig(floor=0.05, first=0.05, cap=0.2),
    ) as client:
        request = TranscodeRequest(source_url=source_url, format="mp4")
        return client.transcodes.create_and_wait(body=request, deadline=20)


if __name__ == "__main__":
    try:
        output = transcode(sys.argv[1])
    except TranscodeFailed as exc:
        sys.exit(f"{exc.job_id} failed: {exc.error.message if exc.error else 'no reason'}")
    print(f"transcoded: {output.url} ({output.duration_seconds:g} s)")
