"""Peak memory of a 512 MiB `to_file` result read back (issue 35, item 5: it came back as
bytes, peak RSS 549 MB).

    /usr/bin/time -f "peak RSS %M KB, %e s" .venv/bin/python bench/readback.py

Generates the DeepL documents SDK (specs/deepl_documents.yaml) into a temporary folder and
waits for a result of 512 MiB served by an `httpx.MockTransport` in 64 KiB chunks, with
`to_file` and the default `read_back=True`; prints what the call returned or raised.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

import httpx

from jobgen.config import Target
from jobgen.pipeline import generate

REPO = Path(__file__).resolve().parent.parent
CHUNK = bytes(64 * 1024)
CHUNKS = 8192  # 512 MiB


def answer(request: httpx.Request) -> httpx.Response:
    if request.url.path.endswith("/result"):
        body = (CHUNK for _ in range(CHUNKS))
        return httpx.Response(
            200, headers={"content-type": "application/octet-stream"}, content=body
        )
    return httpx.Response(200, json={"document_id": "d1", "status": "done"})


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "readback_sdk"
        generate(
            Target(spec=REPO / "specs" / "deepl_documents.yaml", output=out, package="readback_sdk")
        )
        sys.path.insert(0, str(out))
        sdk = importlib.import_module("readback_sdk")
        target = Path(folder) / "result.bin"
        with sdk.Client(api_key="k", transport=httpx.MockTransport(answer)) as client:
            try:
                result = client.documents.wait_for_result("d1", document_key="K", to_file=target)
                print(f"returned {len(result):,} bytes")
            except sdk.errors.ResponseTooLarge as error:
                print(f"refused: {error}")


if __name__ == "__main__":
    main()
