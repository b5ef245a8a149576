"""How a request's parts go on the wire: query, form and multipart encoding, path
segments, JSON decoding, and :class:`RequestOptions`, a request before any I/O."""

from __future__ import annotations

import json as json_module
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from os import PathLike, fspath
from os.path import basename
from typing import IO, Any, TypeVar, Union, cast

import attrs
import httpx

from ..shared.errors import DecodeError, InvalidHeader
from .scalars import FileContent, FileInput, Unset, as_str
from .serde import decoding_mode, report
from .serde import encode as _encode
from .styles import Style, form_items, path_param, query_items, scalar
from .uploads import chunks, chunks_async, file_length, part_file, path_length

__all__ = [
    "NO_OPTIONS",
    "CallOptions",
    "FileContent",
    "FileInput",
    "RequestOptions",
    "Style",
    "Upload",
    "body_fields",
    "check_headers",
    "decode_json",
    "decode_json_text",
    "file_part",
    "form_items",
    "header_value",
    "media_kind",
    "multipart",
    "page_options",
    "path_param",
    "query_items",
    "scalar",
    "upload",
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


@attrs.frozen
class Upload:
    """A binary request body: bytes, or a path or binary file object read as the request
    is sent, chunk by chunk (each send of a retried request reads it from its start:
    a path is opened again, a seekable file sought back to where it stood). What a
    file may be, and the checks made as it is sent, are `uploads`'."""

    source: FileContent
    start: int | None = None

    @property
    def replayable(self) -> bool:
        """Whether a second send can read the body again from its start."""
        return self.start is not None or isinstance(
            self.source, (bytes, bytearray, PathLike)
        )

    def length(self) -> int | None:
        """The bytes to send, where known before reading them (then ``Content-Length``);
        a path or file that is not a regular file raises `UploadError`."""
        source = self.source
        if isinstance(source, (bytes, bytearray)):
            return len(source)
        if isinstance(source, PathLike):
            return path_length(source)
        if self.start is None:
            return None
        return file_length(source, self.start)

    def content(
        self, asynchronous: bool, length: int | None = None, wait: float | None = None
    ) -> bytes | Iterator[bytes] | AsyncIterator[bytes]:
        """The body as httpx sends it: the bytes, or an iterator over the file's chunks,
        which raises `UploadError` when the file is not ``length`` bytes long; ``wait``:
        how long a stream may give no data."""
        source = self.source
        if isinstance(source, (bytes, bytearray)):
            return bytes(source)
        if self.start is not None and not isinstance(source, PathLike):
            source.seek(self.start)
        if asynchronous:
            return chunks_async(source, length, wait)
        return chunks(source, length, wait)


def upload(body: FileContent) -> Upload:
    """A binary body to send byte for byte (a file object from where it stands),
    checked at once: a path or file that cannot be sent raises `UploadError` before
    any request."""
    if isinstance(body, (bytes, bytearray, PathLike)):
        chosen = Upload(body)
    else:
        try:
            start = body.tell() if body.seekable() else None
        except (AttributeError, OSError, ValueError):
            start = None
        chosen = Upload(body, start)
    chosen.length()
    return chosen


@attrs.frozen(kw_only=True)
class RequestOptions:
    """One request as a generated operation describes it, before any I/O."""

    method: str
    path: str
    params: Mapping[str, Any] = attrs.field(factory=dict[str, Any])
    #: The declared ``(style, explode)`` of query parameters not in the default form style.
    styles: Mapping[str, Style] = attrs.field(factory=dict[str, Style])
    headers: Mapping[str, Any] = attrs.field(factory=dict[str, Any])
    json: Any = None
    form: Mapping[str, Any] | None = None
    #: The declared ``(style, explode)`` of form properties (their ``encoding``).
    encoding: Mapping[str, Style] = attrs.field(factory=dict[str, Style])
    files: Any = None
    content: bytes | str | None = None
    #: A binary body sent byte for byte, a path or file streamed (`upload`).
    upload: Upload | None = None
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


_TOKEN = re.compile(r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_FIELD_VALUE = re.compile(r"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")


def check_headers(headers: Mapping[str, str | bytes]) -> None:
    """Refuse, with `InvalidHeader` naming the header (never its value), a header
    that no HTTP/1.1 request can carry, before anything is sent."""
    for name, value in headers.items():
        if not _TOKEN.fullmatch(name):
            raise InvalidHeader(f"the header name {name!r} is not an HTTP token")
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if _FIELD_VALUE.fullmatch(text) and (
            isinstance(value, bytes) or text.isascii()
        ):
            continue
        if "\r" in text or "\n" in text:
            cause = "holds a line break (CR or LF)"
        elif "\0" in text:
            cause = "holds a NUL character"
        elif not text.isascii():
            cause = (
                "holds a character outside ASCII (pass bytes to send another encoding)"
            )
        elif text != text.strip(" \t"):
            cause = "begins or ends with whitespace"
        else:
            cause = "holds a control character no header may carry"
        raise InvalidHeader(
            f"the value of the header {name!r} {cause}; nothing was sent"
        )


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
        options.content is None and options.files is None and options.upload is None
    ):
        return {**cast("Mapping[str, Any]", json or {}), **extra}, None
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


def decode_json_text(response: httpx.Response) -> str:
    """A body the spec declares a JSON string: the string it holds. A body that holds
    no JSON string (a `.jsonl` file sent where the spec says `application/json`) is
    its text, as received, unless decoding is strict (W15)."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, str):
        return data
    if decoding_mode() == "strict":
        return decode_json(response, as_str)
    kind = response.headers.get("content-type", "no content type")
    report("$", f"expected a JSON string, got {kind}", "text")
    return response.text


def _read(content: FileContent) -> bytes:
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    if isinstance(content, PathLike):
        return b"".join(chunks(content, path_length(content), None))
    return content.read()


def file_part(
    name: str, value: FileInput, declared: str | None = None
) -> tuple[str, bytes | IO[bytes], str]:
    """A multipart file: ``(filename, content, content_type)`` with the real file name
    (a path's or a file object's) where there is one, else the field's name; its type
    is the tuple's, else the part's declared ``contentType``, else guessed from the name.
    A file object goes as it is (httpx streams it, from its start)."""
    import mimetypes

    if isinstance(value, tuple):
        entry = cast("tuple[Any, ...]", value)
        filename: str = entry[0]
        content: FileContent = entry[1]
        kind: str | None = entry[2] if len(entry) > 2 else None
    else:
        content, kind = value, None
        named: object = (
            None if isinstance(value, bytes) else getattr(value, "name", None)
        )
        if isinstance(named, int):  # a file object over a descriptor has no name
            named = None
        filename = basename(fspath(cast("str", named))) if named else name
    guessed = mimetypes.guess_type(filename)[0]
    if not isinstance(content, (bytes, bytearray, PathLike)):
        part_file(content)  # a device, a pipe: no length httpx could announce
    data: bytes | IO[bytes] = (
        _read(content) if isinstance(content, (bytes, bytearray, PathLike)) else content
    )
    return filename, data, kind or declared or guessed or "application/octet-stream"


def _is_file(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, PathLike, tuple)) or hasattr(
        value, "read"
    )


def _concrete(media_type: str | None) -> str | None:
    """A declared part type that can go on the wire (not ``image/*``)."""
    return None if media_type is None or "*" in media_type else media_type


def multipart(
    body: Any, part_types: Mapping[str, str] | None = None
) -> list[tuple[str, Any]]:
    """A multipart body: bytes, paths, file objects and ``(filename, content[,
    content_type])`` tuples become files, everything else text fields; ``part_types``:
    the parts' declared ``contentType`` (a file part takes it, a JSON part is JSON)."""
    fields: Mapping[str, object] = (
        cast("Mapping[str, object]", body)
        if isinstance(body, Mapping)
        else _encode(body)
    )
    parts: list[tuple[str, Any]] = []
    for key, value in fields.items():
        declared = _concrete((part_types or {}).get(key))
        values: list[Any] = [*value] if isinstance(value, list) else [value]
        for item in values:
            if item is None or isinstance(item, Unset):
                continue
            if _is_file(item):
                parts.append((key, file_part(key, item, declared)))
            elif declared is not None and media_kind(declared) == "json":
                parts.append((key, (None, json_module.dumps(_encode(item)), declared)))
            elif declared is not None:
                parts.append((key, (None, scalar(item), declared)))
            else:
                parts.append((key, (None, scalar(item))))
    return parts


def media_kind(media_type: str) -> str:
    """How a body of ``media_type`` is sent: ``json``, ``form``, ``multipart``,
    ``text`` or (anything else) ``binary``, byte for byte."""
    base = _base(media_type)
    if base == "application/json" or base.endswith("+json"):
        return "json"
    if base == "application/x-www-form-urlencoded":
        return "form"
    if base.startswith("multipart/"):
        return "multipart"
    return "text" if base.startswith("text/") else "binary"


def _base(media_type: str) -> str:
    return media_type.split(";", 1)[0].strip().lower()


def _is_content(body: Any) -> bool:
    return isinstance(body, (bytes, bytearray, PathLike)) or hasattr(body, "read")


def _default_media(body: Any, media: tuple[str, ...]) -> str:
    """The media type a body goes as when the caller names none: a text one for a
    string, a binary one (``application/octet-stream`` first) for bytes, a path or a
    file, the structured one (JSON, form or multipart) for anything else."""
    kinds = {m: media_kind(m) for m in media}
    if isinstance(body, str):
        wanted: tuple[str, ...] = ("text", "json")
    elif _is_content(body):
        if "application/octet-stream" in kinds:
            return "application/octet-stream"
        wanted = ("binary", "text")
    else:
        wanted = ("json", "form", "multipart")
    for kind in wanted:
        found = next((m for m in media if kinds[m] == kind), None)
        if found is not None:
            return found
    raise TypeError(
        f"a {type(body).__name__} body fits none of the media types the operation "
        f"takes ({', '.join(media)}); pass content_type="
    )


def body_fields(
    body: Any,
    content_type: str | None,
    media: tuple[str, ...],
    headers: Mapping[str, Any] | None = None,
    part_types: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The body fields of `RequestOptions` for an operation that takes several media
    types (``media``): sent as ``content_type``, else as the ``Content-Type`` of
    ``headers`` (the caller's ``extra_headers``) where the operation declares it, else
    as the body's kind suggests (`_default_media`). A ``Content-Type`` in ``headers``
    is sent as given; one contradicting ``content_type`` is refused."""
    given = header_value(headers or {}, "Content-Type")
    given = None if isinstance(given, Unset) else given
    if (
        content_type is not None
        and given is not None
        and _base(given) != _base(content_type)
    ):
        raise ValueError(
            f"extra_headers sets Content-Type {given!r}, but content_type={content_type!r}: "
            "give one of them, or the same media type in both"
        )
    chosen = content_type
    if chosen is None and given is not None:
        chosen = next((m for m in media if _base(m) == _base(given)), None)
    if chosen is None:
        chosen = _default_media(body, media)
    if chosen not in media:
        raise ValueError(
            f"content_type={chosen!r} is not one the operation takes: {', '.join(media)}"
        )
    kind = media_kind(chosen)
    if kind in ("binary", "text") and _is_content(body):
        return {"upload": upload(body), "content_type": chosen}
    if kind == "text" and isinstance(body, str):
        return {"content": body, "content_type": chosen}
    if kind in ("binary", "text"):
        takes = (
            "str, bytes, a path or a file"
            if kind == "text"
            else "bytes, a path or a file"
        )
        raise TypeError(f"a {chosen} body takes {takes}, not {type(body).__name__}")
    if kind == "json":
        return {"json": _encode(body), "content_type": chosen}
    if kind == "form":
        return {"form": _encode(body)}
    return {"files": multipart(body, part_types)}


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
