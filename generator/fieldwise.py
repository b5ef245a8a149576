"""Equality, hash and repr of the generator's frozen attrs classes, written once.

attrs compiles an ``__eq__``, a ``__hash__`` and a ``__repr__`` for every class it
declares, as its module is imported: two thirds of what declaring a class costs, paid on
every run of the generator for the intermediate model's classes and the others. Those
classes are declared ``@attrs.frozen(eq=False, repr=False)`` and inherit these from
:class:`Node`; the mutable ones (``@attrs.define(eq=False, repr=False)``) from
:class:`MutableNode`, unhashable as attrs makes a mutable class that compares by value. Fields declared ``eq=False`` or ``repr=False`` stay out of equality and
the hash, or out of the repr, as with attrs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["MutableNode", "Node"]

# Per class: its fields' names for repr, and getters of the values that equality and
# the hash compare and of those repr shows (two names more, so that each returns a tuple
# however many fields; for the hash, they also tell classes with equal values apart).
_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], Any], Callable[[Any], Any]]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], Callable[[Any], Any], Callable[[Any], Any]]:
    found = _FIELDS.get(cls)
    if found is None:
        fields = attrs.fields(cls)
        compared = [a.name for a in fields if a.eq]
        shown = tuple(a.name for a in fields if a.repr)
        found = _FIELDS[cls] = (
            shown,
            operator.attrgetter(*compared, "__class__", "__class__"),
            operator.attrgetter(*shown, "__class__", "__class__"),
        )
    return found


class Node:
    """Field-by-field ``==``, ``hash()`` and ``repr()`` for a frozen attrs class declared
    with ``eq=False, repr=False``: the same fields compared, hashed and shown the same
    way as attrs would (equal when of the same class with equal fields; ``Ref(key='Pet')``)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _fields(self.__class__)[1]
        return bool(compared(self) == compared(other))

    def __hash__(self) -> int:
        return hash(_fields(self.__class__)[1](self))

    def __repr__(self) -> str:
        names, _, shown = _fields(self.__class__)
        values = ", ".join(f"{n}={v!r}" for n, v in zip(names, shown(self)))
        return f"{self.__class__.__qualname__}({values})"


class MutableNode(Node):
    """:class:`Node` for a mutable attrs class: compared and shown the same way, and
    unhashable (its value can change)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
