"""A property, item or parameter whose schema allows one value (``const``, or an inline
``enum`` of one value) is typed as that value, ``Literal[...]``: no enum class. A required
one defaults to its value, encoding writes it and decoding refuses any other, so a union
tried in order still tells its variants apart. A named one-value enum stays a class."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Literal, get_type_hints

import httpx
import pytest

from tests.helpers import imported_sdk, write

_OK = {
    "description": "ok",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
}
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Kennel", "version": "1.0.0"},
    "servers": [{"url": "https://kennel.example"}],
    "paths": {
        "/pets": {
            "post": {
                "operationId": "createPet",
                "tags": ["pets"],
                "parameters": [
                    {
                        "name": "mode",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "enum": ["fast"]},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                    },
                },
                "responses": {"200": _OK},
            }
        }
    },
    "components": {
        "schemas": {
            "Pet": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Cat"},
                    {"$ref": "#/components/schemas/Dog"},
                ],
                "discriminator": {"propertyName": "kind"},
            },
            "Breed": {"type": "string", "enum": ["mixed"]},
            "Cat": {
                "type": "object",
                "required": ["kind", "name", "lives"],
                "properties": {
                    "kind": {"type": "string", "enum": ["cat"]},
                    "name": {"type": "string"},
                    "lives": {"type": "integer", "enum": [9]},
                    "sound": {"type": "string", "enum": ["meow"]},
                    "owner": {"type": ["string", "null"], "enum": ["alice", None]},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["tabby"]}},
                    "breed": {"$ref": "#/components/schemas/Breed"},
                },
            },
            "Dog": {
                "type": "object",
                "required": ["kind", "name"],
                "properties": {"kind": {"const": "dog"}, "name": {"type": "string"}},
            },
        }
    },
}
# Spelled as application code would; the last lines are mistakes mypy must report.
APP = """\
from kennel import Client
from kennel.models import Breed, Cat, Dog, Pet

cat: Pet = Cat(name="Tom", sound="meow", owner=None, tags=["tabby"], breed="mixed")
dog = Dog(kind="dog", name="Rex")
with Client(base_url="https://kennel.example") as client:
    made: Pet = client.pets.create(body=dog)
    again: Pet = client.pets.create(body=cat, mode="fast")
named: Breed = Breed.MIXED
wrong = Dog(kind="cat", name="Rex")  # error
quiet = Cat(name="Tom", sound="purr")  # error
slow = Client().pets.create(body=dog, mode="slow")  # error
"""


def _mypy(cwd: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", *targets],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_one_value_fields_decode_encode_and_refuse_other_values(tmp_path: Path) -> None:
    spec = write(tmp_path / "kennel.json", json.dumps(SPEC))
    with imported_sdk(spec, tmp_path / "out", "kennel") as sdk:
        m = sdk.models
        assert not hasattr(m, "CatKind") and not hasattr(m, "CatSound")
        assert m.Breed.MIXED.value == "mixed"  # a named one-value enum stays a class
        hints = get_type_hints(m.Cat)
        unset, DecodeError = sdk._runtime.wire.serde.Unset, sdk.errors.DecodeError
        assert hints["kind"] == Literal["cat"] and hints["lives"] == Literal[9]
        assert hints["owner"] == Literal["alice"] | None | unset
        assert hints["tags"] == list[Literal["tabby"]] | unset
        # A required one defaults to its value and is always written.
        cat = m.Cat(name="Tom")
        assert (cat.kind, cat.lives) == ("cat", 9)
        assert cat.to_dict() == {"kind": "cat", "name": "Tom", "lives": 9}
        assert m.Dog(name="Rex").to_dict() == {"kind": "dog", "name": "Rex"}
        full = {
            "kind": "cat",
            "name": "Tom",
            "lives": 9,
            "sound": "meow",
            "owner": None,
            "tags": ["tabby"],
        }
        assert m.Cat.from_dict(full).to_dict() == full
        assert m.Cat.from_dict({**full, "owner": "alice"}).owner == "alice"
        # Decoding refuses any other value, a missing required one, and a value of another type.
        refused = [
            ({**full, "kind": "dog"}, "$.kind"),
            ({**full, "lives": 8}, "$.lives"),
            ({**full, "lives": "9"}, "$.lives"),
            ({**full, "sound": "purr"}, "$.sound"),
            ({**full, "owner": "bob"}, "$.owner"),
            ({**full, "tags": ["tabby", "calico"]}, "$.tags[1]"),
            ({"name": "Tom", "lives": 9}, "$.kind"),
        ]
        for data, path in refused:
            with pytest.raises(DecodeError) as caught:
                m.Cat.from_dict(data)
            assert caught.value.path == path, data
        # The union picks each variant by its value, with or without the discriminator table.
        from kennel.models.pet import decode_pet

        assert decode_pet({"kind": "dog", "name": "Rex"}, "$") == m.Dog(name="Rex")
        assert decode_pet({"kind": "cat", "name": "Tom", "lives": 9}, "$") == m.Cat(name="Tom")
        with pytest.raises(DecodeError):
            decode_pet({"kind": "bird", "name": "Tweety"}, "$")

        sent: list[httpx.Request] = []

        def answer(request: httpx.Request) -> httpx.Response:
            sent.append(request)
            return httpx.Response(200, json={"kind": "cat", "name": "Tom", "lives": 9})

        transport = httpx.MockTransport(answer)
        with sdk.Client(base_url="https://kennel.example", transport=transport) as client:
            # A required parameter of one value defaults to it, as a field does.
            assert client.pets.create(body=m.Dog(name="Rex")) == m.Cat(name="Tom")
        assert sent[0].url.params["mode"] == "fast"
        assert json.loads(sent[0].content) == {"kind": "dog", "name": "Rex"}


@pytest.mark.slow
def test_one_value_fields_type_check(tmp_path: Path) -> None:
    spec = write(tmp_path / "kennel.json", json.dumps(SPEC))
    with imported_sdk(spec, tmp_path / "out", "kennel"):
        root = tmp_path / "out" / "kennel"
        proc = _mypy(root, "kennel")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        app = write(root / "app.py", APP)
        proc = _mypy(root, app.name)
        lines = APP.splitlines()
        expected = {n for n, line in enumerate(lines, 1) if line.endswith("# error")}
        found = {int(n) for n in re.findall(r"app\.py:(\d+): error", proc.stdout)}
        assert found == expected, proc.stdout
