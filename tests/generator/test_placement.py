"""An enum or union that one model alone uses is defined in that model's module; every
schema is still ``sdk.models.Name``, and operations that use one import it from there."""

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
                    "owner": {"$ref": "#/components/schemas/Owner"},
                },
            },
            "Owner": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Person"},
                    {"$ref": "#/components/schemas/Shop"},
                ],
                "discriminator": {"propertyName": "kind"},
            },
            "Person": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"const": "person"}, "name": {"type": "string"}},
            },
            "Shop": {
                "type": "object",
                "required": ["kind"],
                "properties": {
                    "kind": {"const": "shop"},
                    "pet": {"$ref": "#/components/schemas/Pet"},
                },
            },
            "Toy": {
                "type": "object",
                "properties": {"color": {"$ref": "#/components/schemas/Color"}},
            },
        }
    },
}


def test_enums_and_unions_one_model_uses_live_in_its_module(tmp_path: Path) -> None:
    spec = write(tmp_path / "shelter.json", json.dumps(SPEC))
    with imported_sdk(spec, tmp_path / "out", "shelter") as sdk:
        models = tmp_path / "out" / "shelter" / "shelter" / "models"
        assert sorted(p.name for p in models.glob("*.py")) == [
            "__init__.py",
            "color.py",  # Pet and Toy use it
            "person.py",
            "pet.py",  # with Size (the operation uses it too), PetMood and Owner
            "shop.py",
            "toy.py",
        ]
        from shelter.models.pet import Owner, Pet, PetMood, Size, decode_owner

        assert sdk.models.Size is Size and sdk.models.PetMood is PetMood
        assert sdk.models.Owner is Owner
        assert sdk.models.Color.__module__ == "shelter.models.color"
        assert "Size" in dir(sdk.models)
        pet = Pet.from_dict({"size": "large", "mood": "calm", "color": "red"})
        assert pet == Pet(size="large", mood="calm", color=sdk.models.Color.RED)
        assert pet.size is Size.LARGE and pet.to_dict()["mood"] == "calm"
        assert repr(pet).startswith("Pet(size=<Size.LARGE: 'large'>, color=<Color.RED: 'red'>")
        # A shop that keeps a pet: the union's variant refers back to the module's model.
        shop = decode_owner({"kind": "shop", "pet": {"size": "small"}})
        assert shop == sdk.models.Shop(kind="shop", pet=Pet(size=Size.SMALL))
        owned = Pet.from_dict({"size": "small", "owner": {"kind": "person", "name": "Ann"}})
        assert owned.owner == sdk.models.Person(kind="person", name="Ann")

        def answer(request: httpx.Request) -> httpx.Response:
            assert request.url.params["size"] == "small"
            return httpx.Response(200, json={"size": "small"})

        client = sdk.Client(
            base_url="https://shelter.example", transport=httpx.MockTransport(answer)
        )
        with client:
            assert client.pets.list(size=Size.SMALL) == Pet(size=Size.SMALL)
