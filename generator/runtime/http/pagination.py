"""Pages of a list operation, fetched lazily: ``for item in client.jobs.list()``.

One sans-I/O :class:`Paging` (how this API pages: cursor, page number, offset or a
next link) reads a page's body and headers and says what the next request is, or
that there is none; :class:`SyncPager` and :class:`AsyncPager` only send requests.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, Union, cast
from urllib.parse import parse_qsl, urljoin, urlsplit

import attrs
import httpx

from ..shared.errors import DecodeError
from ..wire.encoding import RequestOptions, page_options

if TYPE_CHECKING:
    from .layer import AsyncHTTP, SyncHTTP

__all__ = [
    "AsyncPage",
    "AsyncPager",
    "Page",
    "Paging",
    "SyncPager",
    "async_pages",
    "sync_pages",
]

T = TypeVar("T")
Style = Literal["cursor", "page", "offset", "link"]
_LINK = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]*)*)")
_NEXT = re.compile(r'rel\s*=\s*"?([^";]*)"?', re.IGNORECASE)
# The next page's request: another path (None: the same one) and its query parameters.
NextPage = tuple[Union[str, None], dict[str, Any]]


def _at(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = cast("dict[str, Any]", data).get(key)
    return data


def decode_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise DecodeError(
            f"expected a JSON page from {response.request.url.path}, got "
            f"{response.headers.get('content-type', 'no content type')}",
            path="$",
        ) from None


def next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header (RFC 8288), if there is one."""
    for match in _LINK.finditer(header or ""):
        for rel in _NEXT.findall(match.group(2)):
            if "next" in rel.lower().split():
                return match.group(1)
    return None


@attrs.frozen(kw_only=True)
class Paging:
    """How an operation pages, as the generator found it in the spec.

    ``items`` is where the page's list is in the body (``()``: the body is the list).
    ``param`` is the query parameter that asks for a page (cursor, page number or
    offset); ``next_cursor`` the body field holding the next cursor, or ``item_cursor``
    the field of the last item that is the cursor (``starting_after=<last id>``);
    ``has_more`` a body flag that says whether another page exists; ``next_url`` a
    body field holding the next page's URL (link style, besides the ``Link`` header);
    ``limit_param`` the page size parameter of the offset style.
    """

    style: Style
    items: tuple[str, ...] = ()
    param: str | None = None
    next_cursor: tuple[str, ...] | None = None
    item_cursor: tuple[str, ...] | None = None
    has_more: tuple[str, ...] | None = None
    next_url: tuple[str, ...] | None = None
    limit_param: str | None = None
    first_page: int = 1

    def read(
        self,
        request: NextPage,
        response: httpx.Response,
        decode: Callable[[Any, str], T],
        base_url: str,
    ) -> tuple[list[T], NextPage | None]:
        """A page's items, decoded, and the request for the next page."""
        body = decode_body(response)
        found = _at(body, self.items)
        where = "$" + "".join(f".{key}" for key in self.items)
        items = [
            decode(item, f"{where}[{index}]")
            for index, item in enumerate(
                cast("list[object]", found) if isinstance(found, list) else []
            )
        ]
        return items, self.next_request(request[1], body, response.headers, base_url)

    def next_request(
        self, params: dict[str, Any], body: Any, headers: httpx.Headers, base_url: str
    ) -> NextPage | None:
        """The next page's path (None: the same) and query parameters, or None at the end.

        A next link to another host than ``base_url``'s is not followed: the client's
        credentials stay with its own API.
        """
        items = _at(body, self.items)
        count = len(cast("list[object]", items)) if isinstance(items, list) else 0
        if self.has_more is not None and _at(body, self.has_more) is False:
            return None
        if self.style == "link":
            url = next_link(headers.get("link"))
            if url is None and self.next_url is not None:
                found = _at(body, self.next_url)
                url = found if isinstance(found, str) and found else None
            return _relative(urljoin(base_url + "/", url), base_url) if url else None
        if count == 0 or self.param is None:
            return None
        if self.style == "cursor":
            cursor: Any = None
            if self.next_cursor is not None:
                cursor = _at(body, self.next_cursor)
            elif self.item_cursor is not None and isinstance(items, list):
                cursor = _at(items[-1], self.item_cursor)
            if cursor is None or cursor == "":
                return None
            return None, {**params, self.param: cursor}
        if self.style == "page":
            page = params.get(self.param)
            current = page if isinstance(page, int) else self.first_page
            return None, {**params, self.param: current + 1}
        offset = params.get(self.param)
        start = offset if isinstance(offset, int) else 0
        limit = params.get(self.limit_param) if self.limit_param else None
        if isinstance(limit, int) and count < limit:
            return None
        return None, {**params, self.param: start + count}


def _relative(url: str, base_url: str) -> NextPage | None:
    """A next link as a path under ``base_url`` and its query, or None off the API."""
    parts, base = urlsplit(url), urlsplit(base_url)
    prefix = base.path.rstrip("/")
    if (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
        return None
    if not parts.path.startswith(prefix + "/"):
        return None
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return parts.path[len(prefix) :], query


class _PageBase(Generic[T]):
    __slots__ = ("_next", "http_response", "items")

    def __init__(
        self,
        items: list[T],
        response: httpx.Response,
        next_request: NextPage | None,
    ) -> None:
        self.items = items
        self.http_response = response
        self._next = next_request

    def has_next(self) -> bool:
        """Whether the API says another page follows this one."""
        return self._next is not None

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} items={len(self.items)} has_next={self.has_next()}>"


class Page(_PageBase[T]):
    """One page: its ``items``, the ``http_response`` and :meth:`next_page`."""

    __slots__ = ("_pager",)

    def __init__(
        self,
        pager: SyncPager[T],
        items: list[T],
        response: httpx.Response,
        next_request: NextPage | None,
    ) -> None:
        super().__init__(items, response, next_request)
        self._pager = pager

    def next_page(self) -> Page[T] | None:
        """The following page (one request), or None after the last."""
        if self._next is None:
            return None
        return self._pager.fetch(self._next)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)


class AsyncPage(_PageBase[T]):
    """The async twin of :class:`Page`."""

    __slots__ = ("_pager",)

    def __init__(
        self,
        pager: AsyncPager[T],
        items: list[T],
        response: httpx.Response,
        next_request: NextPage | None,
    ) -> None:
        super().__init__(items, response, next_request)
        self._pager = pager

    async def next_page(self) -> AsyncPage[T] | None:
        """The following page (one request), or None after the last."""
        if self._next is None:
            return None
        return await self._pager.fetch(self._next)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)


class SyncPager(Generic[T]):
    """Every item of a list operation, page after page, fetched as iteration needs them.

    ``send(params_or_url)`` sends one page request and returns its response; ``decode``
    turns one item's JSON into its type.
    """

    __slots__ = ("_base_url", "_decode", "_first", "_paging", "_params", "_send")

    def __init__(
        self,
        paging: Paging,
        params: dict[str, Any],
        send: Callable[[NextPage], httpx.Response],
        decode: Callable[[Any, str], T],
        base_url: str,
    ) -> None:
        self._paging = paging
        self._params = params
        self._send = send
        self._decode = decode
        self._base_url = base_url
        self._first: Page[T] | None = None

    def fetch(self, request: NextPage) -> Page[T]:
        response = self._send(request)
        items, next_request = self._paging.read(
            request, response, self._decode, self._base_url
        )
        return Page(self, items, response, next_request)

    def page(self) -> Page[T]:
        """The first page (fetched once)."""
        if self._first is None:
            self._first = self.fetch((None, self._params))
        return self._first

    def has_next(self) -> bool:
        """Whether a page follows the first one."""
        return self.page().has_next()

    def pages(self) -> Iterator[Page[T]]:
        """Every page, the first one included, each fetched when reached."""
        page: Page[T] | None = self.page()
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.items


class AsyncPager(Generic[T]):
    """The async twin of :class:`SyncPager`: ``async for item in client.jobs.list()``."""

    __slots__ = ("_base_url", "_decode", "_first", "_paging", "_params", "_send")

    def __init__(
        self,
        paging: Paging,
        params: dict[str, Any],
        send: Callable[[NextPage], Awaitable[httpx.Response]],
        decode: Callable[[Any, str], T],
        base_url: str,
    ) -> None:
        self._paging = paging
        self._params = params
        self._send = send
        self._decode = decode
        self._base_url = base_url
        self._first: AsyncPage[T] | None = None

    async def fetch(self, request: NextPage) -> AsyncPage[T]:
        response = await self._send(request)
        items, next_request = self._paging.read(
            request, response, self._decode, self._base_url
        )
        return AsyncPage(self, items, response, next_request)

    async def page(self) -> AsyncPage[T]:
        """The first page (fetched once)."""
        if self._first is None:
            self._first = await self.fetch((None, self._params))
        return self._first

    async def has_next(self) -> bool:
        """Whether a page follows the first one."""
        return (await self.page()).has_next()

    async def pages(self) -> AsyncIterator[AsyncPage[T]]:
        """Every page, the first one included, each fetched when reached."""
        page: AsyncPage[T] | None = await self.page()
        while page is not None:
            yield page
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.items:
                yield item


def sync_pages(
    http: SyncHTTP,
    paging: Paging,
    options: RequestOptions,
    item: Callable[[Any, str], T],
    decode: Callable[[httpx.Response], object],
) -> SyncPager[T]:
    """A list operation's pager; over a ``view`` of ``http``, its first page's response."""
    if http.mode:
        return cast("SyncPager[T]", http.call(options, decode))
    return SyncPager(
        paging,
        dict(options.params),
        lambda page: http.request(page_options(options, page)),
        item,
        http.base_url,
    )


def async_pages(
    http: AsyncHTTP,
    paging: Paging,
    options: RequestOptions,
    item: Callable[[Any, str], T],
    decode: Callable[[httpx.Response], object],
) -> AsyncPager[T]:
    """The async twin of `sync_pages`; over a ``view``, (a coroutine of) the first
    page's response."""
    if http.mode:
        return cast("AsyncPager[T]", http.call(options, decode))
    return AsyncPager(
        paging,
        dict(options.params),
        lambda page: http.request(page_options(options, page)),
        item,
        http.base_url,
    )
