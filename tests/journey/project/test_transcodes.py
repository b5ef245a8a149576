"""The transcoder's promises, checked against a simulated Transcoder API (jobgen serve)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from transcoder_sdk import Client, JobTimeout, TranscodeTimeout, WaitConfig
from transcoder_sdk.models import Transcode, TranscodeOutput, TranscodeRequest, TranscodeStatus

FAST = WaitConfig(floor=0.05, first=0.05, cap=0.2)  # the API's own floor is 1 s
REQUEST = TranscodeRequest(source_url="https://videos.example.com/cat.mov", format="mp4")


def client_for(scenario: dict[str, object] | None = None) -> Client:
    headers = {"x-jobgen-scenario": json.dumps(scenario)} if scenario else None
    return Client(
        base_url=os.environ["TRANSCODER_URL"],
        token=os.environ["TRANSCODER_TOKEN"],
        headers=headers,
        wait_config=FAST,
    )


@pytest.fixture
def client() -> Iterator[Client]:
    with client_for() as client:
        yield client


def test_a_transcode_gives_its_output(client: Client) -> None:
    output: TranscodeOutput = client.transcodes.create_and_wait(body=REQUEST, deadline=20)
    assert output.url


def test_the_record_says_done(client: Client) -> None:
    transcode: Transcode = client.transcodes.create(body=REQUEST)
    record = client.transcodes.wait_for_job(transcode.id, deadline=20)
    assert record.status is TranscodeStatus.DONE


def test_a_stuck_transcode_breaks_the_slo() -> None:
    with client_for({"final": "never"}) as client, pytest.raises(JobTimeout) as caught:
        client.transcodes.create_and_wait(body=REQUEST, deadline=0.5)
    assert caught.value.resume_token
    assert caught.value.record is not None


def test_the_timeout_is_the_transcodes_own() -> None:
    with client_for({"final": "never"}) as client, pytest.raises(TranscodeTimeout) as caught:
        client.transcodes.create_and_wait(body=REQUEST, deadline=0.5)
    last = caught.value.record
    assert last is not None and last.status in (TranscodeStatus.QUEUED, TranscodeStatus.TRANSCODING)
