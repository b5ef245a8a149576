"""The web app, called in process through httpx's ASGI transport: a transcode started, its
webhook received, an unsigned delivery refused."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import time

import httpx
from webapp import app


def signed(body: bytes, delivery_id: str) -> dict[str, str]:
    """Headers of a Standard Webhooks delivery, signed as the Transcoder API signs it."""
    key = base64.b64decode(os.environ["TRANSCODE_WEBHOOK_SECRET"].removeprefix("whsec_"))
    timestamp = str(int(time.time()))
    message = f"{delivery_id}.{timestamp}.".encode() + body
    signature = base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()
    return {
        "webhook-id": delivery_id,
        "webhook-timestamp": timestamp,
        "webhook-signature": f"v1,{signature}",
    }


def web() -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://app")


async def transcode_by_webhook() -> str | None:
    async with web() as client:
        started = await client.post("/videos", params={"source_url": "https://v.example.com/a"})
        assert started.status_code == 202
        transcode_id: str = started.json()["transcode_id"]
        assert (await client.get(f"/videos/{transcode_id}")).json()["status"] is None

        event = json.dumps({"id": transcode_id, "status": "done"}).encode()
        answer = await client.post(
            "/webhooks/transcoder", content=event, headers=signed(event, "msg_1")
        )
        assert answer.status_code == 200
        for _ in range(500):  # the wait wakes on the delivery, not on its next status read
            status: str | None = (await client.get(f"/videos/{transcode_id}")).json()["status"]
            if status:
                return status
            await asyncio.sleep(0.01)
        return None


def test_a_transcode_ends_with_its_webhook() -> None:
    assert asyncio.run(transcode_by_webhook()) == "done"


async def unsigned_delivery() -> int:
    async with web() as client:
        answer = await client.post("/webhooks/transcoder", content=b'{"id": "t", "status": "done"}')
        return answer.status_code


def test_an_unsigned_delivery_is_refused() -> None:
    assert asyncio.run(unsigned_delivery()) == 401
