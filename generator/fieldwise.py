"""Equality, hash and repr of the generator's attrs classes: the runtime's, written once.

attrs compiles an ``__eq__``, a ``__hash__`` and a ``__repr__`` for every class it
declares, as its module is imported: two thirds of what declaring a class costs, paid on
every run of the generator for the intermediate model's classes and the others. Those
classes are declared ``@attrs.frozen(eq=False, repr=False)`` and inherit these from
:class:`Node` (the generated models' own ``Fieldwise``); the mutable ones
(``@attrs.define(eq=False, repr=False)``) from :class:`MutableNode`, unhashable as attrs
makes a mutable class that compares by value. Fields declared ``eq=False`` or
``repr=False`` stay out of equality and the hash, or out of the repr, as with attrs.
"""

from __future__ import annotations

from .runtime.wire.fieldwise import Fieldwise as Node

__all__ = ["MutableNode", "Node"]


class MutableNode(Node):
    """:class:`Node` for a mutable attrs class: compared and shown the same way, and
    unhashable (its value can change)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
