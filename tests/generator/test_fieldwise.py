"""The generator's attrs classes compare, hash and print as attrs itself would make them.

They inherit ``==``, ``hash()`` and ``repr()`` from ``jobgen.fieldwise`` instead of having
attrs compile them per class. The oracle is attrs: a twin of each class, declared by
``attrs.make_class`` with the same fields (and their ``eq``/``repr`` flags) and attrs'
own methods, must agree on every comparison and print the same text.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import attrs
import pytest

from jobgen.fieldwise import MutableNode, Node
from jobgen.model import ir
from jobgen.problems import Location, Problem
from jobgen.spec.loader import Document, SpecSet


@functools.cache
def _twin(cls: type) -> type:
    """``cls`` as attrs declares it with its own ``__eq__``, ``__hash__`` and ``__repr__``."""
    fields = {
        a.name: attrs.field(eq=a.eq, repr=a.repr, default=None, init=a.init)
        for a in attrs.fields(cls)
    }
    frozen = not issubclass(cls, MutableNode)
    return attrs.make_class(cls.__name__, fields, frozen=frozen, slots=True)


def _as_twin(value: Any) -> Any:
    """``value`` with every jobgen attrs object in it replaced by its twin."""
    if isinstance(value, Node):
        twin = _twin(type(value))
        made = twin.__new__(twin)
        for a in attrs.fields(type(value)):
            object.__setattr__(made, a.name, _as_twin(getattr(value, a.name)))
        return made
    if isinstance(value, tuple):
        return tuple(_as_twin(v) for v in value)
    return value


def _doc(name: str, sha: str = "") -> Document:
    return Document(Path(name), name, {"openapi": "3.1.0"}, sha, sources={"/a": sha})


_SDK = {
    "title": "T",
    "version": "1",
    "description": "",
    "package": "p",
    "base_url": "https://x",
    "schemas": {},
    "resources": (),
    "auths": (),
    "jobs": (),
    "spec_hash": "h",
}

# Values of several classes: equal ones, ones differing in one field, one differing only
# in fields that equality ignores, nested ones, and a class with no field at all.
SAMPLES: list[Any] = [
    ir.Ref(key="Pet"),
    ir.Ref(key="Pet"),
    ir.Ref(key="Owner"),
    ir.Primitive(kind="str"),
    ir.AnyType(),
    ir.AnyType(),
    ir.ConstType(value=None),
    ir.ListType(item=ir.Nullable(inner=ir.Ref(key="Pet"))),
    ir.ListType(item=ir.Nullable(inner=ir.Ref(key="Pet"))),
    ir.MapType(value=ir.Ref(key="Pet")),
    ir.InlineUnion(variants=(ir.Primitive(kind="int"), ir.Primitive(kind="str"))),
    ir.Field(name="id", wire="id", type=ir.Primitive(kind="int"), required=True),
    ir.Field(name="id", wire="id", type=ir.Primitive(kind="int"), required=False),
    ir.Field(name="id", wire="ID", type=ir.Primitive(kind="int"), required=True),
    Location("a.yaml", "/paths/~1jobs"),
    Location("a.yaml", "/paths/~1jobs"),
    Location("a.yaml"),
    Problem(Location("a.yaml", "/info"), "no title"),
    ir.Sdk(**_SDK),
    ir.Sdk(**_SDK, located={"a.yaml#/x": ir.AnyType()}, spec=SpecSet(_doc("a.yaml"))),
    ir.Sdk(**{**_SDK, "title": "U"}),
    _doc("a.yaml"),
    _doc("a.yaml"),
    _doc("a.yaml", "x"),
    SpecSet(_doc("a.yaml")),
    SpecSet(_doc("a.yaml")),
    SpecSet(_doc("b.yaml")),
]


@pytest.mark.parametrize("value", SAMPLES, ids=lambda v: type(v).__name__)
def test_repr_is_attrs_repr(value: Any) -> None:
    assert repr(value) == repr(_as_twin(value))


def test_equality_and_hash_agree_with_attrs() -> None:
    compared = 0
    for left, right in itertools.product(SAMPLES, repeat=2):
        twins = _as_twin(left), _as_twin(right)
        assert (left == right) is (twins[0] == twins[1]), (left, right)
        assert (left != right) is (twins[0] != twins[1]), (left, right)
        try:
            hash(twins[0])
        except TypeError:  # a mutable class, or a field holding a dict: not with attrs either
            with pytest.raises(TypeError):
                hash(left)
        else:
            if left == right:
                assert hash(left) == hash(right), (left, right)
        compared += left == right and left is not right
    assert compared >= 6, "the samples hold equal values that are distinct objects"
    assert ir.Ref(key="Pet") != ir.Primitive(kind="str")
    assert ir.Ref(key="Pet").__eq__(("Pet",)) is NotImplemented
    assert len({ir.Ref(key="Pet"), ir.Ref(key="Pet"), ir.Ref(key="Owner")}) == 2
    with pytest.raises(TypeError):
        hash(SpecSet(_doc("a.yaml")))


def test_the_classes_are_still_frozen_and_slotted() -> None:
    ref = ir.Ref(key="Pet")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ref.key = "Owner"  # type: ignore[misc]
    assert not hasattr(ref, "__dict__")
    assert ir.Ref.__match_args__ == ("key",)
