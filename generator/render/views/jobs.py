"""Job views: a job's ``JobSpec``, its waits, handles, result and cancel calls."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ...model import ir
from ...model.names import is_action, pascal, plural, snake, words
from ...model.operations import looks_like_credential
from ..carry_view import carry_call, carry_spec_args, carry_view
from ..code import TypeCode
from ..escape import Code, doc_text, ident, join, py_literal, py_str
from .operations import OPTION_PARAMS, operation_view, path_tuple, tuple_of

__all__ = [
    "ErrorClasses",
    "error_classes",
    "error_type",
    "job_phrase",
    "job_view",
    "method_names",
]


def job_phrase(name: str) -> tuple[str, str, str]:
    """How docs name a job: ``report_run`` -> ("report run job", "a report run job",
    "report run jobs"); ``job`` -> ("job", "a job", "jobs"), never "job job"."""
    phrase = " ".join(w.lower() for w in words(name)) or "job"
    if phrase.split()[-1] != "job":
        phrase += " job"
    article = "an" if phrase[0] in "aeiou" else "a"
    return phrase, f"{article} {phrase}", phrase + "s"


def shared_headers(job: ir.Job) -> list[ir.Parameter]:
    """The credentials a spec declares as a header parameter of each of the job's
    operations (an optional ``xi-api-key`` on every operation, no security scheme):
    given once to a wait, they go with every request of it."""
    supplied = {c.wire.lower() for c in job.carry if c.target == "header"}
    supplied |= {c.wire.lower() for c in job.constants if c.target == "header"}
    others = [op for op in (job.create, job.result, job.cancel) if op is not None]
    out = []
    for p in job.status.parameters:
        wire = p.wire.lower()
        if (
            p.location != "header"
            or p.required
            or wire in supplied
            or not looks_like_credential(wire)
            or wire == (job.idempotency_header or "").lower()
        ):
            continue
        # (create's parameter of the same name is the one create_and_wait takes)
        if all(
            any(
                q.location == "header"
                and q.wire.lower() == wire
                and (op is not job.create or q.name == p.name)
                for q in op.parameters
            )
            for op in others
        ):
            out.append(p)
    return out


def _shared_view(job: ir.Job, name: str) -> dict[str, Any]:
    """Signature and call fragments of the job's shared credential headers."""
    found = shared_headers(job)
    if not found:
        return {"param": Code(""), "receiver": Code("self"), "names": [], "helper": None}
    names = [ident(p.name) for p in found]
    given = ", ".join(f"{py_str(p.wire)}: {n}" for p, n in zip(found, names))
    helper = ident(f"_{name}_sending")
    return {
        "param": Code("".join(f", {n}: str | None = None" for n in names)),
        "receiver": Code(f"self.{helper}({{{given}}})"),
        "names": names,
        "wires": [doc_text(p.wire) for p in found],
        "helper": helper,
    }


def _frozen(values: tuple[str, ...]) -> Code:
    if not values:
        return Code("frozenset()")
    return Code("frozenset({" + join(", ", [py_str(v) for v in values]) + "})")


def _polling_args(job: ir.Job) -> dict[str, Code]:
    """The JobSpec arguments of operation URLs and status rules, where declared."""
    args: dict[str, Code] = {}
    if job.operation_url:
        args["operation_url"] = tuple_of([py_str(h) for h in job.operation_url])
    if job.status_rules:
        rules = []
        for rule in job.status_rules:
            parts = [f"state={py_str(rule.state)}"]
            if rule.status:
                parts.append("status=frozenset({" + ", ".join(map(str, rule.status)) + "})")
            if rule.path is not None:
                parts.append(f"path={path_tuple(rule.path)}")
            if isinstance(rule.equals, bool):
                parts.append(f"equals={rule.equals}")
            elif rule.equals is not None:
                parts.append(f"equals={py_str(rule.equals)}")
            rules.append(Code("_ws.StatusRule(" + ", ".join(parts) + ")"))
        args["status_rules"] = tuple_of(rules)
    if job.final_from != "result":
        args["final_from"] = py_str(job.final_from)
    if job.id_last_segment:
        args["id_last_segment"] = Code("True")
    if job.ignore_case:
        args["ignore_case"] = Code("True")
    return args


_JOB_ID = Code("job_id")


def _target_options(
    by_url: object,
    request: Code,
    op: ir.Operation,
    *,
    by_id: bool = False,
    call: Code = _JOB_ID,
) -> Code:
    """The request options of a status read or result fetch given ``job_id``: the
    operation's own (by id, with ``call`` as its arguments), or a GET of the absolute
    URL ``job_id`` holds (or, when ``by_id``, the operation's own for a ``job_id``
    that is no URL)."""
    if not by_url:
        return Code(f"{request}({call})")
    security = tuple_of([py_str(s) for s in op.security])
    url = f"_opurl.url_options(self._http, job_id, {security})"
    if by_id:
        return Code(f"({url} if _opurl.is_url(job_id) else {request}({call}))")
    return Code(url)


def _helper(
    op: ir.Operation,
    kind: str,
    owner: dict[str, str],
    module: str | None,
    taken: frozenset[str],
    helpers: dict[str, tuple[str, str]],
) -> Code:
    """The name ``op``'s ``_<name>_<kind>`` function has in ``module``: its own where
    ``module`` defines it; else, imported from the module that does, that name qualified
    by the module (``_reports_get_response``), since ``module`` may define a function of
    the same name for an operation of its own. ``helpers`` records each alias: its module
    and the name it imports."""
    home = owner.get(op.operation_id)
    own = f"_{op.name}_{kind}"
    if module is None or home is None or home == module:
        return ident(own)
    base = f"{home}_{op.name}"
    while base in taken:  # a method of its own is named so (its helper too)
        base += "_"
    alias = ident(f"_{base}_{kind}")
    helpers[str(alias)] = (home, str(ident(own)))
    return alias


def _takes_the_id_alone(op: ir.Operation, id_parameter: str) -> bool:
    """Whether ``op`` can be called with the job id and nothing else."""
    needs = [
        p for p in op.parameters if p.required and not p.has_default and p.wire != id_parameter
    ]
    has_id = any(p.wire == id_parameter for p in op.path_parameters)
    return not op.synthetic and has_id and not needs and (op.body is None or not op.body.required)


def _free_name(preferred: str, fallback: str, taken: frozenset[str]) -> str:
    """`preferred` unless an operation of the resource already has that name."""
    return fallback if preferred in taken else preferred


ErrorClasses = tuple[str, str, str, str]


def error_classes(sdk: ir.Sdk, reserved: Iterable[str]) -> dict[str, ErrorClasses]:
    """Each job's own ``JobFailed``, ``JobCanceled``, ``JobTimeout`` and ``JobStalled``
    subclasses, by job name: ``TranscriptFailed``, or ``SumeJobFailed`` where a plain
    name is taken."""
    taken = set(reserved) | {schema.name for schema in sdk.schemas.values()}
    prefix = pascal(sdk.package.removesuffix("_sdk"), "Api")
    classes = {}
    for job in sdk.jobs:
        base = pascal(job.name, "Job")
        names = _error_names(base)
        if taken & set(names):
            names = _error_names(prefix + base)
        taken.update(names)
        classes[job.name] = names
    return classes


def _error_names(base: str) -> ErrorClasses:
    return (f"{base}Failed", f"{base}Canceled", f"{base}Timeout", f"{base}Stalled")


def error_type(job: ir.Job) -> ir.TypeRef | None:
    """The job's error model: the type at its error field, null aside."""
    found = job.error_type
    return found.inner if isinstance(found, ir.Nullable) else found


def _webhooks_view(code: TypeCode, job: ir.Job, name: str, single: bool) -> dict[str, Any] | None:
    """What the resource module declares for a job's webhook deliveries, if it has any."""
    hooks = job.webhooks
    if hooks is None:
        return None
    args: dict[str, Code] = {
        "scheme": py_str(hooks.scheme),
        "id_header": py_str(hooks.id_header),
        "timestamp_header": py_str(hooks.timestamp_header),
        "signature_header": py_str(hooks.signature_header),
        "tolerance": py_literal(float(hooks.tolerance)),
        "secret_env": py_str(hooks.secret_env),
        "record_path": path_tuple(hooks.record_path),
        "job_id_path": path_tuple(hooks.id_path),
        "fallback_floor": py_literal(float(hooks.fallback_floor)),
        "fallback_first": py_literal(float(hooks.fallback_first)),
        "fallback_cap": py_literal(float(hooks.fallback_cap)),
    }
    event = hooks.event_type
    return {
        "args": {ident(k): v for k, v in args.items()},
        "event_annotation": Code("object") if event is None else code.annotation(event),
        "event_decoder": None if event is None else code.decoder(event),
        "receiver": ident("webhook_receiver" if single else f"{name}_webhook_receiver"),
        "events_attr": ident(f"_{name}_events"),
        "secret_env": doc_text(hooks.secret_env),
    }


def method_names(name: str, single: bool, taken: frozenset[str]) -> dict[str, Code]:
    """The names of a job's methods, as a person writes them. The only job of its
    resource takes the plain ones (``wait_for_job``, ``create_and_wait``); another is
    named in them: a thing (``batch``) as ``create_batch_and_wait``,
    ``wait_for_batches``, an action (``create_dev_box``, a job named after its
    operation) as ``create_dev_box_and_wait``, ``begin_create_dev_box`` (Azure's
    word for starting one) and ``wait_for_create_dev_box_jobs``: never a doubled verb
    nor a plural that is no word."""
    bare = name.rstrip("_") or name  # `import_` (a keyword) inside a longer name
    action = is_action(bare)
    if single:
        return {
            "wait_for_job": ident("wait_for_job"),
            "wait_for_result": ident("wait_for_result"),
            "create_and_wait": ident("create_and_wait"),
            "wait_for_jobs": ident("wait_for_jobs"),
            "handle": ident(_free_name("handle", f"{bare}_job_handle", taken)),
            "start": ident(
                _free_name("start", f"begin_{bare}" if action else f"start_{bare}_job", taken)
            ),
        }
    return {
        "wait_for_job": ident(f"wait_for_{bare}"),
        "wait_for_result": ident(f"wait_for_{bare}_result"),
        "create_and_wait": ident(f"{bare}_and_wait" if action else f"create_{bare}_and_wait"),
        "wait_for_jobs": ident(f"wait_for_{plural(bare)}"),
        "handle": ident(_free_name(f"{bare}_handle", f"{bare}_job_handle", taken)),
        "start": ident(
            _free_name(
                f"begin_{bare}" if action else f"start_{bare}",
                f"begin_{bare}_job" if action else f"start_{bare}_job",
                taken,
            )
        ),
    }


def job_view(
    code: TypeCode,
    job: ir.Job,
    single: bool,
    owner: dict[str, str],
    taken: frozenset[str] = frozenset(),
    classes: ErrorClasses | None = None,
    module: str | None = None,
) -> dict[str, Any]:
    """The view of ``job``, whose methods ``module`` holds (``taken``: its method names)."""
    name = snake(job.name, "job")
    helpers: dict[str, tuple[str, str]] = {}

    def helper(op: ir.Operation, kind: str) -> Code:
        return _helper(op, kind, owner, module, taken, helpers)

    errors = classes or ("JobFailed", "JobCanceled", "JobTimeout", "JobStalled")
    error = error_type(job)
    member = _record_member(job)
    record_path = "$" + "".join(f".{t}" for t in job.record_path)
    view: dict[str, Any] = {
        "name": ident(name),
        "doc_name": doc_text(job.name),
        "doc_phrase": doc_text(job_phrase(job.name)[0]),
        "doc_a_phrase": doc_text(job_phrase(job.name)[1]),
        "doc_plural": doc_text(job_phrase(job.name)[2]),
        "spec_const": ident(f"_{name.upper()}_SPEC"),
        "waiter_attr": ident(f"_{name}_waiter"),
        "spec_args": _spec_args(code, job, errors, error, member),
        "record_annotation": code.annotation(job.record_type),
        "record_decoder": code.decoder(job.record_type),
        "record_path": py_str(record_path),
        "status_request": helper(job.status, "request"),
        "status_options": _status_options(code, job, helper),
        "carry": carry_view(job),
        "shared": _shared_view(job, name),
        **method_names(name, single, taken),
        "types": [job.record_type]
        + ([error] if error is not None else [])
        + ([member] if job.result_path is not None and member is not None else [])
        + ([job.status.body.type] if job.status.body is not None and job.carry else []),
        "error_classes": tuple(ident(e) for e in errors),
        "imports": [],
        "helpers": helpers,
    }
    view["by_url"] = bool(job.operation_url)
    view["status_import"] = owner.get(job.status.operation_id)
    view.update(_webhook_params(code, job, name, single))
    if job.webhooks is not None and job.webhooks.event_type is not None:
        view["types"].append(job.webhooks.event_type)
    view["result"] = _result_view(code, job, owner, helper, view["types"])
    view["cancel"] = _cancel_view(code, job, name, single, taken, owner, helper, view["types"])
    # A job with a cancel operation lets each wait say whether a timeout cancels it.
    view["cancel_param"] = Code(", cancel_on_timeout: bool | None = None" if job.cancel else "")
    view["cancel_choice"] = Code(".cancelling(cancel_on_timeout)" if job.cancel else "")
    view["create"] = _create_view(code, job, view, helper, owner)
    view.update(_returns_view(code, job, view, member))
    return view


def _record_member(job: ir.Job) -> ir.TypeRef | None:
    """The type of the record's result member (``result_path``), never nullable: a record
    whose member is null is not ready."""
    member = job.result_type
    return member.inner if isinstance(member, ir.Nullable) else member


def _spec_args(
    code: TypeCode,
    job: ir.Job,
    errors: ErrorClasses,
    error: ir.TypeRef | None,
    member: ir.TypeRef | None,
) -> dict[str, Code]:
    """The keyword arguments of the job's ``JobSpec``: what its waits read of the job."""
    failed, canceled, timeout, stalled = errors
    spec_args: dict[str, Code] = {
        "name": py_str(job.name),
        "record_path": path_tuple(job.record_path),
        "state_path": path_tuple(job.state_path),
        "success": _frozen(job.success),
        "failure": _frozen(job.failure),
        "canceled": _frozen(job.canceled),
        "pending": _frozen(job.pending),
        "terminal_path": path_tuple(job.terminal_path),
        "ready_path": path_tuple(job.ready_path),
        "error_path": path_tuple(job.error_path),
        "hint_path": path_tuple(job.hint_path),
        "hint_scale": Code("0.001" if job.hint_unit == "milliseconds" else "1.0"),
        "header_hints": tuple_of(
            [
                Code(f"_ws.HeaderHint({py_str(h.name)}, {py_str(h.format)})")
                for h in job.header_hints
            ]
        ),
        "floor": py_literal(float(job.floor)),
        "first": py_literal(float(job.first)),
        "cap": py_literal(float(job.cap)),
        "id_path": path_tuple(job.id_path),
        "id_header": py_literal(job.id_header),
        "idempotency_header": py_literal(job.idempotency_header),
        "progress_path": path_tuple(job.progress_path),
        "progress_done_path": path_tuple(job.progress_done_path),
        "progress_total_path": path_tuple(job.progress_total_path),
        "stall_after": py_literal(None if job.stall_after is None else float(job.stall_after)),
        **carry_spec_args(job),
        "failed_error": ident(failed),
        "canceled_error": ident(canceled),
        "timeout_error": ident(timeout),
        "stalled_error": ident(stalled),
        **_polling_args(job),
    }
    if error is not None:
        spec_args["decode_error"] = code.decoder(error)
    if job.result_path is not None and member is not None:
        spec_args["result_path"] = path_tuple(job.result_path)
        spec_args["decode_result"] = code.decoder(member)
    return {ident(k): v for k, v in spec_args.items()}


def _status_options(
    code: TypeCode, job: ir.Job, helper: Callable[[ir.Operation, str], Code]
) -> Code:
    """The options of the job's status read."""
    by_id = _takes_the_id_alone(job.status, job.id_parameter)
    return _target_options(
        job.operation_url,
        helper(job.status, "request"),
        job.status,
        # An imported job polled at its operation URL takes that URL as its id, always (it
        # lives with its create).
        by_id=by_id and not (job.operation_url and (job.origin or "").startswith("imported")),
        call=carry_call(code, job, job.status) if by_id or not job.operation_url else _JOB_ID,
    )


def _webhook_params(code: TypeCode, job: ir.Job, name: str, single: bool) -> dict[str, Any]:
    """A wait takes the receiver of its own job's deliveries, typed as its method returns it."""
    hooks = _webhooks_view(code, job, name, single)
    return {
        "webhooks": hooks,
        "wait_target": ident(f"_{name}_events" if job.webhooks else f"_{name}_waiter"),
        "events_param": Code(
            f"events: _wh.WebhookReceiver[{hooks['event_annotation']}] | None = None, "
            if hooks
            else ""
        ),
        "events_arg": Code(", events=events" if job.webhooks else ""),
    }


def _result_view(
    code: TypeCode,
    job: ir.Job,
    owner: dict[str, str],
    helper: Callable[[ir.Operation, str], Code],
    types: list[ir.TypeRef],
) -> dict[str, Any] | None:
    """The job's result read, if it has one (its types are added to ``types``)."""
    if job.result is None:
        return None
    result_view = operation_view(code, job.result, follow=True)
    types += result_view["types"]
    return {
        "request": helper(job.result, "request"),
        "response": helper(job.result, "response"),
        "returns": result_view["returns"],
        "module": owner.get(job.result.operation_id),
        "options": _target_options(
            job.final_from in ("location", "original-uri", "create-location"),
            helper(job.result, "request"),
            job.result,
            call=carry_call(code, job, job.result),
        ),
        "once": job.result_once,
        "to_file": result_view["returns"] in ("bytes", "str"),
    }


def _cancel_view(
    code: TypeCode,
    job: ir.Job,
    name: str,
    single: bool,
    taken: frozenset[str],
    owner: dict[str, str],
    helper: Callable[[ir.Operation, str], Code],
    types: list[ir.TypeRef],
) -> dict[str, Any] | None:
    """The job's cancel call, if it has one (its types are added to ``types``)."""
    if job.cancel is None:
        return None
    cancel_view = operation_view(code, job.cancel, follow=True)
    types += cancel_view["types"]
    bare = name.rstrip("_") or name
    method: str | None = (
        "cancel" if single else bare if bare.startswith("cancel_") else f"cancel_{bare}"
    )
    if method == job.cancel.name:
        method = None  # the cancel operation's own method already takes the job id
    elif method in taken:
        method = f"cancel_{name}_job"
    request = helper(job.cancel, "request")
    call = carry_call(code, job, job.cancel)
    view = {
        "request": request,
        "response": helper(job.cancel, "response"),
        "returns": cancel_view["returns"],
        "module": owner.get(job.cancel.operation_id),
        "method": None if method is None else ident(method),
        "attr": ident(f"_cancel_{name}"),
        "call": call,
        "options": Code(f"{request}({call})"),
    }
    if job.cancel_at_url is not None:  # sent to the operation URL the job id is
        security = tuple_of([py_str(s) for s in job.cancel.security])
        method_arg = py_str(job.cancel.method.upper())
        suffix = f", suffix={py_str(job.cancel_at_url)}" if job.cancel_at_url else ""
        view["options"] = Code(
            f"_opurl.url_options(self._http, job_id, {security}, method={method_arg}{suffix})"
        )
        view["request"] = view["call"] = Code("")
    return view


def _create_view(
    code: TypeCode,
    job: ir.Job,
    view: dict[str, Any],
    helper: Callable[[ir.Operation, str], Code],
    owner: dict[str, str],
) -> dict[str, Any] | None:
    """The job's create call as ``create_and_wait`` and ``start`` take it, if it has one
    (its types are added to the view's)."""
    if job.create is None:
        return None
    create_view = operation_view(code, job.create, job.idempotency_header, follow=True)
    view["types"] += create_view["types"]
    idem_param = create_view["idem_param"] if job.idempotency_header is not None else None
    # The waiter owns the idempotency key: the caller does not pass one.
    signature = create_view["signature"]
    call_args = create_view["call_args"]
    if idem_param is not None:
        signature = re.sub(rf", {idem_param}: [^,]*= _s\.UNSET", "", signature)
        call_args = call_args.replace(
            f"{idem_param}={idem_param}", f"{idem_param}=_s.UNSET if key is None else key"
        )
    extra = "max_retries, extra_headers,"
    if idem_param is None and job.idempotency_header is not None:
        call_args = call_args.replace(
            extra,
            f"max_retries, _with_key(extra_headers, {py_literal(job.idempotency_header)}, key),",
        )
    on_poll = f"_abc.Callable[[_ws.PollEvent[{view['record_annotation']}]], None] | None = None"
    waits = (
        f"deadline: float = 600.0, on_poll: {on_poll}, stall_after: float | None = None, "
        f"{view['events_param']}"
        + ("cancel_on_timeout: bool | None = None, " if job.cancel else "")
    )
    starts = (
        f"deadline: float | None = None, on_poll: {on_poll}, stall_after: float | None = None, "
    )
    return {
        "signature": Code(
            signature.replace(OPTION_PARAMS[0] + ", ", f"{OPTION_PARAMS[0]}, {waits}")
        ),
        "start_signature": Code(
            signature.replace(OPTION_PARAMS[0] + ", ", f"{OPTION_PARAMS[0]}, {starts}")
        ),
        "call_args": Code(call_args),
        "request": helper(job.create, "request"),
        "module": owner.get(job.create.operation_id),
        "idempotency_header": py_literal(job.idempotency_header),
        "sends_key": job.idempotency_header is not None,
    }


def _returns_view(
    code: TypeCode, job: ir.Job, view: dict[str, Any], member: ir.TypeRef | None
) -> dict[str, Any]:
    """What the job's waits return: the result, or the terminal record where the record is
    the result (``final_from: record``) or no result can be read."""
    record = view["record_annotation"]
    record_result = job.final_from == "record"
    result = record if record_result else Code("None")
    if record_result and job.result_path is not None and member is not None:
        result = code.annotation(member)  # the record's member is the result
    result_returns = view["result"]["returns"] if view["result"] else result
    returns = result_returns
    if str(returns) == "None":
        returns = record
    located = job.final_from == "create-location" and view["result"] is not None
    if located and str(returns) != str(record):
        # No Location on the create answer: the terminal record is the result.
        returns = Code(f"{returns} | {record}")
        result_returns = returns
    return {
        "record_result": record_result,
        "result_returns": result_returns,
        "create_returns": returns,
        "create_returns_str": py_str(returns),
        # A result of the record's own type (Azure's PUT: the GET of the resource polled)
        # needs no cast: the waiter's outcome is already that type.
        "outcome_is_result": (
            (record_result and job.result_path is None)
            or located
            or (view["result"] is not None and str(returns) == str(record))
        ),
    }
