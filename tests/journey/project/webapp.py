"""A web app: start a transcode for a user, hear its end by webhook (polling as fallback)."""

from __future__ import annotations

import asyncio
import os

from fastapi import FastAPI, Request, Response
from transcoder_sdk import AsyncClient, WebhookReceiver
from transcoder_sdk.models import Transcode, TranscodeRequest

PUBLIC_URL = os.environ.get("PUBLIC_URL", "https://app.example.com")  # where the API reaches us
client = AsyncClient(
    base_url=os.environ.get("TRANSCODER_URL", "https://transcoder.example.com"),
    token=os.environ.get("TRANSCODER_TOKEN"),
)
receiver: WebhookReceiver[Transcode] = client.transcodes.webhook_receiver()
outcomes: dict[str, str] = {}
following: set[asyncio.Task[None]] = set()
app = FastAPI()


async def follow(transcode_id: str) -> None:
    record = await client.transcodes.wait_for_job(transcode_id, events=receiver, deadline=3600)
    outcomes[transcode_id] = record.status.value


@app.post("/videos", status_code=202)
async def start(source_url: str) -> dict[str, str]:
    request = TranscodeRequest(
        source_url=source_url, format="mp4", webhook_url=f"{PUBLIC_URL}/webhooks/transcoder"
    )
    transcode = await client.transcodes.create(body=request)
    task = asyncio.create_task(follow(transcode.id))
    following.add(task)
    task.add_done_callback(following.discard)
    return {"transcode_id": transcode.id}


@app.get("/videos/{transcode_id}")
async def video(transcode_id: str) -> dict[str, str | None]:
    return {"transcode_id": transcode_id, "status": outcomes.get(transcode_id)}


@app.post("/webhooks/transcoder")
async def transcoder_webhook(request: Request) -> Response:
    status, text = receiver.acknowledge(request.headers.items(), await request.body())
    return Response(text, status_code=status)
