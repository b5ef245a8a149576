"""Mistakes the type checkers must catch: each line with an error comment is one."""

from __future__ import annotations

from deepl_documents_sdk import Client as DocumentsClient
from sume_sdk import AsyncClient, Client, JobFailed, JobTimeout, PollEvent, SumeJobFailed
from sume_sdk.models import CreateJobRequest, Job, TextInput

TEXT = TextInput(type="text", text="hello")
CreateJobRequest(input=TEXT, mode="bogus")  # error


def show(event: PollEvent[Job]) -> None:
    print(event.record.percent)  # error


def handle(exc: JobFailed[Job, object]) -> str:
    return exc.record.error.message  # error: error may be None or UNSET


def resumed_state(exc: JobTimeout) -> str:
    return exc.record.status.value if exc.record else ""  # error: any job's record


def reason(exc: SumeJobFailed) -> str:
    return exc.error.message  # error: error may be None


def code(exc: SumeJobFailed) -> str:
    return exc.error.reason if exc.error else ""  # error: JobError has no reason


def eta(record: Job) -> float:
    return record.next_poll_after_seconds  # error: may be None or UNSET


def download(client: DocumentsClient, document_id: str) -> bytes:
    client.documents.wait_for_job(document_id, document_key=42)  # error: the key is a str
    return client.documents.wait_for_result(document_id)  # error: document_key is required


def as_text(client: DocumentsClient, document_id: str, key: str) -> str:
    return client.documents.wait_for_result(document_id, document_key=key)  # error: bytes


def raw_status(client: Client, job_id: str) -> str:
    client.jobs.with_raw_response.get(job_id, timout=5.0)  # error: no such parameter
    client.jobs.with_streaming_response.get(42)  # error: the job id is a str
    return client.jobs.with_raw_response.get(job_id).data.id  # error: parse() gives the body


def raw_body(client: Client, job_id: str) -> Job:
    return client.jobs.with_raw_response.get(job_id).parse()  # error: a JobEnvelope


def wait_for_nothing(client: Client, job_id: str, token: str) -> None:
    client.jobs.wait_for_job()  # error: a job_id or a resume token is required
    client.jobs.wait_for_job(job_id, resume=token)  # error: one of them, not both
    client.jobs.handle()  # error: a job_id or a resume token is required
    client.jobs.handle(job_id, resume=token)  # error: one of them, not both
    client.jobs.wait_for_job(job_id)
    client.jobs.handle(resume=token)


async def await_nothing(client: AsyncClient, job_id: str, token: str) -> None:
    await client.jobs.wait_for_job(deadline=60)  # error: a job_id or a resume token is required
    await client.jobs.wait_for_job(job_id, resume=token)  # error: one of them, not both
    client.jobs.handle(resume=None)  # error: a job_id or a resume token is required
    await client.jobs.wait_for_job(resume=token)


def keyless(client: DocumentsClient, document_id: str, token: str) -> None:
    client.documents.wait_for_job(document_id)  # error: document_key is required
    client.documents.handle(document_id)  # error: document_key is required
    client.documents.wait_for_job(resume=token)
    client.documents.wait_for_job(resume=token, cancel_on_timeout=True)  # error: no cancel op
