"""Answers true to the spec: the declared responses of each operation, and the self-check.

Every answer the simulated API sends is checked, before it is sent, against the response
its operation declares for the status (the exact code, then ``2XX``-style ranges, then
``default``): the status must be declared (a refusal of a bad request, 4xx, may fall
back on no declared answer), each declared header must be there when required and
match its schema, and the body must be of a declared media type and, for JSON, match
that media type's schema. A violation is a bug of the simulation: it is logged, counted
(:class:`SelfCheck`), and in strict mode the answer becomes a 500 naming it.

The same compiled schemas make up and repair the values answers carry
(:class:`~.values.Values`): error codes from the spec's enums, strings of its patterns
and formats, numbers within its bounds.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import threading
from collections.abc import Collection
from typing import Any, ClassVar, Literal

import attrs

from ..model import ir
from ..problems import Location, SpecError, pointer_join
from ..spec.loader import SpecSet
from .validate import _Bundler, _form_of, _media_matches, _scalar, _types, _walk
from .values import Values
from .wire import Answer, json_answer

__all__ = [
    "SELF_CHECK_ENV",
    "AnswerViolation",
    "Declared",
    "SelfCheck",
    "SelfCheckMode",
    "self_check_mode",
]

JSON = Any
SelfCheckMode = Literal["log", "strict"]
#: The environment variable giving the self-check's mode when none is passed.
SELF_CHECK_ENV = "JOBGEN_SERVE_SELF_CHECK"
#: The newest violations a server keeps (they are counted all the same).
KEPT_VIOLATIONS = 1000
#: Headers OpenAPI says a response's ``headers`` map does not describe.
_IGNORED = frozenset({"content-type"})

logger = logging.getLogger("jobgen.server")


def self_check_mode(mode: str | None) -> SelfCheckMode:
    """``mode``, else the environment's ``JOBGEN_SERVE_SELF_CHECK``, else ``log``."""
    chosen = mode if mode is not None else os.environ.get(SELF_CHECK_ENV) or "log"
    if chosen not in ("log", "strict"):
        raise ValueError(f"the self-check mode must be log or strict, not {chosen!r}")
    return "strict" if chosen == "strict" else "log"


@attrs.frozen
class _Header:
    name: str
    required: bool
    kinds: frozenset[str]
    item_kinds: frozenset[str]
    values: Values


@attrs.frozen
class _Response:
    key: str
    headers: tuple[_Header, ...]
    media: tuple[tuple[str, Values | None], ...]
    """Each declared media type (lowercased), with its schema where it is JSON."""


class Declared:
    """The compiled responses of the operations a server answers, by operation id."""

    def __init__(self, spec: SpecSet, operations: Collection[ir.Operation], *, timestamp: str):
        version = (
            str(spec.root.data.get("openapi", "3.0")) if isinstance(spec.root.data, dict) else "3.0"
        )
        self._spec = spec
        self._openapi30 = not version.startswith("3.1")
        self._timestamp = timestamp
        self._ops: dict[str, dict[str, _Response]] = {}
        for op in operations:
            if op.operation_id not in self._ops:
                self._ops[op.operation_id] = self._compile(op)

    def _compile(self, op: ir.Operation) -> dict[str, _Response]:
        if op.location is None:
            return {}
        try:
            raw = self._spec.document_at(op.location).data
        except SpecError:
            return {}
        node = _walk(raw, op.location.pointer)
        responses = node.get("responses") if isinstance(node, dict) else None
        out: dict[str, _Response] = {}
        for key, entry in responses.items() if isinstance(responses, dict) else ():
            at = Location(
                op.location.file, pointer_join(op.location.pointer, "responses", str(key))
            )
            try:
                found, found_at = self._spec.deref(entry, at)
            except SpecError:
                continue
            if isinstance(found, dict):
                seed = f"{op.operation_id}/{key}"
                out[str(key).upper()] = self._response(str(key).upper(), found, found_at, seed)
        return out

    def _values(self, schema: JSON, at: Location, seed: str) -> Values:
        bundled = _Bundler(self._spec, self._openapi30, response=True).bundle(schema, at)
        return Values(bundled, timestamp=self._timestamp, seed=seed)

    def _response(self, key: str, node: dict[str, JSON], at: Location, seed: str) -> _Response:
        headers: list[_Header] = []
        declared = node.get("headers")
        for name, entry in declared.items() if isinstance(declared, dict) else ():
            if str(name).lower() in _IGNORED:
                continue
            where = at.child("headers", str(name))
            try:
                header, header_at = self._spec.deref(entry, where)
            except SpecError:
                continue
            if not isinstance(header, dict):
                continue
            schema, schema_at = header.get("schema", True), header_at.child("schema")
            kinds, resolved, resolved_at = _types(schema, self._spec, schema_at)
            items: set[str] = set()
            if isinstance(resolved, dict) and "items" in resolved:
                items = _types(resolved["items"], self._spec, resolved_at.child("items"))[0]
            headers.append(
                _Header(
                    str(name),
                    header.get("required") is True,
                    frozenset(kinds),
                    frozenset(items),
                    self._values(schema, schema_at, f"{seed}/{name}"),
                )
            )
        media: list[tuple[str, Values | None]] = []
        content = node.get("content")
        for media_type, entry in content.items() if isinstance(content, dict) else ():
            lowered = str(media_type).split(";")[0].strip().lower()
            values = None
            if _form_of(lowered) == "json" and isinstance(entry, dict):
                schema = entry.get("schema", True)
                values = self._values(
                    schema, at.child("content", str(media_type), "schema"), f"{seed}/{lowered}"
                )
            media.append((lowered, values))
        return _Response(key, tuple(headers), tuple(media))

    # -- looking up -------------------------------------------------------------------

    def response(self, op: ir.Operation | None, status: int) -> _Response | None:
        """The response ``op`` declares for ``status``: exact, ``4XX``, then ``default``."""
        if op is None:
            return None
        declared = self._ops.get(op.operation_id)
        if declared is None:
            return None
        for key in (str(status), f"{str(status)[0]}XX", "DEFAULT"):
            if key in declared:
                return declared[key]
        return None

    def knows(self, op: ir.Operation | None) -> bool:
        """Whether ``op``'s responses were read from the spec."""
        return op is not None and op.operation_id in self._ops

    def values(
        self, op: ir.Operation | None, status: int, media_type: str = "application/json"
    ) -> Values | None:
        """The schema of ``op``'s ``status`` answer in ``media_type`` (or its first JSON one)."""
        response = self.response(op, status)
        if response is None:
            return None
        wanted = media_type.split(";")[0].strip().lower()
        for declared, values in response.media:
            if values is not None and _media_matches(declared, wanted):
                return values
        return next((v for _, v in response.media if v is not None), None)

    def conform(
        self,
        op: ir.Operation | None,
        status: int,
        value: JSON,
        *,
        protect: Collection[str] = (),
        media_type: str = "application/json",
    ) -> JSON:
        """``value`` made valid for ``op``'s ``status`` answer, but for ``protect``."""
        values = self.values(op, status, media_type)
        return value if values is None else values.conform(value, protect=protect)

    def header_value(self, op: ir.Operation | None, status: int, name: str) -> str | None:
        """A value of the header ``name`` of ``op``'s ``status`` answer, from its schema."""
        response = self.response(op, status)
        header = (
            next((h for h in response.headers if h.name.lower() == name.lower()), None)
            if response
            else None
        )
        if header is None:
            return None
        value = header.values.make(where=f"/header/{name}")
        if isinstance(value, list):
            return ",".join(map(str, value))
        if isinstance(value, bool):
            return "true" if value else "false"
        return None if isinstance(value, dict) or value is None else str(value)

    def headers_of(self, op: ir.Operation | None, status: int) -> tuple[str, ...]:
        """The names of the headers ``op`` declares for its ``status`` answer."""
        response = self.response(op, status)
        return tuple(h.name for h in response.headers) if response else ()

    # -- checking ---------------------------------------------------------------------

    def check(self, op: ir.Operation | None, answer: Answer) -> list[str]:
        """Every way ``answer`` to ``op`` breaks the response ``op`` declares."""
        if not self.knows(op):
            return []
        response = self.response(op, answer.status)
        if response is None:
            if answer.status >= 400:
                return []  # a refusal the spec gives no answer for: nothing to follow
            return [f"/status: {answer.status} is not a declared answer"]
        sent = {name.lower(): value for name, value in answer.headers}
        problems: list[str] = []
        for header in response.headers:
            text = sent.get(header.name.lower())
            pointer = pointer_join("", "header", header.name)
            if text is None:
                if header.required:
                    problems.append(f"{pointer}: is required")
                continue
            problems += _errors(header.values, _header_value(header, text), pointer)
        if response.media and answer.stream is None:
            problems += self._check_body(response, answer, sent.get("content-type"))
        return problems

    def _check_body(
        self, response: _Response, answer: Answer, content_type: str | None
    ) -> list[str]:
        declared = ", ".join(m for m, _ in response.media)
        if not answer.body:
            if answer.status in (204, 205, 304):
                return []
            return [f"/body: is empty; the spec declares {declared}"]
        sent = (content_type or "").split(";")[0].strip().lower()
        found = next(((m, v) for m, v in response.media if _media_matches(m, sent)), None)
        if found is None:
            return [f"/header/Content-Type: {sent or 'none'} is not one of {declared}"]
        values = found[1]
        if values is None:
            return []
        try:
            value = json.loads(answer.body)
        except (ValueError, UnicodeDecodeError) as exc:
            return [f"/body: is not JSON: {exc}"]
        return _errors(values, value, "/body")


def _header_value(header: _Header, text: str) -> JSON:
    if "array" in header.kinds:
        return [_scalar(v.strip(), header.item_kinds) for v in text.split(",")] if text else []
    return _scalar(text.strip(), header.kinds)


def _errors(values: Values, value: JSON, base: str) -> list[str]:
    out = []
    for error in values.validator.iter_errors(value):
        path = [str(p) for p in error.instance_path]
        message = str(error.message)
        if len(message) > 200:
            message = message[:197] + "..."
        out.append(f"{pointer_join(base, *path)}: {message}")
    return out


# -- the self-check ---------------------------------------------------------------------


@attrs.frozen
class AnswerViolation:
    """An answer the simulation sent (or, strict, would have sent) that broke the spec."""

    method: str
    path: str
    status: int
    operation_id: str
    problems: tuple[str, ...]
    caller: str | None = attrs.field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "operation": self.operation_id,
            "problems": list(self.problems),
        }

    def __str__(self) -> str:
        return (
            f"{self.method} {self.path} ({self.operation_id}) answered {self.status}: "
            + "; ".join(self.problems)
        )


class SelfCheck:
    """Checks each answer before it is sent; counts and keeps the violations.

    ``totals`` counts every server of the process (answers checked, answers that broke
    the spec), for a test suite's summary.
    """

    totals: ClassVar[collections.Counter[str]] = collections.Counter()
    _totals_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, declared: Declared | None, mode: SelfCheckMode) -> None:
        self.declared = declared
        self.mode = mode
        self.checked = 0
        self.count = 0
        self.recent: collections.deque[AnswerViolation] = collections.deque(maxlen=KEPT_VIOLATIONS)

    @property
    def strict(self) -> bool:
        return self.mode == "strict"

    def review(
        self,
        op: ir.Operation | None,
        method: str,
        path: str,
        answer: Answer,
        *,
        spared: Collection[str] = (),
        caller: str | None = None,
    ) -> Answer:
        """``answer``, checked; in strict mode a 500 naming the violation instead of a
        bad one. Problems under a pointer in ``spared`` are the scenario's own doing."""
        if self.declared is None or op is None or answer.drop:
            return answer
        problems = [p for p in self.declared.check(op, answer) if not _spared(p, spared)]
        self.checked += 1
        with self._totals_lock:
            SelfCheck.totals["checked"] += 1
            if problems:
                SelfCheck.totals["violated"] += 1
        if not problems:
            return answer
        self.count += 1
        found = AnswerViolation(
            method, path, answer.status, op.operation_id, tuple(problems), caller
        )
        self.recent.append(found)
        logger.error("jobgen serve sent an answer the spec forbids: %s", found)
        if not self.strict:
            return answer
        message = f"the simulated answer broke the spec (a jobgen serve bug): {found}"
        return json_answer(500, {"error": {"code": "self_check", "message": message}})

    def violations(
        self, caller: str | None = None, *, everyone: bool = True
    ) -> list[AnswerViolation]:
        """The violations kept (the caller's only, unless ``everyone``), oldest first."""
        return [v for v in self.recent if everyone or v.caller == caller]

    def to_json(self, caller: str | None) -> dict[str, Any]:
        mine = self.violations(caller, everyone=False)
        return {
            "mode": self.mode,
            "checked": self.checked,
            "violations": self.count,
            "yours": [v.to_json() for v in mine],
        }


def _spared(problem: str, spared: Collection[str]) -> bool:
    pointer = problem.split(": ", 1)[0].lower()
    return any(pointer == s.lower() or pointer.startswith(s.lower() + "/") for s in spared)


def header_pointer(name: str) -> str:
    return pointer_join("", "header", name)


def body_pointer(path: Collection[str]) -> str:
    return pointer_join("/body", *path)
