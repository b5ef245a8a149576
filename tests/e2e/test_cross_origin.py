"""No secret crosses a redirect to another origin, over real HTTP on loopback.

Two servers on 127.0.0.1, each on its own port (two origins): the API, and an
"elsewhere" that every kind of GET the SDK sends is redirected to. The SDK sends the
API its key, the caller's extra and default headers (one of them secret-looking), and
a job's carried value as a header. Elsewhere must receive only the headers that hold
nothing of the caller's (Accept, Accept-Encoding, User-Agent) for each request kind: a
plain GET operation, a result download, a download with ``to_file``, an event stream,
a pagination next link, and a ``final_from: location`` result whose same-origin
``Location`` then redirects. Sync and async.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.helpers import imported_sdk, write

KEY = "api-key-secret"
CARRIED = "carried-secret"
#: What the caller adds: the client's default headers and an operation's extra_headers.
DEFAULT_HEADERS = {"X-Tenant": "tenant-secret"}
EXTRA_HEADERS = {"X-Auth-Token": "token-secret", "X-Sig": "sig-secret", "X-Trace": "t-1"}
SECRETS = {KEY, CARRIED, "tenant-secret", "token-secret", "sig-secret", "t-1"}
#: The headers another origin may receive: none of them holds the caller's values.
SAFE = {"host", "accept", "accept-encoding", "user-agent", "connection"}

ID = {"name": "export_id", "in": "path", "required": True, "schema": {"type": "string"}}
KEY_HEADER = {
    "name": "X-Export-Key",
    "in": "header",
    "required": True,
    "schema": {"type": "string"},
}
JSON_OBJECT = {"application/json": {"schema": {"type": "object"}}}


def _ok(content: dict[str, Any], status: str = "200") -> dict[str, Any]:
    return {status: {"description": "OK.", "content": content}}


def _schema(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}


SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Origins", "version": "1.0.0"},
    "servers": [{"url": "http://api.invalid"}],
    "security": [{"key": []}],
    "paths": {
        "/exports": {
            "post": {
                "operationId": "createExport",
                "tags": ["exports"],
                "responses": _ok(_schema("Export"), "202"),
            }
        },
        "/exports/{export_id}": {
            "get": {
                "operationId": "getExport",
                "tags": ["exports"],
                "parameters": [ID, KEY_HEADER],
                "responses": _ok(_schema("Export")),
            }
        },
        "/exports/{export_id}/file": {
            "get": {
                "operationId": "getExportFile",
                "tags": ["exports"],
                "parameters": [ID, KEY_HEADER],
                "responses": _ok(
                    {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
                ),
            }
        },
        "/reports": {
            "post": {
                "operationId": "createReport",
                "tags": ["reports"],
                "responses": _ok(_schema("Report"), "202"),
            }
        },
        "/reports/{report_id}": {
            "get": {
                "operationId": "getReport",
                "tags": ["reports"],
                "parameters": [{**ID, "name": "report_id"}],
                "responses": _ok(_schema("Report")),
            }
        },
        "/reports/{report_id}/export": {
            "get": {
                "operationId": "getReportExport",
                "tags": ["reports"],
                "parameters": [{**ID, "name": "report_id"}],
                "responses": _ok(JSON_OBJECT),
            }
        },
        "/events": {
            "get": {
                "operationId": "streamEvents",
                "tags": ["things"],
                "responses": _ok({"text/event-stream": {"schema": {"type": "object"}}}),
            }
        },
        "/items": {
            "get": {
                "operationId": "listItems",
                "tags": ["things"],
                "responses": _ok(_schema("Items")),
            }
        },
        "/things/{thing_id}": {
            "get": {
                "operationId": "getThing",
                "tags": ["things"],
                "parameters": [{**ID, "name": "thing_id"}],
                "responses": _ok(JSON_OBJECT),
            }
        },
    },
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "schemas": {
            "Export": {
                "type": "object",
                "required": ["id", "status", "key"],
                "properties": {
                    "id": {"type": "string"},
                    "status": {"type": "string", "enum": ["running", "done"]},
                    "key": {"type": "string"},
                },
            },
            "Report": {
                "type": "object",
                "required": ["id", "status"],
                "properties": {
                    "id": {"type": "string"},
                    "status": {"type": "string", "enum": ["running", "failed"]},
                },
            },
            "Items": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "object"}},
                    "next": {"type": "string", "nullable": True},
                },
            },
        },
    },
    "x-jobgen": {
        "jobs": {
            "export": {
                "create": "createExport",
                "status": "getExport",
                "result": "getExportFile",
                "id_from": "/id",
                "state": {
                    "field": "/status",
                    "success": ["done"],
                    "failure": [],
                    "pending": ["running"],
                },
                "carry": {"export_key": {"from": "/key", "to": "header:X-Export-Key"}},
            },
            "report": {
                "create": "createReport",
                "status": "getReport",
                "result": "getReportExport",
                "id_from": "/id",
                "state": {
                    "field": "/status",
                    "success": ["done"],
                    "failure": ["failed"],
                    "pending": ["running"],
                },
                "status_rules": [{"status": 303, "state": "done"}],
                "final_from": "location",
            },
        }
    },
}


class Recorder(ThreadingHTTPServer):
    """A loopback server answering each path from `routes`; it keeps each request's
    path and headers."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes: dict[str, Callable[[], tuple[int, dict[str, str], bytes]]] = {}
        self.seen: list[tuple[str, dict[str, str]]] = []

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self._answer()

    def _answer(self) -> None:
        self.server.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
        route = self.server.routes.get(self.path)
        status, headers, body = route() if route else (404, {}, b"{}")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _json(value: object, status: int = 200) -> Callable[[], tuple[int, dict[str, str], bytes]]:
    return lambda: (status, {"Content-Type": "application/json"}, json.dumps(value).encode())


def _to(url: str, status: int = 302) -> Callable[[], tuple[int, dict[str, str], bytes]]:
    return lambda: (status, {"Location": url}, b"")


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("origins")
    spec = write(root / "origins.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "origins_sdk") as module:
        yield module


@pytest.fixture
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    api, elsewhere = Recorder(), Recorder()
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (api, elsewhere)]
    for thread in threads:
        thread.start()
    far = elsewhere.origin
    export = {"id": "e1", "status": "done", "key": CARRIED}
    api.routes.update(
        {
            "/exports": _json(export, 202),
            "/exports/e1": _json(export),
            "/exports/e1/file": _to(f"{far}/file"),
            "/reports": _json({"id": "r1", "status": "running"}, 202),
            "/reports/r1": _to("/reports/r1/export", 303),
            "/reports/r1/export": _to(f"{far}/export", 307),
            "/events": _to(f"{far}/events"),
            "/items": _json({"items": [{"n": 1}], "next": "/items?page=2"}),
            "/items?page=2": _to(f"{far}/items"),
            "/things/t1": _to(f"{far}/thing", 301),
        }
    )
    elsewhere.routes.update(
        {
            "/file": lambda: (200, {"Content-Type": "application/octet-stream"}, b"\x00file"),
            "/export": _json({"rows": 3}),
            "/events": lambda: (200, {"Content-Type": "text/event-stream"}, b'data: {"n": 1}\n\n'),
            "/items": _json({"items": [{"n": 2}], "next": None}),
            "/thing": _json({"thing": 1}),
        }
    )
    try:
        yield api, elsewhere
    finally:
        for server in (api, elsewhere):
            server.shutdown()
            server.server_close()


def run(sdk: ModuleType, api: Recorder, mode: str, call: Callable[[Any], Any]) -> Any:
    """`call(client)` on a fresh `Client` or `AsyncClient` of the API; an iterator
    it returns (events, pages) is read to its end."""
    options: dict[str, Any] = {
        "api_key": KEY,
        "base_url": api.origin,
        "headers": DEFAULT_HEADERS,
        "wait_config": sdk.WaitConfig(first=0.01, floor=0, cap=0.02, decoding="strict"),
    }
    if mode == "sync":
        with sdk.Client(**options) as client:
            outcome = call(client)
            iterable = hasattr(outcome, "__iter__") and not isinstance(outcome, (bytes, dict))
            return list(outcome) if iterable else outcome

    async def main() -> Any:
        async with sdk.AsyncClient(**options) as client:
            outcome = call(client)
            if inspect.isawaitable(outcome):
                return await outcome
            return [item async for item in outcome]

    return asyncio.run(main())


REQUEST_KINDS: dict[str, tuple[str, Callable[[Any, Path], Any]]] = {
    "plain GET": ("/thing", lambda c, _: c.things.get("t1", extra_headers=EXTRA_HEADERS)),
    "result": ("/file", lambda c, _: c.exports.create_and_wait()),
    "result to_file": (
        "/file",
        lambda c, tmp: c.exports.wait_for_result("e1", export_key=CARRIED, to_file=tmp / "out.bin"),
    ),
    "event stream": ("/events", lambda c, _: c.things.stream_events(extra_headers=EXTRA_HEADERS)),
    "next link": ("/items", lambda c, _: c.things.list_items(extra_headers=EXTRA_HEADERS)),
    "final_from location": ("/export", lambda c, _: c.reports.create_and_wait()),
}


@pytest.mark.parametrize("kind", list(REQUEST_KINDS))
def test_another_origin_receives_only_safe_headers(
    sdk: ModuleType, servers: tuple[Recorder, Recorder], mode: str, kind: str, tmp_path: Path
) -> None:
    api, elsewhere = servers
    path, call = REQUEST_KINDS[kind]

    run(sdk, api, mode, lambda client: call(client, tmp_path))

    assert [seen for seen, _ in elsewhere.seen] == [path]
    received = elsewhere.seen[0][1]
    assert set(received) <= SAFE, f"{kind}: elsewhere received {sorted(set(received) - SAFE)}"
    assert not SECRETS & set(received.values())
    # The API itself received what the caller gave (the test sends what it claims).
    first = api.seen[0][1]
    assert first["x-key"] == KEY and first["x-tenant"] == "tenant-secret"


def test_a_same_origin_redirect_keeps_every_header(
    sdk: ModuleType, servers: tuple[Recorder, Recorder], mode: str
) -> None:
    api, _ = servers
    api.routes["/things/t2"] = _to("/things/t3")
    api.routes["/things/t3"] = _json({"thing": 3})

    run(sdk, api, mode, lambda client: client.things.get("t2", extra_headers=EXTRA_HEADERS))

    hops = [headers for path, headers in api.seen if path.startswith("/things/")]
    assert [h["x-auth-token"] for h in hops] == ["token-secret", "token-secret"]
    assert [h["x-key"] for h in hops] == [KEY, KEY]
