"""Mistakes the type checkers must catch: each line with an error comment is one."""

from __future__ import annotations

from deepl_documents_sdk import Client as DocumentsClient
from sume_sdk import JobFailed, PollEvent, SumeJobFailed
from sume_sdk.models import CreateJobRequest, Job, TextInput

TEXT = TextInput(type="text", text="hello")
CreateJobRequest(input=TEXT, mode="bogus")  # error


def show(event: PollEvent[Job]) -> None:
    print(event.record.percent)  # error


def handle(exc: JobFailed[Job, object]) -> str:
    return exc.record.error.message  # error: error may be None or UNSET


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
