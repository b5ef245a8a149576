"""A FastAPI app: an endpoint that starts a job, and the webhook endpoint whose receiver is
named by the SDK's exported WebhookReceiver type, given to the wait that follows the job."""

from __future__ import annotations

import asyncio
import os

from fastapi import FastAPI, Request, Response
from sume_sdk import AsyncClient, SumeJobFailed, WebhookDelivery, WebhookError, WebhookReceiver
from sume_sdk.models import CreateJobRequest, Job, JobEnvelope, TextInput

PUBLIC_URL = os.environ.get("PUBLIC_URL", "https://app.example.com")
client = AsyncClient(base_url=os.environ.get("SUME_BASE_URL", "https://api.sume.com"))
receiver: WebhookReceiver[JobEnvelope] = client.jobs.webhook_receiver()
outcomes: dict[str, str] = {}
following: set[asyncio.Task[None]] = set()
app = FastAPI()


async def follow(job_id: str, hooks: WebhookReceiver[JobEnvelope]) -> None:
    try:
        record: Job = await client.jobs.wait_for_job(job_id, events=hooks, deadline=3600)
    except SumeJobFailed as exc:
        outcomes[job_id] = f"failed: {exc.error.message if exc.error else 'no reason'}"
        return
    outcomes[job_id] = record.status.value


@app.post("/summaries", status_code=202)
async def summarise(text: str) -> dict[str, str]:
    body = CreateJobRequest(
        input=TextInput(type="text", text=text),
        mode="webhook",
        webhook_url=f"{PUBLIC_URL}/sume/webhooks",
    )
    created: JobEnvelope = await client.jobs.create(body=body)
    task = asyncio.create_task(follow(created.data.id, receiver))
    following.add(task)
    task.add_done_callback(following.discard)
    return {"job_id": created.data.id}


@app.get("/summaries/{job_id}")
async def summary_status(job_id: str) -> dict[str, str | None]:
    return {"job_id": job_id, "status": outcomes.get(job_id)}


@app.post("/sume/webhooks")
async def sume_webhook(request: Request) -> Response:
    status, text = receiver.acknowledge(request.headers.items(), await request.body())
    return Response(text, status_code=status)


@app.post("/sume/webhooks/checked")
async def sume_webhook_checked(request: Request) -> Response:
    """The same, raising: each refusal is a WebhookError carrying the status to answer."""
    try:
        delivery: WebhookDelivery[JobEnvelope] = receiver.handle(
            request.headers.items(), await request.body()
        )
    except WebhookError as exc:
        return Response(str(exc), status_code=exc.status)
    return Response(f"{delivery.job_id}: {delivery.event.data.status.value}")
