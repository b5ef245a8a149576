"""The DeepL document SDK generated from specs/deepl_documents.yaml, driven sync and async
against a server written from DeepL's own documentation (`tests/vendors/deepl.py`): the
key goes as ``Authorization: DeepL-Auth-Key <key>``, the document as a multipart ``file``
part byte for byte with its file name, and the result is downloaded once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import SPECS, imported_sdk
from tests.loopback import Seen, multipart_parts
from tests.vendors.deepl import AUTH_KEY, DeepL, deepl_server

DOCUMENT = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 64  # binary, not UTF-8


@pytest.fixture(scope="module")
def deepl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("deepl")
    with imported_sdk(SPECS / "deepl_documents.yaml", root, "deepl_vendor_sdk") as sdk:
        yield sdk


@pytest.fixture
def server() -> Iterator[tuple[str, DeepL]]:
    with deepl_server() as running:
        yield running


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(DOCUMENT)
    return path


def _config(deepl: ModuleType, sleeps: list[float]) -> object:
    async def async_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return deepl.WaitConfig(sleep=sleeps.append, async_sleep=async_sleep, rng=lambda: 0.5)


def _check_conversation(seen: list[Seen], document_id: str, key: str) -> None:
    """Upload, three status reads, one download -- each as DeepL documents it."""
    assert [(s.method, s.path) for s in seen] == [
        ("POST", "/v2/document"),
        ("POST", f"/v2/document/{document_id}"),
        ("POST", f"/v2/document/{document_id}"),
        ("POST", f"/v2/document/{document_id}"),
        ("POST", f"/v2/document/{document_id}/result"),
    ]
    assert {s.header("Authorization") for s in seen} == {f"DeepL-Auth-Key {AUTH_KEY}"}
    upload = {p.name: p for p in multipart_parts(seen[0])}
    assert upload["file"].data == DOCUMENT
    assert upload["file"].filename == "report.pdf"
    assert upload["target_lang"].data == b"DE"
    assert (seen[0].header("Content-Type") or "").startswith("multipart/form-data; boundary=")
    for later in seen[1:]:
        assert later.header("Content-Type") == "application/json"
        assert json.loads(later.body) == {"document_key": key}


def test_create_and_wait_uploads_polls_and_downloads_once(
    deepl: ModuleType, server: tuple[str, DeepL], document: Path
) -> None:
    url, state = server
    models = __import__("deepl_vendor_sdk.models", fromlist=["DocumentUpload"])
    sleeps: list[float] = []
    with deepl.Client(base_url=url, api_key=AUTH_KEY, wait_config=_config(deepl, sleeps)) as client:
        result = client.documents.create_and_wait(
            body=models.DocumentUpload(file=document, target_lang="DE")
        )
        assert result == b"DE:" + DOCUMENT
        ((document_id, stored),) = state.documents.items()
        _check_conversation(state.seen, document_id, stored.key)
        # Downloaded once: the server has deleted it.
        with pytest.raises(deepl.NotFoundError):
            client.documents.download(document_id, body=models.DocumentKey(document_key=stored.key))
    # The wait before the read that finds it done is DeepL's seconds_remaining.
    assert sleeps[-1] == 2.0


def test_async_handle_uploads_a_file_object_and_downloads_once(
    deepl: ModuleType, server: tuple[str, DeepL], document: Path
) -> None:
    url, state = server
    models = __import__("deepl_vendor_sdk.models", fromlist=["DocumentUpload"])
    sleeps: list[float] = []

    async def main() -> bytes:
        async with deepl.AsyncClient(
            base_url=url, api_key=AUTH_KEY, wait_config=_config(deepl, sleeps)
        ) as client:
            with document.open("rb") as handle:
                job = await client.documents.start(
                    body=models.DocumentUpload(file=handle, target_lang="DE")
                )
            result: bytes = await job.result()
            return result

    assert asyncio.run(main()) == b"DE:" + DOCUMENT
    ((document_id, stored),) = state.documents.items()
    _check_conversation(state.seen, document_id, stored.key)


def test_wait_for_result_by_id_and_key(
    deepl: ModuleType, server: tuple[str, DeepL], document: Path
) -> None:
    url, state = server
    models = __import__("deepl_vendor_sdk.models", fromlist=["DocumentUpload"])
    sleeps: list[float] = []
    with deepl.Client(base_url=url, api_key=AUTH_KEY, wait_config=_config(deepl, sleeps)) as client:
        handle = client.documents.translate(
            body=models.DocumentUpload(file=document, target_lang="DE")
        )
        result = client.documents.wait_for_result(
            handle.document_id, document_key=handle.document_key
        )
    assert result == b"DE:" + DOCUMENT
    _check_conversation(state.seen, handle.document_id, handle.document_key)
