"""Helpers every reader of job declarations shares: unknown keys, JSON pointers, types.

Each source of declarations (the ``x-jobgen`` extension or its side file, and the
long-running-operation dialects vendors publish) reads its nodes with these, so a
problem reads the same whichever source it came from.
"""

from __future__ import annotations

import re
from typing import Any

from ...problems import Location, Problem, did_you_mean
from .. import ir

__all__ = ["deref_type", "split_pointer", "type_at", "unknown_keys"]

_INDEX = re.compile(r"(0|[1-9][0-9]*)\Z")


def unknown_keys(
    node: dict[Any, Any], known: frozenset[str], at: Location, problems: list[Problem]
) -> list[str]:
    """Report every key of ``node`` outside ``known``; returns them."""
    unknown = [str(key) for key in node if key not in known]
    for key in unknown:
        hint = did_you_mean(key, known) or f" (known: {', '.join(sorted(known))})"
        problems.append(Problem(at.child(key), f"unknown key '{key}'{hint}"))
    return unknown


def split_pointer(pointer: str) -> tuple[str, ...]:
    if pointer in ("", "/"):
        return ()
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/"))


def deref_type(t: ir.TypeRef, schemas: dict[str, ir.NamedSchema]) -> ir.TypeRef | ir.NamedSchema:
    while True:
        if isinstance(t, ir.Nullable):
            t = t.inner
        elif isinstance(t, ir.Ref):
            named = schemas[t.key]
            if isinstance(named, ir.AliasSchema):
                t = named.target
            else:
                return named
        else:
            return t


def type_at(
    root: ir.TypeRef,
    path: tuple[str, ...],
    schemas: dict[str, ir.NamedSchema],
    root_name: str = "the record",
    *,
    arrays: bool = False,
) -> tuple[ir.TypeRef | None, str]:
    """Walk ``path`` (wire names) from ``root`` (called ``root_name`` in messages);
    returns the type or why it failed. With ``arrays``, a token may also be an
    element's index (RFC 6901: ``0``, ``12``, no leading zero) in an array."""
    current: ir.TypeRef = root
    walked = ""
    for token in path:
        node = deref_type(current, schemas)
        where = f"'{walked}'" if walked else root_name
        if isinstance(node, ir.Model):
            field = next((f for f in node.fields if f.wire == token), None)
            if field is None:
                known = ", ".join(f.wire for f in node.fields) or "none"
                return None, f"{where} ({node.name}) has no property '{token}' (it has: {known})"
            current = field.type
        elif isinstance(node, ir.MapType):
            current = node.value
        elif isinstance(node, ir.AnyType):
            return ir.AnyType(), ""
        elif isinstance(node, ir.ListType) and arrays:
            if not _INDEX.match(token):
                return None, (
                    f"{where} is an array: name an element by its index (such as"
                    f" '{walked}/0'), not '{token}'"
                )
            current = node.item
        else:
            kind = "an array" if isinstance(node, ir.ListType) else "not an object"
            return None, f"{where} is {kind}, so it has no property '{token}'"
        walked += "/" + token
    return current, ""


def cancel_suffix(status: ir.Operation, cancel: ir.Operation | None) -> str | None:
    """What a cancel appends to the status operation's path: "" for a `DELETE` of its
    very path (Document Translation's `DELETE /document/batches/{id}`), ":cancel" or
    "/cancel" for a `POST` below it; so a job known by its operation URL is canceled
    there. None for any other operation."""
    if cancel is None or cancel.synthetic or status.synthetic:
        return None
    status_path, cancel_path = _shape(status.path), _shape(cancel.path)
    method = cancel.method.lower()
    if cancel_path == status_path and method == "delete":
        return ""
    for suffix in (":cancel", "/cancel"):
        if cancel_path == status_path + suffix and method == "post":
            return suffix
    return None


def _shape(path: str) -> str:
    """A path with its parameters' names left out: `/jobs/{id}` -> `/jobs/{}`."""
    return re.sub(r"\{[^}]*\}", "{}", path.rstrip("/"))
