"""Equality, hash and repr of the generated models, written once for all of them.

attrs would compile an ``__eq__``, a ``__hash__`` and a ``__repr__`` for every model
class as its module is imported: about a third of what declaring a model costs, paid
thousands of times by a large API. The models are declared with ``eq=False,
repr=False`` and inherit these, which compare, hash and print the same fields in the
same way: equal when of the same class with equal fields; ``Pet(id=1, name='Rex')``.
"""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Callable
from typing import Any

__all__ = ["Fieldwise"]

# Per class: the names of its attrs fields and a getter of their values at once (two
# names more, so that it returns a tuple however many fields; zip stops before them).
_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    found = _FIELDS.get(cls)
    if found is None:
        names = tuple(a.name for a in getattr(cls, "__attrs_attrs__", ()))
        getter = operator.attrgetter(*names, "__class__", "__class__")
        found = _FIELDS[cls] = (names, getter)
    return found


class Fieldwise:
    """Field-by-field ``==``, ``hash()`` and ``repr()`` for an attrs class."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        values = _fields(self.__class__)[1]
        return bool(values(self) == values(other))

    def __hash__(self) -> int:
        return hash(_fields(self.__class__)[1](self))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        names, values = _fields(self.__class__)
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, values(self)))
        return f"{self.__class__.__qualname__}({shown})"
