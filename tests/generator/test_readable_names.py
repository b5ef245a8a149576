"""Names read as a person would write them: run-together operation ids are split into
words, signs and comparison operators are spelled, and what a method uses gets the plain
name (a numbered name goes to what is left unused)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.helpers import imported_sdk, write


def _spec() -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    translate = {"type": "object", "properties": {"text": {"type": "string"}}}
    form = {"type": "object", "properties": {"text": {"type": "string"}, "extra": {}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Names", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/keys": {
                "post": {
                    "operationId": "CreateanAPIkeyforaserviceaccount",
                    "tags": ["ServiceAccounts"],
                    "responses": ok,
                }
            },
            "/translate": {
                "post": {
                    "operationId": "translateText",
                    "tags": ["Texts"],
                    "requestBody": {
                        "content": {
                            "application/x-www-form-urlencoded": {"schema": form},
                            "application/json": {"schema": translate},
                        }
                    },
                    "responses": ok,
                }
            },
            "/calls": {
                "get": {
                    "operationId": "listCalls",
                    "tags": ["Calls"],
                    "parameters": [
                        {"name": n, "in": "query", "schema": {"type": "string"}}
                        for n in ("DateCreated<", "DateCreated>", "StartTime<=", "Price>=")
                    ],
                    "responses": ok,
                }
            },
        },
        "components": {
            "schemas": {
                "Reactions": {
                    "type": "object",
                    "properties": {
                        "+1": {"type": "integer"},
                        "-1": {"type": "integer"},
                        "to_dict": {"type": "string"},
                    },
                },
                "Vote": {"type": "string", "enum": ["+1", "-1"]},
                "Zone": {"type": "string", "enum": ["Etc/GMT+1", "Etc/GMT-1", "Etc/GMT"]},
                "Model": {"type": "string", "enum": ["claude-3", "es-419"]},
                "Method": {"type": "string", "enum": ["afterpay_clearpay", "klarna"]},
            }
        },
    }


def test_names_read_as_words(tmp_path: Path) -> None:
    spec = write(tmp_path / "names.yaml", yaml.safe_dump(_spec()))
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    with imported_sdk(spec, tmp_path, "readable_sdk") as sdk:
        from readable_sdk import models

        client = sdk.Client(transport=httpx.MockTransport(answer))
        # A run-together operation id is split into words (the tag's words are dropped).
        create = client.service_accounts.create_an_api_key
        assert callable(create)

        # Signs of enum values and property names are spelled.
        assert [m.name for m in models.Vote] == ["PLUS_1", "MINUS_1"]
        assert [m.name for m in models.Zone] == ["ETC_GMT_PLUS_1", "ETC_GMT_MINUS_1", "ETC_GMT"]
        # A dash inside a name is no sign where no value of the enum has a plus.
        assert [m.name for m in models.Model] == ["CLAUDE_3", "ES_419"]
        assert [m.name for m in models.Method] == ["AFTERPAY_CLEARPAY", "KLARNA"]
        reactions = models.Reactions.from_dict({"+1": 3, "-1": 1, "to_dict": "x"})
        assert (reactions.plus_1, reactions.minus_1) == (3, 1)
        # A name the model uses itself: the field gets a trailing underscore, not a number.
        assert reactions.to_dict_ == "x"
        assert reactions.to_dict() == {"+1": 3, "-1": 1, "to_dict": "x"}

        # Comparison operators: before/after for times and dates, lt/gt otherwise.
        params = inspect.signature(client.calls.list).parameters
        spelled = ["date_created_before", "date_created_after", "start_time_on_or_before"]
        assert [*spelled, "price_gte"] == [p for p in params if p != "options"][:4]
        client.calls.list(date_created_before="2024-01-01", price_gte="5")
        assert seen[-1].url.params["DateCreated<"] == "2024-01-01"
        assert seen[-1].url.params["Price>="] == "5"

        # The body the method sends (JSON) has the plain name; the unused form twin is numbered.
        body = inspect.signature(client.texts.translate).parameters["body"]
        assert "TranslateTextBody" in str(body.annotation)
        assert "TranslateTextBody_2" not in str(body.annotation)
        client.texts.translate(body=models.TranslateTextBody(text="hi"))
        assert seen[-1].headers["content-type"] == "application/json"
        assert hasattr(models, "TranslateTextBody_2")
