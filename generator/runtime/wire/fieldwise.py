"""Equality, hash and repr of the generated models, written once for all of them.

attrs would compile an ``__eq__``, a ``__hash__`` and a ``__repr__`` for every model
class as its module is imported: about a third of what declaring a model costs, paid
thousands of times by a large API. The models are declared with ``eq=False,
repr=False`` and inherit these, which compare, hash and print the same fields in the
same way: equal when of the same class with equal fields; ``Pet(id=1, name='Rex')``.
The generator's own attrs classes (its intermediate model, problems, ...) inherit them too.
"""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Callable
from typing import Any

__all__ = ["Fieldwise"]

# Per class: the names of the fields its repr shows, and getters of the values equality
# and the hash compare and of those the repr shows (two names more, so that each returns a
# tuple however many fields; zip stops before them, and the hash tells classes apart). A
# field declared ``eq=False`` or ``repr=False`` stays out, as attrs would leave it.
_FIELDS: dict[
    type, tuple[tuple[str, ...], Callable[[Any], Any], Callable[[Any], Any]]
] = {}


def _fields(
    cls: type,
) -> tuple[tuple[str, ...], Callable[[Any], Any], Callable[[Any], Any]]:
    found = _FIELDS.get(cls)
    if found is None:
        fields: tuple[Any, ...] = getattr(cls, "__attrs_attrs__", ())
        compared = [a.name for a in fields if a.eq]
        shown = tuple(a.name for a in fields if a.repr)
        found = _FIELDS[cls] = (
            shown,
            operator.attrgetter(*compared, "__class__", "__class__"),
            operator.attrgetter(*shown, "__class__", "__class__"),
        )
    return found


class Fieldwise:
    """Field-by-field ``==``, ``hash()`` and ``repr()`` for an attrs class."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _fields(self.__class__)[1]
        return bool(compared(self) == compared(other))

    def __hash__(self) -> int:
        return hash(_fields(self.__class__)[1](self))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        names, _, shown = _fields(self.__class__)
        values = ", ".join(f"{n}={v!r}" for n, v in zip(names, shown(self)))
        return f"{self.__class__.__qualname__}({values})"
