"""HTTPS as the SDK's clients do it: one verifying TLS context per process, httpx's own.

A `Client` or `AsyncClient` the SDK creates (no ``http_client`` or ``transport`` of the
caller's), and a token request of its client credentials, verifies with the context httpx
would build for it (certifi's bundle, or what ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` name;
keys logged to ``SSLKEYLOGFILE``), but the context is built once and shared, not once per
client, and anew when one of those variables changes. Checked over real HTTPS on loopback
against servers whose certificates come from certificate authorities made for the test
(trustme): refused by default, accepted with the environment naming the authority, and
with the caller's own settings.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, Self

import httpx
import pytest
import trustme
import yaml

from tests.helpers import imported_sdk, write

SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Secure", "version": "1.0.0"},
    "servers": [{"url": "https://api.example"}],
    "security": [{"oauth": []}],
    "components": {
        "securitySchemes": {
            "oauth": {
                "type": "oauth2",
                "flows": {
                    "clientCredentials": {
                        "tokenUrl": "https://auth.example/token",
                        "scopes": {},
                    }
                },
            }
        }
    },
    "paths": {
        "/things": {
            "get": {
                "operationId": "listThings",
                "tags": ["things"],
                "security": [],
                "responses": {
                    "200": {
                        "description": "Things.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


class _Answer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # connections stay open, as an API's do

    def do_GET(self) -> None:
        self._json({"things": []})

    def do_POST(self) -> None:  # the token endpoint
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self._json({"access_token": "token-1", "expires_in": 3600})

    def _json(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


class TLSServer:
    """HTTPS on 127.0.0.1 with a certificate of its own authority, whose PEM is `ca_file`."""

    def __init__(self, folder: Path, name: str) -> None:
        self.ca = trustme.CA()
        self.ca_file = folder / f"{name}-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1").configure_cert(context)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.base_url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("tls")
    spec = write(root / "secure.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "secure_sdk") as module:
        yield module


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TLSServer, TLSServer]]:
    folder = tmp_path_factory.mktemp("cas")
    with TLSServer(folder, "first") as first, TLSServer(folder, "second") as second:
        yield first, second


@pytest.fixture
def server(servers: tuple[TLSServer, TLSServer]) -> TLSServer:
    return servers[0]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No trust from the environment unless a test sets it."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE"):
        monkeypatch.delenv(name, raising=False)


def context_of(response: httpx.Response) -> ssl.SSLContext:
    """The TLS context the (kept-alive) connection of ``response`` was made with."""
    ssl_object = response.extensions["network_stream"].get_extra_info("ssl_object")
    context: ssl.SSLContext = ssl_object.context
    return context


def fetch(sdk: ModuleType, kind: str, base_url: str, **options: Any) -> ssl.SSLContext:
    """One call through a new sync or async client; the context its connection used."""
    if kind == "sync":
        with sdk.Client(base_url=base_url, **options) as client:
            return context_of(client.things.with_raw_response.list().http_response)

    async def main() -> ssl.SSLContext:
        async with sdk.AsyncClient(base_url=base_url, **options) as client:
            raw = await client.things.with_raw_response.list()
            return context_of(raw.http_response)

    return asyncio.run(main())


def count_bundle_loads(monkeypatch: pytest.MonkeyPatch, hold: float = 0.0) -> list[object]:
    """From now on, the file or folder of every CA bundle loaded into a TLS context, as it
    is loaded (each load held ``hold`` seconds longer, so that racing loads overlap)."""
    loads: list[object] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        named = dict(zip(("cafile", "capath", "cadata"), args), **kwargs)
        loads.append(named.get("cafile") or named.get("capath"))
        time.sleep(hold)
        load(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    return loads


def refused(error: BaseException) -> bool:
    """Whether ``error`` comes from a certificate the client did not trust."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_private_authority_is_refused_by_default_and_trusted_through_ssl_cert_file(
    sdk: ModuleType, server: TLSServer, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(sdk.APIConnectionError) as caught:
        fetch(sdk, kind, server.base_url, max_retries=0)
    assert refused(caught.value), caught.value
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
    fetch(sdk, kind, server.base_url)


def test_clients_share_one_context_and_load_no_certificates(
    sdk: ModuleType, server: TLSServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
    first = fetch(sdk, "sync", server.base_url)
    loads = count_bundle_loads(monkeypatch)
    contexts = [fetch(sdk, kind, server.base_url) for kind in ("sync", "async", "sync")]
    assert all(context is first for context in contexts)
    for _ in range(20):
        sdk.Client(base_url=server.base_url).close()
    assert loads == []
    httpx.Client().close()  # the spy sees httpx's own default load its bundle
    assert len(loads) == 1


def test_clients_made_at_once_on_many_threads_load_one_bundle(
    sdk: ModuleType, server: TLSServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca_file = shutil.copy(server.ca_file, tmp_path / "ca.pem")  # a context not built yet
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    loads = count_bundle_loads(monkeypatch, hold=0.2)
    start = threading.Barrier(8)
    contexts: list[ssl.SSLContext] = []

    def one() -> None:
        start.wait()
        contexts.append(fetch(sdk, "sync", server.base_url))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(contexts) == 8 and all(c is contexts[0] for c in contexts)
    assert loads == [str(ca_file)]


def test_a_changed_ssl_cert_file_gives_a_context_of_that_file(
    sdk: ModuleType, servers: tuple[TLSServer, TLSServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = servers
    monkeypatch.setenv("SSL_CERT_FILE", str(first.ca_file))
    before = fetch(sdk, "sync", first.base_url)
    monkeypatch.setenv("SSL_CERT_FILE", str(second.ca_file))
    after = fetch(sdk, "async", second.base_url)
    assert after is not before
    oracle = ssl.create_default_context(cafile=str(second.ca_file))
    assert after.get_ca_certs() == oracle.get_ca_certs() != before.get_ca_certs()
    with pytest.raises(sdk.APIConnectionError) as caught:
        fetch(sdk, "sync", first.base_url, max_retries=0)
    assert refused(caught.value)


def test_ssl_cert_dir_is_trusted_and_its_change_gives_a_new_context(
    sdk: ModuleType,
    servers: tuple[TLSServer, TLSServer],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder of certificates under their subject hashes (``openssl rehash``)."""
    first, second = servers
    folders = []
    for server in servers:
        folder = tmp_path / server.ca_file.stem
        folder.mkdir()
        shutil.copy(server.ca_file, folder / "ca.pem")
        subprocess.run(["openssl", "rehash", str(folder)], check=True)
        folders.append(folder)
    monkeypatch.setenv("SSL_CERT_DIR", str(folders[0]))
    before = fetch(sdk, "sync", first.base_url)
    monkeypatch.setenv("SSL_CERT_DIR", str(folders[1]))
    assert fetch(sdk, "async", second.base_url) is not before
    with pytest.raises(sdk.APIConnectionError) as caught:
        fetch(sdk, "sync", first.base_url, max_retries=0)
    assert refused(caught.value)


def test_sslkeylogfile_receives_the_session_keys(
    sdk: ModuleType, server: TLSServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
    before = fetch(sdk, "sync", server.base_url)
    keys = tmp_path / "keys.log"
    monkeypatch.setenv("SSLKEYLOGFILE", str(keys))
    assert fetch(sdk, "sync", server.base_url) is not before
    assert "CLIENT_TRAFFIC_SECRET_0 " in keys.read_text()


def test_the_shared_context_verifies_as_httpx_default_does(
    sdk: ModuleType, server: TLSServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed httpx is the oracle: a plain ``httpx.Client()`` to the same server."""
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
    ours = fetch(sdk, "sync", server.base_url)
    with httpx.Client() as plain:
        theirs = context_of(plain.get(server.base_url))
    assert theirs is not ours

    def settings(context: ssl.SSLContext) -> dict[str, object]:
        return {
            "verify_mode": context.verify_mode,
            "check_hostname": context.check_hostname,
            "hostname_checks_common_name": context.hostname_checks_common_name,
            "minimum_version": context.minimum_version,
            "maximum_version": context.maximum_version,
            "options": context.options,
            "verify_flags": context.verify_flags,
            "ciphers": [c["name"] for c in context.get_ciphers()],
            "ca_certs": context.get_ca_certs(),
        }

    assert settings(ours) == settings(theirs)
    assert ours.verify_mode == ssl.CERT_REQUIRED and ours.check_hostname


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_the_callers_own_client_settings_are_kept(
    sdk: ModuleType, server: TLSServer, kind: str
) -> None:
    """No ``SSL_CERT_FILE``: only the caller's own context trusts the server."""
    context = ssl.create_default_context(cafile=str(server.ca_file))
    if kind == "sync":
        given: dict[str, Any] = {"http_client": httpx.Client(verify=context)}
        transport: dict[str, Any] = {"transport": httpx.HTTPTransport(verify=context)}
    else:
        given = {"http_client": httpx.AsyncClient(verify=context)}
        transport = {"transport": httpx.AsyncHTTPTransport(verify=context)}
    assert fetch(sdk, kind, server.base_url, **given) is context
    assert fetch(sdk, kind, server.base_url, **transport) is context


Credentials = Callable[[], Any]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_token_requests_verify_with_the_shared_context(
    sdk: ModuleType, server: TLSServer, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    token_url = f"{server.base_url}/token"
    make = sdk.ClientCredentials if kind == "sync" else sdk.AsyncClientCredentials

    def token() -> Any:
        tokens: Credentials = make("app", "secret", token_url=token_url)
        return tokens() if kind == "sync" else asyncio.run(tokens())

    with pytest.raises(httpx.ConnectError) as caught:
        token()
    assert refused(caught.value)
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
    assert token() == "token-1"
    loads = count_bundle_loads(monkeypatch)
    assert token() == "token-1"  # a new client for the request, no new bundle load
    assert loads == []
