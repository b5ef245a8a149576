"""`bounded`: a request is bounded as a whole, and the async bound never swallows the
caller's cancellation, with `asyncio.timeout` (3.11+) and with the task-based fallback."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from jobgen.runtime.http import bounded
from jobgen.runtime.shared.errors import APITimeoutError


@pytest.fixture(params=["asyncio.timeout", "task"])
def async_bound(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.param == "task":
        monkeypatch.setattr(bounded, "_timeout", False)
    elif not bounded._timeout:
        pytest.skip("asyncio.timeout needs Python 3.11")


def _async_client(release: asyncio.Event, started: list[str]) -> httpx.AsyncClient:
    async def handler(request: httpx.Request) -> httpx.Response:
        started.append(request.url.path)
        await release.wait()
        return httpx.Response(200, json={"ok": True})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def test_an_async_request_that_never_ends_is_given_up(async_bound: None) -> None:
    async def main() -> None:
        release, started = asyncio.Event(), []
        async with _async_client(release, started) as client:
            request = client.build_request("GET", "http://x/slow")
            with pytest.raises(APITimeoutError, match="GET http://x/slow"):
                await bounded.send_within_async(client, request, 0.05, bounded.Gate(2))
        assert started == ["/slow"]
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(main())


def test_cancelling_the_caller_cancels_the_request_and_is_not_swallowed(
    async_bound: None,
) -> None:
    async def main() -> None:
        release, started = asyncio.Event(), []
        async with _async_client(release, started) as client:
            request = client.build_request("GET", "http://x/slow")
            task = asyncio.ensure_future(bounded.send_within_async(client, request, 60))
            while not started:
                await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(main())


def test_the_gate_admits_a_pool_of_requests_and_queues_the_rest(async_bound: None) -> None:
    async def main() -> None:
        release, started = asyncio.Event(), []
        gate = bounded.Gate(3)
        async with _async_client(release, started) as client:

            async def one(n: int) -> int:
                request = client.build_request("GET", f"http://x/{n}")
                response = await bounded.send_within_async(client, request, 60, gate)
                return response.status_code

            tasks = [asyncio.ensure_future(one(n)) for n in range(10)]
            for _ in range(50):
                await asyncio.sleep(0)
            assert len(started) == 3
            release.set()
            assert await asyncio.gather(*tasks) == [200] * 10

    asyncio.run(main())


def test_a_sync_request_that_never_ends_is_given_up() -> None:
    release = threading.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        release.wait(10)
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        request = client.build_request("GET", "http://x/slow")
        try:
            with pytest.raises(APITimeoutError, match="GET http://x/slow"):
                bounded.send_within(client, request, 0.05)
        finally:
            release.set()
