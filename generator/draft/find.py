"""Find the jobs of a spec that declares none, from the shapes of its operations.

A job is a status operation (a ``GET .../{id}``, or ``.../{id}/status``, whose record has
a state field with documented states, at least one of them a success) and a create:

- an operation answering ``202`` with ``Operation-Location``, ``Azure-AsyncOperation`` or
  ``Location``: the job is polled at that URL, its record typed by the status operation
  that returns the create's own answer (or, failing that, a status operation the create
  shares a path word with);
- otherwise a ``POST`` (or ``PUT``) returning the status operation's record (the id read
  from its ``id``), or a ``POST`` on the status operation's collection returning the id.

A create answering ``202`` with a monitor header whose body holds the job's id, beside a
status operation reading that id, is drafted as a job known by id (its result and cancel
take the id; an operation URL does not give one).

The rest is read from the record and the paths under the same id: a result or download
(fetched once where its description says so), a cancel (with or without a canceled
state), the error, progress, readiness and terminal fields, poll hints (``Retry-After``
and its kin, record fields named like hints), the create's idempotency header, the
values a status call needs besides the id (carried from the create's answer), and the
record itself as the result when it holds the output. Every guess the shapes do not
settle carries a note saying what to check, and an operation under the job's path that
looks like a result or a cancel but is not drafted is named in one. No status rule is
read from prose: a ``404`` said to mean "expired" gets a note, not a rule.

Jobs a dialect already imports (``x-ms-long-running-operation``, ``x-speakeasy-polling``,
AIP-151) are not drafted again; the draft names them. An apiKey scheme for the
``Authorization`` header whose description says the key goes after ``Bearer`` (or
``Token``) gets an ``auth_prefix`` guess.

The input is the SDK model built without jobs; the output is a :class:`Draft`, which
``emit.py`` writes as a side file.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from ..model import ir
from ..model.names import NameSet, snake, words
from ..model.shapes import (
    ERROR_FIELDS,
    Monitor,
    RawSpec,
    create_name,
    deref,
    field_named,
    find_model,
    find_monitors,
    has_outcome,
    id_field,
    id_name,
    inputs_needed,
    is_number,
    kind,
    owner_of,
    parent,
    path_name,
    path_words,
    plain_words,
    pointer,
    status_shape,
)
from ..model.states import Classified, classify, classify_all

__all__ = ["Draft", "DraftJob", "draft_jobs"]

# Headers naming the monitor of a job, in the order the Azure guidelines read them.
MONITOR_HEADERS = ("Operation-Location", "Azure-AsyncOperation", "Location")
_RESULT_WORDS = ("result", "results", "content", "download", "output", "outputs")
_READY_FIELDS = ("result_ready", "result_available", "is_ready", "ready", "output_ready")
_TERMINAL_FIELDS = ("terminal", "is_terminal", "done", "is_done", "finished", "is_finished")
_PERCENT_FIELDS = (
    "progress",
    "percent_complete",
    "percentcomplete",
    "progress_percent",
    "percentage",
    "percent",
    "completion_percentage",
)
_DONE_FIELDS = ("completed", "done", "processed", "succeeded", "finished")
# Fields of a record that hold the job's output: the record is then the result.
_OUTPUT_FIELDS = ("output", "outputs", "result", "results", "response")
# A path segment that is a version, not a name (``v1``, ``2024-01-01``, ``api``).
_VERSION_SEGMENT = re.compile(r"v\d+(\.\d+)*|\d+([.-]\d+)*|api|rest")
# A record's field naming the file of a job's output or errors (``output_file_id``).
_FILE_FIELD = re.compile(r"(output|result|results|error|errors)_file(_id)?")
# A result said to be served once ("documents can only be downloaded once").
_ONCE = re.compile(
    r"\b(?:(?:downloaded|fetched|retrieved|read)\s+(?:only\s+)?once|only\s+once)\b",
    re.IGNORECASE,
)
# The word an API key is sent after, as a scheme's description says it ("Use the
# format: Bearer $API_KEY").
_KEY_WORD = re.compile(r"\b(Bearer|Token)\b")
_IDEMPOTENCY = ("idempotency", "repeatability-request-id")
_AZURE_ASYNC = ("Succeeded", "Failed", "Canceled", "InProgress")
_AZURE_OPERATION = ("Succeeded", "Failed", "Canceled", "NotStarted", "Running")
# Signs that a resource with a status is a job: words of its path or of its pending states.
_JOB_WORDS = frozenset(
    {"job", "jobs", "batch", "batches", "run", "runs", "operation", "operations", "task", "tasks"}
    | {"export", "exports", "import", "imports", "report", "reports", "transcript", "scan"}
)
# Words of a state of a live resource that changes and comes back (a deployment
# `Updating`, `Scaling`; a cluster `Degraded`): such a resource is no job that ends.
_CYCLING = frozenset({"updating", "scaling", "degraded", "resizing", "upgrading", "restarting"})
_MOVING = frozenset(
    {"queued", "pending", "progress", "running", "processing", "validating", "accepted"}
    | {"submitted", "scheduled", "waiting", "started", "notstarted", "inprogress"}
)


@attrs.frozen
class DraftJob:
    """One job as drafted; pointers are JSON pointers, states in the spec's order.

    ``checks`` maps a key of the declaration (``create``, ``state.success``, ``carry``...)
    to what a person should check about the guess written there.
    """

    name: str
    status: str
    id_parameter: str
    record: str
    state_field: str | None
    """None for a job whose end is a boolean ``terminal_field`` alone."""
    success: tuple[str | int, ...]
    failure: tuple[str | int, ...]
    canceled: tuple[str | int, ...]
    pending: tuple[str | int, ...]
    create: str | None = None
    result: str | None = None
    cancel: str | None = None
    id_from: str | None = None
    operation_url: tuple[str, ...] = ()
    final_from: str | None = None
    status_rules: tuple[tuple[int, str], ...] = ()
    terminal_field: str | None = None
    result_ready_field: str | None = None
    error_field: str | None = None
    progress: tuple[tuple[str, str], ...] = ()
    """``(("field", ptr),)`` or ``(("done", ptr), ("total", ptr))``."""
    body_hint: tuple[str, str] | None = None
    """``(pointer, unit)``."""
    headers: tuple[tuple[str, str], ...] = ()
    """Header hints ``(name, format)``; empty leaves the default (``Retry-After``)."""
    idempotency_header: str | None = None
    carry: tuple[tuple[str, str, str], ...] = ()
    """``(name, from, to)``."""
    result_once: bool = False
    file_carry: tuple[str, str, str | None, str] | None = None
    """A value of the terminal record sent to the result operation:
    ``(name, from, failure_from, to)``."""
    checks: dict[str, str] = attrs.field(factory=dict, eq=False)


@attrs.frozen
class Draft:
    jobs: tuple[DraftJob, ...]
    imported: tuple[str, ...] = ()
    """Jobs a dialect of the spec already declares, ``name (imported from ...)``: not
    drafted again."""
    auth_prefix: tuple[tuple[str, str], ...] = ()
    """``(scheme, word)``: the word an apiKey scheme's key is sent after, as its
    description says (a guess to check)."""
    resources: tuple[str, ...] = ()
    """Status operations left out as a live resource's, not a job's: ``op (states)``."""


# -- the finder --------------------------------------------------------------


class _Finder:
    def __init__(self, sdk: ir.Sdk) -> None:
        self.sdk = sdk
        self.schemas = sdk.schemas
        self.raw = RawSpec(sdk)
        self.operations = [op for r in sdk.resources for op in r.operations]

    def find(self) -> Draft:
        # Operations of the jobs a dialect imports: drafted again, they would be declared
        # twice under other names.
        taken = {
            op.operation_id
            for job in self.sdk.jobs
            for op in (job.create, job.status, job.result, job.cancel)
            if op is not None
        }
        monitors = [
            m for m in find_monitors(self.sdk, self.operations) if m.op.operation_id not in taken
        ]
        ended = self._terminal_monitors(taken | {m.op.operation_id for m in monitors})
        jobs: list[tuple[str, DraftJob]] = []
        async_creates: set[str] = set(taken)
        for op in self.operations:
            if op.operation_id in taken:
                continue
            job = self._async_job(op, monitors)
            if job is not None:
                async_creates.add(op.operation_id)
                jobs.append((job.name, job))
        # Two status operations of one job (GET /x/{id} and GET /x/{id}/status): the one
        # that says it reads the status is drafted, the other named in a note.
        by_job: dict[tuple[str | None, str], list[tuple[Monitor, DraftJob]]] = {}
        resources: list[str] = []
        for monitor in [*monitors, *ended]:
            if monitor not in ended and not has_outcome(monitor.states):
                continue
            cycling = [
                str(s)
                for s in monitor.states or ()
                if {w.lower() for w in words(str(s))} & _CYCLING
            ]
            if cycling:
                resources.append(f"'{monitor.op.operation_id}' ({', '.join(cycling)})")
                continue
            creates = self._creates(monitor, async_creates)
            for create, id_from, check in creates:
                job = self._id_job(monitor, create, id_from, check)
                if job is not None:
                    by_job.setdefault((job.create, monitor.base), []).append((monitor, job))
        for found in by_job.values():
            found.sort(key=lambda pair: not self._says_status(pair[0].op))
            monitor, job = found[0]
            if len(found) > 1:
                others = ", ".join(f"'{m.op.operation_id}'" for m, _ in found[1:])
                said = [job.checks.get("status"), f"{others} reads the job too"]
                job.checks["status"] = "; ".join(s for s in said if s)
            jobs.append((job.name, job))
        # Jobs of one name are told apart by the resource their create sits under
        # (charge_refund, refund), then numbered.
        count: dict[str, int] = {}
        for name, _ in jobs:
            count[name] = count.get(name, 0) + 1
        owners = {op.operation_id: owner_of(op) for op in self.operations}
        renamed = []
        for name, job in jobs:
            owner = owners.get(job.create or "", "")
            if count[name] > 1 and owner and not name.startswith(owner + "_"):
                name = f"{owner}_{name}"
            renamed.append((name, job))
        names = NameSet()
        named = []
        for name, job in sorted(renamed, key=lambda pair: (pair[0], pair[1].status)):
            named.append(attrs.evolve(job, name=names.claim(name), checks=job.checks))
        imported = tuple(
            f"{job.name} ({(job.origin or 'imported').split(' at ')[0]})" for job in self.sdk.jobs
        )
        return Draft(tuple(named), imported, self._auth_prefix(), tuple(resources))

    def _auth_prefix(self) -> tuple[tuple[str, str], ...]:
        """The word before the key of an ``Authorization`` apiKey scheme, where the
        scheme's description names one and jobgen does not read it already."""
        root = self.sdk.spec.root.data if self.sdk.spec is not None else None
        components = root.get("components") if isinstance(root, dict) else None
        schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        found = []
        for auth in self.sdk.auths:
            if not isinstance(auth, ir.ApiKeyAuth) or auth.where != "header" or auth.prefix:
                continue
            node = schemes.get(auth.scheme) if isinstance(schemes, dict) else None
            text = node.get("description") if isinstance(node, dict) else None
            if auth.wire.lower() != "authorization" or not isinstance(text, str):
                continue
            word = _KEY_WORD.search(text)
            if word is not None:
                found.append((auth.scheme, word.group(1)))
        return tuple(found)

    # -- jobs polled at an operation URL

    def _monitor_headers(self, op: ir.Operation) -> tuple[str, ...]:
        if op.method.lower() not in ("post", "put", "patch", "delete"):
            return ()
        declared = {h.lower(): h for h in self.raw.headers(op, "202")}
        return tuple(h for h in MONITOR_HEADERS if h.lower() in declared)

    def _async_job(self, create: ir.Operation, monitors: list[Monitor]) -> DraftJob | None:
        headers = self._monitor_headers(create)
        if not headers:
            return None
        checks: dict[str, str] = {}
        monitor = None
        key = deref(create.response.type, self.schemas)
        if isinstance(key, ir.Model):
            monitor = next((m for m in monitors if m.record.key == key.key), None)
        if monitor is None:
            literals = path_words(create.path)
            scored = [
                (("operation" in m.op.path.lower()) * 2 + bool(path_words(m.op.path) & literals), m)
                for m in monitors
            ]
            best = max((score for score, _ in scored), default=0)
            if best:
                monitor = next(m for score, m in scored if score == best)
                checks["status"] = "the status operation is a guess from the paths"
        if monitor is None:
            return None
        top = deref(create.response.type, self.schemas)
        ident = id_field(top, monitor.id_param.wire) if isinstance(top, ir.Model) else None
        if ident is not None and has_outcome(monitor.states) and self._unused(monitor, set()):
            # The answer names the job by its id, and a result or cancel takes that id:
            # read the job by id, so that they can be drafted too.
            via = f"the create also answers {headers[0]}: the job is read by its id instead"
            job = self._id_job(
                monitor, create, pointer(ident.wire), via, status_check=checks.get("status")
            )
            return None if job is None else attrs.evolve(job, name=create_name(create))
        states = monitor.states
        if states is None:
            azure = _AZURE_ASYNC if "Azure-AsyncOperation" in headers else _AZURE_OPERATION
            states = azure
            checks["state.field"] = (
                "the field has no enum: the Azure statuses of a monitor are assumed"
            )
        elif monitor.states_note:
            checks["state.field"] = monitor.states_note
        rules: list[tuple[int, str]] = []
        final_from = "record"
        result = None
        responses = self.raw.responses(monitor.op)
        classified = classify_all(states)
        if "303" in responses:
            result = self._location_result(monitor)
            if result is not None:
                done = self._rule_state(classified, "success", states, "Completed")
                rules.append((303, str(done.state)))
                classified = self._add(classified, done)
                final_from = "location"
        gone = self._gone_note(monitor)
        if gone:
            checks["status_rules_not_drafted"] = gone
        if rules:
            checks["status_rules"] = "states read from the status operation's HTTP answers"
        unused = self._unused(monitor, set())
        if unused:
            checks["operations"] = (
                f"{unused}: they take the job's id, which an operation URL does not give"
                " (declare the job with id_from to use them)"
            )
        if not any(c.kind == "success" for c in classified):
            return None
        if monitor.op.method.lower() != "get":
            checks.setdefault("status", "a POST read as the status operation")
        return self._complete(
            monitor,
            name=create_name(create),
            create=create,
            classified=classified,
            checks=checks,
            operation_url=headers,
            final_from=final_from,
            result=result.operation_id if result is not None else None,
            status_rules=tuple(rules),
        )

    def _gone_note(self, monitor: Monitor) -> str | None:
        """A note on a 404 or 410 of the status operation said to mean expiry: prose is
        no status rule (a mistyped id answers 404 too)."""
        said = []
        for status in ("404", "410"):
            text = self.raw.description(monitor.op, status)
            if "expire" in text.lower():
                said.append(f"{status} ({' '.join(text.split())[:80]!r})")
        if not said:
            return None
        return (
            f"'{monitor.op.operation_id}' answers {' and '.join(said)}: no status rule drafted"
            " (a wait then raises NotFoundError); declare one if that answer is a state of the job"
        )

    def _unused(self, monitor: Monitor, used: set[str]) -> str | None:
        """The operations under the job's id that read like a result or a cancel and are
        not drafted, named for the person to check."""
        seen = []
        for op in self.operations:
            if op.operation_id in used or op is monitor.op:
                continue
            under = op.path.startswith((monitor.base + "/", monitor.base + ":"))
            tail = op.path[len(monitor.base) + 1 :] if under else ""
            last = [w.lower() for w in words(tail)][-1:] if tail and "/" not in tail else []
            said = "cancel" in f"{op.operation_id} {op.summary}".lower()
            named = bool(last) and last[0] in (*_RESULT_WORDS, "cancel", "abort", "stop")
            deletes = op.path == monitor.base and op.method.lower() == "delete"
            if named or (deletes and said):
                seen.append(op)
        if not seen:
            return None
        return "not drafted: " + ", ".join(
            f"'{op.operation_id}' ({op.method.upper()} {op.path})" for op in seen
        )

    def _location_result(self, monitor: Monitor) -> ir.Operation | None:
        """The resource a 303 of the monitor leads to: the GET of the monitor's parent."""
        targets = {monitor.base, parent(monitor.op.path)}
        for op in self.operations:
            readable = op.response.kind in ("json", "text", "binary")
            if (
                op.method.lower() == "get"
                and op.path in targets
                and op is not monitor.op
                and readable
            ):
                return op
        return None

    @staticmethod
    def _rule_state(
        classified: list[Classified],
        kind: str,
        states: tuple[str | int, ...],
        default: str,
    ) -> Classified:
        """The state a status rule gives: a documented one of that kind, or ``default``
        cased as the documented states are."""
        for c in classified:
            if c.kind == kind:
                return c
        text = [s for s in states if isinstance(s, str)]
        if text and all(s.islower() for s in text):
            default = default.lower()
        elif text and all(s.isupper() for s in text):
            default = default.upper()
        return classify(default)

    @staticmethod
    def _add(classified: list[Classified], state: Classified) -> list[Classified]:
        if any(c.state == state.state for c in classified):
            return classified
        return [*classified, state]

    # -- jobs known by id

    def _creates(
        self, monitor: Monitor, skip: set[str]
    ) -> list[tuple[ir.Operation, str, str | None]]:
        """Creates of the monitor's record: ``(operation, id_from, check)``."""
        collection = parent(monitor.base)
        marker = "{" + monitor.id_param.wire + "}"
        by_record: list[tuple[ir.Operation, str, str | None]] = []
        by_path: list[tuple[ir.Operation, str, str | None]] = []
        by_name: list[tuple[ir.Operation, str, str | None]] = []
        for op in self.operations:
            if op.operation_id in skip or op is monitor.op or marker in op.path:
                continue
            if op.method.lower() not in ("post", "put") or op.response.kind != "json":
                continue
            at = find_model(op.response.type, monitor.record.key, self.schemas)
            if at is not None:
                ident = id_field(monitor.record, monitor.id_param.wire)
                if ident is not None:
                    by_record.append((op, pointer(*at, ident.wire), None))
                    continue
            if op.path == collection and op.method.lower() == "post":
                top = deref(op.response.type, self.schemas)
                if isinstance(top, ir.Model) and (ident := self._answer_id(top, monitor)):
                    check = "the create answers no record: the id is read from its field"
                    if ident.wire != "id" and plain_words(ident.wire) != plain_words(
                        monitor.id_param.wire
                    ):
                        check = f"the create answers no record: the id is read from '{ident.wire}'"
                    by_path.append((op, pointer(ident.wire), check))
                continue
            named = self._named_id(op, monitor)
            if named is not None:
                check = (
                    f"a create found elsewhere by the id it answers ('{named[-1]}' named as the"
                    f" status path's '{monitor.id_param.wire}')"
                )
                by_name.append((op, pointer(*named), check))
        on_collection = [c for c in by_record if c[0].path == collection]
        return on_collection or by_record or by_path or by_name

    def _named_id(self, op: ir.Operation, monitor: Monitor) -> tuple[str, ...] | None:
        """Where a POST's answer (or its one object property, as ``data``) holds a field
        named as the status path's id parameter (``job_id`` for ``{jobId}``), when that
        name says more than ``id``."""
        wanted = plain_words(monitor.id_param.wire)
        if op.method.lower() != "post" or wanted in ("id", "uuid") or "_" not in wanted:
            return None
        top = deref(op.response.type, self.schemas)
        if not isinstance(top, ir.Model):
            return None
        places: list[tuple[tuple[str, ...], ir.Model]] = [((), top)]
        inner = [(f, deref(f.type, self.schemas)) for f in top.fields]
        objects = [(f, m) for f, m in inner if isinstance(m, ir.Model)]
        if len(objects) == 1:
            places.append(((objects[0][0].wire,), objects[0][1]))
        for at, model in places:
            for f in model.fields:
                if plain_words(f.wire) == wanted and kind(f.type, self.schemas) == "str":
                    return (*at, f.wire)
        return None

    def _terminal_monitors(self, skip: set[str]) -> list[Monitor]:
        """Status operations whose record has no state field but a boolean saying the
        job is over (``done``, ``finished``...) beside an error field: a job that ends,
        failed when its error is set (``terminal_field`` with ``error_field``)."""
        found = []
        for op in self.operations:
            if op.operation_id in skip or op.method.lower() != "get" or op.response.kind != "json":
                continue
            shape = status_shape(op)
            record = deref(op.response.type, self.schemas)
            if shape is None or not isinstance(record, ir.Model):
                continue
            ended = field_named(record, _TERMINAL_FIELDS)
            if ended is None or kind(ended.type, self.schemas) != "bool":
                continue
            if field_named(record, ERROR_FIELDS) is None:
                continue
            base, param = shape
            needs = inputs_needed(op, param.wire, self.schemas)
            if needs is None:
                continue
            found.append(Monitor(op, param, base, (), record, ended, (), None, needs))
        return found

    @staticmethod
    def _name(monitor: Monitor) -> str:
        """``id_name``, with the kind of job a generic collection sits under
        (``/v1/batch/jobs/{job_id}`` -> ``batch_job``) and Twilio's ``{Sid}`` read as an
        id (``/v2/Transcripts/{Sid}`` -> ``transcript``)."""
        wire = monitor.id_param.wire
        name = id_name(monitor) if wire.lower() != "sid" else path_name("id", monitor.base)
        segments = [s for s in monitor.base.split("/") if s][:-1]
        if (
            len(segments) >= 2
            and not segments[-2].startswith("{")
            and name in ("job", "task", "operation", "request")
            and plain_words(segments[-1]).rstrip("s") == name
            and not _VERSION_SEGMENT.fullmatch(segments[-2].lower())
        ):
            return f"{plain_words(segments[-2])}_{name}"
        return name

    @staticmethod
    def _says_status(op: ir.Operation) -> bool:
        return op.path.lower().endswith("/status") or "status" in op.operation_id.lower()

    @staticmethod
    def _answer_id(top: ir.Model, monitor: Monitor) -> ir.Field | None:
        """The field of a create's answer holding the new job's id: ``id``, one named as
        the status path's parameter, or ``job_id`` (``workflow_id``...) where the path
        names that kind of thing or a generic one."""
        found = id_field(top, monitor.id_param.wire)
        if found is not None:
            return found
        collection = plain_words(parent(monitor.base).rsplit("/", 1)[-1])
        kinds = {w for w in collection.split("_") if w} | {
            w.rstrip("s") for w in collection.split("_")
        }
        kinds |= {"job", "task", "operation", "workflow", "request"}
        named = [
            f
            for f in top.fields
            if plain_words(f.wire).endswith("_id") and plain_words(f.wire)[:-3] in kinds
        ]
        return named[0] if len(named) == 1 else None

    def _id_job(
        self,
        monitor: Monitor,
        create: ir.Operation,
        id_from: str,
        check: str | None,
        status_check: str | None = None,
    ) -> DraftJob | None:
        assert monitor.states is not None
        carry = self._carry(monitor, create)
        if carry is None:
            return None
        checks: dict[str, str] = {}
        if check:
            checks["id_from"] = check
        if status_check:
            checks["status"] = status_check
        if monitor.states_note:
            checks["state.field"] = monitor.states_note
        if monitor.op.method.lower() != "get":
            checks["status"] = "a POST read as the status operation"
        if carry:
            checks["carry"] = "values the status call needs, matched by name in the create's answer"
        classified = classify_all(monitor.states)
        if monitor.states == ():
            checks["terminal_field"] = (
                f"no state field: the job's end read from the boolean '{monitor.state.wire}',"
                " its failure from the error field"
            )
        elif not self._job_like(monitor, create, classified):
            checks["name"] = "a resource with a status field: is it a job a caller waits for?"
        result, result_check = self._result(monitor, carry)
        file_carry = None
        if result is None and not carry:
            found = self._file_result(monitor)
            if found is not None:
                result, file_carry = found
                result_check = (
                    f"the finished record names a file ('{file_carry[1][len('record:/') :]}'),"
                    f" downloaded by '{result}'"
                )
        if result_check:
            checks["result"] = result_check
        once = result is not None and self._once(result)
        if once:
            checks["result_once"] = "read from the result operation's description (served once)"
        cancel, cancel_check = self._cancel(monitor, carry)
        if cancel is not None and not any(c.kind == "canceled" for c in classified):
            none = "no canceled state: a canceled job ends in the state the server then reports"
            cancel_check = f"{cancel_check}; {none}" if cancel_check else none
        if cancel_check:
            checks["cancel"] = cancel_check
        final_from = None
        if result is None:
            output = field_named(monitor.record, _OUTPUT_FIELDS)
            if output is not None:
                final_from = "record"
                checks["final_from"] = (
                    f"the record holds '{output.wire}': the finished record read as the result"
                )
        gone = self._gone_note(monitor)
        if gone:
            checks["status_rules_not_drafted"] = gone
        unused = self._unused(monitor, {op for op in (result, cancel) if op is not None})
        if unused:
            checks["operations"] = unused
        return self._complete(
            monitor,
            name=self._name(monitor),
            create=create,
            classified=classified,
            checks=checks,
            id_from=id_from,
            result=result,
            cancel=cancel,
            carry=carry,
            final_from=final_from,
            result_once=once,
            file_carry=file_carry,
        )

    def _file_result(self, monitor: Monitor) -> tuple[str, tuple[str, str, str | None, str]] | None:
        """A result that is a file the finished record names (``output_file_id``),
        downloaded by a ``GET .../{file_id}/content`` that needs nothing else:
        ``(operation, (name, from, failure_from, to))``."""
        files = [
            f
            for f in monitor.record.fields
            if _FILE_FIELD.fullmatch(plain_words(f.wire))
            and kind(f.type, self.schemas) in ("str", "uuid")
        ]
        output = next((f for f in files if not plain_words(f.wire).startswith("error")), None)
        failed = next((f for f in files if plain_words(f.wire).startswith("error")), None)
        if output is None:
            return None
        for op in self.operations:
            params = op.path_parameters
            if op.method.lower() != "get" or len(params) != 1:
                continue
            if op.response.kind not in ("json", "text", "binary"):
                continue
            if not op.path.endswith(("/content", "/download")):
                continue
            if params[0].wire == monitor.id_param.wire:
                continue  # the job id's name: no carried value may take it
            if inputs_needed(op, params[0].wire, self.schemas) != ():
                continue
            failure = f"record:{pointer(failed.wire)}" if failed is not None else None
            source = f"record:{pointer(output.wire)}"
            return op.operation_id, (snake(output.wire), source, failure, f"path:{params[0].wire}")
        return None

    def _once(self, op_id: str) -> bool:
        op = next(o for o in self.operations if o.operation_id == op_id)
        text = [op.summary, self.raw.operation_description(op)]
        text += [self.raw.description(op, status) for status in ("404", "410")]
        return any(isinstance(s, str) and _ONCE.search(s) for s in text)

    def _job_like(
        self, monitor: Monitor, create: ir.Operation, classified: list[Classified]
    ) -> bool:
        if "202" in self.raw.responses(create):
            return True
        named = {w.lower() for w in words(f"{monitor.op.path} {create.path}")}
        if named & _JOB_WORDS:
            return True
        pending = [c for c in classified if c.kind == "pending"]
        return any(
            {w.lower() for w in words(str(c.state))} & _MOVING
            or str(c.state).lower().replace("_", "").replace("-", "") in _MOVING
            for c in pending
        )

    def _carry(
        self, monitor: Monitor, create: ir.Operation
    ) -> tuple[tuple[str, str, str], ...] | None:
        """Each input the status call needs, from the create answer's field of its name."""
        out = []
        top = deref(create.response.type, self.schemas)
        for where, wire, t in monitor.needs:
            if kind(t, self.schemas) not in ("str", "int", "float", "bool"):
                return None
            field = (
                next((f for f in top.fields if f.wire == wire), None)
                if isinstance(top, ir.Model)
                else None
            )
            if field is None or kind(field.type, self.schemas) not in (
                "str",
                "int",
                "float",
                "bool",
            ):
                return None
            target = f"body:{pointer(wire)}" if where == "body" else f"{where}:{wire}"
            out.append((snake(wire), pointer(wire), target))
        names = [name for name, _, _ in out]
        if len(set(names)) != len(names):
            return None
        return tuple(out)

    def _fits(self, op: ir.Operation, monitor: Monitor, carry: tuple[Any, ...]) -> bool:
        """Whether ``op`` takes the id under the monitor's name, and only carried values."""
        if not any(p.wire == monitor.id_param.wire for p in op.path_parameters):
            return False
        needs = inputs_needed(op, monitor.id_param.wire, self.schemas)
        if needs is None:
            return False
        carried = {target for _, _, target in carry}
        for where, wire, _ in needs:
            target = f"body:{pointer(wire)}" if where == "body" else f"{where}:{wire}"
            if target not in carried:
                return False
        for target in carried:
            where, _, wire = target.partition(":")
            if where == "body":
                model = deref(op.body.type, self.schemas) if op.body is not None else None
                if not isinstance(model, ir.Model) or wire[1:] not in {
                    f.wire for f in model.fields
                }:
                    return False
            elif not any(p.location == where and p.wire == wire for p in op.parameters):
                return False
        return True

    def _result(self, monitor: Monitor, carry: tuple[Any, ...]) -> tuple[str | None, str | None]:
        found = []
        for op in self.operations:
            tail = (
                op.path[len(monitor.base) + 1 :] if op.path.startswith(monitor.base + "/") else ""
            )
            if not tail or "/" in tail or tail.startswith("{") or op is monitor.op:
                continue
            reads_by_post = monitor.op.method.lower() == "post" and op.method.lower() == "post"
            if op.method.lower() != "get" and not reads_by_post:
                continue
            if op.response.kind not in ("json", "text", "binary"):
                continue
            word = tail.lower()
            last = [w.lower() for w in words(tail)][-1:]
            if not last or last[0] not in _RESULT_WORDS or "fail" in word or "error" in word:
                continue
            if not self._fits(op, monitor, carry):
                continue
            exact = word in _RESULT_WORDS
            found.append((not exact, "success" not in word, op.path, op))
        if not found:
            return None, None
        found.sort(key=lambda item: item[:3])
        check = "one of several result-like operations" if len(found) > 1 else None
        return found[0][3].operation_id, check

    def _cancel(self, monitor: Monitor, carry: tuple[Any, ...]) -> tuple[str | None, str | None]:
        for op in self.operations:
            method = op.method.lower()
            named = op.path in (monitor.base + "/cancel", monitor.base + ":cancel") and method in (
                "post",
                "put",
                "patch",
                "delete",
            )
            if named and self._fits(op, monitor, carry):
                return op.operation_id, None
        for op in self.operations:
            said = "cancel" in f"{op.operation_id} {op.summary}".lower()
            deletes = op.path == monitor.base and op.method.lower() == "delete"
            if deletes and said and self._fits(op, monitor, carry):
                return op.operation_id, "a DELETE read as the cancel"
        return None, None

    # -- what the record says

    def _complete(
        self,
        monitor: Monitor,
        *,
        name: str,
        create: ir.Operation,
        classified: list[Classified],
        checks: dict[str, str],
        **keys: Any,
    ) -> DraftJob:
        lists: dict[str, list[str | int]] = {k: [] for k in ("success", "failure", "canceled")}
        lists["pending"] = []
        notes: dict[str, dict[str, list[str]]] = {}
        for c in classified:
            lists[c.kind].append(c.state)
            if c.check:
                notes.setdefault(f"state.{c.kind}", {}).setdefault(c.check, []).append(str(c.state))
        for key, by_note in notes.items():
            said = [f"{', '.join(states)}: {note}" for note, states in by_note.items()]
            checks[key] = "; ".join([*([checks[key]] if key in checks else []), *said])
        record = monitor.record
        fields = self._record_fields(record, checks)
        hints = self._header_hints(monitor.op, create)
        idempotency = next(
            (
                p.wire
                for p in create.parameters
                if p.location == "header" and any(w in p.wire.lower() for w in _IDEMPOTENCY)
            ),
            None,
        )
        return DraftJob(
            name=name,
            status=monitor.op.operation_id,
            id_parameter=monitor.id_param.wire,
            record=pointer(*monitor.record_path),
            state_field=pointer(monitor.state.wire) if monitor.states != () else None,
            success=tuple(lists["success"]),
            failure=tuple(lists["failure"]),
            canceled=tuple(lists["canceled"]),
            pending=tuple(lists["pending"]),
            create=create.operation_id,
            headers=hints,
            idempotency_header=idempotency,
            checks=checks,
            **fields,
            **keys,
        )

    def _record_fields(self, record: ir.Model, checks: dict[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        schemas = self.schemas
        error = field_named(record, ERROR_FIELDS)
        if error is not None:
            out["error_field"] = pointer(error.wire)
        for key, names, exact in (
            ("terminal_field", _TERMINAL_FIELDS, "terminal"),
            ("result_ready_field", _READY_FIELDS, "result_ready"),
        ):
            found = field_named(record, names)
            if found is not None and kind(found.type, schemas) == "bool":
                out[key] = pointer(found.wire)
                if found.wire.lower() != exact:
                    checks.setdefault(key, "a boolean field read from its name")
        progress = field_named(record, _PERCENT_FIELDS)
        if progress is not None and is_number(progress.type, schemas):
            out["progress"] = (("field", pointer(progress.wire)),)
        elif progress is not None and isinstance(inner := deref(progress.type, schemas), ir.Model):
            percent = field_named(inner, _PERCENT_FIELDS[1:])
            done = field_named(inner, _DONE_FIELDS)
            total = field_named(inner, ("total",))
            if percent is not None and is_number(percent.type, schemas):
                out["progress"] = (("field", pointer(progress.wire, percent.wire)),)
            elif (
                done and total and is_number(done.type, schemas) and is_number(total.type, schemas)
            ):
                out["progress"] = (
                    ("done", pointer(progress.wire, done.wire)),
                    ("total", pointer(progress.wire, total.wire)),
                )
                checks["progress"] = "progress read as done out of total"
        if "progress" not in out:
            for f in record.fields:
                inner = deref(f.type, schemas)
                if not isinstance(inner, ir.Model) or "count" not in f.wire.lower():
                    continue
                done = field_named(inner, _DONE_FIELDS)
                total = field_named(inner, ("total",))
                if (
                    done
                    and total
                    and is_number(done.type, schemas)
                    and is_number(total.type, schemas)
                ):
                    out["progress"] = (
                        ("done", pointer(f.wire, done.wire)),
                        ("total", pointer(f.wire, total.wire)),
                    )
                    checks["progress"] = "progress read as done out of total"
                    break
        for f in record.fields:
            plain = plain_words(f.wire)
            if not is_number(f.type, schemas):
                continue
            hinted = "poll" in plain or "retry_after" in plain or plain.endswith("remaining")
            if not hinted and not (plain.startswith("seconds_") and "remaining" in plain):
                continue
            unit = (
                "milliseconds" if plain.endswith(("_ms", "millis", "milliseconds")) else "seconds"
            )
            out["body_hint"] = (pointer(f.wire), unit)
            if "poll" not in plain and "retry" not in plain:
                checks["poll.body_hint"] = "an estimate of the time left, read as a poll hint"
            break
        return out

    def _header_hints(
        self, monitor: ir.Operation, create: ir.Operation
    ) -> tuple[tuple[str, str], ...]:
        names: dict[str, str] = {}
        for op in (monitor, create):
            for status, (response, _) in self.raw.responses(op).items():
                if not status.startswith("2") or not isinstance(response, dict):
                    continue
                for header in self.raw.headers(op, status):
                    names.setdefault(header.lower(), header)
        hints = []
        for lower, header in sorted(names.items()):
            if lower == "retry-after":
                hints.append((header, "retry-after"))
            elif "retry" in lower or "poll" in lower:
                unit = (
                    "milliseconds"
                    if lower.endswith(("-ms", "millis", "milliseconds"))
                    else "seconds"
                )
                hints.append((header, unit))
        return tuple(hints)


def draft_jobs(sdk: ir.Sdk) -> Draft:
    """The jobs a person would likely declare for ``sdk`` (built without jobs)."""
    return _Finder(sdk).find()
