"""Which list operations page, and how: inferred from the shape, or declared.

A GET whose JSON response is a list, or an object with exactly one list field, pages
when its parameters and fields say how, unambiguously:

- cursor: a ``cursor``-like query parameter and a next-cursor field in the body, or
  ``starting_after``/``after`` and the last item's ``id`` (with ``has_more``, Stripe);
- page: an integer ``page`` query parameter;
- offset: an integer ``offset`` query parameter (``limit`` bounds each page);
- link: a next-URL field in the body (``next``, ``nextLink``, ``nextRecordsUrl``...) or,
  on a collection path only, a declared ``Link`` response header.

The parameters and fields above are page conventions wherever they appear. A ``Link``
header is not: it links a resource to anything (App Configuration's GetSnapshot,
``GET /snapshots/{name}``, declares one beside the snapshot's ``filters`` array), so it
says "page" only where the path names a collection (``/snapshots``), not one item of it
(a last segment that is a path parameter, ``/snapshots/{name}``).

Where the shape says nothing or several things, an operation declares it:
``x-jobgen-pagination: {style, items, param, next_cursor, item_cursor, has_more,
next_url, limit_param}`` (paths are JSON pointers into the body; ``false`` turns
inference off for that operation).
"""

from __future__ import annotations

from typing import Any, cast

import attrs

from ..problems import Location, Problem
from . import ir

__all__ = ["paginate"]

_STYLES = ("cursor", "page", "offset", "link")
_KEYS = frozenset(
    {"style", "items", "param", "next_cursor", "item_cursor", "has_more"}
    | {"next_url", "limit_param"}
)
_CURSOR_PARAMS = ("cursor", "page_token", "pageToken", "next_token", "continuation_token")
_AFTER_PARAMS = ("starting_after", "after")
_NEXT_CURSOR_FIELDS = (
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "cursor",
)
_NEXT_URL_FIELDS = ("next", "next_url", "nextUrl", "nextLink", "next_link", "nextRecordsUrl")
_HAS_MORE_FIELDS = ("has_more", "hasMore")


def _pointer(text: str) -> tuple[str, ...]:
    parts = text.split("/")[1:] if text.startswith("/") else [text]
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in parts if p)


def _node_at(root: Any, pointer: str) -> Any:
    node = root
    for token in _pointer(pointer):
        if not isinstance(node, dict):
            return None
        node = node.get(token)
    return node


def _unwrap(t: ir.TypeRef | None) -> ir.TypeRef | None:
    return t.inner if isinstance(t, ir.Nullable) else t


def _model(t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]) -> ir.Model | None:
    t = _unwrap(t)
    found = schemas.get(t.key) if isinstance(t, ir.Ref) else None
    while isinstance(found, ir.AliasSchema):
        target = _unwrap(found.target)
        found = schemas.get(target.key) if isinstance(target, ir.Ref) else None
    return found if isinstance(found, ir.Model) else None


def _fields(model: ir.Model | None) -> dict[str, ir.Field]:
    return {f.wire: f for f in model.fields} if model is not None else {}


def _items(
    op: ir.Operation, schemas: dict[str, ir.NamedSchema], path: tuple[str, ...] | None
) -> tuple[tuple[str, ...], ir.TypeRef] | None:
    """Where the page's list is, and its item type; None when not exactly one list."""
    body = _unwrap(op.response.type)
    if isinstance(body, ir.ListType) and not path:
        return (), body.item
    if path is not None:
        current: ir.TypeRef | None = body
        for key in path:
            field = _fields(_model(current, schemas)).get(key)
            current = _unwrap(field.type) if field is not None else None
        return (path, current.item) if isinstance(current, ir.ListType) else None
    model = _model(body, schemas)
    lists = [
        (f.wire, t)
        for f in (model.fields if model is not None else ())
        if isinstance(t := _unwrap(f.type), ir.ListType)
    ]
    if len(lists) != 1:
        return None
    return (lists[0][0],), lists[0][1].item


def _infer(
    op: ir.Operation, schemas: dict[str, ir.NamedSchema], node: dict[str, Any]
) -> ir.Pagination | None:
    if op.method != "GET" or op.response.kind != "json":
        return None
    found = _items(op, schemas, None)
    if found is None:
        return None
    items, item_type = found
    query = {p.wire: p for p in op.parameters if p.location == "query"}
    fields = _fields(_model(op.response.type, schemas))
    item_fields = _fields(_model(item_type, schemas))
    has_more = next(((f,) for f in _HAS_MORE_FIELDS if f in fields), None)
    candidates: list[ir.Pagination] = []
    cursor_param = next((p for p in _CURSOR_PARAMS + _AFTER_PARAMS if p in query), None)
    next_cursor = next((f for f in _NEXT_CURSOR_FIELDS if f in fields), None)
    base = ir.Pagination(style="cursor", items=items, item_type=item_type, has_more=has_more)
    if cursor_param is not None and next_cursor is not None:
        candidates.append(attrs.evolve(base, param=cursor_param, next_cursor=(next_cursor,)))
    elif cursor_param in _AFTER_PARAMS and "id" in item_fields:
        candidates.append(attrs.evolve(base, param=cursor_param, item_cursor=("id",)))
    if "page" in query and query["page"].type == ir.Primitive("int"):
        candidates.append(attrs.evolve(base, style="page", param="page"))
    if "offset" in query and query["offset"].type == ir.Primitive("int"):
        limit = "limit" if "limit" in query else None
        candidates.append(attrs.evolve(base, style="offset", param="offset", limit_param=limit))
    next_url = next((f for f in _NEXT_URL_FIELDS if f in fields), None)
    if next_url is not None or (_declares_link(node) and _collection(op.path)):
        candidates.append(
            attrs.evolve(base, style="link", next_url=(next_url,) if next_url else None)
        )
    return candidates[0] if len(candidates) == 1 else None


def _collection(path: str) -> bool:
    """Whether ``path`` names a collection: its last segment is not a path parameter."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return not (last.startswith("{") and last.endswith("}"))


def _declares_link(node: dict[str, Any]) -> bool:
    responses = node.get("responses")
    if not isinstance(responses, dict):
        return False
    for code, response in responses.items():
        if str(code).startswith("2") and isinstance(response, dict):
            headers = response.get("headers")
            if isinstance(headers, dict) and any(str(h).lower() == "link" for h in headers):
                return True
    return False


def _declared(
    op: ir.Operation,
    schemas: dict[str, ir.NamedSchema],
    raw: dict[str, Any],
    at: Location,
    problems: list[Problem],
) -> ir.Pagination | None:
    for key in raw:
        if key not in _KEYS:
            problems.append(Problem(at.child(str(key)), f"unknown key {key!r}"))
    style = raw.get("style")
    if style not in _STYLES:
        problems.append(Problem(at.child("style"), f"must be one of {', '.join(_STYLES)}"))
        return None
    texts: dict[str, str] = {}
    for key in _KEYS - {"style"}:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(Problem(at.child(key), "must be a string"))
            return None
        if value is not None:
            texts[key] = value
    items_path = _pointer(texts["items"]) if "items" in texts else None
    found = _items(op, schemas, items_path or ())
    if found is None and items_path is None:
        found = _items(op, schemas, None)
    if found is None:
        problems.append(
            Problem(
                at.child("items"),
                "names no list in the response body"
                if "items" in texts
                else "the response has no single list field: say which with 'items'",
            )
        )
        return None
    query = {p.wire for p in op.parameters if p.location == "query"}
    for key in ("param", "limit_param"):
        if key in texts and texts[key] not in query:
            problems.append(
                Problem(at.child(key), f"{texts[key]!r} is not a query parameter of the operation")
            )
            return None
    if style != "link" and "param" not in texts:
        problems.append(Problem(at, f"a {style} pagination needs 'param'"))
        return None
    if style == "cursor" and not ({"next_cursor", "item_cursor"} & texts.keys()):
        problems.append(Problem(at, "a cursor pagination needs 'next_cursor' or 'item_cursor'"))
        return None

    def path(key: str) -> tuple[str, ...] | None:
        return _pointer(texts[key]) if key in texts else None

    return ir.Pagination(
        style=cast(ir.PageStyle, style),
        items=found[0],
        item_type=found[1],
        param=texts.get("param"),
        next_cursor=path("next_cursor"),
        item_cursor=path("item_cursor"),
        has_more=path("has_more"),
        next_url=path("next_url"),
        limit_param=texts.get("limit_param"),
    )


def paginate(
    operations: list[ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    root: Any,
    problems: list[Problem],
) -> list[ir.Operation]:
    """``operations``, each list operation with its :class:`ir.Pagination`."""
    out = []
    for op in operations:
        node = _node_at(root, op.location.pointer) if op.location is not None else None
        node = node if isinstance(node, dict) else {}
        raw = node.get("x-jobgen-pagination")
        paging: ir.Pagination | None
        if raw is False:
            paging = None
        elif isinstance(raw, dict) and op.location is not None:
            paging = _declared(op, schemas, raw, op.location.child("x-jobgen-pagination"), problems)
        elif raw is not None and op.location is not None:
            problems.append(
                Problem(op.location.child("x-jobgen-pagination"), "must be a mapping or false")
            )
            paging = None
        else:
            paging = _infer(op, schemas, node)
        out.append(attrs.evolve(op, pagination=paging) if paging is not None else op)
    return out
