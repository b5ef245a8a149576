"""Matching request paths against the job operations' templated paths."""

from __future__ import annotations

import re
from typing import Literal

import attrs

from ..model import ir
from ..spec.loader import SpecSet
from .validate import RequestChecks

__all__ = ["Matched", "Others", "Route", "Router", "compile_path"]

OperationRole = Literal["create", "status", "result", "cancel", "list", "events"]

_PARAM = re.compile(r"\{([^{}]+)\}")


def compile_path(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A regex matching ``template`` (``/v1/jobs/{job_id}``) and its parameter names, in order."""
    parts: list[str] = []
    names: list[str] = []
    position = 0
    for found in _PARAM.finditer(template):
        parts.append(re.escape(template[position : found.start()]))
        parts.append("([^/]+)")
        names.append(found.group(1))
        position = found.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts)), tuple(names)


@attrs.frozen
class Route:
    method: str
    pattern: re.Pattern[str]
    names: tuple[str, ...]
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
            pattern, names = compile_path(listing.path)
            self.routes.append(Route("GET", pattern, names, job, "list", listing))
        for job, stream in streams:
            pattern, names = compile_path(stream.path)
            self.routes.append(Route("GET", pattern, names, job, "events", stream))
        for job in jobs:
            roles: tuple[tuple[OperationRole, ir.Operation | None], ...] = (
                ("create", job.create),
                ("status", job.status),
                ("result", job.result),
                ("cancel", job.cancel),
            )
            for role, op in roles:
                if op is not None:
                    pattern, names = compile_path(op.path)
                    self.routes.append(Route(op.method.upper(), pattern, names, job, role, op))

    def match(self, method: str, path: str) -> Matched | list[str] | None:
        """The route for ``method path``; the allowed methods when only the path matches; else None."""
        allowed: list[str] = []
        for route in self.routes:
            found = route.pattern.fullmatch(path)
            if found is None:
                continue
            if route.method == method:
                return Matched(route, dict(zip(route.names, found.groups(), strict=True)))
            if route.method not in allowed:
                allowed.append(route.method)
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


class Others:
    """The spec's operations that are not part of a job (and not a job's list or event
    stream): served too, from their examples or schemas, after the job routes."""

    def __init__(self, sdk: ir.Sdk, router: Router) -> None:
        taken = {route.operation.operation_id for route in router.routes}
        self.operations: list[ir.Operation] = []
        self._routes: list[tuple[str, re.Pattern[str], tuple[str, ...], ir.Operation]] = []
        self._checks: dict[str, RequestChecks] = {}
        for resource in sdk.resources:
            for op in resource.operations:
                if op.operation_id in taken:
                    continue
                taken.add(op.operation_id)
                pattern, names = compile_path(op.path)
                self.operations.append(op)
                self._routes.append((op.method.upper(), pattern, names, op))

    def checks(self, op: ir.Operation, spec: SpecSet | None) -> RequestChecks | None:
        """The request contract of ``op``, compiled on first use (None: none to check)."""
        if spec is None:
            return None
        found = self._checks.get(op.operation_id)
        if found is None:
            found = self._checks[op.operation_id] = RequestChecks(spec, [op])
        return found

    def match(self, method: str, path: str) -> tuple[ir.Operation, dict[str, str]] | None:
        """The operation at ``method path``, and its path parameters; None when none is."""
        for verb, pattern, names, op in self._routes:
            found = pattern.fullmatch(path)
            if found is not None and verb == method:
                return op, dict(zip(names, found.groups(), strict=True))
        return None
