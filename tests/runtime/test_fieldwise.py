"""Models declared with ``eq=False, repr=False`` inherit equality, hash and repr from the
runtime: they must behave as attrs' own generated methods do, which serve as the oracle."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from jobgen.runtime.wire.serde import UNSET, Model, OpenStrEnum, Unset


class Color(OpenStrEnum):
    RED = "red"


@attrs.frozen(kw_only=True, eq=False, repr=False)
class Pet(Model):
    id: int
    name: str | Unset = UNSET
    color: Color | None = None
    tags: list[str] = attrs.field(factory=list)


@attrs.frozen(kw_only=True)
class AttrsPet:
    id: int
    name: str | Unset = UNSET
    color: Color | None = None
    tags: list[str] = attrs.field(factory=list)


@attrs.frozen(kw_only=True, eq=False, repr=False)
class Point(Model):
    x: int
    y: int


@attrs.frozen(kw_only=True, eq=False, repr=False)
class Empty(Model):
    pass


@attrs.frozen(kw_only=True, eq=False, repr=False)
class Box(Model):
    items: list[Any]


CASES = [
    {"id": 1},
    {"id": 2, "name": "Rex", "color": Color.RED, "tags": ["a", "b's"]},
    {"id": 3, "color": Color("blue")},
]


@pytest.mark.parametrize("values", CASES)
def test_repr_is_the_one_attrs_generates(values: dict[str, Any]) -> None:
    assert repr(Pet(**values)) == repr(AttrsPet(**values)).replace("AttrsPet(", "Pet(", 1)


def test_repr_of_a_class_without_fields_and_of_a_recursive_value() -> None:
    assert repr(Empty()) == "Empty()"
    box = Box(items=[1])
    box.items.append(box)
    assert repr(box) == "Box(items=[1, ...])"


@pytest.mark.parametrize("values", CASES)
def test_equality_is_field_by_field_within_a_class(values: dict[str, Any]) -> None:
    same, oracle = Pet(**values), AttrsPet(**values)
    assert same == Pet(**values)
    assert (same != Pet(**values)) is False
    other = attrs.evolve(same, id=same.id + 10)
    assert (same == other) is (oracle == attrs.evolve(oracle, id=oracle.id + 10)) is False
    assert same != other
    assert same != AttrsPet(**values)  # another class, even with the same fields
    assert same != values


def test_classes_with_equal_fields_are_not_equal() -> None:
    assert Point(x=1, y=2) == Point(x=1, y=2)
    assert Point(x=1, y=2) != Point(x=2, y=1)
    assert Empty() == Empty()
    assert Point(x=1, y=2) != Empty()


def test_hash_follows_equality_and_refuses_unhashable_fields() -> None:
    assert hash(Point(x=1, y=2)) == hash(Point(x=1, y=2))
    assert len({Point(x=1, y=2), Point(x=1, y=2), Point(x=2, y=1)}) == 2
    assert {Point(x=1, y=2): "a"}[Point(x=1, y=2)] == "a"
    with pytest.raises(TypeError, match="unhashable"):
        hash(Pet(id=1))  # a list field, as attrs' own hash refuses it
    with pytest.raises(TypeError, match="unhashable"):
        hash(AttrsPet(id=1))
