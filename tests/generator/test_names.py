"""Names from a spec never collide with the names generated modules use for themselves.

Runtime and typing names are imported under private module prefixes (``_s``, ``_http``,
``_ws``, ``_waiter``, ``_t``, ``_abc``), so a schema may be called ``JobSpec`` or ``Any``;
resource classes come in free X/AsyncX pairs; parameters and client attributes keep
clear of the names the methods and classes use.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jobgen.cli import main
from jobgen.render.escape import py_str
from tests.helpers import imported_sdk, write

SHADOWING = ["JobSpec", "PollEvent", "RequestOptions", "Callable", "Mapping", "Any"]
SHADOWING += ["SyncHTTP", "attrs", "datetime", "Unset", "UNSET", "Union", "TypeAlias"]


def _ok(schema: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": schema}}} if schema else {}
    return {"200": {"description": "ok", **body}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def names_spec() -> dict[str, Any]:
    """Every clash the issue lists, in one spec."""
    shadows = {
        name: {"type": "object", "properties": {"x": {"type": "string"}}} for name in SHADOWING
    }
    holder = {
        "type": "object",
        "properties": {
            **{f"p{i}": _ref(name) for i, name in enumerate(SHADOWING)},
            "when": {"type": "string", "format": "date-time"},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Names", "version": "1.0"},
        "servers": [{"url": "https://api.example"}],
        "paths": {
            "/things/{id}": {
                "get": {
                    "operationId": "getThing",
                    "tags": ["things"],
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {"name": "response", "in": "query", "schema": {"type": "string"}},
                        {"name": "mode", "in": "query", "schema": _ref("Mode")},
                    ],
                    "responses": _ok(_ref("Holder")),
                }
            },
            "/mode": {
                "get": {
                    "operationId": "getMode",
                    "tags": ["async things"],
                    "responses": _ok(_ref("Mode")),
                }
            },
            "/types": {
                "post": {
                    "operationId": "makeType",
                    "tags": ["type"],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("Callable")}},
                    },
                    "responses": _ok(_ref("Any")),
                }
            },
        },
        "components": {
            "schemas": {
                "Mode": {"type": "string", "enum": ["fast", "slow"]},
                "Holder": holder,
                **shadows,
            }
        },
    }


def _mypy_strict(root: Path, package: str, cache: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), package],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_spec_names_that_match_runtime_and_typing_names_type_check(
    tmp_path: Path, mypy_cache: Path
) -> None:
    spec = write(tmp_path / "names.yaml", yaml.safe_dump(names_spec()))
    with imported_sdk(spec, tmp_path, "names_sdk") as sdk:
        from names_sdk.models import Any as AnyModel
        from names_sdk.models import JobSpec, Mode

        assert JobSpec.from_dict({"x": "1"}).x == "1"
        assert AnyModel.from_dict({}).to_dict() == {}
        # Tags "things" and "async things": four classes, none hiding another.
        client = sdk.Client(
            transport=httpx.MockTransport(lambda r: httpx.Response(200, json="fast"))
        )
        assert client.async_things.get_mode() is Mode.FAST
        aclient = sdk.AsyncClient()
        resources = [client.things, client.async_things, aclient.things, aclient.async_things]
        assert len({type(r).__name__ for r in resources}) == 4
    _mypy_strict(tmp_path / "names_sdk", "names_sdk", mypy_cache)


def test_a_query_parameter_named_response_is_sent(tmp_path: Path) -> None:
    spec = write(tmp_path / "names.yaml", yaml.safe_dump(names_spec()))
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"when": "2024-01-01T00:00:00Z"})

    with imported_sdk(spec, tmp_path, "names_sdk") as sdk:
        client = sdk.Client(transport=httpx.MockTransport(answer))
        holder = client.things.get("7", response_="full")
        assert holder.when.year == 2024
    assert seen[0].url.params["response"] == "full"


@pytest.mark.slow
def test_a_spec_without_schemas_type_checks(tmp_path: Path, mypy_cache: Path) -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Bare", "version": "1.0"},
        "paths": {
            "/ping": {"get": {"operationId": "ping", "responses": {"204": {"description": "ok"}}}}
        },
    }
    path = write(tmp_path / "bare.yaml", yaml.safe_dump(spec))
    with imported_sdk(path, tmp_path, "bare_sdk") as sdk:
        import bare_sdk.models

        assert bare_sdk.models.__all__ == []
        assert sdk.Client(base_url="https://api.example").__class__.__name__ == "Client"
    _mypy_strict(tmp_path / "bare_sdk", "bare_sdk", mypy_cache)


NOT_TOKENS = ["X Trace", 'X-"Trace"', "X-'Trace'", "X-Trace\r\nX-Evil: 1", ""]


@pytest.mark.parametrize("name", NOT_TOKENS)
def test_an_api_key_header_that_is_not_a_token_is_left_out_with_a_warning(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No request can carry it (App Configuration's ``Connection String``): the scheme is
    left out, as such parameters are, and the spec's other schemes remain."""
    spec = names_spec()
    spec["components"]["securitySchemes"] = {
        "key": {"type": "apiKey", "in": "header", "name": name},
        "bearer": {"type": "http", "scheme": "bearer"},
    }
    path = write(tmp_path / "spec.yaml", yaml.safe_dump(spec))
    out = tmp_path / "out"
    assert main(["generate", str(path), "-o", str(out), "--package", "names_sdk"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {path}#/components/securitySchemes/key/name: " in err
    assert "not a valid header name" in err and "the scheme is left out" in err
    client = (out / "names_sdk" / "_client.py").read_text()
    assert "token: str" in client and "api_key" not in client
    assert not name or py_str(name) not in client


@pytest.mark.parametrize("name", NOT_TOKENS)
def test_a_header_parameter_that_is_not_a_token_is_left_out(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = names_spec()
    spec["paths"]["/mode"]["get"]["parameters"] = [
        {"name": name, "in": "header", "schema": {"type": "string"}},
        {"name": "X-Fine", "in": "header", "schema": {"type": "string"}},
    ]
    path = write(tmp_path / "spec.yaml", yaml.safe_dump(spec))
    out = tmp_path / "out"
    assert main(["generate", str(path), "-o", str(out), "--package", "names_sdk"]) == 0
    err = capsys.readouterr().err
    assert "/paths/~1mode/get/parameters/0/name" in err and "the parameter is left out" in err
    resources = "".join(f.read_text() for f in (out / "names_sdk" / "resources").glob("*.py"))
    assert '"X-Fine"' in resources
    assert not name or py_str(name) not in resources  # '""' is in any module


def test_an_enum_value_that_differs_only_in_case_is_not_known(tmp_path: Path) -> None:
    spec = write(tmp_path / "names.yaml", yaml.safe_dump(names_spec()))
    with imported_sdk(spec, tmp_path, "names_sdk"):
        from names_sdk.models import Mode

        assert Mode("fast").is_known and Mode("fast") is Mode.FAST
        odd = Mode.decode("FAST", "$")
        assert odd.value == "FAST" and not odd.is_known
        assert not Mode("Slow").is_known
