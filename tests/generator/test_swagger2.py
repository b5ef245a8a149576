"""Swagger 2.0 documents are read as the OpenAPI 3.0 documents they describe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.model import ir
from generator.model.build import load_and_build
from generator.problems import SpecError
from tests.helpers import write

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
