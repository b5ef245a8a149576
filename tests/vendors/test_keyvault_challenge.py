"""Key Vault's challenge-based authentication with a token credential, end to end: the
SDK of the published 7.4 backup/restore spec (no security scheme; the side file declares
`bearer: {}`), sync and async, against a Managed HSM written from Microsoft's
documentation (`tests/vendors/keyvault.py`) over real HTTP on loopback.

The credential stands for azure-identity's: any object whose `get_token(*scopes)`
returns `.token` and `.expires_on`; the SDK imports nothing of Azure.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import httpx
import pytest
import yaml

from tests.helpers import imported_sdk, write
from tests.vendors.keyvault import CONTAINER, SCOPE, ManagedHsm, Token
from tests.vendors.server import SPECS, Sleeps, VendorServer, drive

SPEC = SPECS / "azure-keyvault-7.4" / "backuprestore.json"
BASE = "https://contoso.managedhsm.azure.net"


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("keyvault74")
    jobs = SPECS / "azure-keyvault-7.4.jobs.yaml"
    with imported_sdk(SPEC, out, "keyvault74_sdk", jobs=jobs) as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@attrs.define
class Credential:
    """A token credential as azure-identity's are: Azure AD issues a token for the
    scope asked, which the HSM accepts when it is its own resource's."""

    hsm: ManagedHsm
    lifetime: int = 3600
    asked: list[tuple[str, ...]] = attrs.field(factory=list)

    def get_token(self, *scopes: str) -> Token:
        self.asked.append(scopes)
        token = f"eyJ0eXAi.token-{len(self.asked)}"
        if scopes == (SCOPE,):
            self.hsm.accepted.add(token)
        return Token(token, int(time.time()) + self.lifetime)


@attrs.define
class AsyncCredential(Credential):
    """The async twin (azure.identity.aio's credentials)."""

    async def get_token(self, *scopes: str) -> Token:  # type: ignore[override]
        return Credential.get_token(self, *scopes)


class Loopback(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Sends the vault's requests to the loopback server (the Host header unchanged)."""

    def __init__(self, url: str) -> None:
        self.target = httpx.URL(url)
        self.sync = httpx.HTTPTransport()
        self.async_ = httpx.AsyncHTTPTransport()

    def _moved(self, request: httpx.Request) -> httpx.Request:
        url = request.url.copy_with(scheme="http", host=self.target.host, port=self.target.port)
        return httpx.Request(
            request.method,
            url,
            headers=request.headers,
            stream=request.stream,
            extensions=request.extensions,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.sync.handle_request(self._moved(request))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.async_.handle_async_request(self._moved(request))

    def close(self) -> None:
        self.sync.close()

    async def aclose(self) -> None:
        await self.async_.aclose()


def body(sdk: ModuleType) -> Any:
    return sdk.models.SASTokenParameter(storage_resource_uri=CONTAINER, token="sv=2020&sig=x")


def run(
    mode: str, sdk: ModuleType, hsm: ManagedHsm, steps: Any, token: Any = None, **credential: Any
) -> tuple[Any, VendorServer, Credential]:
    server = VendorServer(hsm)
    made = (AsyncCredential if mode == "async" else Credential)(hsm, **credential)
    sleeps = Sleeps()
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    with server.running():
        transport = Loopback(server.url)
        outcome = drive(
            mode,
            lambda: client(
                token=made if token is None else token,
                base_url=BASE,
                wait_config=sleeps.config(sdk),
                transport=transport,
            ),
            steps,
        )
    return outcome, server, made


def auth(server: VendorServer) -> list[tuple[str, str, str | None]]:
    return [(s.method, s.path, s.headers.get("authorization")) for s in server.seen]


def test_the_challenge_names_the_resource_and_its_token_goes_with_every_request(
    mode: str, sdk: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.full_backup.create_and_wait(api_version="7.4", body=body(sdk)))

    record, server, credential = run(mode, sdk, ManagedHsm(), steps)
    assert record.status == "Succeeded"
    assert record.azure_storage_blob_container_uri == f"{CONTAINER}/mhsm-contoso-job1"
    token = "Bearer eyJ0eXAi.token-1"
    assert auth(server) == [
        ("POST", "/backup", None),  # no scope known yet: the vault's challenge names it
        ("POST", "/backup", token),
        ("GET", "/backup/job1/pending", token),
        ("GET", "/backup/job1/pending", token),
    ]
    assert server.seen[0].body == server.seen[1].body  # the same create, sent once more
    assert credential.asked == [(SCOPE,)]  # kept until it nearly expires
    assert {s.headers["host"] for s in server.seen} == {"contoso.managedhsm.azure.net"}


def test_a_challenge_naming_a_scope_is_answered_the_same(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.full_backup.create_and_wait(api_version="7.4", body=body(sdk)))

    record, server, credential = run(mode, sdk, ManagedHsm(by_scope=True), steps)
    assert record.status == "Succeeded"
    assert credential.asked == [(SCOPE,)]
    assert [a for *_, a in auth(server)][1:] == ["Bearer eyJ0eXAi.token-1"] * 3


def test_a_token_about_to_expire_is_asked_for_again(mode: str, sdk: ModuleType) -> None:
    """A token is renewed five minutes before it expires, as azure-core does."""

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.full_backup.create_and_wait(api_version="7.4", body=body(sdk)))

    record, server, credential = run(mode, sdk, ManagedHsm(), steps, lifetime=120)
    assert record.status == "Succeeded"
    assert credential.asked == [(SCOPE,)] * 3  # the create's, then one per status read
    assert [a for *_, a in auth(server)][1:] == [f"Bearer eyJ0eXAi.token-{n}" for n in (1, 2, 3)]


def test_a_challenge_naming_another_domain_is_not_answered(mode: str, sdk: ModuleType) -> None:
    """A server cannot obtain a token for another service: a challenge whose resource
    is not the vault's own domain gets no token, and its 401 is raised."""

    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.AuthenticationError) as caught:
            await done(client.full_backup.create_and_wait(api_version="7.4", body=body(sdk)))
        return caught.value

    hsm = ManagedHsm(resource="https://management.azure.com")
    error, server, credential = run(mode, sdk, hsm, steps)
    assert error.status_code == 401
    assert credential.asked == []
    assert auth(server) == [("POST", "/backup", None)]


def test_a_plain_token_is_sent_as_it_is(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.full_backup.create_and_wait(api_version="7.4", body=body(sdk)))

    hsm = ManagedHsm(accepted={"static-token"})
    record, server, _ = run(mode, sdk, hsm, steps, token="static-token")
    assert record.status == "Succeeded"
    assert {a for *_, a in auth(server)} == {"Bearer static-token"}


def test_a_sync_client_refuses_an_async_credential(sdk: ModuleType) -> None:
    hsm = ManagedHsm()
    server = VendorServer(hsm)
    with (
        server.running(),
        sdk.Client(
            token=AsyncCredential(hsm), base_url=BASE, transport=Loopback(server.url)
        ) as client,
        pytest.raises(TypeError, match="an async token credential needs AsyncClient"),
    ):
        client.full_backup.full_backup(api_version="7.4", body=body(sdk))


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The same spec, its side file naming the scope: no challenge is needed."""
    out = tmp_path_factory.mktemp("keyvault74_scoped")
    jobs = write(out / "kv.jobs.yaml", yaml.safe_dump({"bearer": {"scopes": [SCOPE]}}))
    with imported_sdk(SPEC, out, "keyvault74_scoped_sdk", jobs=jobs) as module:
        yield module


def test_a_declared_scope_sends_the_token_with_the_first_request(
    mode: str, scoped: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.full_backup.create_and_wait(api_version="7.4", body=body(scoped)))

    record, server, credential = run(mode, scoped, ManagedHsm(), steps)
    assert record.status == "Succeeded"
    assert credential.asked == [(SCOPE,)]
    assert [a for *_, a in auth(server)] == ["Bearer eyJ0eXAi.token-1"] * 3


def test_the_example_side_file_is_the_one_tested() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "job-extension.md").read_text()
    block = doc.split("<!-- example:keyvault -->\n```yaml\n", 1)[1].split("```", 1)[0]
    side = (SPECS / "azure-keyvault-7.4.jobs.yaml").read_text()
    assert yaml.safe_load(block) == yaml.safe_load(side)
