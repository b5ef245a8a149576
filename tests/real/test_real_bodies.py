"""The published Form Recognizer 2022-08-31 spec (Swagger 2.0, `consumes` of JSON, PDF and
images): its generated SDK sends a document byte for byte as the media type the caller
names, with the key header and the api-version the spec implies, over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import REAL_SPECS, imported_sdk
from tests.loopback import Seen, loopback

SPEC = (
    REAL_SPECS
    / "azure/cognitiveservices/data-plane/FormRecognizer/stable/2022-08-31/FormRecognizer.json"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\r"
PDF = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 16


@pytest.fixture(scope="module")
def recognizer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(SPEC, tmp_path_factory.mktemp("fr"), "form_recognizer_sdk") as sdk:
        yield sdk


def _accepted(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    return 202, {"Operation-Location": "http://127.0.0.1/documentModels/m/analyzeResults/r"}, b""


def test_a_document_goes_byte_for_byte_as_the_named_media_type(
    recognizer: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(PDF)
    with (
        loopback(_accepted) as (url, seen),
        recognizer.Client(base_url=url, api_key="k3y") as client,
    ):
        client.document_models.analyze("prebuilt-invoice", body=PNG, content_type="image/png")
        client.document_models.analyze(
            "prebuilt-invoice", body=path, content_type="application/pdf"
        )
    assert [s.body for s in seen] == [PNG, PDF]
    assert [s.all("Content-Type") for s in seen] == [["image/png"], ["application/pdf"]]
    assert {s.header("Ocp-Apim-Subscription-Key") for s in seen} == {"k3y"}
    assert {s.query["api-version"][0] for s in seen} == {"2022-08-31"}
    assert all(s.path.endswith("/documentModels/prebuilt-invoice:analyze") for s in seen)
