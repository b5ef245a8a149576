"""A DeepL document-translation server written from DeepL's public API documentation,
not from jobgen's reading of any spec:

- Authentication (https://developers.deepl.com/docs/getting-started/auth): every request
  carries ``Authorization: DeepL-Auth-Key [yourAuthKey]``; a request without it, or with
  another key, is answered 403 Forbidden.
- Upload (https://developers.deepl.com/docs/api-reference/document, "Upload and Translate a
  Document"): ``POST /v2/document`` as ``multipart/form-data`` with a ``file`` part (its file
  name in the part's Content-Disposition, or a ``filename`` field) and ``target_lang``
  (``source_lang``, ``output_format``, ``formality``, ``glossary_id`` optional); the answer
  is ``{"document_id": ..., "document_key": ...}``. A missing ``file`` or ``target_lang`` is
  400.
- Status ("Check Document Status"): ``POST /v2/document/{document_id}`` with the
  ``document_key`` (form-encoded or JSON); ``status`` is ``queued``, ``translating``
  (with ``seconds_remaining``), ``done`` (with ``billed_characters``) or ``error`` (with
  ``error_message``). An unknown id or a wrong key is 404.
- Download ("Download Translated Document"): ``POST /v2/document/{document_id}/result``
  with the ``document_key`` returns the translated file; a document can be downloaded only
  once (it is then deleted: 404 afterwards), and one still being translated is 503.

The translation is the uploaded bytes behind the target language's code, so a test can
tell that the file part reached the server byte for byte.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from tests.loopback import Seen, loopback, multipart_parts

AUTH_KEY = "279a2e9d-83b3-c416-7e2d-f721593e42a0:fx"
# What the status reads answer, in turn; the last one repeats.
PROGRESS = (
    {"status": "queued"},
    {"status": "translating", "seconds_remaining": 2},
    {"status": "done", "billed_characters": 50000},
)


@dataclass
class Document:
    key: str
    data: bytes
    filename: str
    target_lang: str
    reads: int = 0
    downloaded: bool = False


@dataclass
class DeepL:
    """The server's state: its documents, and every request it saw (in order)."""

    seen: list[Seen] = field(default_factory=list)
    documents: dict[str, Document] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, request: Seen) -> tuple[int, dict[str, str], bytes]:
        if request.header("Authorization") != f"DeepL-Auth-Key {AUTH_KEY}":
            return _json(403, {"message": "Authorization failed"})
        parts = request.path.strip("/").split("/")
        if request.method != "POST" or parts[:2] != ["v2", "document"]:
            return _json(404, {"message": "Not found"})
        with self.lock:
            if len(parts) == 2:
                return self._upload(request)
            document = self.documents.get(parts[2])
            if document is None or _document_key(request) != document.key:
                return _json(404, {"message": "Document not found"})
            if len(parts) == 3:
                return self._status(parts[2], document)
            if len(parts) == 4 and parts[3] == "result":
                return self._result(document)
        return _json(404, {"message": "Not found"})

    def _upload(self, request: Seen) -> tuple[int, dict[str, str], bytes]:
        fields = {p.name: p for p in multipart_parts(request)}
        if "file" not in fields or "target_lang" not in fields:
            return _json(400, {"message": "Parameter 'file' or 'target_lang' missing"})
        file = fields["file"]
        filename = file.filename
        if not filename and "filename" in fields:
            filename = fields["filename"].data.decode()
        if not filename:
            return _json(400, {"message": "the file name is missing"})
        number = len(self.documents) + 1
        document_id = f"04DE5AD98A02647D83285A36021911C{number}"
        key = f"0CB0054F1C132C1625B392EADDA41CB754A742822F6877173029A6C487E7F60{number}"
        self.documents[document_id] = Document(
            key, file.data, filename, fields["target_lang"].data.decode()
        )
        return _json(200, {"document_id": document_id, "document_key": key})

    def _status(self, document_id: str, document: Document) -> tuple[int, dict[str, str], bytes]:
        state = PROGRESS[min(document.reads, len(PROGRESS) - 1)]
        document.reads += 1
        return _json(200, {"document_id": document_id, **state})

    def _result(self, document: Document) -> tuple[int, dict[str, str], bytes]:
        if document.reads < len(PROGRESS):
            return _json(503, {"message": "Document is not ready yet"})
        if document.downloaded:
            return _json(404, {"message": "Document already downloaded"})
        document.downloaded = True
        body = document.target_lang.encode() + b":" + document.data
        return 200, {"Content-Type": "application/octet-stream"}, body


def _document_key(request: Seen) -> str | None:
    kind = (request.header("Content-Type") or "").split(";")[0].strip().lower()
    if kind == "application/json":
        value = json.loads(request.body or b"{}").get("document_key")
        return value if isinstance(value, str) else None
    if kind == "application/x-www-form-urlencoded":
        values = parse_qs(request.body.decode()).get("document_key")
        return values[0] if values else None
    return None


def _json(status: int, value: object) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(value).encode()


@contextmanager
def deepl_server() -> Iterator[tuple[str, DeepL]]:
    """A running DeepL document server: its base URL, and its state."""
    state = DeepL()

    def answer(request: Seen) -> tuple[int, dict[str, str], bytes]:
        with state.lock:
            state.seen.append(request)
        return state.answer(request)

    with loopback(answer) as (url, _):
        yield url, state
