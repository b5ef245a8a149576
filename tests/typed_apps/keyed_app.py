"""A keyed job (DeepL-style documents): upload, wait with the key, download bytes to a
file, and carry a handle across processes in its resume token."""

from __future__ import annotations

from pathlib import Path

from deepl_documents_sdk import AsyncClient, Client
from deepl_documents_sdk.models import DocumentHandle, DocumentStatus, DocumentUpload


def translate(upload: DocumentUpload, target: Path) -> bytes:
    with Client(api_key="DeepL-Auth-Key key") as client:
        created: DocumentHandle = client.documents.translate(body=upload)
        document: bytes = client.documents.wait_for_result(
            created.document_id, document_key=created.document_key, deadline=600, to_file=target
        )
        return document


def status(client: Client, document_id: str, document_key: str) -> str:
    record: DocumentStatus = client.documents.wait_for_job(
        document_id, document_key=document_key, deadline=60
    )
    return record.status.value


def begin(client: Client, upload: DocumentUpload) -> str:
    handle = client.documents.start(body=upload)
    decision = handle.poll()
    if decision.done:
        return ""
    return handle.resume_token


async def finish(token: str) -> bytes:
    async with AsyncClient(api_key="DeepL-Auth-Key key") as client:
        handle = client.documents.handle(resume=token)
        result: bytes = await handle.result(deadline=600)
        return result
