"""Matching requests against the job operations: by templated path, method and body media type.

A path template (``/v1/jobs/{job_id}``, ``/models/{modelId}:analyze``) is matched segment by
segment without backtracking, in time linear in the path: a parameter never holds a ``/``;
the text after a segment's last parameter must end the segment, and each parameter before a
literal ends at that literal's last occurrence (so ``{name}.{ext}`` reads ``a.b.c`` as
``a.b`` and ``c``). Adjacent parameters (``{p0}{p1}``), which no server can tell apart,
each take one character but the first, which takes the rest. When several operations share a
method and path (an OpenAPI path and an Azure ``x-ms-paths`` overload of it), the request's
``Content-Type`` picks the one whose request body declares that media type.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import attrs

from ..model import ir

__all__ = ["Matched", "PathTemplate", "Route", "Router", "media_matches"]

OperationRole = Literal["create", "status", "result", "cancel", "list", "events"]

_PARAM = re.compile(r"\{([^{}]+)\}")


@attrs.frozen
class _Segment:
    """One ``/``-separated segment of a template: literals and parameter names, alternating,
    starting and ending with a literal (possibly empty)."""

    literals: tuple[str, ...]
    names: tuple[str, ...]

    def match(self, text: str) -> list[str] | None:
        """The parameter values of ``text``, or None; linear in ``len(text)``, no backtracking."""
        literals, names = self.literals, self.names
        if not names:
            return [] if text == literals[0] else None
        head, tail = literals[0], literals[-1]
        if not text.startswith(head) or not text.endswith(tail):
            return None
        start, end = len(head), len(text) - len(tail)
        if end - start < len(names):
            return None
        values: list[str] = [""] * len(names)
        # Right to left: the last parameter ends where the tail starts; a parameter before a
        # literal ends at that literal's last occurrence that leaves one character per
        # parameter to its left.
        for i in range(len(names) - 1, 0, -1):
            literal = literals[i]
            if literal:
                at = text.rfind(literal, start + i, end - 1) if end - 1 > start + i else -1
                if at < 0 or at + len(literal) >= end:
                    return None
                values[i] = text[at + len(literal) : end]
                end = at
            else:
                values[i] = text[end - 1 : end]
                end -= 1
        if end <= start:
            return None
        values[0] = text[start:end]
        return values


@attrs.frozen
class PathTemplate:
    """A templated path (``/v1/jobs/{job_id}``) and the names of its parameters, in order."""

    template: str
    segments: tuple[_Segment, ...]
    names: tuple[str, ...]

    @classmethod
    def parse(cls, template: str) -> PathTemplate:
        segments = []
        for part in template.split("/"):
            literals: list[str] = []
            names: list[str] = []
            position = 0
            for found in _PARAM.finditer(part):
                literals.append(part[position : found.start()])
                names.append(found.group(1))
                position = found.end()
            literals.append(part[position:])
            segments.append(_Segment(tuple(literals), tuple(names)))
        return cls(template, tuple(segments), tuple(n for s in segments for n in s.names))

    def match(self, path: str) -> dict[str, str] | None:
        """The parameter values of ``path`` by name, or None when it does not match."""
        parts = path.split("/")
        if len(parts) != len(self.segments):
            return None
        values: list[str] = []
        for segment, text in zip(self.segments, parts, strict=True):
            found = segment.match(text)
            if found is None:
                return None
            values += found
        return dict(zip(self.names, values, strict=True))


def media_matches(declared: str, sent: str) -> bool:
    """Whether a body sent as ``sent`` fits the ``declared`` media type (``image/*``, ``*/*``)."""
    declared, sent = declared.lower(), sent.lower()
    if declared in ("*/*", sent):
        return True
    kind, _, sub = declared.partition("/")
    return sub == "*" and sent.partition("/")[0] == kind


def body_media_types(op: ir.Operation) -> tuple[str, ...]:
    """The media types ``op``'s request body declares (none without a body)."""
    body = op.body
    if body is None:
        return ()
    declared = [body.media_type, *(m for m, _ in body.media)]
    return tuple(dict.fromkeys(m.split(";")[0].strip().lower() for m in declared if m))


@attrs.frozen
class Route:
    method: str
    template: PathTemplate
    job: ir.Job
    role: OperationRole
    operation: ir.Operation


@attrs.frozen
class Matched:
    route: Route
    params: dict[str, str]


class Router:
    """The create, status, result and cancel operations of every declared job, list
    operations (``lists``: each with the job whose records it lists) and event streams
    (``streams``: each with the job it follows)."""

    def __init__(
        self,
        jobs: tuple[ir.Job, ...],
        lists: tuple[tuple[ir.Job, ir.Operation], ...] = (),
        streams: tuple[tuple[ir.Job, ir.Operation], ...] = (),
    ) -> None:
        self.routes: list[Route] = []
        for job, listing in lists:
            self.routes.append(Route("GET", PathTemplate.parse(listing.path), job, "list", listing))
        for job, stream in streams:
            self.routes.append(Route("GET", PathTemplate.parse(stream.path), job, "events", stream))
        for job in jobs:
            roles: tuple[tuple[OperationRole, ir.Operation | None], ...] = (
                ("create", job.create),
                ("status", job.status),
                ("result", job.result),
                ("cancel", job.cancel),
            )
            for role, op in roles:
                if op is not None:
                    template = PathTemplate.parse(op.path)
                    self.routes.append(Route(op.method.upper(), template, job, role, op))

    def match(
        self, method: str, path: str, content_type: str | None = None
    ) -> Matched | list[str] | None:
        """The route for ``method path``; the allowed methods when only the path matches; else
        None. Of several routes with that method and path, the first whose request body
        declares ``content_type`` (else the first)."""
        allowed: list[str] = []
        found: list[Matched] = []
        for route in self.routes:
            params = route.template.match(path)
            if params is None:
                continue
            if route.method == method:
                found.append(Matched(route, params))
            elif route.method not in allowed:
                allowed.append(route.method)
        if found:
            return _by_media_type(found, content_type)
        return allowed or None

    def for_job(self, route: Route, job_name: str) -> Route | None:
        """The route of job ``job_name`` that shares ``route``'s method, path and role: jobs
        may share their status, result or cancel operation (a job's kind is known by its id)."""
        for other in self.routes:
            if (
                other.job.name == job_name
                and other.role == route.role
                and other.method == route.method
                and other.operation.path == route.operation.path
            ):
                return other
        return None


def _by_media_type(found: Sequence[Matched], content_type: str | None) -> Matched:
    """The match whose operation takes a body of ``content_type``: an exact media type
    first, then a pattern (``image/*``, ``*/*``); the first match when none does."""
    if len(found) == 1 or not content_type:
        return found[0]
    sent = content_type.split(";")[0].strip().lower()
    for exact in (True, False):
        for match in found:
            for declared in body_media_types(match.route.operation):
                if declared == sent if exact else media_matches(declared, sent):
                    return match
    return found[0]
