"""List operations page lazily in every style (cursor, page, offset, link), sync and
async, inferred from the spec's shape or declared with ``x-jobgen-pagination``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from jobgen.model.build import build_sdk
from jobgen.problems import SpecError
from jobgen.spec.loader import load_spec
from tests.helpers import imported_sdk, write


def _list_op(op_id: str, params: list[dict[str, Any]], schema: dict[str, Any], **extra: Any) -> Any:
    return {
        "get": {
            "operationId": op_id,
            "tags": ["items"],
            "parameters": params,
            "responses": {
                "200": {
                    "description": "A page.",
                    "content": {"application/json": {"schema": schema}},
                    **extra,
                }
            },
        }
    }


ITEMS = {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
INT = {"type": "integer"}
STR = {"type": "string"}


def _q(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pages", "version": "1.0.0"},
    "servers": [{"url": "https://pages.example/api"}],
    "paths": {
        "/cursor": _list_op(
            "listByCursor", [_q("cursor", STR)], _obj(items=ITEMS, next_cursor=STR)
        ),
        "/after": _list_op(
            "listAfter",
            [_q("starting_after", STR), _q("limit", INT)],
            _obj(data=ITEMS, has_more={"type": "boolean"}),
        ),
        "/pages": _list_op("listPages", [_q("page", INT)], _obj(results=ITEMS)),
        "/offsets": _list_op(
            "listOffsets", [_q("offset", INT), _q("limit", INT)], _obj(rows=ITEMS)
        ),
        "/linked": _list_op(
            "listLinked", [_q("size", INT)], ITEMS, headers={"Link": {"schema": STR}}
        ),
        "/declared": {
            "get": {
                **_list_op(
                    "listDeclared",
                    [_q("token", STR)],
                    _obj(results=ITEMS, other=ITEMS, meta=_obj(next=STR)),
                )["get"],
                "x-jobgen-pagination": {
                    "style": "cursor",
                    "items": "/results",
                    "param": "token",
                    "next_cursor": "/meta/next",
                },
            }
        },
        "/ambiguous": _list_op("listAmbiguous", [], _obj(a=ITEMS, b=ITEMS)),
        # One item of /linked, with one array and a Link header (links, not pages).
        "/linked/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": STR}],
            **_list_op(
                "getLinked",
                [],
                {"$ref": "#/components/schemas/Folder"},
                headers={"Link": {"schema": STR}},
            ),
        },
    },
    "components": {
        "schemas": {
            "Item": {
                "type": "object",
                "required": ["id"],
                "properties": {"id": STR},
            },
            "Folder": _obj(id=STR, items=ITEMS),
        }
    },
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("pages")
    spec = write(root / "pages.yaml", yaml.safe_dump(SPEC))
    with imported_sdk(spec, root / "out", "pages_sdk") as sdk:
        yield sdk


def items(*ids: str) -> list[dict[str, str]]:
    return [{"id": i} for i in ids]


class Api:
    """A MockTransport handler answering from ``answer(request)``; records requests."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response]) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)

    def params(self) -> list[dict[str, str]]:
        return [dict(r.url.params) for r in self.requests]


def cursor_api(request: httpx.Request) -> httpx.Response:
    pages = {"": (["a", "b"], "c1"), "c1": (["c"], "c2"), "c2": (["d"], None)}
    ids, following = pages[request.url.params.get("cursor", "")]
    return httpx.Response(200, json={"items": items(*ids), "next_cursor": following})


def ids_of(sdk: ModuleType, api: Api, mode: str, call: Callable[[Any], Any]) -> list[str]:
    """Every item id of ``call(client)``'s pager, iterated sync or async."""
    transport = httpx.MockTransport(api)
    if mode == "sync":
        with sdk.Client(transport=transport) as client:
            return [item.id for item in call(client)]

    async def main() -> list[str]:
        async with sdk.AsyncClient(transport=transport) as client:
            return [item.id async for item in call(client)]

    return asyncio.run(main())


MODES = ["sync", "async"]


@pytest.mark.parametrize("mode", MODES)
def test_cursor_in_the_body(pages: ModuleType, mode: str) -> None:
    api = Api(cursor_api)
    assert ids_of(pages, api, mode, lambda c: c.items.list_by_cursor()) == ["a", "b", "c", "d"]
    assert api.params() == [{}, {"cursor": "c1"}, {"cursor": "c2"}]


@pytest.mark.parametrize("mode", MODES)
def test_cursor_from_the_last_item_while_has_more(pages: ModuleType, mode: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        after = request.url.params.get("starting_after")
        ids, more = {None: (["a", "b"], True), "b": (["c"], False)}[after]
        return httpx.Response(200, json={"data": items(*ids), "has_more": more})

    api = Api(answer)
    assert ids_of(pages, api, mode, lambda c: c.items.list_after(limit=2)) == ["a", "b", "c"]
    assert api.params() == [{"limit": "2"}, {"limit": "2", "starting_after": "b"}]


@pytest.mark.parametrize("mode", MODES)
def test_page_numbers_until_an_empty_page(pages: ModuleType, mode: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        return httpx.Response(200, json={"results": items(*{1: ["a"], 2: ["b"]}.get(page, []))})

    api = Api(answer)
    assert ids_of(pages, api, mode, lambda c: c.items.list_pages()) == ["a", "b"]
    assert api.params() == [{}, {"page": "2"}, {"page": "3"}]


@pytest.mark.parametrize("mode", MODES)
def test_offsets_until_a_short_page(pages: ModuleType, mode: str) -> None:
    rows = items("a", "b", "c", "d", "e")

    def answer(request: httpx.Request) -> httpx.Response:
        offset, limit = int(request.url.params.get("offset", "0")), int(request.url.params["limit"])
        return httpx.Response(200, json={"rows": rows[offset : offset + limit]})

    api = Api(answer)
    found = ids_of(pages, api, mode, lambda c: c.items.list_offsets(limit=2))
    assert found == ["a", "b", "c", "d", "e"]
    assert [p.get("offset") for p in api.params()] == [None, "2", "4"]


@pytest.mark.parametrize("mode", MODES)
def test_link_header_next_until_none(pages: ModuleType, mode: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("p") == "2":
            return httpx.Response(200, json=items("c"))
        link = '<https://pages.example/api/linked?p=2&size=2>; rel="next", <x>; rel="last"'
        return httpx.Response(200, json=items("a", "b"), headers={"Link": link})

    api = Api(answer)
    assert ids_of(pages, api, mode, lambda c: c.items.list_linked(size=2)) == ["a", "b", "c"]
    assert [str(r.url) for r in api.requests] == [
        "https://pages.example/api/linked?size=2",
        "https://pages.example/api/linked?p=2&size=2",
    ]


def test_a_link_to_another_host_is_not_followed(pages: ModuleType) -> None:
    link = '<https://elsewhere.example/api/linked?p=2>; rel="next"'
    api = Api(lambda _: httpx.Response(200, json=items("a"), headers={"Link": link}))
    assert ids_of(pages, api, "sync", lambda c: c.items.list_linked()) == ["a"]
    assert len(api.requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_declared_pagination(pages: ModuleType, mode: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        token = request.url.params.get("token")
        body = {"results": items("a"), "other": items("x"), "meta": {"next": "t2"}}
        if token == "t2":
            body = {"results": items("b"), "other": [], "meta": {}}
        return httpx.Response(200, json=body)

    api = Api(answer)
    assert ids_of(pages, api, mode, lambda c: c.items.list_declared()) == ["a", "b"]


def test_pages_are_fetched_only_as_iteration_needs_them(pages: ModuleType) -> None:
    api = Api(cursor_api)
    with pages.Client(transport=httpx.MockTransport(api)) as client:
        pager = client.items.list_by_cursor()
        assert api.requests == []
        first = pager.page()
        assert ([i.id for i in first.items], first.has_next(), pager.has_next()) == (
            ["a", "b"],
            True,
            True,
        )
        assert next(iter(pager)).id == "a"
        assert len(api.requests) == 1  # the first page is fetched once
        second = first.next_page()
        assert second is not None and [i.id for i in second] == ["c"]
        last = second.next_page()
        assert last is not None and not last.has_next() and last.next_page() is None
        assert first.http_response.status_code == 200


def test_async_page_and_has_next(pages: ModuleType) -> None:
    api = Api(cursor_api)

    async def main() -> tuple[list[str], bool, list[int]]:
        async with pages.AsyncClient(transport=httpx.MockTransport(api)) as client:
            pager = client.items.list_by_cursor()
            first = await pager.page()
            sizes = [len(page) async for page in pager.pages()]
            return [i.id for i in first.items], await pager.has_next(), sizes

    assert asyncio.run(main()) == (["a", "b"], True, [2, 1, 1])


def test_raw_variant_returns_the_page_body(pages: ModuleType) -> None:
    api = Api(cursor_api)
    with pages.Client(transport=httpx.MockTransport(api)) as client:
        raw = client.items.with_raw_response.list_by_cursor()
        assert raw.parse().next_cursor == "c1"


def test_an_ambiguous_shape_is_not_paged(pages: ModuleType) -> None:
    api = Api(lambda _: httpx.Response(200, json={"a": [], "b": []}))
    with pages.Client(transport=httpx.MockTransport(api)) as client:
        body = client.items.list_ambiguous()
    assert (body.a, body.b) == ([], [])


@pytest.mark.parametrize("mode", MODES)
def test_an_item_with_one_list_and_a_link_header_is_not_paged(pages: ModuleType, mode: str) -> None:
    """``GET /linked/{id}`` names one item: its Link header links it, it does not page."""
    folder = {"id": "f1", "items": items("a", "b")}
    link = '<https://pages.example/api/linked/f2>; rel="next"'
    api = Api(lambda _: httpx.Response(200, json=folder, headers={"Link": link}))
    transport = httpx.MockTransport(api)
    if mode == "sync":
        with pages.Client(transport=transport) as client:
            body = client.items.get_linked("f1")
    else:

        async def read() -> Any:
            async with pages.AsyncClient(transport=transport) as client:
                return await client.items.get_linked("f1")

        body = asyncio.run(read())
    assert isinstance(body, pages.models.Folder)
    assert (body.id, [i.id for i in body.items]) == ("f1", ["a", "b"])
    assert [r.url.path for r in api.requests] == ["/api/linked/f1"]


@pytest.mark.parametrize(
    ("declared", "pointer", "message"),
    [
        ({"style": "sideways"}, "/style", "must be one of cursor, page, offset, link"),
        ({"style": "page", "items": "/results", "param": "nope"}, "/param", "'nope' is not a"),
        ({"style": "cursor", "items": "/results", "param": "token"}, "", "needs 'next_cursor'"),
        ({"style": "page", "param": "token"}, "/items", "no single list field: say which"),
        ({"style": "page", "param": "token", "items": "/meta"}, "/items", "names no list"),
        ({"style": "page", "param": "token", "size": 1}, "/size", "unknown key 'size'"),
    ],
)
def test_a_wrong_declaration_names_the_problem_and_where(
    tmp_path: Path, declared: dict[str, Any], pointer: str, message: str
) -> None:
    spec = json.loads(json.dumps(SPEC))
    spec["paths"]["/declared"]["get"]["x-jobgen-pagination"] = declared
    path = write(tmp_path / "bad.yaml", yaml.safe_dump(spec))
    with pytest.raises(SpecError) as caught:
        build_sdk(load_spec(path))
    text = str(caught.value)
    assert f"bad.yaml#/paths/~1declared/get/x-jobgen-pagination{pointer}: " in text
    assert message in text


USER_CODE = """
from __future__ import annotations

from pages_sdk import AsyncClient, Client
from pages_sdk.models import Item


def sync_use(client: Client) -> list[str]:
    ids = [item.id for item in client.items.list_by_cursor()]
    page = client.items.list_after(limit=10).page()
    first: list[Item] = page.items
    following = page.next_page() if page.has_next() else None
    return ids + [i.id for i in first] + ([] if following is None else [following.items[0].id])


async def async_use(client: AsyncClient) -> list[str]:
    ids = [item.id async for item in client.items.list_pages()]
    page = await client.items.list_offsets(limit=5).page()
    more: bool = page.has_next()
    return ids + [item.id for item in page.items] + [str(more)]
"""


@pytest.mark.slow
def test_user_code_that_pages_passes_mypy_strict(
    pages: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    user = write(tmp_path / "user_code.py", USER_CODE)
    assert pages.__file__ is not None
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), str(user)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(pages.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
