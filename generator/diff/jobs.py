"""Changes to jobs and their waiters, to auth, and to the client itself."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import ir
from ..model.names import snake
from .changes import Change, Rollout, keyed
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
    auths = keyed({a.scheme: a for a in ctx.old.auths}, {a.scheme: a for a in ctx.new.auths})
    for scheme, a in auths.removed:
        yield Change(
            "auth.removed",
            f"auth {scheme}",
            f"{_auth_text(a)} was removed; the client no longer takes {_auth_args(a)}",
            True,
        )
    for scheme, b in auths.added:
        yield Change(
            "auth.added",
            f"auth {scheme}",
            f"new {_auth_text(b)}; the client takes {_auth_args(b)}",
            False,
        )
    for scheme, a, now in auths.kept:
        if a != now:
            yield Change(
                "auth.changed",
                f"auth {scheme}",
                f"{_auth_text(a)} is now {_auth_text(now)}",
                type(a) is not type(now) or _auth_args(a) != _auth_args(now),
            )


# jobs


def job_changes(ctx: Context) -> Iterator[Change]:
    jobs = keyed({j.name: j for j in ctx.old.jobs}, {j.name: j for j in ctx.new.jobs})
    old_waiters, new_waiters = (
        _waiters(ctx.old, ctx.old.jobs),
        _waiters(ctx.new, ctx.new.jobs),
    )
    new_ids = {op.operation_id for r in ctx.new.resources for op in r.operations}
    for name, old in jobs.removed:
        why = ""
        origin = old.origin or ""
        imported = origin.startswith("imported from ")
        if imported and old.create is not None and old.create.operation_id in new_ids:
            # The spec's own declaration went (Azure's x-ms-long-running-operation).
            dialect = origin.removeprefix("imported from ").split(" at ", 1)[0]
            why = f": {old.create.operation_id} is no longer long-running ({dialect})"
        yield Change(
            "job.removed",
            f"job {name}",
            f"job {name} and its waiters ({old_waiters[name]}(), ...) were removed{why}",
            True,
        )
    for name, job in jobs.added:
        yield Change(
            "job.added",
            f"job {name}",
            f"new job {name} (status {job.status.operation_id}), "
            f"waited for with {new_waiters[name]}()",
            False,
        )
    for name, a, b in jobs.kept:
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
    yield from _operations(a, b, where)
    yield from _read_where(
        "job.pointer_changed",
        where,
        ("record", _pointer(a.record_path), _pointer(b.record_path)),
        ("state field", _pointer(a.state_path), _pointer(b.state_path)),
        ("terminal field", _pointer(a.terminal_path), _pointer(b.terminal_path)),
    )
    yield from _compared(
        "job.pointer_changed",
        where,
        ("error field", _pointer(a.error_path), _pointer(b.error_path)),
        ("id parameter", a.id_parameter, b.id_parameter),
    )
    ids = _id_from(a), _id_from(b)
    if a.create is not None and b.create is not None and "(none)" not in ids:
        yield from _read_where("job.pointer_changed", where, ("job id in create's answer", *ids))
    else:  # the create came or went, or jobs became known by URL: other kinds say so
        yield from _compared("job.pointer_changed", where, ("id from", _id_from(a), _id_from(b)))
    yield from _ready_changes(a, b, where)
    yield from _idempotency_changes(a, b, where)
    yield from _compared(
        "job.poll_changed",
        where,
        ("poll floor", a.floor, b.floor),
        ("poll first", a.first, b.first),
        ("poll cap", a.cap, b.cap),
        ("poll body hint", _pointer(a.hint_path), _pointer(b.hint_path)),
        ("poll body hint unit", a.hint_unit, b.hint_unit),
        ("poll header hints", _hints(a), _hints(b)),
    )
    yield from _compared("job.progress_changed", where, ("progress", _progress(a), _progress(b)))
    if a.stall_after != b.stall_after:
        # A wait that now stalls sooner raises JobStalled where it used to keep waiting.
        sooner = b.stall_after is not None and (
            a.stall_after is None or b.stall_after < a.stall_after
        )
        yield Change(
            "job.stall_after_changed",
            where,
            f"stall_after {_seconds(a.stall_after)} -> {_seconds(b.stall_after)}"
            + ("; waits may now end with JobStalled sooner" if sooner else ""),
            sooner,
        )
    yield from _carry_changes(a, b, where, new_waiter)
    yield from _result_changes(a, b, where)
    yield from _polling_changes(a, b, where)


_GONE = {
    "create": "; create_and_wait() is gone",
    "result": "; waiting for the result returns no result",
    "cancel": "; cancel() and WaitConfig(cancel_on_timeout=True) are gone",
}


def _operations(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """The create, result and cancel operations: added, removed or changed."""
    for role, x, y in (
        ("create", a.create, b.create),
        ("result", a.result, b.result),
        ("cancel", a.cancel, b.cancel),
    ):
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
                f"{role} operation {old_id} no longer declared{_GONE[role]}",
                True,
            )
        else:
            yield Change(
                f"job.{role}_changed", where, f"{role} operation {old_id} -> {new_id}", False
            )


def _read_where(kind: str, where: str, *values: tuple[str, str, str]) -> Iterator[Change]:
    """Where both SDK generations read a value the server sends: a move breaks both."""
    for label, old, new in values:
        if old != new:
            yield Change(
                kind,
                where,
                f"{label} {old} -> {new}",
                True,
                Rollout(
                    deployed=f"deployed SDKs read the {label} at {old}, which the new "
                    "server no longer sends there",
                    regenerated=f"regenerated SDKs read the {label} at {new}, which a server "
                    "not yet upgraded does not send",
                ),
            )


def _ready_changes(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """A readiness field the other side does not send leaves its results never ready."""
    old, new = _pointer(a.ready_path), _pointer(b.ready_path)
    if old == new:
        return
    label = f"result readiness field {old} -> {new}"
    deployed = regenerated = None
    if a.ready_path is not None:
        deployed = f"deployed SDKs wait for {old}, which the new server no longer sends"
    if b.ready_path is not None:
        regenerated = f"regenerated SDKs wait for {new}, which a server not yet upgraded "
        regenerated += "does not send"
    rollout = Rollout(deployed, regenerated)
    yield Change("job.ready_field_changed", where, label, bool(deployed or regenerated), rollout)


def _idempotency_changes(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """Deployed SDKs retry a create only with their idempotency header: one the new server
    ignores makes a retried create start two jobs. A header added breaks nobody (deployed
    SDKs never retry their creates)."""
    old, new = a.idempotency_header, b.idempotency_header
    if old == new:
        return
    label = f"idempotency header {old or '(none)'} -> {new or '(none)'}"
    if old is None:
        yield Change("job.idempotency_changed", where, label, False)
        return
    deployed = f"deployed SDKs retry creates with {old}, which the new server ignores: "
    deployed += "a retried create may start two jobs"
    yield Change("job.idempotency_changed", where, label, True, Rollout(deployed=deployed))


def _compared(kind: str, where: str, *values: tuple[str, object, object]) -> Iterator[Change]:
    """A non-breaking ``label old -> new`` change for each ``(label, old, new)`` that differs."""
    for label, old, new in values:
        if old != new:
            yield Change(kind, where, f"{label} {old} -> {new}", False)


def _carry_changes(a: ir.Job, b: ir.Job, where: str, waiter: str) -> Iterator[Change]:
    """Values carried from create into later calls: each is a keyword of every wait.
    Values of the terminal record are no caller's argument: a change there changes only
    how the result is fetched."""
    yield from _record_value_changes(a, b, where)
    olds = {c.name: c for c in a.carry if not c.record}
    news = {c.name: c for c in b.carry if not c.record}
    for name, c in news.items():
        if name not in olds:
            yield Change(
                "job.carry_added",
                where,
                f"every call of the job now sends {name!r} from create's response:"
                f" {waiter}() and handles need {name}= ({c.kind}), and resume tokens"
                " written by the old SDK lack it",
                True,
            )
    for name in olds:
        if name not in news:
            yield Change(
                "job.carry_removed",
                where,
                f"{name!r} is no longer carried: callers passing {name}= to {waiter}()"
                " or handles get a TypeError",
                True,
            )
    for name, old in olds.items():
        new = news.get(name)
        if new is None or new == old:
            continue
        parts = [
            f"{label} {x} -> {y}"
            for label, x, y in (
                ("type", old.kind, new.kind),
                ("from", _carry_from(old), _carry_from(new)),
                ("to", f"{old.target}:{old.wire}", f"{new.target}:{new.wire}"),
            )
            if x != y
        ]
        yield Change(
            "job.carry_changed",
            where,
            f"carried value {name!r}: {', '.join(parts)}",
            old.kind != new.kind,
        )


def _record_value_changes(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    olds = {c.name: c for c in a.carry if c.record}
    news = {c.name: c for c in b.carry if c.record}
    for name in sorted(set(olds) | set(news)):
        old, new = olds.get(name), news.get(name)
        if old == new:
            continue
        if old is None or new is None:
            how = "now reads" if old is None else "no longer reads"
            detail = f"the result fetch {how} {name!r} from the terminal record"
        else:
            detail = (
                f"the result fetch reads {name!r} from {_carry_from(old)}"
                f" -> {_carry_from(new)} (to {new.target}:{new.wire})"
            )
        yield Change("job.carry_changed", where, detail, False)


def _carry_from(c: ir.Carry) -> str:
    if c.header is not None:
        return f"header:{c.header}"
    return ("record:" if c.record else "") + _pointer(c.source)


def _result_changes(a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """One-shot results and binary bodies: what a result wait returns, and how often."""
    if a.result is not None and b.result is not None and a.result_once != b.result_once:
        yield Change(
            "job.result_once_changed",
            where,
            "the result can now be downloaded only once: a second fetch is a 404, and a"
            " failed download is no longer retried"
            if b.result_once
            else "the result is no longer one-shot: it may be fetched again",
            b.result_once,
        )
    if a.result is not None and b.result is not None:
        old, new = _result_body(a.result), _result_body(b.result)
        if old != new:
            yield Change(
                "job.result_body_changed",
                where,
                f"the result comes back as {new} instead of {old}",
                True,
            )


def _result_body(op: ir.Operation) -> str:
    """What the SDK returns for a result: decoded JSON, text, bytes or nothing."""
    return {
        "json": "a decoded JSON model",
        "text": "text (str)",
        "binary": "bytes",
        "empty": "nothing",
    }[op.response.kind]


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
    "record": "the terminal record",
    "original-uri": "a GET of the URL that created the job (original-uri)",
    "create-location": "the create answer's Location (create-location)",
}


def _headers(names: tuple[str, ...]) -> str:
    return " or ".join(names) or "(none: the status operation is called with the id)"


def _rules(job: ir.Job) -> str:
    shown = []
    for rule in job.status_rules:
        tests = [f"status {'/'.join(map(str, rule.status))}"] if rule.status else []
        if rule.path is not None:
            equals = str(rule.equals).lower() if isinstance(rule.equals, bool) else rule.equals
            tests.append(f"{_pointer(rule.path)}" + (f"={equals}" if equals is not None else ""))
        shown.append(f"{' and '.join(tests)}: {rule.state}")
    return "[" + "; ".join(shown) + "]"


def _state_changes(ctx: Context, a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
    """States are read by deployed SDKs too: a state one side does not document makes the
    other raise UnknownJobState (W2), whatever its kind."""
    olds, news = _states(a), _states(b)
    for state, kind in news.items():
        was = olds.get(state)
        unknown = Rollout(
            deployed=f"deployed SDKs raise UnknownJobState when the server reports {state!r}"
        )
        if was is None and kind == "pending":
            yield Change(
                "job.pending_state_added",
                where,
                f"new pending state {state!r}: regenerated waiters keep polling through it",
                True,
                unknown,
            )
        elif was is None:
            yield Change(
                "job.terminal_state_added",
                where,
                f"new terminal state {state!r} ({kind}): regenerated waiters stop on it",
                True,
                unknown,
            )
        elif was != kind:
            yield Change(
                "job.state_reclassified",
                where,
                f"state {state!r} is now {kind} (was {was})",
                True,
                Rollout(
                    deployed=f"deployed SDKs still end a wait on {state!r} as {was}",
                    regenerated=f"regenerated SDKs end a wait on {state!r} as {kind}, "
                    f"which the server not yet upgraded means as {was}",
                ),
            )
    for state, kind in olds.items():
        if state not in news:
            yield Change(
                "job.state_removed",
                where,
                f"state {state!r} ({kind}) is no longer documented",
                True,
                Rollout(
                    regenerated="regenerated SDKs raise UnknownJobState when a server not yet "
                    f"upgraded reports {state!r}"
                ),
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


def _progress(job: ir.Job) -> str:
    if job.progress_path is not None:
        return f"percent at {_pointer(job.progress_path)}"
    if job.progress_done_path is not None or job.progress_total_path is not None:
        return f"{_pointer(job.progress_done_path)} done out of {_pointer(job.progress_total_path)}"
    return "(none)"


def _seconds(value: float | None) -> str:
    return "(none)" if value is None else f"{value:g} s"


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
