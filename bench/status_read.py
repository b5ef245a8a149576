"""CPU per status read alone: one wait's prepared status request sent N times.

Usage: python bench/status_read.py ROOT [N]

ROOT is a checkout (or a `git archive` of one) whose generated/sume is imported; the
Sume SDK's `Client` / `AsyncClient` send over an httpx.MockTransport answering a
pre-serialised body, so the time is the client side's: building the request once,
renewing its timeout, sending, checking the status. Prints CPU microseconds per read,
sync and async. To compare two states, alternate them, e.g.:

    git archive main generated/sume | tar -x -C /tmp/before
    for i in 1 2 3 4 5 6; do for root in /tmp/before .; do
        bench/.work/venv/bin/python bench/status_read.py $root 5000
    done; done
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

BODY = json.dumps({"data": {"id": "job_1", "status": "processing", "terminal": False}}).encode()
HEADERS = {"content-type": "application/json"}


def answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=BODY, headers=HEADERS)


def sync_read(sdk: Any, n: int) -> float:
    transport = httpx.MockTransport(answer)
    with sdk.Client(api_key="k", base_url="http://b.invalid", transport=transport) as client:
        read = client.jobs._job_status_read("job_1")
        read(600.0)  # first-use costs stay out of the numbers
        started = time.process_time()
        for _ in range(n):
            read(600.0)
        return (time.process_time() - started) / n * 1e6


async def async_read(sdk: Any, n: int) -> float:
    transport = httpx.MockTransport(answer)
    async with sdk.AsyncClient(
        api_key="k", base_url="http://b.invalid", transport=transport
    ) as client:
        read = client.jobs._job_status_read("job_1")
        await read(600.0)
        started = time.process_time()
        for _ in range(n):
            await read(600.0)
        return (time.process_time() - started) / n * 1e6


def main() -> None:
    sys.path.insert(0, str(Path(sys.argv[1]).resolve() / "generated" / "sume"))
    import sume_sdk

    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    result = {"sync_us": sync_read(sume_sdk, n), "async_us": asyncio.run(async_read(sume_sdk, n))}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
