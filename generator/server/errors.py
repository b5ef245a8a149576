"""Error answers in the spec's own shape.

The intermediate model keeps only success responses, so the error responses an operation
declares (``409``, ``4XX``, ``default``, ...) are read from the spec document itself and
typed with the same schema builder. A spec that declares none gets ``{"code", "message"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..model import ir
from ..model.schemas import SchemaBuilder
from ..problems import Location, SpecError
from ..spec.loader import SpecSet, load_spec
from .samples import Sampler

__all__ = ["ErrorShapes", "error_code", "fill_error", "read_spec"]

JSON = Any

_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "job_not_completed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}
_CODE_KEYS = frozenset({"code", "errorcode", "error_code"})
_MESSAGE_KEYS = frozenset({"message", "msg", "detail", "error_description", "errormessage"})


def error_code(status: int) -> str:
    """A machine-readable code for an error status, e.g. ``rate_limited`` for 429."""
    return _CODES.get(status, "client_error" if status < 500 else "server_error")


def _walk(data: Any, pointer: str) -> Any:
    node = data
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            return None
        node = node[token]
    return node


class ErrorShapes:
    """Types and example bodies of the error answers of an SDK's operations."""

    def __init__(self, sdk: ir.Sdk, spec_path: Path | None, *, timestamp: str) -> None:
        self._spec: SpecSet | None = None
        self._builder: SchemaBuilder | None = None
        self._cache: dict[tuple[str, int], ir.TypeRef | None] = {}
        # The spec the SDK was built from, read once; an SDK model made without one
        # (by hand) has its spec read from its file.
        self._spec = sdk.spec if sdk.spec is not None else read_spec(spec_path or _guess_path(sdk))
        schemas: Mapping[str, ir.NamedSchema] = sdk.schemas
        if self._spec is not None:
            self._builder = SchemaBuilder(self._spec, [])
            schemas = _Merged(sdk.schemas, self._builder.schemas)
        self._sampler = Sampler(schemas, timestamp=timestamp)

    def type_for(self, op: ir.Operation | None, status: int) -> ir.TypeRef | None:
        """The schema of ``op``'s answer with ``status``: exact, ``4XX``, ``default``, any error."""
        if op is None or op.location is None or self._spec is None or self._builder is None:
            return None
        key = (op.operation_id, status)
        if key not in self._cache:
            self._cache[key] = self._find(op.location, status)
        return self._cache[key]

    def _find(self, at: Location, status: int) -> ir.TypeRef | None:
        assert self._spec is not None and self._builder is not None
        if at.file != self._spec.root.name:
            return None
        responses = _walk(self._spec.root.data, at.pointer + "/responses")
        if not isinstance(responses, dict):
            return None
        codes = [str(code) for code in responses]
        same_class = sorted(c for c in codes if c[:1] == str(status)[0] and c != str(status))
        other = sorted(c for c in codes if c[:1] in "45" and c not in same_class)
        for code in [str(status), "default", *same_class, *other]:
            if code not in codes:
                continue
            raw = responses.get(code, responses.get(int(code) if code.isdigit() else code))
            found = self._schema_of(raw, at.child("responses", code))
            if found is not None:
                return found
        return None

    def _schema_of(self, raw: object, at: Location) -> ir.TypeRef | None:
        assert self._spec is not None and self._builder is not None
        try:
            node, node_at = self._spec.deref(raw, at)
        except SpecError:
            return None
        content = node.get("content") if isinstance(node, dict) else None
        if not isinstance(content, dict):
            return None
        for media_type, media in content.items():
            if "json" in str(media_type) and isinstance(media, dict) and "schema" in media:
                return self._builder.type_of(
                    media["schema"], node_at.child("content", str(media_type), "schema"), "Error"
                )
        return None

    def documents_header(self, op: ir.Operation, name: str) -> bool:
        """Whether one of ``op``'s success answers declares the header ``name``."""
        if op.location is None or self._spec is None:
            return False
        at = op.location.child("responses")
        responses = _walk(self._spec.root.data, at.pointer)
        for code, raw in responses.items() if isinstance(responses, dict) else ():
            if not str(code).startswith("2"):
                continue
            try:
                node, _ = self._spec.deref(raw, at.child(str(code)))
            except SpecError:
                continue
            headers = node.get("headers") if isinstance(node, dict) else None
            if isinstance(headers, dict) and name.lower() in {str(h).lower() for h in headers}:
                return True
        return False

    def media_example(self, op: ir.Operation, status: str, media_type: str) -> JSON:
        """An example of the schema of ``op``'s ``status`` answer in ``media_type``, read
        from the spec (the model types a JSON Lines answer as bytes); None without one."""
        if op.location is None or self._spec is None or self._builder is None:
            return None
        at = op.location.child("responses", status)
        try:
            node, node_at = self._spec.deref(_walk(self._spec.root.data, at.pointer), at)
        except SpecError:
            return None
        content = node.get("content") if isinstance(node, dict) else None
        media = content.get(media_type) if isinstance(content, dict) else None
        if not isinstance(media, dict) or "schema" not in media:
            return None
        schema_at = node_at.child("content", media_type, "schema")
        t = self._builder.type_of(media["schema"], schema_at, "Item")
        if isinstance(t, ir.ListType):
            t = t.item
        return self._sampler.sample(t, force=True)

    def body(
        self, op: ir.Operation | None, status: int, message: str, code: str | None = None
    ) -> JSON:
        """An error body for ``op`` answering ``status``, carrying ``code`` and ``message``."""
        code = code or error_code(status)
        t = self.type_for(op, status)
        if t is None:
            return {"code": code, "message": message}
        sample = self._sampler.sample(t, force=True)
        if isinstance(sample, str):
            return message
        filled = fill_error(sample, code, message)
        if not _holds(filled, message):
            # The spec's error shape has no place for a message: the violations named in
            # it matter more than the shape.
            return {"code": code, "message": message}
        return filled


def fill_error(value: JSON, code: str, message: str) -> JSON:
    """``value`` with every code-like string set to ``code`` and message-like one to ``message``."""
    if isinstance(value, list):
        return [fill_error(item, code, message) for item in value]
    if not isinstance(value, dict):
        return value
    # An ``error`` string is the message where nothing beside it is (AssemblyAI's
    # ``{"error": "..."}``); beside a description it is a code (OAuth's ``invalid_request``).
    lowered_keys = {str(k).lower() for k in value}
    messages = _MESSAGE_KEYS if lowered_keys & _MESSAGE_KEYS else _MESSAGE_KEYS | {"error"}
    out = {}
    for key, item in value.items():
        lowered = key.lower()
        if lowered in _CODE_KEYS and isinstance(item, str):
            out[key] = code
        elif lowered in messages and isinstance(item, str | None):
            out[key] = message
        else:
            out[key] = fill_error(item, code, message)
    return out


def _holds(value: JSON, text: str) -> bool:
    """Whether ``text`` is one of the strings in ``value``."""
    if isinstance(value, dict):
        return any(_holds(item, text) for item in value.values())
    if isinstance(value, list):
        return any(_holds(item, text) for item in value)
    return bool(value == text)


def read_spec(path: Path | None) -> SpecSet | None:
    """The spec at ``path`` for a model built without one (None where it cannot be read)."""
    if path is None:
        return None
    try:
        # Named as load_and_build names it, so schema keys match the SDK's.
        return load_spec(path)
    except SpecError:
        return None


def _guess_path(sdk: ir.Sdk) -> Path | None:
    for job in sdk.jobs:
        location = job.status.location
        if location is not None and Path(location.file).is_file():
            return Path(location.file)
    return None


class _Merged(Mapping[str, ir.NamedSchema]):
    """The SDK's schemas, then the ones met while typing error responses."""

    def __init__(
        self, first: Mapping[str, ir.NamedSchema], second: Mapping[str, ir.NamedSchema]
    ) -> None:
        self._first = first
        self._second = second

    def __getitem__(self, key: str) -> ir.NamedSchema:
        if key in self._first:
            return self._first[key]
        return self._second[key]

    def __iter__(self) -> Any:
        yield from self._first
        yield from (k for k in self._second if k not in self._first)

    def __len__(self) -> int:
        return len(set(self._first) | set(self._second))
