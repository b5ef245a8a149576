"""Changes to jobs and their waiters, to auth, and to the client itself."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import ir
from ..model.names import snake
from .changes import Change
from .context import Context
from .typeref import show

__all__ = ["auth_changes", "client_changes", "job_changes"]


def client_changes(ctx: Context) -> Iterator[Change]:
    if ctx.old.base_url != ctx.new.base_url:
        yield Change(
            "client.base_url_changed",
            "client",
            f"default base URL changed from {ctx.old.base_url!r} to {ctx.new.base_url!r}",
            False,
        )


def _waiters(sdk: ir.Sdk, jobs: tuple[ir.Job, ...]) -> dict[str, str]:
    """Each job's ``wait_for_job`` method, as ``client.<resource>.<method>``."""
    out: dict[str, str] = {}
    for resource in sdk.resources:
        single = len(resource.jobs) == 1
        for job in resource.jobs:
            method = "wait_for_job" if single else f"wait_for_{snake(job.name, 'job')}"
            out[job.name] = f"client.{resource.attr}.{method}"
    for job in jobs:
        out.setdefault(job.name, f"client.{job.name}")
    return out


# auth


def auth_changes(ctx: Context) -> Iterator[Change]:
    olds = {a.scheme: a for a in ctx.old.auths}
    news = {a.scheme: a for a in ctx.new.auths}
    for scheme, a in olds.items():
        if scheme not in news:
            yield Change(
                "auth.removed",
                f"auth {scheme}",
                f"{_auth_text(a)} was removed; the client no longer takes {_auth_args(a)}",
                True,
            )
    for scheme, b in news.items():
        if scheme not in olds:
            yield Change(
                "auth.added",
                f"auth {scheme}",
                f"new {_auth_text(b)}; the client takes {_auth_args(b)}",
                False,
            )
    for scheme, a in olds.items():
        if scheme in news and a != news[scheme]:
            now = news[scheme]
            yield Change(
                "auth.changed",
                f"auth {scheme}",
                f"{_auth_text(a)} is now {_auth_text(now)}",
                type(a) is not type(now) or _auth_args(a) != _auth_args(now),
            )


# jobs


def job_changes(ctx: Context) -> Iterator[Change]:
    olds = {j.name: j for j in ctx.old.jobs}
    news = {j.name: j for j in ctx.new.jobs}
    old_waiters, new_waiters = (
        _waiters(ctx.old, ctx.old.jobs),
        _waiters(ctx.new, ctx.new.jobs),
    )
    for name, job in olds.items():
        if name not in news:
            yield Change(
                "job.removed",
                f"job {name}",
                f"job {name} and its waiters ({old_waiters[name]}(), ...) were removed",
                True,
            )
    for name, job in news.items():
        if name not in olds:
            yield Change(
                "job.added",
                f"job {name}",
                f"new job {name} (status {job.status.operation_id}), "
                f"waited for with {new_waiters[name]}()",
                False,
            )
    for name, a in olds.items():
        b = news.get(name)
        if b is not None:
            yield from _job(ctx, a, b, old_waiters[name], new_waiters[name])


def _job(ctx: Context, a: ir.Job, b: ir.Job, old_waiter: str, new_waiter: str) -> Iterator[Change]:
    where = f"job {b.name}"
    if old_waiter != new_waiter:
        yield Change(
            "job.waiters_renamed",
            where,
            f"the waiters moved: {old_waiter}() is now {new_waiter}()",
            True,
        )
    yield from _state_changes(ctx, a, b, where)
    if not ctx.same(a.record_type, b.record_type):
        yield Change(
            "job.record_changed",
            where,
            f"the waited-for record is {show(ctx.new, b.record_type)} "
            f"instead of {show(ctx.old, a.record_type)}",
            True,
        )
    if a.status.operation_id != b.status.operation_id:
        yield Change(
            "job.status_operation_changed",
            where,
            f"status read with {b.status.operation_id} instead of {a.status.operation_id}",
            False,
        )
    for role, x, y in (("create", a.create, b.create), ("result", a.result, b.result)):
        old_id = x.operation_id if x is not None else None
        new_id = y.operation_id if y is not None else None
        if old_id == new_id:
            continue
        if old_id is None:
            yield Change(f"job.{role}_added", where, f"{role} operation {new_id} declared", False)
        elif new_id is None:
            yield Change(
                f"job.{role}_removed",
                where,
                f"{role} operation {old_id} no longer declared"
                + (
                    "; create_and_wait() is gone"
                    if role == "create"
                    else "; waiting for the result returns no result"
                ),
                True,
            )
        else:
            yield Change(
                f"job.{role}_changed", where, f"{role} operation {old_id} -> {new_id}", False
            )
    for label, x2, y2 in (
        ("record", _pointer(a.record_path), _pointer(b.record_path)),
        ("state field", _pointer(a.state_path), _pointer(b.state_path)),
        ("terminal field", _pointer(a.terminal_path), _pointer(b.terminal_path)),
        ("error field", _pointer(a.error_path), _pointer(b.error_path)),
        ("id parameter", a.id_parameter, b.id_parameter),
        ("id from", _id_from(a), _id_from(b)),
    ):
        if x2 != y2:
            yield Change("job.pointer_changed", where, f"{label} {x2} -> {y2}", False)
    if a.ready_path != b.ready_path:
        yield Change(
            "job.ready_field_changed",
            where,
            f"result readiness field {_pointer(a.ready_path)} -> {_pointer(b.ready_path)}",
            False,
        )
    if a.idempotency_header != b.idempotency_header:
        yield Change(
            "job.idempotency_changed",
            where,
            f"idempotency header {a.idempotency_header or '(none)'} -> "
            f"{b.idempotency_header or '(none)'}",
            False,
        )
    for label, x3, y3 in (
        ("floor", a.floor, b.floor),
        ("first", a.first, b.first),
        ("cap", a.cap, b.cap),
        ("body hint", _pointer(a.hint_path), _pointer(b.hint_path)),
        ("body hint unit", a.hint_unit, b.hint_unit),
        ("header hints", _hints(a), _hints(b)),
    ):
        if x3 != y3:
            yield Change("job.poll_changed", where, f"poll {label} {x3} -> {y3}", False)
    yield from _polling_changes(a, b, where)


def _polling_changes(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """Operation URLs, status rules and where the result comes from."""
    if a.operation_url != b.operation_url:
        old, new = _headers(a.operation_url), _headers(b.operation_url)
        yield Change(
            "job.operation_url_changed",
            where,
            f"operation URL header {old} -> {new}"
            + (
                "; jobs are known by a different kind of id"
                if not a.operation_url or not b.operation_url
                else ""
            ),
            not a.operation_url or not b.operation_url,
        )
    if a.status_rules != b.status_rules:
        yield Change(
            "job.status_rules_changed",
            where,
            f"status rules {_rules(a)} -> {_rules(b)}",
            True,
        )
    if a.final_from != b.final_from:
        yield Change(
            "job.final_from_changed",
            where,
            f"wait_for_result takes the result from {_FINAL[a.final_from]}"
            f" -> {_FINAL[b.final_from]}",
            True,
        )


_FINAL = {
    "result": "the result operation",
    "location": "the terminal answer's Location",
    "operation-url": "the terminal record",
}


def _headers(names: tuple[str, ...]) -> str:
    return " or ".join(names) or "(none: the status operation is called with the id)"


def _rules(job: ir.Job) -> str:
    shown = []
    for rule in job.status_rules:
        tests = [f"status {'/'.join(map(str, rule.status))}"] if rule.status else []
        if rule.path is not None:
            tests.append(f"{_pointer(rule.path)}" + (f"={rule.equals}" if rule.equals else ""))
        shown.append(f"{' and '.join(tests)}: {rule.state}")
    return "[" + "; ".join(shown) + "]"


def _state_changes(ctx: Context, a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    olds, news = _states(a), _states(b)
    for state, kind in news.items():
        was = olds.get(state)
        if was is None and kind == "pending":
            yield Change(
                "job.pending_state_added",
                where,
                f"new pending state {state!r}: waiters keep polling through it",
                False,
            )
        elif was is None:
            yield Change(
                "job.terminal_state_added",
                where,
                f"new terminal state {state!r} ({kind}): waiters now stop on it",
                True,
            )
        elif was != kind:
            yield Change(
                "job.state_reclassified",
                where,
                f"state {state!r} is now {kind} (was {was})",
                True,
            )
    for state, kind in olds.items():
        if state not in news:
            yield Change(
                "job.state_removed",
                where,
                f"state {state!r} ({kind}) is no longer documented",
                False,
            )


def _states(job: ir.Job) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind, states in (
        ("success", job.success),
        ("failure", job.failure),
        ("canceled", job.canceled),
        ("pending", job.pending),
    ):
        for state in states:
            out[state] = kind
    return out


def _pointer(path: tuple[str, ...] | None) -> str:
    if path is None:
        return "(none)"
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in path) or '""'


def _id_from(job: ir.Job) -> str:
    if job.id_header is not None:
        return f"header:{job.id_header}"
    return _pointer(job.id_path)


def _hints(job: ir.Job) -> str:
    return ", ".join(f"{h.name} ({h.format})" for h in job.header_hints) or "(none)"


def _auth_text(auth: ir.Auth) -> str:
    if isinstance(auth, ir.ApiKeyAuth):
        return f"API key in {auth.where} {auth.wire!r}"
    if isinstance(auth, ir.BearerAuth):
        return "bearer token"
    return "HTTP basic auth"


def _auth_args(auth: ir.Auth) -> str:
    if isinstance(auth, ir.BasicAuth):
        return f"{auth.username_param}=, {auth.password_param}="
    return f"{auth.param}="
