"""API keys sent after a scheme word (from the spec's ``x-default`` or description, the
config's ``auth_prefix`` or the side file's), and a required ``api-version`` that takes
its default from the spec; through generated SDKs over real HTTP."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from jobgen.cli import main
from tests.helpers import SPECS, imported_sdk, write
from tests.loopback import Seen, loopback

SPEC = """
openapi: 3.0.3
info: {title: Keys, version: "2024-11-30"}
servers: [{url: "https://keys.example"}]
security: [{tokenHeader: []}]
paths:
  /azure:
    get:
      operationId: azureStyle
      tags: [things]
      parameters:
        - {name: api-version, in: query, required: true, schema: {type: string}}
      responses: {"204": {description: Done.}}
  /one:
    get:
      operationId: enumOfOne
      tags: [things]
      parameters:
        - {name: api-version, in: query, required: true, schema: {type: string, enum: ["2023-01-01"]}}
      responses: {"204": {description: Done.}}
  /default:
    get:
      operationId: withDefault
      tags: [things]
      parameters:
        - {name: api-version, in: query, required: true, schema: {type: string, default: "2022-02-02"}}
      responses: {"204": {description: Done.}}
components:
  securitySchemes:
    tokenHeader:
      type: apiKey
      in: header
      name: Authorization
      x-default: Token $token
"""


@contextmanager
def imported_sdk_at(out: Path, package: str) -> Iterator[ModuleType]:
    """Import an SDK already generated into ``out``; unimport it afterwards."""
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


def _accept(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    return 204, {}, b""


@pytest.fixture
def server() -> Iterator[tuple[str, list[Seen]]]:
    with loopback(_accept) as running:
        yield running


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("keys")
    spec = write(root / "keys.yaml", SPEC)
    with imported_sdk(spec, root / "out", "keys_sdk") as sdk:
        yield sdk


def test_the_x_default_scheme_word_goes_before_the_key(
    keys: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    with keys.Client(base_url=url, api_key="s3cret") as client:
        client.things.azure_style()
    assert seen[0].all("Authorization") == ["Token s3cret"]


def test_api_version_defaults_come_from_the_spec(
    keys: ModuleType, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server

    async def main_async() -> None:
        async with keys.AsyncClient(base_url=url, api_key="k") as client:
            await client.things.azure_style()

    with keys.Client(base_url=url, api_key="k") as client:
        client.things.azure_style()
        client.things.enum_of_one()
        client.things.with_default()
        client.things.azure_style(api_version="2025-01-01-preview")
    asyncio.run(main_async())
    assert [(s.path, s.query["api-version"]) for s in seen] == [
        ("/azure", ["2024-11-30"]),  # info.version, an Azure-style API version
        ("/one", ["2023-01-01"]),  # the enum's one value
        ("/default", ["2022-02-02"]),  # the schema's default
        ("/azure", ["2025-01-01-preview"]),
        ("/azure", ["2024-11-30"]),
    ]


def test_no_version_default_where_info_version_is_no_api_version(tmp_path: Path) -> None:
    spec = write(tmp_path / "plain.yaml", SPEC.replace('version: "2024-11-30"', "version: 1.0.0"))
    with imported_sdk(spec, tmp_path / "out", "plain_keys_sdk") as sdk, pytest.raises(TypeError):
        sdk.Client(api_key="k").things.azure_style()


def test_the_config_sets_or_overrides_the_prefix(
    tmp_path: Path, server: tuple[str, list[Seen]]
) -> None:
    url, seen = server
    write(tmp_path / "keys.yaml", SPEC)
    config = write(
        tmp_path / "jobgen.toml",
        '[[sdk]]\nspec = "keys.yaml"\noutput = "out"\npackage = "cfg_keys_sdk"\n'
        'auth_prefix = { tokenHeader = "Bearer-Key" }\n',
    )
    assert main(["generate", "--config", str(config)]) == 0
    assert main(["generate", "--config", str(config), "--check"]) == 0
    with (
        imported_sdk_at(tmp_path / "out", "cfg_keys_sdk") as sdk,
        sdk.Client(base_url=url, api_key="k") as client,
    ):
        client.things.with_default()
    assert seen[0].all("Authorization") == ["Bearer-Key k"]


def test_the_side_file_sets_the_prefix(tmp_path: Path) -> None:
    spec = yaml.safe_load((SPECS / "sume.yaml").read_text())
    side = {"auth_prefix": {"ApiKeyAuth": "Member"}, **spec.pop("x-jobgen")}
    write(tmp_path / "sume.yaml", yaml.safe_dump(spec))
    write(tmp_path / "sume.jobs.yaml", yaml.safe_dump(side))
    jobs = tmp_path / "sume.jobs.yaml"
    with (
        imported_sdk(tmp_path / "sume.yaml", tmp_path / "out", "side_sume_sdk", jobs=jobs) as sdk,
        loopback(lambda request: (404, {}, b"")) as (url, seen),
        sdk.Client(base_url=url, api_key="k") as client,
        pytest.raises(sdk.NotFoundError),
    ):
        client.jobs.get("j1")
    assert seen[0].all("x-api-key") == ["Member k"]


def test_a_bad_auth_prefix_is_exit_2_naming_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "keys.yaml", SPEC)
    config = write(
        tmp_path / "jobgen.toml",
        '[[sdk]]\nspec = "keys.yaml"\noutput = "out"\npackage = "bad_keys_sdk"\n'
        'auth_prefix = { nope = "Key", tokenHeader = "two words" }\n',
    )
    assert main(["generate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"{config}#/sdk/0/auth_prefix/nope: no apiKey security scheme 'nope'" in err
    assert f"{config}#/sdk/0/auth_prefix/tokenHeader: must be one word" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()
