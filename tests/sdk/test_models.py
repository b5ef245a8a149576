"""Generated attrs models: every schema feature round-trips through from_dict/to_dict."""

from __future__ import annotations

import datetime
import uuid
from types import ModuleType
from typing import Any

import attrs
import pytest

THING: dict[str, Any] = {
    "id": "6f1c5e0a-8a5b-4a57-9d5e-0c8f1f2f9b11",
    "created_at": "2026-11-29T08:00:00Z",
    "day": "2026-11-29",
    "color": "green",
    "priority": 2,
    "tags": ["a", "b"],
    "labels": {"x": 1, "y": 2},
    "note": None,
    "size": 3.5,
    "owner": {"name": "Ada", "email": None},
    "class": "first",
    "1st": 1,
    "kebab-name": True,
    "metadata": {"free": ["form", 1]},
    "unlisted": {"kept": True},
}


def test_every_field_round_trips(features: ModuleType) -> None:
    from features_sdk.models import Thing

    thing = Thing.from_dict(THING)
    assert thing.to_dict() == {**THING, "created_at": "2026-11-29T08:00:00+00:00"}


def test_formats_decode_to_python_types(features: ModuleType) -> None:
    from features_sdk.models import Color, Priority, Thing

    thing = Thing.from_dict(THING)
    assert thing.id == uuid.UUID(THING["id"])
    assert thing.created_at == datetime.datetime(2026, 11, 29, 8, tzinfo=datetime.UTC)
    assert thing.day == datetime.date(2026, 11, 29)
    assert thing.color is Color.GREEN
    assert thing.priority is Priority.VALUE_2
    assert thing.class_ == "first"
    assert thing.n1st == 1
    assert thing.kebab_name is True
    assert thing.additional_properties == {"unlisted": {"kept": True}}


def test_absent_optional_fields_are_unset_not_none(features: ModuleType) -> None:
    from features_sdk import UNSET
    from features_sdk.models import Thing

    minimal = {k: THING[k] for k in ("id", "created_at", "color", "tags")}
    thing = Thing.from_dict(minimal)
    assert thing.note is UNSET
    assert thing.owner is UNSET
    assert thing.to_dict() == {**minimal, "created_at": "2026-11-29T08:00:00+00:00"}


def test_inline_union_of_types_keeps_each_variant(features: ModuleType) -> None:
    from features_sdk.models import Thing

    assert Thing.from_dict({**THING, "size": "large"}).size == "large"
    assert Thing.from_dict({**THING, "size": 7}).size == 7.0


@pytest.mark.parametrize(
    ("patch", "path"),
    [
        ({"tags": ["ok", 5]}, "$.tags[1]"),
        ({"owner": {"email": 3}}, "$.owner.email"),
        ({"labels": {"x": "one"}}, "$.labels.x"),
        ({"1st": "first"}, "$['1st']"),
        ({"created_at": "yesterday"}, "$.created_at"),
        ({"id": "not-a-uuid"}, "$.id"),
    ],
)
def test_decoding_errors_name_the_field_path(
    features: ModuleType, patch: dict[str, Any], path: str
) -> None:
    from features_sdk.errors import DecodeError
    from features_sdk.models import Thing

    with pytest.raises(DecodeError) as caught:
        Thing.from_dict({**THING, **patch})
    assert caught.value.path == path
    assert path in str(caught.value)


def test_missing_required_field_is_named(features: ModuleType) -> None:
    from features_sdk.errors import DecodeError
    from features_sdk.models import Thing

    with pytest.raises(DecodeError, match=r"\$\.color"):
        Thing.from_dict({k: v for k, v in THING.items() if k != "color"})


def test_unknown_enum_values_are_kept(features: ModuleType) -> None:
    from features_sdk.models import Color, Thing

    thing = Thing.from_dict({**THING, "color": "ultraviolet", "priority": 9})
    assert thing.color == "ultraviolet"
    assert isinstance(thing.color, Color)
    assert not thing.color.is_known
    assert Color.RED.is_known
    assert thing.priority == 9 and not thing.priority.is_known
    assert thing.to_dict()["color"] == "ultraviolet"


def test_enum_members_are_sanitised_but_keep_wire_values(features: ModuleType) -> None:
    from features_sdk.models import Color

    assert Color.CLASS.value == "class"
    assert Color.V2_TONE.value == "2-tone"
    assert Color.EMPTY.value == ""


def test_discriminated_union_picks_the_mapped_variant(features: ModuleType) -> None:
    from features_sdk.models import Cat, Dog
    from features_sdk.models.animal import decode_animal

    dog = decode_animal({"kind": "dog", "name": "Rex", "good": True})
    cat = decode_animal({"kind": "cat", "name": "Tom", "lives": 9})
    assert isinstance(dog, Dog) and dog.good is True
    assert isinstance(cat, Cat) and cat.lives == 9
    assert dog.to_dict() == {"kind": "dog", "name": "Rex", "good": True}


def test_any_of_with_null_is_nullable(features: ModuleType) -> None:
    from features_sdk.models import Pet
    from features_sdk.models.shape import decode_shape

    assert decode_shape("circle") == "circle"
    assert decode_shape({"kind": "x", "name": "y"}) == Pet(kind="x", name="y")


def test_recursive_schema_from_another_file(features: ModuleType) -> None:
    from features_sdk.models import Node

    tree = {
        "value": 1,
        "children": [{"value": 2, "children": [{"value": 3}]}],
        "parent": {"value": 0},
    }
    node = Node.from_dict(tree)
    assert node.children[0].children[0].value == 3  # type: ignore[index,union-attr]
    assert node.to_dict() == tree


def test_models_are_frozen_and_keyword_only(features: ModuleType) -> None:
    from features_sdk.models import Pet

    pet = Pet(kind="cat", name="Tom")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        pet.name = "Jerry"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Pet("cat", "Tom")  # type: ignore[misc]


def test_openapi_30_nullable_and_nullable_refs(features30: ModuleType) -> None:
    from features30_sdk.models import Item

    data = {
        "id": 1,
        "status": "new",
        "note": None,
        "parent": {"id": 0, "status": "old", "parent": None},
        "blob": "AAEC",
        "ratio": 0.5,
    }
    item = Item.from_dict(data)
    assert item.note is None
    assert item.parent is not None and item.parent.parent is None  # type: ignore[union-attr]
    assert item.to_dict() == data


def test_to_dict_writes_unnamed_properties_first_then_the_fields_in_order(
    features: ModuleType,
) -> None:
    from features_sdk.models import Thing

    required = ["id", "created_at", "color", "tags"]  # then the others, in schema order
    optional = ["day", "priority", "labels", "note", "size", "owner", "class", "1st"]
    fields = required + optional + ["kebab-name", "metadata"]
    assert list(Thing.from_dict(THING).to_dict()) == ["unlisted", *fields]


def test_a_discriminator_that_is_no_string_falls_back_to_the_variants(
    features: ModuleType,
) -> None:
    from features_sdk.errors import DecodeError
    from features_sdk.models.animal import decode_animal

    with pytest.raises(DecodeError, match="matches none of the 2 variants"):
        decode_animal({"kind": ["dog"], "name": "Rex", "good": True})
