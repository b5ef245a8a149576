"""Swagger 2.0 documents are read as the OpenAPI 3.0 documents they describe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from jobgen.cli import main
from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from tests.helpers import imported_sdk, write

ROOT_DOC = {
    "swagger": "2.0",
    "info": {"title": "Vault", "version": "1.0"},
    "host": "vault.example.com",
    "basePath": "/v1",
    "schemes": ["https"],
    "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "x-key"}},
    "security": [{"key": []}],
    "paths": {
        "/backup": {
            "post": {
                "operationId": "FullBackup",
                "parameters": [
                    {
                        "in": "body",
                        "name": "token",
                        "required": True,
                        "schema": {"$ref": "#/definitions/Token"},
                    },
                    {"$ref": "common.json#/parameters/ApiVersion"},
                ],
                "responses": {
                    "202": {
                        "description": "Started",
                        "headers": {"Azure-AsyncOperation": {"type": "string"}},
                        "schema": {"$ref": "#/definitions/Operation"},
                    },
                    "default": {
                        "description": "Error",
                        "schema": {"$ref": "common.json#/definitions/Error"},
                    },
                },
            }
        }
    },
    "definitions": {
        "Token": {"type": "object", "properties": {"token": {"type": "string"}}},
        "Operation": {
            "type": "object",
            "properties": {
                "status": {"type": "string"},
                "endTime": {"type": "integer", "x-nullable": True},
                "error": {"$ref": "common.json#/definitions/Error"},
            },
        },
    },
}
COMMON = {
    "swagger": "2.0",
    "info": {"title": "common", "version": "1.0"},
    "paths": {},
    "parameters": {
        "ApiVersion": {"name": "api-version", "in": "query", "required": True, "type": "string"}
    },
    "definitions": {"Error": {"type": "object", "properties": {"code": {"type": "string"}}}},
}


def test_a_swagger_2_document_builds_as_openapi_3(tmp_path: Path) -> None:
    spec = write(tmp_path / "vault.json", json.dumps(ROOT_DOC))
    write(tmp_path / "common.json", json.dumps(COMMON))
    sdk = load_and_build(spec)
    assert sdk.base_url == "https://vault.example.com/v1"
    (op,) = [op for r in sdk.resources for op in r.operations]
    assert op.body is not None and op.body.required
    assert [(p.wire, p.location, p.required) for p in op.parameters] == [
        ("api-version", "query", True)
    ]
    assert op.response.status == "202" and op.response.kind == "json"
    operation = sdk.schemas[f"{spec}#/components/schemas/Operation"]
    assert isinstance(operation, ir.Model)
    end = next(f for f in operation.fields if f.wire == "endTime")
    assert isinstance(end.type, ir.Nullable)
    assert [a.scheme for a in sdk.auths] == ["key"]


def test_other_swagger_versions_are_refused(tmp_path: Path) -> None:
    spec = write(tmp_path / "old.json", json.dumps({"swagger": "1.2", "info": {}}))
    with pytest.raises(SpecError, match="Swagger 1.2 is not supported"):
        load_and_build(spec)


# -- Azure's extensions -------------------------------------------------------------------
# Oracle: AutoRest's documentation of the extensions
# (https://github.com/Azure/autorest/blob/main/docs/extensions/readme.md): x-ms-paths keys
# may carry a query "for disambiguation, however they are removed during model parsing";
# x-ms-parameterized-host's hostTemplate is the client's host, its parameters client
# parameters (useSchemePrefix, default true, prefixes the first of ``schemes``);
# x-ms-skip-url-encoding sends a value as given.

AZURE_DOC: dict[str, object] = {
    "swagger": "2.0",
    "info": {"title": "Docs", "version": "2024-11-30"},
    "schemes": ["https"],
    "x-ms-parameterized-host": {
        "hostTemplate": "{endpoint}/docs/{Version}",
        "useSchemePrefix": False,
        "parameters": [
            {"$ref": "#/parameters/Endpoint"},
            {"name": "Version", "in": "path", "required": True, "type": "string", "enum": ["v2"]},
        ],
    },
    "consumes": ["application/json"],
    "produces": ["application/json"],
    "paths": {
        "/models/{modelId}:analyze": {
            "post": {
                "operationId": "Models_AnalyzeFromStream",
                "consumes": ["application/octet-stream"],
                "parameters": [
                    {"$ref": "#/parameters/ModelId"},
                    {"$ref": "#/parameters/AnalyzeInput"},
                ],
                "responses": {"202": {"description": "Accepted"}},
            }
        },
        "/translate": {
            "post": {
                "operationId": "Translate",
                "consumes": ["multipart/form-data"],
                "parameters": [
                    {"name": "document", "in": "formData", "required": True, "type": "file"},
                    {"name": "language", "in": "formData", "type": "string"},
                ],
                "responses": {"200": {"description": "OK"}},
            }
        },
    },
    "x-ms-paths": {
        "/models/{modelId}:analyze?_overload=analyze": {
            "post": {
                "operationId": "Models_Analyze",
                "parameters": [
                    {"$ref": "#/parameters/ModelId"},
                    {"in": "body", "name": "request", "schema": {"$ref": "#/definitions/Req"}},
                ],
                "responses": {"202": {"description": "Accepted"}},
            }
        }
    },
    "parameters": {
        "Endpoint": {
            "name": "endpoint",
            "in": "path",
            "required": True,
            "type": "string",
            "x-ms-skip-url-encoding": True,
        },
        "ModelId": {"name": "modelId", "in": "path", "required": True, "type": "string"},
        "AnalyzeInput": {
            "name": "input",
            "in": "body",
            "required": True,
            "schema": {"type": "string", "format": "binary"},
        },
    },
    "definitions": {"Req": {"type": "object", "properties": {"url": {"type": "string"}}}},
}


def _azure(tmp_path: Path, **changes: object) -> Path:
    return write(tmp_path / "docs.json", json.dumps({**AZURE_DOC, **changes}))


def test_azure_paths_bodies_and_host_template(tmp_path: Path) -> None:
    sdk = load_and_build(_azure(tmp_path))
    ops = {op.operation_id: op for r in sdk.resources for op in r.operations}
    assert sorted(ops) == ["Models_Analyze", "Models_AnalyzeFromStream", "Translate"]
    # The x-ms-paths query only tells the two apart; the host's path part is in every path.
    assert ops["Models_Analyze"].path == "/docs/v2/models/{modelId}:analyze"
    assert ops["Models_AnalyzeFromStream"].path == "/docs/v2/models/{modelId}:analyze"
    # The body parameter named by $ref to the root parameters is the request body.
    stream = ops["Models_AnalyzeFromStream"].body
    assert stream is not None and stream.required and stream.kind == "binary"
    analyze = ops["Models_Analyze"].body
    assert analyze is not None and analyze.kind == "json"
    # formData parameters are the fields of a multipart body.
    form = ops["Translate"].body
    assert form is not None and form.kind == "multipart"
    # The endpoint is no operation's parameter: it is the client's base URL, required.
    assert [p.wire for p in ops["Models_Analyze"].parameters] == ["modelId"]
    assert sdk.base_url == ""


def test_a_host_template_whose_variables_have_defaults_is_the_default_base_url(
    tmp_path: Path,
) -> None:
    host = {
        "hostTemplate": "{geography}.atlas.example.com",
        "parameters": [
            {
                "name": "geography",
                "in": "path",
                "type": "string",
                "default": "us",
                "enum": ["us", "eu"],
            }
        ],
    }
    sdk = load_and_build(_azure(tmp_path, **{"x-ms-parameterized-host": host}))
    assert sdk.base_url == "https://us.atlas.example.com"
    ops = {op.operation_id: op.path for r in sdk.resources for op in r.operations}
    assert ops["Models_Analyze"] == "/models/{modelId}:analyze"


def test_azure_sdk_sends_to_the_endpoint_without_the_disambiguating_query(
    tmp_path: Path,
) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(202)

    with imported_sdk(_azure(tmp_path), tmp_path / "out", "docs_sdk") as sdk:
        client = sdk.Client(
            base_url="https://res.example.com", transport=httpx.MockTransport(answer)
        )
        client.models.analyze("prebuilt/read", body=sdk.models.Req(url="https://x/y.pdf"))
        client.models.analyze_from_stream("m1", body=b"%PDF-1.7")
    assert [str(r.url) for r in seen] == [
        "https://res.example.com/docs/v2/models/prebuilt%2Fread:analyze",
        "https://res.example.com/docs/v2/models/m1:analyze",
    ]
    assert json.loads(seen[0].content) == {"url": "https://x/y.pdf"}
    assert seen[1].content == b"%PDF-1.7"


def test_problems_name_the_swagger_2_document(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(AZURE_DOC))
    doc["definitions"]["Req"]["properties"]["url"] = {"$ref": "#/definitions/Missing"}
    doc["parameters"]["ModelId"]["type"] = "strange"
    spec = write(tmp_path / "docs.json", json.dumps(doc))
    with pytest.raises(SpecError) as caught:
        load_and_build(spec)
    found = {str(p) for p in caught.value.problems}
    assert (
        f"{spec}#/definitions/Req/properties/url/$ref: target '/definitions/Missing' does not exist"
        in found
    )
    assert (
        f"{spec}#/parameters/ModelId/type: unknown type 'strange' (did you mean 'string'?)" in found
    )


def test_skip_url_encoding_on_an_operation_parameter_is_warned_once(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(AZURE_DOC))
    doc["parameters"]["ModelId"]["x-ms-skip-url-encoding"] = True
    sdk = load_and_build(write(tmp_path / "docs.json", json.dumps(doc)))
    expected = (
        f"{tmp_path / 'docs.json'}#/parameters/ModelId/x-ms-skip-url-encoding: "
        "x-ms-skip-url-encoding is supported for host parameters only; "
        "this value is percent-encoded"
    )
    assert [w for w in sdk.warnings if "skip-url-encoding" in w] == [expected]


def test_an_api_key_no_header_can_carry_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """App Configuration names its apiKey header ``Connection String``."""
    schemes = {
        "conn": {"type": "apiKey", "in": "header", "name": "Connection String"},
        "aad": {
            "type": "oauth2",
            "flow": "implicit",
            "authorizationUrl": "https://l/a",
            "scopes": {},
        },
    }
    spec = _azure(tmp_path, securityDefinitions=schemes, security=[{"conn": []}, {"aad": []}])
    sdk = load_and_build(spec)
    assert [a.scheme for a in sdk.auths] == ["aad"]
    assert (
        f"{spec}#/securityDefinitions/conn/name: 'Connection String' is not a valid header name: "
        "only letters, digits and !#$%&*+-.^_`|~ are allowed; the scheme is left out"
    ) in sdk.warnings


# -- the $ref root ------------------------------------------------------------------------


def _shared_types(tmp_path: Path) -> Path:
    write(
        tmp_path / "common-types" / "types.json",
        json.dumps(
            {
                "swagger": "2.0",
                "info": {"title": "t", "version": "1"},
                "paths": {},
                "definitions": {
                    "Error": {"type": "object", "properties": {"code": {"type": "string"}}}
                },
            }
        ),
    )
    doc = json.loads(json.dumps(AZURE_DOC))
    doc["definitions"]["Req"]["properties"]["error"] = {
        "$ref": "../../common-types/types.json#/definitions/Error"
    }
    return write(tmp_path / "svc" / "stable" / "docs.json", json.dumps(doc))


def test_ref_root_widens_where_refs_may_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _shared_types(tmp_path)
    assert main(["validate", str(spec)]) == 2
    err = capsys.readouterr().err
    assert (
        "docs.json#/definitions/Req/properties/error/$ref: $ref "
        "'../../common-types/types.json' points outside the spec's folder; "
        "widen it with --ref-root DIR (or ref_root in the config)"
    ) in err
    assert main(["validate", "--ref-root", str(tmp_path), str(spec)]) == 0
    out = tmp_path / "out"
    assert main(["generate", str(spec), "-o", str(out), "--ref-root", str(tmp_path)]) == 0
    # Outside the widened root is still refused.
    assert main(["validate", "--ref-root", str(tmp_path / "svc"), str(spec)]) == 2
    assert "points outside the --ref-root folder" in capsys.readouterr().err
    # The root must be a folder that holds the spec.
    assert main(["validate", "--ref-root", str(tmp_path / "none"), str(spec)]) == 2
    assert (
        f"error: {tmp_path / 'none'}#: is not a folder (the $ref root: --ref-root, ref_root)"
        in capsys.readouterr().err
    )
    assert main(["validate", "--ref-root", str(tmp_path / "common-types"), str(spec)]) == 2
    assert (
        f"error: {spec}#: is not inside the $ref root {tmp_path / 'common-types'}"
        in capsys.readouterr().err
    )


def test_ref_root_in_the_config_is_relative_to_it(tmp_path: Path) -> None:
    spec = _shared_types(tmp_path)
    config = write(
        tmp_path / "jobgen.toml",
        '[[sdk]]\nspec = "svc/stable/docs.json"\noutput = "out"\nref_root = "."\n',
    )
    assert main(["generate", "--config", str(config)]) == 0
    assert (tmp_path / "out" / "docs" / "models").is_dir()
    assert spec.is_file()


# -- broken 2.0 structures ------------------------------------------------------------------

OP = "/paths/~1backup/post"


def _broken(doc: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    node = out
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


@pytest.mark.parametrize(
    ("pointer", "value", "message"),
    [
        (f"{OP}/parameters", 5, "parameters must be a list, not a number"),
        (f"{OP}/responses", [1], "responses must be a mapping, not a list"),
        ("/paths", [1], "paths must be a mapping, not a list"),
        ("/consumes", 5, "must be a list of media types (strings), not a number"),
        (
            f"{OP}/produces",
            "application/json",
            "must be a list of media types (strings), not a string",
        ),
        ("/schemes", 5, "must be a list of schemes (http, https), not a number"),
        ("/schemes", "http", "must be a list of schemes (http, https), not a string"),
        ("/schemes", ["ftp"], "unknown scheme 'ftp' (known: http, https, ws, wss)"),
        (
            "/host",
            {"a": 1},
            "must be a host name with an optional port (no scheme, no path), not {'a': 1}",
        ),
        ("/host", 443, "must be a host name with an optional port (no scheme, no path), not 443"),
        (
            "/host",
            "https://vault.example.com",
            (
                "must be a host name with an optional port (no scheme, no path),"
                " not 'https://vault.example.com'"
            ),
        ),
        ("/basePath", "v1", "must be a path starting with '/', not 'v1'"),
        ("/securityDefinitions/key", {"type": "oauth2", "flow": [1]}, None),
        ("/parameters", 5, "parameters must be a mapping, not a number"),
        ("/definitions", [1], "definitions must be a mapping, not a list"),
        (f"{OP}/responses/202", 5, "a response must be a mapping, not a number"),
        (f"{OP}/responses/202/headers", [1], "headers must be a mapping, not a list"),
        (f"{OP}/parameters/0", "x", "a parameter must be a mapping, not a string"),
        ("/x-ms-paths", 5, "x-ms-paths must be a mapping, not a number"),
        ("/x-ms-parameterized-host", {"hostTemplate": 5}, None),
    ],
)
def test_a_broken_swagger_2_structure_is_refused_at_its_pointer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pointer: str,
    value: Any,
    message: str | None,
) -> None:
    spec = write(tmp_path / "vault.json", json.dumps(_broken(ROOT_DOC, pointer, value)))
    write(tmp_path / "common.json", json.dumps(COMMON))
    out = tmp_path / "out"
    assert main(["generate", str(spec), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    if message is None:  # the problem is inside the value
        expected = {
            "/securityDefinitions/key": (
                "/securityDefinitions/key/flow: must be one of implicit, password, "
                "application, accessCode, not [1]"
            ),
            "/x-ms-parameterized-host": "/x-ms-parameterized-host/hostTemplate: must be a non-empty string",
        }[pointer]
        assert f"error: {spec}#{expected}\n" in err
    else:
        assert f"error: {spec}#{pointer}: {message}\n" in err
    assert "internal error" not in err and not out.exists()


def test_a_host_path_variable_without_a_default_is_a_parameter_of_every_operation(
    tmp_path: Path,
) -> None:
    host = {
        "hostTemplate": "{endpoint}/docs/{Version}",
        "useSchemePrefix": False,
        "parameters": [
            {"$ref": "#/parameters/Endpoint"},
            {"name": "Version", "in": "path", "required": True, "type": "string"},
        ],
    }
    sdk = load_and_build(_azure(tmp_path, **{"x-ms-parameterized-host": host}))
    for op in (op for r in sdk.resources for op in r.operations):
        assert op.path.startswith("/docs/{Version}/")
        assert "Version" in [p.wire for p in op.path_parameters]


@pytest.mark.parametrize(
    ("template", "default", "problem"),
    [
        # the fourth hardening pass: the default made the base URL 127.0.0.1, key and all
        ("http://{acct}.example.invalid", "127.0.0.1:8080/steal?x=", "has a path"),
        ("{acct}.example.invalid", "evil.example?", "has a query"),
        ("{acct}.example.invalid", "evil.example#", "has a fragment"),
        ("{acct}.example.invalid", "me@evil.example", "has userinfo"),
        ("{acct}.example.invalid", "evil.example:8080", "has no valid port"),
        ("{host}", "127.0.0.1:8080", "has a port the template does not have"),
        ("{host}", "evil example", "has no valid host name"),
    ],
)
def test_a_host_template_default_that_is_not_a_host_is_refused_at_its_pointer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    template: str,
    default: str,
    problem: str,
) -> None:
    host = {
        "hostTemplate": template,
        "useSchemePrefix": "://" not in template,
        "parameters": [
            {
                "name": template.split("{")[1].split("}")[0],
                "in": "path",
                "type": "string",
                "default": default,
            }
        ],
    }
    spec = _azure(tmp_path, **{"x-ms-parameterized-host": host})
    out = tmp_path / "out"
    assert main(["generate", str(spec), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    at = f"{spec}#/x-ms-parameterized-host/parameters/0/default"
    assert f"error: {at}: {default!r} makes the host template" in err
    assert f"which {problem}; a host variable holds a host name" in err
    assert "internal error" not in err and not out.exists()


@pytest.mark.parametrize(
    ("template", "default", "base_url"),
    [
        ("{acct}.example.invalid", "127.0.0.1", "https://127.0.0.1.example.invalid"),
        ("{acct}.example.invalid:8443", "eu-1", "https://eu-1.example.invalid:8443"),
        ("{host}:{port}", "localhost", "https://localhost:8443"),
        ("{endpoint}", "https://vault.example.com:8443", "https://vault.example.com:8443"),
    ],
)
def test_a_host_template_default_that_is_a_host_is_the_base_url(
    tmp_path: Path, template: str, default: str, base_url: str
) -> None:
    names = [part.split("}")[0] for part in template.split("{")[1:]]
    values = {names[0]: default, "port": "8443"}
    host = {
        "hostTemplate": template,
        "useSchemePrefix": template != "{endpoint}",
        "parameters": [
            {"name": name, "in": "path", "type": "string", "default": values[name]}
            for name in names
        ],
    }
    sdk = load_and_build(_azure(tmp_path, **{"x-ms-parameterized-host": host}))
    assert sdk.base_url == base_url
