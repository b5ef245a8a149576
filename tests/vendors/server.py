"""A loopback HTTP server for the vendor-faithful tests, and what they share.

Each vendor module (`anthropic`, `openai`, `replicate`) implements its API's documented
protocol as a plain function from a `Seen` request to an `Answer`; `VendorServer` serves
it on 127.0.0.1 and records every request exactly as it arrived (method, path, query,
headers, body bytes), so a test asserts the wire. `Sleeps` is the injected sleep of a
wait: it records the delays taken and returns at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import attrs

from tests.helpers import imported_sdk

SPECS = Path(__file__).resolve().parent / "specs"


@attrs.frozen
class Seen:
    """One request as the server received it; header names are lower-case."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@attrs.frozen
class Answer:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = attrs.field(factory=dict)


def json_answer(status: int, value: object, **headers: str) -> Answer:
    body = json.dumps(value).encode()
    return Answer(status, body, {"Content-Type": "application/json", **headers})


App = Callable[[Seen], Answer]


class VendorServer:
    """Serves `app` on 127.0.0.1 while open; `seen` lists the requests in order."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                seen = Seen(
                    method=self.command,
                    path=parts.path,
                    query=tuple(parse_qsl(parts.query, keep_blank_values=True)),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                with server._lock:
                    server.seen.append(seen)
                    answer = server.app(seen)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_DELETE = _serve

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    @contextmanager
    def running(self) -> Iterator[VendorServer]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join()

    def lines(self) -> list[tuple[str, str]]:
        """Each request as (method, path with its query)."""
        out = []
        for seen in self.seen:
            query = "&".join(f"{k}={v}" for k, v in seen.query)
            out.append((seen.method, seen.path + (f"?{query}" if query else "")))
        return out


class Sleeps:
    """An injected sleep (sync and async) and the clock it moves: records each delay
    and returns at once, the clock advanced by the delay."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.now = 1000.0

    def __call__(self, seconds: float) -> None:
        self.delays.append(round(seconds, 6))
        self.now += seconds

    async def async_sleep(self, seconds: float) -> None:
        self(seconds)

    def clock(self) -> float:
        return self.now

    def config(self, sdk: ModuleType, **settings: Any) -> Any:
        """The SDK's `WaitConfig` with this sleep and clock, and no jitter (the
        backoff is then `first`, doubling up to `cap`)."""
        return sdk.WaitConfig(
            sleep=self,
            async_sleep=self.async_sleep,
            clock=self.clock,
            rng=lambda: 0.0,
            **settings,
        )


@contextmanager
def vendor_sdk(tmp_path: Path, name: str, package: str) -> Iterator[ModuleType]:
    """The SDK of `specs/<name>.yaml` with its side file, generated and imported."""
    spec, jobs = SPECS / f"{name}.yaml", SPECS / f"{name}.jobs.yaml"
    with imported_sdk(spec, tmp_path, package, jobs=jobs) as module:
        yield module


def drive(mode: str, client: Callable[[], Any], body: Callable[..., Any]) -> Any:
    """Run `body(client, done)` with the sync client (`mode` "sync") or the async one:
    `await done(x)` is `x` awaited in async mode, `x` itself in sync mode."""

    async def done(value: Any) -> Any:
        return await value if mode == "async" else value

    async def main() -> Any:
        made = client()
        if mode == "async":
            async with made as opened:
                return await body(opened, done)
        with made as opened:
            return await body(opened, done)

    return asyncio.run(main())


def assert_backoff(delays: list[float], reads: int, first: float, cap: float = 60.0) -> None:
    """The delays of a wait that began with a create answer and made `reads` status
    reads: the declared backoff without jitter (`first`, doubling up to `cap`), one
    before each read but the first; or one before every read, once the create answer
    counts as the first status read (W7, issue 22 item 2)."""
    expected = [min(cap, first * 2 ** (n + 1)) / 2 for n in range(reads)]  # W4, rng 0
    assert delays in (expected[: reads - 1], expected), delays
