"""One declared job, as the simulated API renders it: ids, records, results and hints."""

from __future__ import annotations

import copy
import json
import re
import secrets
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import formatdate
from typing import Any
from urllib.parse import quote, urlencode

from ..model import ir
from ..model.states import classify_all
from ..problems import pointer_join
from .answers import Declared
from .errors import fill_error
from .samples import Located, Sampler, drop, locate, model_of, put
from .scenario import RetryAfter, Scenario, ScenarioError
from .store import SimJob
from .timeline import View
from .values import Values
from .wire import parse_json

__all__ = ["JobKind", "format_retry_after", "id_slot", "in_query", "sent_json", "timestamp"]

JSON = Any

FAILURE_MESSAGE = "the simulated job failed"
#: A failed job's error code, unless the scenario or the spec's enum says otherwise.
FAILURE_CODE = "job_failed"
#: The total of a job whose progress is declared as done out of total.
PROGRESS_TOTAL = 20
#: Media types of JSON Lines results: one JSON value of the item schema per line.
JSON_LINES = frozenset({"application/jsonl", "application/x-ndjson", "application/x-jsonlines"})
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


def timestamp(wall: float) -> str:
    """An ISO 8601 UTC timestamp, e.g. ``2025-01-02T03:04:05Z``."""
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds_text(seconds: float) -> str:
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{seconds:.6f}".rstrip("0").rstrip(".")


def format_retry_after(value: RetryAfter, wall: float) -> str:
    """The header text of ``value`` at wall-clock time ``wall``."""
    if value.form == "seconds":
        return _seconds_text(value.seconds)
    if value.form == "date":
        return formatdate(wall + value.seconds, usegmt=True)
    return value.text


_CODE_NAMES = frozenset({"code", "errorcode", "error_code"})
_MESSAGE_NAMES = frozenset({"message", "msg", "detail", "error_description", "errormessage"})


def _strings(value: JSON, names: frozenset[str]) -> list[str]:
    """The strings under keys named one of ``names`` (any case), anywhere in ``value``."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key.lower() in names and isinstance(item, str):
                found.append(item)
            else:
                found += _strings(item, names)
    elif isinstance(value, list):
        for item in value:
            found += _strings(item, names)
    return found


def _literal_prefix(pattern: object) -> str:
    """The text every match of an anchored ``pattern`` starts with (``ocr_`` for
    ``^ocr_[a-z0-9]+$``); empty when it has none."""
    if not isinstance(pattern, str) or not pattern.startswith("^"):
        return ""
    found = re.match(r"[A-Za-z0-9_\-]*", pattern[1:])
    prefix = found.group(0) if found else ""
    rest = pattern[1 + len(prefix) :]
    if rest[:1] in ("?", "*", "{", "+") and prefix:
        prefix = prefix[:-1]  # the last character is quantified
    return prefix


def sent_json(raw: bytes | None) -> JSON:
    """A create request's body read as JSON: None when it is empty or not JSON."""
    if not raw:
        return None
    try:
        return parse_json(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def _parent(body: JSON, prefix: tuple[str, ...]) -> dict[str, JSON] | None:
    for key in prefix:
        body = body.get(key) if isinstance(body, dict) else None
    return body if isinstance(body, dict) else None


def _errors_near(values: Values, body: JSON, path: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The schema's refusals of ``body`` at the ancestors of ``path``, and under it."""
    above: list[str] = []
    under: list[str] = []
    for error in values.validator.iter_errors(body):
        at = tuple(str(p) for p in error.instance_path)
        if at[: len(path)] == path:
            under.append(str(error.message))
        elif path[: len(at)] == at:
            above.append(str(error.message))
    return above, under


def _int_like(t: ir.TypeRef) -> bool:
    while isinstance(t, ir.Nullable):
        t = t.inner
    return isinstance(t, ir.Primitive) and t.kind == "int"


def id_slot(job: ir.Job) -> str:
    """The status path parameter that holds the job's id: the declared id parameter; for
    a job polled at its operation URL (none declared), the status path's last parameter
    that the create's path does not fill (Azure's ``{resultId}`` beside ``{modelId}``);
    when the create fills them all (a cancel whose monitor is the job it cancels,
    ``.../jobs/{jobId}:cancel``), the last one, so the URL still names this job; for a
    status path without parameters, the first required query parameter without a default
    that the create does not take (App Configuration's ``/operations?snapshot=``)."""
    if job.id_parameter:
        return job.id_parameter
    given = {p.wire for p in job.create.path_parameters} if job.create else set()
    wires = [p.wire for p in job.status.path_parameters]
    free = [wire for wire in wires if wire not in given]
    if free or wires:
        return (free or wires)[-1]
    taken = {p.wire for p in job.create.parameters} if job.create else set()
    query = [
        p.wire
        for p in job.status.parameters
        if p.location == "query" and p.required and not p.has_default and p.wire not in taken
    ]
    return query[0] if query else ""


def in_query(job: ir.Job) -> bool:
    """Whether the job's id is a query parameter of its status operation (see id_slot)."""
    slot = id_slot(job)
    return bool(slot) and all(p.wire != slot for p in job.status.path_parameters)


class JobKind:
    """Renders the answers of one ``ir.Job`` for simulated jobs of that kind."""

    def __init__(self, job: ir.Job, schemas: Mapping[str, ir.NamedSchema]) -> None:
        self.job = job
        self.schemas = schemas
        self.status_type = job.status.response.type
        self._record = job.record_path
        #: Whether the status operation documents a Retry-After (set from the spec).
        self.documents_retry_after = False
        #: The responses and parameters the spec declares (set from the spec when read):
        #: the values made up for this job's answers satisfy their schemas.
        self.declared: Declared | None = None

    # -- ids ------------------------------------------------------------------------

    def _id_kind(self) -> str:
        """``uuid``, ``int`` or ``str``: what the record's id field (or the path) holds."""
        candidates: list[ir.TypeRef] = []
        if self.status_type is not None:
            found = self._at(self.status_type, (*self._record, "id"))
            if found is not None:
                candidates.append(found.type)
        candidates += [
            p.type for p in self.job.status.path_parameters if p.wire == id_slot(self.job)
        ]
        for candidate in candidates:
            resolved = self._resolve(candidate)
            if isinstance(resolved, ir.Primitive) and resolved.kind in ("uuid", "int"):
                return resolved.kind
        return "str"

    def _resolve(self, t: ir.TypeRef) -> ir.TypeRef:
        for _ in range(32):
            if isinstance(t, ir.Nullable):
                t = t.inner
            elif isinstance(t, ir.Ref) and isinstance(self.schemas.get(t.key), ir.AliasSchema):
                alias = self.schemas[t.key]
                assert isinstance(alias, ir.AliasSchema)
                t = alias.target
            else:
                break
        return t

    def new_id(self) -> str:
        """A new id: a UUID, a number, or ``<job name>_<16 hex digits>``; where the id
        parameter's schema refuses that (a ``pattern``, a length), an id of the schema:
        its pattern's literal prefix and hex digits (``ocr_5f0c...``), else one made from
        the pattern."""
        kind = self._id_kind()
        if kind == "uuid":
            return str(uuid.uuid4())
        if kind == "int":
            return str(secrets.randbelow(10**9) + 10**8)
        plain = f"{self.job.name}_{secrets.token_hex(8)}"
        values = (
            self.declared.parameter(self.job.status, "path", self.job.id_parameter)
            if self.declared is not None
            else None
        )
        if values is None or values.valid(plain):
            return plain
        schema = values.schema if isinstance(values.schema, dict) else {}
        prefix = _literal_prefix(schema.get("pattern"))
        for candidate in (f"{prefix}{secrets.token_hex(8)}", secrets.token_hex(8)):
            if values.valid(candidate):
                return candidate
        made = values.make(where=secrets.token_hex(8))
        return str(made)

    def id_value(self, job_id: str) -> JSON:
        """The id as the record carries it (an integer where the schema says so)."""
        return int(job_id) if self._id_kind() == "int" else job_id

    def _named_id(self, job_id: str) -> JSON:
        """The id as the create answer names it: with ``id_last_segment``, under the
        collection the status path reads it from (``operations/123``)."""
        if not self.job.id_last_segment:
            return self.id_value(job_id)
        marker = "{" + id_slot(self.job) + "}"
        collection = self.job.status.path.split(marker)[0].rstrip("/").rsplit("/", 1)[-1]
        return f"{collection}/{job_id}" if collection else job_id

    def fill_path(self, op: ir.Operation, sim: SimJob) -> str:
        """``op``'s path for ``sim``: the id, the create's own path parameters of the same
        name (Azure's ``{modelId}``), and an example value for any other."""
        sampler = self.sampler(sim.created_wall)

        def value(found: re.Match[str]) -> str:
            name = found.group(1)
            if name == id_slot(self.job):
                return sim.id
            if name in sim.path:
                return sim.path[name]
            declared = next((p for p in op.path_parameters if p.wire == name), None)
            sample = sampler.sample(declared.type, force=True) if declared else None
            return quote(str(sample if sample not in (None, "") else "example"), safe="")

        return _TEMPLATE.sub(value, op.path)

    def status_url(self, base_url: str, sim: SimJob) -> str:
        """The status URL of a job, with the operation's required query defaults."""
        path = self.fill_path(self.job.status, sim)
        query = [
            (p.wire, str(p.default))
            for p in self.job.status.parameters
            if p.location == "query" and p.required and p.has_default
        ]
        if in_query(self.job):
            query.append((id_slot(self.job), sim.id))
        return base_url + path + (f"?{urlencode(query)}" if query else "")

    # -- bodies ---------------------------------------------------------------------

    def sampler(self, wall: float) -> Sampler:
        return Sampler(self.schemas, timestamp=timestamp(wall))

    def base_record(self, wall: float) -> JSON:
        """The status body a new job starts from (before its state is written in)."""
        return self.sampler(wall).sample(self.status_type) if self.status_type is not None else {}

    def echo(self, base: JSON, sent: JSON) -> JSON:
        """``base`` (a new record) with the fields of the JSON create request ``sent``
        that the record also has (the ``preset`` sent comes back): see _echo."""
        if isinstance(base, dict) and self.status_type is not None:
            self._echo(base, self.status_type, self._record, sent, self.job.status)
        return base

    def _managed(self) -> set[str]:
        """The record's fields the job owns (id, state, flags, hints, error, result)."""
        job = self.job
        return {
            path[0]
            for path in (
                job.id_path and job.id_path[len(self._record) :],
                job.state_path,
                job.terminal_path,
                job.ready_path,
                job.error_path,
                job.hint_path,
                job.progress_path,
                job.progress_done_path,
                job.progress_total_path,
            )
            if path
        } | {"id", "result"}

    def _echo(
        self,
        body: dict[str, JSON],
        t: ir.TypeRef,
        prefix: tuple[str, ...],
        sent: JSON,
        op: ir.Operation | None,
    ) -> None:
        """Write into ``body`` (of type ``t``, the answer of ``op``) each property of the
        create request ``sent`` that ``t`` declares under ``prefix`` by the same name,
        where the value is one of the field's type and, the spec read, valid for the
        answer's schema (a value it refuses keeps the made-up one). The fields the job
        owns are left to it."""
        if not isinstance(sent, dict) or not sent:
            return
        values = self._answer_values(op)
        managed = self._managed()
        for key, value in sent.items():
            if key in managed:
                continue
            path = (*prefix, key)
            found = self._at(t, path)
            if found is None or not self._fits(value, found.type, 0):
                continue
            parent = _parent(body, prefix)
            if parent is None:
                return
            missing = key not in parent
            before = parent.get(key)
            if values is not None:
                ancestors = len(_errors_near(values, body, path)[0])
            parent[key] = copy.deepcopy(value)
            if values is None:
                continue
            above, under = _errors_near(values, body, path)
            if under or len(above) > ancestors:
                if missing:
                    del parent[key]
                else:
                    parent[key] = before

    def _answer_values(self, op: ir.Operation | None) -> Values | None:
        if op is None or self.declared is None:
            return None
        status = int(op.response.status) if op.response.status.isdigit() else 200
        return self.declared.values(op, status)

    # -- fields that name the job -------------------------------------------------------

    def _names(self, sim: SimJob) -> dict[str, str]:
        """The values the job is named by, by the name of the field that carries them:
        the create's path parameters as sent (App Configuration's snapshot ``{name}``),
        and the job's id under the name of its id parameter (``modelId``)."""
        managed = self._managed()  # the record's own id and state are the job's
        names = {k: v for k, v in sim.path.items() if k not in managed}
        slot = id_slot(self.job)
        if slot:
            names[slot] = sim.id
        return names

    def _as(self, text: str, t: ir.TypeRef) -> JSON:
        """``text`` as a value of the scalar type ``t``, or None when it is not one."""
        resolved = self._resolve(t)
        if not isinstance(resolved, ir.Primitive):
            return None
        if resolved.kind == "str":
            return text
        if resolved.kind == "uuid":
            try:
                uuid.UUID(text)
            except ValueError:
                return None
            return text
        if resolved.kind == "int" and text.isdigit():
            return int(text)
        return None

    def _name_job(self, value: JSON, t: ir.TypeRef, sim: SimJob) -> None:
        """Write the job's names (see _names) into the fields of ``value`` (of type ``t``)
        that bear them, in its objects at any depth (Form Recognizer's
        ``modelInfo.modelId``: the id in the ``Location``). The items of an array are
        other things than the job (a composed model's ``composedTrainResults``, one per
        model it composes): a field of theirs that bears such a name is filled where it
        is missing, from the create request's list of the plural name (``modelIds``:
        one item for each value sent) where there is one, else with a made-up value."""
        self._name_in(value, t, sim, self._names(sim), 0)

    def _name_in(
        self, value: JSON, t: ir.TypeRef, sim: SimJob, names: Mapping[str, str], depth: int
    ) -> None:
        model = model_of(t, self.schemas)
        if model is None or not isinstance(value, dict) or depth > 8:
            return
        for field in model.fields:
            child = value.get(field.wire)
            named = self._as(names[field.wire], field.type) if field.wire in names else None
            if named is not None:
                value[field.wire] = named
            elif isinstance(child, dict):
                self._name_in(child, field.type, sim, names, depth + 1)
            elif isinstance(child, list):
                self._name_items(child, field.type, sim, names)

    def _name_items(
        self, items: list[JSON], t: ir.TypeRef, sim: SimJob, names: Mapping[str, str]
    ) -> None:
        resolved = self._resolve(t)
        item_type = resolved.item if isinstance(resolved, ir.ListType) else None
        model = model_of(item_type, self.schemas) if item_type is not None else None
        if model is None or not items or not all(isinstance(i, dict) for i in items):
            return
        field = next(
            (f for f in model.fields if f.wire in names and self._as(names[f.wire], f.type)),
            None,
        )
        if field is None:
            return
        wire = field.wire
        given = sim.sent.get(wire + "s") if isinstance(sim.sent, dict) else None
        chosen = [self._as(str(v), field.type) for v in given] if isinstance(given, list) else []
        if chosen and all(v is not None for v in chosen):
            template = items[0]
            items[:] = [{**copy.deepcopy(template), wire: v} for v in chosen]
            return
        resolved_field = self._resolve(field.type)
        fresh = isinstance(resolved_field, ir.Primitive) and resolved_field.kind == "uuid"
        sampler = self.sampler(sim.created_wall)
        for i, item in enumerate(items):
            if wire not in item:
                item[wire] = (
                    str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sim.id}/{wire}/{i}"))
                    if fresh
                    else sampler.sample(field.type, force=True)
                )

    def _fits(self, value: JSON, t: ir.TypeRef, depth: int) -> bool:
        """Whether ``value`` is a value of ``t`` (objects by their fields, to a depth)."""
        if depth > 8:
            return True
        t = self._resolve(t)
        if value is None:
            return isinstance(t, ir.AnyType)
        if isinstance(t, ir.Nullable):
            return self._fits(value, t.inner, depth)
        if isinstance(t, ir.AnyType):
            return True
        if isinstance(t, ir.ConstType):
            return bool(value == t.value)
        if isinstance(t, ir.Primitive):
            if t.kind == "bool":
                return isinstance(value, bool)
            if t.kind == "int":
                return isinstance(value, int) and not isinstance(value, bool)
            if t.kind == "float":
                return isinstance(value, int | float) and not isinstance(value, bool)
            return isinstance(value, str)
        if isinstance(t, ir.ListType):
            return isinstance(value, list) and all(self._fits(v, t.item, depth + 1) for v in value)
        if isinstance(t, ir.MapType):
            return isinstance(value, dict)
        if isinstance(t, ir.InlineUnion):
            return any(self._fits(value, v, depth) for v in t.variants)
        if isinstance(t, ir.Ref):
            named = self.schemas.get(t.key)
            if isinstance(named, ir.EnumSchema):
                return value in {m.value for m in named.members}
            if isinstance(named, ir.UnionSchema):
                return any(self._fits(value, v, depth) for v in named.variants)
            if isinstance(named, ir.Model):
                if not isinstance(value, dict):
                    return False
                fields = {f.wire: f for f in named.fields}
                if any(f.required and f.wire not in value for f in named.fields):
                    return False
                return all(
                    self._fits(v, fields[k].type, depth + 1)
                    if k in fields
                    else named.additional is not None
                    for k, v in value.items()
                )
        return False

    def status_body(self, sim: SimJob, view: View) -> JSON:
        body = copy.deepcopy(sim.base)
        if isinstance(body, dict) and self.status_type is not None:
            self._overlay(body, self.status_type, sim, view)
            body = self.conform(self.job.status, body, sim)
        return body

    def conform(self, op: ir.Operation, body: JSON, sim: SimJob | None) -> JSON:
        """``body`` of ``op``'s success answer, its made-up values repaired to satisfy
        the schema; the values the simulation owns (the id, the state and its flags,
        a hint or an error the scenario gives) are kept as they are."""
        if self.declared is None:
            return body
        status = int(op.response.status) if op.response.status.isdigit() else 200
        return self.declared.conform(op, status, body, protect=self._owned(sim))

    def _owned(self, sim: SimJob | None) -> tuple[str, ...]:
        job, record = self.job, self._record
        paths = [job.id_path, (*record, "id")]
        paths += [
            (*record, *p) if p else None
            for p in (
                job.state_path,
                job.terminal_path,
                job.ready_path,
                job.progress_path,
                job.progress_done_path,
                job.progress_total_path,
            )
        ]
        if sim is not None and sim.scenario.hint is not None and job.hint_path:
            paths.append((*record, *job.hint_path))
        return tuple(pointer_join("", *p) for p in paths if p)

    def create_body(self, sim: SimJob, view: View) -> JSON:
        """The create answer's body, or None when the create answer has no JSON body."""
        return self.answer_body(self.job.create, sim, view)

    def answer_body(self, op: ir.Operation | None, sim: SimJob, view: View) -> JSON:
        """The body of a create or cancel answer (the job's record where its type is the
        status body's), or None when the operation answers without a JSON body."""
        if op is None or op.response.kind != "json" or op.response.type is None:
            return None
        if op.response.type == self.status_type:
            return self.status_body(sim, view)
        body = self.sampler(sim.created_wall).sample(op.response.type)
        if isinstance(body, dict):
            if op is self.job.create:  # the resource created, as the request described it
                self._echo(body, op.response.type, (), sim.sent, op)
            self._overlay(body, op.response.type, sim, view)
        return self.conform(op, body, sim)

    def _at(self, t: ir.TypeRef, path: tuple[str, ...]) -> Located | None:
        return locate(t, path, self.schemas)

    def _overlay(self, body: dict[str, JSON], t: ir.TypeRef, sim: SimJob, view: View) -> None:
        job, record = self.job, self._record
        self._name_job(body, t, sim)
        for path in (job.id_path, (*record, "id")):
            if path and self._at(t, path) is not None:
                put(
                    body,
                    path,
                    self._named_id(sim.id) if path == job.id_path else self.id_value(sim.id),
                )
                break
        flags = (
            (job.state_path, view.state),
            (job.terminal_path, view.terminal),
            (job.ready_path, view.ready),
        )
        done = round(view.percent * PROGRESS_TOTAL / 100)
        numbers: tuple[tuple[tuple[str, ...] | None, JSON], ...] = (
            (job.progress_path, view.percent),
            (job.progress_done_path, done),
            (job.progress_total_path, PROGRESS_TOTAL),
        )
        for field, value in (*flags, *numbers):
            found = self._at(t, (*record, *field)) if field is not None else None
            if field is None or found is None:
                continue
            if field == job.state_path:
                value = self.state_in(found.type, view)
                if value is None:
                    continue
            put(body, (*record, *field), value)
        self._hint(body, t, sim.scenario, view)
        self._error(body, t, sim, view)
        self._embedded_result(body, t, sim, view)

    def state_in(self, t: ir.TypeRef, view: View) -> JSON:
        """The state a field of type ``t`` reports for ``view``: the job's own state,
        unless ``t`` is an enum without it. Then ``t`` is the status of another resource
        (the snapshot an App Configuration create answers, ``provisioning``, ``ready``,
        ``archived`` or ``failed``, whose job's states are on its operation monitor):
        its member of the job's phase, by name (model.states), a failed one for a
        canceled job where it has no canceled one; None when it has neither."""
        resolved = self._resolve(t)
        named = self.schemas.get(resolved.key) if isinstance(resolved, ir.Ref) else None
        if not isinstance(named, ir.EnumSchema) or view.kind == "undocumented":
            return view.state
        members = [m.value for m in named.members]
        if view.state in members:
            return view.state
        if self.job.ignore_case:
            same = [m for m in members if str(m).lower() == view.state.lower()]
            if same:
                return same[0]
        kinds = classify_all(members)
        wanted = (view.kind, "failure") if view.kind == "canceled" else (view.kind,)
        for kind in wanted:
            found = next((c.state for c in kinds if c.kind == kind), None)
            if found is not None:
                return found
        return None

    def _set_or_clear(
        self, body: dict[str, JSON], path: tuple[str, ...], found: Located, value: JSON
    ) -> None:
        if value is not None:
            put(body, path, value)
        elif isinstance(found.type, ir.Nullable):
            put(body, path, None)
        elif not found.required:
            drop(body, path)

    def _hint(self, body: dict[str, JSON], t: ir.TypeRef, scenario: Scenario, view: View) -> None:
        if self.job.hint_path is None:
            return
        path = (*self._record, *self.job.hint_path)
        found = self._at(t, path)
        if found is None:
            return
        value: float | None = None
        if not view.terminal:
            floor = self.job.floor * (1000 if self.job.hint_unit == "milliseconds" else 1)
            value = scenario.hint if scenario.hint is not None else (floor if floor > 0 else None)
        if value is not None and _int_like(found.type):
            value = round(value)
        self._set_or_clear(body, path, found, value)

    def check_scenario(self, scenario: Scenario, wall: float) -> None:
        """Refuse (ScenarioError) a scenario ``error`` the spec's error schema does not
        allow: a code outside its enum, a message too long."""
        chosen = scenario.error
        job = self.job
        if chosen is None or self.declared is None or self.status_type is None:
            return
        if job.error_path is None:
            return
        path = (*self._record, *job.error_path)
        found = self._at(self.status_type, path)
        status = int(job.status.response.status) if job.status.response.status.isdigit() else 200
        values = self.declared.values(job.status, status)
        if found is None or values is None:
            return
        code, message = chosen.code or FAILURE_CODE, chosen.message or FAILURE_MESSAGE
        sample = self.sampler(wall).sample(found.type, force=True)
        body = self.base_record(wall)
        if not isinstance(body, dict):
            return
        put(body, path, message if isinstance(sample, str) else fill_error(sample, code, message))
        fixed = values.conform(body)
        for key in path:
            fixed = fixed.get(key) if isinstance(fixed, dict) else None
        where = pointer_join("", *path)
        for field, wanted, names in (
            ("error.code", chosen.code, _CODE_NAMES),
            ("error.message", chosen.message, _MESSAGE_NAMES),
        ):
            allowed = _strings(fixed, names) if not isinstance(fixed, str) else [fixed]
            if wanted is not None and wanted not in allowed:
                instead = f" (such as {allowed[0]!r})" if allowed else ""
                raise ScenarioError(
                    field, f"the spec's error schema at {where} does not allow it{instead}"
                )

    def _error(self, body: dict[str, JSON], t: ir.TypeRef, sim: SimJob, view: View) -> None:
        if self.job.error_path is None:
            return
        path = (*self._record, *self.job.error_path)
        found = self._at(t, path)
        if found is None:
            return
        value = None
        if view.kind == "failure":
            chosen = sim.scenario.error
            code = (chosen.code if chosen else None) or FAILURE_CODE
            message = (chosen.message if chosen else None) or FAILURE_MESSAGE
            sample = self.sampler(sim.created_wall).sample(found.type, force=True)
            value = message if isinstance(sample, str) else fill_error(sample, code, message)
        self._set_or_clear(body, path, found, value)

    def _embedded_result(
        self, body: dict[str, JSON], t: ir.TypeRef, sim: SimJob, view: View
    ) -> None:
        """A record field named ``result`` holds the result once the job has succeeded
        (``response``, in a record whose state is a terminal flag: an AIP-151 Operation
        holds its ``response`` once done, and only when it did not fail)."""
        taken = {
            self.job.state_path,
            self.job.ready_path,
            self.job.terminal_path,
            self.job.error_path,
        }
        names = ("result", "response") if self.job.state_path is None else ("result",)
        name = next((n for n in names if self._at(t, (*self._record, n)) is not None), None)
        if name is None or (name,) in taken:
            return
        path = (*self._record, name)
        found = self._at(t, path)
        if found is None:
            return
        value = None
        if view.kind == "success":
            value = self._with_id(
                self.sampler(sim.created_wall).sample(found.type, force=True), sim.id
            )
        self._set_or_clear(body, path, found, value)

    def _with_id(self, value: JSON, job_id: str) -> JSON:
        names = {"job_id", "jobId", self.job.id_parameter}
        if isinstance(value, dict):
            return {
                k: job_id if k in names and isinstance(v, str) else self._with_id(v, job_id)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._with_id(v, job_id) for v in value]
        return value

    def result(self, sim: SimJob, view: View) -> tuple[int, bytes, str | None, JSON]:
        """The result answer: status, body bytes, content type, and the JSON value if any.
        A result that is the resource the create answered (Azure's final GET of a PUT's
        own URL) reports the state of ``view`` in its own status field, as the create
        answer did (see state_in)."""
        op = self.job.result
        assert op is not None
        response = op.response
        status = int(response.status) if response.status.isdigit() else 200
        if response.kind == "json" and response.type is not None:
            value = self._with_id(
                self.sampler(sim.created_wall).sample(response.type, force=True), sim.id
            )
            if isinstance(value, dict):
                self._echo(value, response.type, (), sim.sent, op)
                self._name_job(value, response.type, sim)
            create, state = self.job.create, self.job.state_path
            created = create is not None and create.response.type == response.type
            if created and state and isinstance(value, dict) and response.type != self.status_type:
                found = self._at(response.type, (*self._record, *state))
                phase = self.state_in(found.type, view) if found is not None else None
                if phase is not None:
                    put(value, (*self._record, *state), phase)
            return (
                status,
                b"",
                response.media_type or "application/json",
                self.conform(op, value, None),
            )
        if response.kind == "text":
            media = response.media_type or "text/plain"
            if "csv" in media:
                text = f"job_id,row,value\r\n{sim.id},1,example\r\n{sim.id},2,example\r\n"
            else:
                text = f"result of {sim.id}\n"
            return status, text.encode(), f"{media}; charset=utf-8", None
        if response.kind == "binary":
            # Bytes that are not UTF-8 text: a client that decodes them shows it.
            body = b"\x89JOBGEN\x00\xff example result of " + sim.id.encode() + b"\xfe\n"
            return status, body, response.media_type, None
        return status, b"", None, None

    def json_lines(self, sim: SimJob, item: JSON) -> bytes:
        """A JSON Lines result: two lines of ``item`` (an example of the item schema)."""
        value = self._with_id(item, sim.id) if item is not None else {"job_id": sim.id}
        line = json.dumps(value, ensure_ascii=False)
        return f"{line}\n{line}\n".encode()

    # -- hints ----------------------------------------------------------------------

    def create_hints(self, scenario: Scenario, wall: float) -> tuple[tuple[str, str], ...]:
        """The ``Retry-After`` of a 202 create answer, when the status operation documents
        one: the scenario's ``retry_after``, else its body ``hint`` in seconds, else 0 (poll
        on your own schedule, which a client raises to its floor)."""
        if not self.documents_retry_after:
            return ()
        if scenario.retry_after is not None:
            return (("retry-after", format_retry_after(scenario.retry_after, wall)),)
        seconds = 0.0
        if scenario.hint is not None:
            unit = 1000 if self.job.hint_unit == "milliseconds" else 1
            seconds = scenario.hint / unit
        return (("retry-after", _seconds_text(max(seconds, 0.0))),)

    def hint_headers(self, scenario: Scenario, wall: float) -> tuple[tuple[str, str], ...]:
        """Poll hint headers for a status answer while the job is not terminal."""
        out: list[tuple[str, str]] = []
        if scenario.retry_after is not None:
            out.append(("retry-after", format_retry_after(scenario.retry_after, wall)))
        if scenario.poll_after_ms is not None:
            for hint in self.job.header_hints:
                if hint.name.lower() == "retry-after":
                    continue
                seconds = scenario.poll_after_ms / 1000
                text = (
                    _seconds_text(scenario.poll_after_ms)
                    if hint.format == "milliseconds"
                    else _seconds_text(seconds)
                )
                out.append((hint.name.lower(), text))
        return tuple(out)
