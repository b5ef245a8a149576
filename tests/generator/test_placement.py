"""An enum that one model alone uses is defined in that model's module; every schema is
still ``sdk.models.Name``, and operations that use a hosted enum import it from there."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.helpers import imported_sdk, write

SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Shelter", "version": "1.0.0"},
    "servers": [{"url": "https://shelter.example"}],
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "tags": ["pets"],
                "parameters": [
                    {"name": "size", "in": "query", "schema": {"$ref": "#/components/schemas/Size"}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        }
    },
    "components": {
        "schemas": {
            "Size": {"type": "string", "enum": ["small", "large"]},
            "Color": {"type": "string", "enum": ["red", "blue"]},
            "Pet": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"$ref": "#/components/schemas/Size"},
                    "color": {"$ref": "#/components/schemas/Color"},
                    "mood": {"type": "string", "enum": ["calm", "lively"]},
                },
            },
            "Toy": {
                "type": "object",
                "properties": {"color": {"$ref": "#/components/schemas/Color"}},
            },
        }
    },
}


def test_an_enum_one_model_uses_lives_in_its_module(tmp_path: Path) -> None:
    spec = write(tmp_path / "shelter.json", json.dumps(SPEC))
    with imported_sdk(spec, tmp_path / "out", "shelter") as sdk:
        models = tmp_path / "out" / "shelter" / "shelter" / "models"
        assert sorted(p.name for p in models.glob("*.py")) == [
            "__init__.py",
            "color.py",  # Pet and Toy use it
            "pet.py",  # with Size (the operation uses it too) and PetMood
            "toy.py",
        ]
        from shelter.models.pet import Pet, PetMood, Size

        assert sdk.models.Size is Size and sdk.models.PetMood is PetMood
        assert sdk.models.Color.__module__ == "shelter.models.color"
        assert "Size" in dir(sdk.models)
        pet = Pet.from_dict({"size": "large", "mood": "calm", "color": "red"})
        assert pet == Pet(size="large", mood="calm", color=sdk.models.Color.RED)
        assert pet.size is Size.LARGE and pet.to_dict()["mood"] == "calm"
        assert repr(pet).startswith("Pet(size=<Size.LARGE: 'large'>, color=<Color.RED: 'red'>")

        def answer(request: httpx.Request) -> httpx.Response:
            assert request.url.params["size"] == "small"
            return httpx.Response(200, json={"size": "small"})

        client = sdk.Client(
            base_url="https://shelter.example", transport=httpx.MockTransport(answer)
        )
        with client:
            assert client.pets.list(size=Size.SMALL) == Pet(size=Size.SMALL)
