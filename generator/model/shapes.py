"""The shapes jobs have in a spec: types of the SDK model, the raw spec's responses and
headers, status operations and their records, and the names of jobs.

Read by the drafter (``jobgen jobs init``, generator/draft/) and by the dialect readers
that import jobs (generator/model/declare/); nothing here decides what is a job.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from ..problems import Location, SpecError, pointer_join
from . import ir
from .names import words
from .states import classify_all

__all__ = [
    "ERROR_FIELDS",
    "Monitor",
    "RawSpec",
    "create_name",
    "deref",
    "field_named",
    "find_model",
    "find_monitors",
    "has_outcome",
    "id_field",
    "id_name",
    "inputs_needed",
    "is_number",
    "kind",
    "owner_of",
    "parent",
    "path_name",
    "path_words",
    "plain_words",
    "pointer",
    "status_shape",
]

#: Names of a record's field that holds a failed job's error.
ERROR_FIELDS = (
    "error",
    "errors",
    "error_message",
    "errormessage",
    "error_detail",
    "error_details",
    "failure_reason",
    "failure_message",
    "last_error",
)

_STATE_FIELDS = ("status", "state", "phase", "job_status", "jobstatus", "processing_status")
_STATUS_SUFFIXES = frozenset({"status", "pending", "state", "progress"})
_RECORD_FIELDS = ("data", "result", "record", "item", "job", "operation")
_CREATE_VERBS = frozenset(
    {
        "create",
        "start",
        "begin",
        "submit",
        "post",
        "put",
        "trigger",
        "run",
        "request",
        "initiate",
        "launch",
        "enqueue",
        "schedule",
        "new",
        "add",
    }
)
_NAME_TAILS = frozenset({"operation", "async", "lro"})
_GENERIC_IDS = frozenset({"id", "job", "operation", "task", "request", "uuid", "key"})
_BACKTICKED = re.compile(r"`([A-Za-z][A-Za-z0-9_-]*)`")
# States named in single quotes ("Either 'dubbed', 'dubbing' or 'failed'."), read when
# the description puts none in backquotes.
_QUOTED = re.compile(r"(?<![\w'])'([A-Za-z][A-Za-z0-9_-]*)'(?![\w'])")
_VERSION = re.compile(r"v\d+(\.\d+)*|\d+(\.\d+)*|api|rest")


# -- types -------------------------------------------------------------------


def deref(t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]) -> Any:
    seen: set[str] = set()
    while True:
        if isinstance(t, ir.Nullable):
            t = t.inner
        elif isinstance(t, ir.Ref) and t.key not in seen and t.key in schemas:
            seen.add(t.key)
            named = schemas[t.key]
            if isinstance(named, ir.AliasSchema):
                t = named.target
            else:
                return named
        else:
            return t


def kind(t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]) -> str | None:
    node = deref(t, schemas)
    if isinstance(node, ir.Primitive):
        return node.kind
    if isinstance(node, ir.EnumSchema):
        return node.base
    if isinstance(node, ir.InlineUnion):
        kinds = {kind(v, schemas) for v in node.variants} - {None}
        return "float" if kinds & {"int", "float"} else None
    return None


def is_number(t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]) -> bool:
    return kind(t, schemas) in ("int", "float")


def field_named(model: ir.Model, names: tuple[str, ...]) -> ir.Field | None:
    """The first of ``names`` (compared without case) that ``model`` has."""
    by_name = {f.wire.lower(): f for f in model.fields}
    for name in names:
        if name in by_name:
            return by_name[name]
    return None


def plain_words(text: str) -> str:
    return "_".join(w.lower() for w in words(text))


# -- the raw spec ------------------------------------------------------------


class RawSpec:
    """What the model leaves out: every response status and header of an operation."""

    def __init__(self, sdk: ir.Sdk) -> None:
        self.spec = sdk.spec

    def _node(self, at: Location) -> Any:
        if self.spec is None:
            return None
        try:
            node: Any = self.spec.document_at(at).data
        except KeyError:
            return None
        for token in at.pointer.split("/")[1:] if at.pointer else ():
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def deref(self, node: Any, at: Location) -> tuple[Any, Location]:
        if self.spec is None:
            return node, at
        try:
            return self.spec.deref(node, at)
        except SpecError:  # an unreadable reference is no evidence
            return None, at

    def responses(self, op: ir.Operation) -> dict[str, tuple[Any, Location]]:
        if op.location is None:
            return {}
        node = self._node(op.location)
        if not isinstance(node, dict) or not isinstance(node.get("responses"), dict):
            return {}
        out = {}
        for status, response in node["responses"].items():
            at = op.location.child("responses", str(status))
            out[str(status)] = self.deref(response, at)
        return out

    def headers(self, op: ir.Operation, status: str) -> tuple[str, ...]:
        response, _ = self.responses(op).get(status, (None, None))
        if not isinstance(response, dict) or not isinstance(response.get("headers"), dict):
            return ()
        return tuple(str(name) for name in response["headers"])

    def operation_description(self, op: ir.Operation) -> str:
        node = self._node(op.location) if op.location is not None else None
        text = node.get("description") if isinstance(node, dict) else None
        return text if isinstance(text, str) else ""

    def description(self, op: ir.Operation, status: str) -> str:
        response, _ = self.responses(op).get(status, (None, None))
        text = response.get("description") if isinstance(response, dict) else None
        return text if isinstance(text, str) else ""


# -- status operations -------------------------------------------------------


@attrs.frozen
class Monitor:
    op: ir.Operation
    id_param: ir.Parameter
    base: str
    """The status path up to and including ``{id}``."""
    record_path: tuple[str, ...]
    record: ir.Model
    state: ir.Field
    states: tuple[str | int, ...] | None
    states_note: str | None
    needs: tuple[tuple[str, str, ir.TypeRef], ...]
    """Inputs other than the id: ``(where, wire, type)``, ``where`` one of path, query,
    header or body (a required property of the body)."""


_STATUS_PATH = re.compile(r"^(?P<base>.*/\{(?P<id>[^}/]+)\})(?:/(?P<tail>[A-Za-z_-]+))?$")


def status_shape(op: ir.Operation) -> tuple[str, ir.Parameter] | None:
    """``(base, id parameter)`` of a path ``.../{id}`` or ``.../{id}/status``."""
    return _status_shape(op)


def _status_shape(op: ir.Operation) -> tuple[str, ir.Parameter] | None:
    match = _STATUS_PATH.match(op.path)
    if match is None:
        return None
    tail = match.group("tail")
    if tail is not None and tail.lower() not in _STATUS_SUFFIXES:
        return None
    param = next((p for p in op.path_parameters if p.wire == match.group("id")), None)
    return None if param is None else (match.group("base"), param)


def inputs_needed(
    op: ir.Operation, id_wire: str, schemas: dict[str, ir.NamedSchema]
) -> tuple[tuple[str, str, ir.TypeRef], ...] | None:
    """What ``op`` needs besides the job id; None when it needs a body that is no object."""
    found: list[tuple[str, str, ir.TypeRef]] = []
    for p in op.parameters:
        if p.location == "path" and p.wire == id_wire:
            continue
        if p.location == "cookie":
            if p.required:
                return None
            continue
        if p.required and not p.has_default:
            found.append((p.location, p.wire, p.type))
    if op.body is not None and op.body.required:
        model = deref(op.body.type, schemas)
        if op.body.kind != "json" or not isinstance(model, ir.Model):
            return None
        required = [("body", f.wire, f.type) for f in model.fields if f.required]
        # A required body with no required property still needs a body: nothing carries it.
        found.extend(required or [("body", "", ir.AnyType())])
    return tuple(found)


def _state_field(model: ir.Model) -> ir.Field | None:
    """``status``, ``state``...; else the one field named ``*_status`` or ``*_state``
    (a dataset's ``validation_status``)."""
    found = field_named(model, _STATE_FIELDS)
    if found is not None:
        return found
    named = [f for f in model.fields if plain_words(f.wire).endswith(("_status", "_state"))]
    return named[0] if len(named) == 1 else None


def _documented(
    field: ir.Field, record: ir.Model, schemas: dict[str, ir.NamedSchema]
) -> tuple[tuple[str | int, ...] | None, str | None]:
    node = deref(field.type, schemas)
    if isinstance(node, ir.EnumSchema):
        return tuple(m.value for m in node.members), None
    if isinstance(node, ir.ConstType) and isinstance(node.value, (str, int)):
        return (node.value,), None
    if isinstance(node, ir.Primitive) and node.kind == "str":
        others = {f.wire for f in record.fields}
        for pattern in (_BACKTICKED, _QUOTED):
            named = [w for w in pattern.findall(field.description) if w not in others]
            states = tuple(dict.fromkeys(named))
            if states:
                return states, "the field has no enum: states read from its description"
        return None, None
    return None, None


def _record(
    t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]
) -> tuple[tuple[str, ...], ir.Model, ir.Field] | None:
    top = deref(t, schemas)
    if not isinstance(top, ir.Model):
        return None
    state = _state_field(top)
    if state is not None:
        return (), top, state
    inner = []
    for f in top.fields:
        model = deref(f.type, schemas)
        if isinstance(model, ir.Model) and (state := _state_field(model)) is not None:
            inner.append((f, model, state))
    if len(inner) > 1:
        inner = [i for i in inner if i[0].wire.lower() in _RECORD_FIELDS] or inner[:0]
    if len(inner) != 1:
        return None
    f, model, state = inner[0]
    return (f.wire,), model, state


def find_monitors(sdk: ir.Sdk, operations: list[ir.Operation]) -> list[Monitor]:
    found = []
    for op in operations:
        method = op.method.lower()
        said = f"{op.operation_id} {op.summary}".lower()
        if method != "get" and not (method == "post" and "status" in said):
            continue
        shape = _status_shape(op)
        if shape is None or op.response.kind != "json":
            continue
        base, param = shape
        record = _record(op.response.type, sdk.schemas)
        if record is None:
            continue
        path, model, state = record
        needs = inputs_needed(op, param.wire, sdk.schemas)
        if needs is None:
            continue
        states, note = _documented(state, model, sdk.schemas)
        found.append(Monitor(op, param, base, path, model, state, states, note, needs))
    return found


def has_outcome(states: tuple[str | int, ...] | None) -> bool:
    if not states:
        return False
    kinds = {c.kind for c in classify_all(states)}
    return "success" in kinds and "pending" in kinds


# -- creates -----------------------------------------------------------------


def find_model(
    t: ir.TypeRef | None, key: str, schemas: dict[str, ir.NamedSchema]
) -> tuple[str, ...] | None:
    """Where the model ``key`` sits in ``t``: the body itself or one of its properties."""
    top = deref(t, schemas)
    if not isinstance(top, ir.Model):
        return None
    if top.key == key:
        return ()
    for f in top.fields:
        inner = deref(f.type, schemas)
        if isinstance(inner, ir.Model) and inner.key == key:
            return (f.wire,)
    return None


def id_field(model: ir.Model, id_wire: str) -> ir.Field | None:
    wanted = plain_words(id_wire)
    return next(
        (f for f in model.fields if f.wire == "id"),
        next((f for f in model.fields if plain_words(f.wire) == wanted), None),
    )


def pointer(*tokens: str) -> str:
    return pointer_join("", *tokens)


def parent(path: str) -> str:
    return path.rsplit("/", 1)[0]


def path_words(path: str) -> set[str]:
    return {
        s.lower()
        for s in path.split("/")
        if s and not s.startswith("{") and not _VERSION.fullmatch(s.lower())
    }


# -- names -------------------------------------------------------------------


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def id_name(monitor: Monitor) -> str:
    """``job_id`` -> job; ``jobs/ingest/{jobId}`` -> ingest_job; ``batches/{id}`` -> batch."""
    return path_name(monitor.id_param.wire, monitor.base)


def path_name(id_wire: str, base: str) -> str:
    """The name of what ``base`` (a path ending in ``{id_wire}``) reads, as ``id_name``."""
    parts = [w.lower() for w in words(id_wire)]
    if len(parts) > 1 and parts[-1] in ("id", "uuid"):
        parts = parts[:-1]
    before = base.rsplit("/", 1)[0].rsplit("/", 1)[-1]
    segment = _singular(plain_words(before)) if before and not before.startswith("{") else ""
    # An id written in one word (``jobid``, ``taskid``): the word without its ``id``.
    glued = parts[-1][:-2] if len(parts) == 1 and parts[0].endswith("id") else ""
    if len(glued) > 2 and (glued in _GENERIC_IDS or segment.endswith(glued)):
        parts = [glued]
    name = "_".join(parts)
    if name in ("id", "uuid") or not name:
        return segment or "job"
    if segment.endswith("_" + name):  # payment_intents/{intent} -> payment_intent
        return segment
    if name in _GENERIC_IDS and segment and segment != name and segment not in _GENERIC_IDS:
        return f"{segment}_{name}"
    return name


def create_name(op: ir.Operation) -> str:
    """``startAnalysis`` -> analysis; ``FullRestoreOperation`` -> full_restore."""
    parts = [w.lower() for w in words(op.operation_id)] or [op.method.lower()]
    while len(parts) > 1 and parts[0] in _CREATE_VERBS:
        parts = parts[1:]
    while len(parts) > 1 and parts[-1] in _NAME_TAILS:
        parts = parts[:-1]
    return "_".join(parts)


def owner_of(op: ir.Operation) -> str:
    """The resource a create sits under: ``/v2/droplets/{droplet_id}/actions`` -> droplet."""
    segments = [s for s in op.path.split("/") if s]
    for i in range(len(segments) - 1, 0, -1):
        if segments[i].startswith("{") and not segments[i - 1].startswith("{"):
            return _singular(plain_words(segments[i - 1]))
    return ""
