"""Application code for jobs polled at their operation URL, against the committed
request-reply and Azure-style SDKs: results typed by where they come from."""

from __future__ import annotations

import asyncio

from async_request_reply_sdk import AsyncClient, Client
from async_request_reply_sdk.errors import JobFailed, OperationUrlRefused
from async_request_reply_sdk.models import Export, ExportRequest, ExportStatus
from azure_operations_sdk import Client as AzureClient
from azure_operations_sdk.models import AnalyzeRequest, OperationStatus


def export(report: str) -> str:
    with Client(token="t", operation_hosts=["https://status.example.com"]) as client:
        try:
            done: Export = client.exports.create_and_wait(body=ExportRequest(report=report))
        except OperationUrlRefused as refused:
            return f"not followed: {refused}"
        except JobFailed as failed:
            return f"{failed.job_id} ended {failed.last_state}"
        return done.download_url


def poll_once(url: str) -> float | None:
    with Client(token="t") as client:
        handle = client.exports.handle(url)
        decision = handle.poll()
        record: ExportStatus = decision.record
        if decision.done:
            result: Export = handle.result(deadline=60)
            print(result.id, record.status)
            return None
        return decision.delay


async def export_async(report: str) -> str:
    async with AsyncClient(token="t") as client:
        handle = await client.exports.start(body=ExportRequest(report=report))
        token: str = handle.resume_token
        again = client.exports.handle(resume=token)
        result: Export = await again.result(deadline=60)
        return result.id


def analyse(request: AnalyzeRequest, url: str) -> str | None:
    with AzureClient(api_key="k") as client:
        status: OperationStatus = client.analysis.wait_for_result(url, deadline=120)
        final: OperationStatus = client.analysis.create_and_wait(body=request)
        return str(final.status) if status.result else None  # absent or null: None


if __name__ == "__main__":
    print(export("sales"), asyncio.run(export_async("sales")))
