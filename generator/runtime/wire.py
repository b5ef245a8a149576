"""How a request's parts go on the wire: query, form and multipart encoding, path
segments, JSON decoding, and :class:`RequestOptions`, a request before any I/O."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from os import PathLike, fspath
from os.path import basename
from typing import Any, TypeVar, Union

import attrs
import httpx

from .errors import DecodeError
from .scalars import FileContent, FileInput, Unset
from .serde import encode as _encode
from .styles import Style, form_items, path_param, query_items, scalar

__all__ = [
    "NO_OPTIONS",
    "CallOptions",
    "FileContent",
    "FileInput",
    "RequestOptions",
    "Style",
    "binary_content",
    "decode_json",
    "file_part",
    "form_items",
    "header_value",
    "multipart",
    "page_options",
    "path_param",
    "query_items",
    "scalar",
    "with_extra_body",
    "with_header",
    "with_idempotency_key",
]

T = TypeVar("T")
#: An operation's per-call options as its request function takes them, in this order:
#: ``timeout``, ``max_retries``, ``extra_headers``, ``extra_query``, ``extra_body``.
CallOptions = tuple[
    Union[float, httpx.Timeout, None],
    Union[int, None],
    Union[Mapping[str, str], None],
    Union[Mapping[str, object], None],
    Union[Mapping[str, object], None],
]
NO_OPTIONS: CallOptions = (None, None, None, None, None)


@attrs.frozen(kw_only=True)
class RequestOptions:
    """One request as a generated operation describes it, before any I/O."""

    method: str
    path: str
    params: Mapping[str, Any] = attrs.field(factory=dict)
    #: The declared ``(style, explode)`` of query parameters not in the default form style.
    styles: Mapping[str, Style] = attrs.field(factory=dict)
    headers: Mapping[str, Any] = attrs.field(factory=dict)
    json: Any = None
    form: Mapping[str, Any] | None = None
    #: The declared ``(style, explode)`` of form properties (their ``encoding``).
    encoding: Mapping[str, Style] = attrs.field(factory=dict)
    files: Any = None
    content: bytes | str | None = None
    content_type: str | None = None
    security: tuple[str, ...] = ()
    timeout: float | httpx.Timeout | None = None
    max_retries: int | None = None
    extra_query: Mapping[str, Any] | None = None
    extra_body: Mapping[str, Any] | None = None
    #: The operation's own server (``servers`` of the operation or its path).
    server: str | None = None
    #: The 3xx statuses the operation declares: returned, not followed or raised.
    redirects: tuple[int, ...] = ()
    url: str | None = None
    """An absolute URL sent instead of the base URL and `path` (an operation URL)."""


def header_value(headers: Mapping[str, Any], name: str) -> Any:
    lowered = name.lower()
    return next((v for k, v in headers.items() if k.lower() == lowered), None)


def with_extra_body(
    options: RequestOptions,
) -> tuple[Any, Mapping[str, Any] | None]:
    """The JSON body and form of ``options``, with ``extra_body`` merged into one."""
    extra = options.extra_body
    if not extra:
        return options.json, options.form
    if options.form is not None:
        return options.json, {**options.form, **extra}
    json = options.json
    if (json is None or isinstance(json, Mapping)) and (
        options.content is None and options.files is None
    ):
        return {**(json or {}), **extra}, None
    raise ValueError("extra_body needs a JSON object or form body")


def decode_json(response: httpx.Response, decoder: Callable[[object, str], T]) -> T:
    """Decode a JSON response body; a body that is not JSON is a DecodeError."""
    try:
        data = response.json()
    except ValueError:
        raise DecodeError(
            f"expected a JSON body from {response.request.method} {response.request.url.path}, "
            f"got {response.headers.get('content-type', 'no content type')}",
            path="$",
        ) from None
    return decoder(data, "$")


def _read(content: FileContent) -> bytes:
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    if isinstance(content, PathLike):
        with open(content, "rb") as file:
            return file.read()
    return content.read()


def binary_content(body: FileContent) -> bytes:
    """An octet-stream body: bytes, or the bytes of a path or of a binary file object."""
    return _read(body)


def file_part(name: str, value: FileInput) -> tuple[str, bytes, str]:
    """A multipart file: ``(filename, content, content_type)`` with the real file name
    (a path's or a file object's) where there is one, else the field's name."""
    import mimetypes

    if isinstance(value, tuple):
        filename, content = value[0], value[1]
        kind = value[2] if len(value) > 2 else None
    else:
        content, kind = value, None
        named = getattr(value, "name", None) if not isinstance(value, bytes) else None
        filename = basename(fspath(named)) if named else name
        if isinstance(named, int):  # a file object over a descriptor has no name
            filename = name
    guessed = mimetypes.guess_type(filename)[0]
    return filename, _read(content), kind or guessed or "application/octet-stream"


def _is_file(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, PathLike, tuple)) or hasattr(
        value, "read"
    )


def multipart(body: Any) -> list[tuple[str, Any]]:
    """A multipart body: bytes, paths, file objects and ``(filename, content[,
    content_type])`` tuples become files, everything else text fields."""
    fields = _encode(body) if not isinstance(body, Mapping) else body
    parts: list[tuple[str, Any]] = []
    for key, value in fields.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item is None or isinstance(item, Unset):
                continue
            if _is_file(item):
                parts.append((key, file_part(key, item)))
            else:
                parts.append((key, (None, scalar(item))))
    return parts


def with_header(
    headers: Mapping[str, str] | None, name: str, value: str | None
) -> dict[str, str]:
    """``headers`` plus one more, when ``value`` is set."""
    merged = dict(headers or {})
    if value is not None:
        merged[name] = value
    return merged


def with_idempotency_key(
    options: RequestOptions, idempotency_header: str | None
) -> RequestOptions:
    """``options`` with a fresh idempotency key when the API takes one and none is set.

    The key is chosen once per call, so every retry of it carries the same key.
    """
    if idempotency_header is None:
        return options
    key = header_value(options.headers, idempotency_header)
    if key is not None and not isinstance(key, Unset) and key != "":
        return options
    headers = {
        k: v
        for k, v in options.headers.items()
        if k.lower() != idempotency_header.lower()
    }
    headers[idempotency_header] = str(uuid.uuid4())
    return attrs.evolve(options, headers=headers)


def page_options(
    options: RequestOptions, page: tuple[str | None, dict[str, Any]]
) -> RequestOptions:
    """``options`` asking for another page: new query parameters, or a next link's path
    and query (the first request's ``extra_query`` is then already in the link)."""
    path, params = page
    if path is None:
        return attrs.evolve(options, params=params)
    return attrs.evolve(options, path=path, params=params, extra_query=None)
