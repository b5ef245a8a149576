"""Azure's long-running operations, read as job declarations.

AutoRest specs mark an operation that starts something long with
``x-ms-long-running-operation: true`` and say where its final result is with
``x-ms-long-running-operation-options: {final-state-via: ...}``. The rest is fixed by
the Azure REST API guidelines and by azure-core's LRO poller, which this reader
follows:

- the create answer names a status monitor: the first present of ``Operation-Location``,
  ``Azure-AsyncOperation`` and ``Location`` (the job is polled at that URL);
- the monitor's record has ``status``: ``Succeeded``, ``Failed`` and ``Canceled`` end
  the job, compared without regard to case; every other documented value
  (``NotStarted``, ``Running``, ``InProgress``, the status schema's own enum) is
  pending; the error is under ``error``; ``Retry-After`` on any answer schedules the
  next read;
- a monitor known only from a ``Location`` header answers ``202`` while running and
  ``200``/``201``/``204`` once done, unless the spec reads what the header names: a
  ``GET`` of an item of the collection the create is at (``POST /custom/models`` and
  ``POST /custom/models/compose``, ``GET /custom/models/{modelId}``) whose record has a
  ``status`` enum, itself or in a member (``modelInfo.status``), that names a success, a
  failure and a pending state. That ``status`` then says how the job is going, as the
  service's own client reads it (Form Recognizer 2.1's training: ``creating``, ``ready``,
  ``invalid``), and the record, whose ``error`` or member's ``errors`` says why it
  failed, is the result;
- the result: a ``PUT`` or ``PATCH`` ends with a ``GET`` of the create request's own
  URL (``final_from: original-uri``, typed by the ``GET`` of the same path); a ``POST``
  takes the terminal status record (typed by ``final-state-schema`` when given); a
  ``DELETE`` has none.

The record is typed by the spec's ``GET`` operation that reads the monitor (matched by
its path and by a response schema with a ``status``), else by ``final-state-schema``,
else by the create's own ``202`` body when it has a ``status``, else by an operation
status model added to the SDK's schemas (``id``, ``status``, ``error``,
``percentComplete``). Each import is the mapping a side file would hold for the job,
checked by the same reader; one that cannot be made sound is left out with a warning
saying why and how to declare it in a side file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from ...problems import Location, Problem, pointer_join
from .. import ir
from ..names import snake, words
from .common import cancel_suffix
from .imported import Imported, left_out

__all__ = ["AZURE_ORIGIN", "MONITOR_HEADERS", "STATUS_MODEL", "Imported", "read_azure", "skipped"]

#: How `jobgen validate` introduces a job read from ``x-ms-long-running-operation``.
AZURE_ORIGIN = "imported from x-ms-long-running-operation at"
#: The monitor headers in the order azure-core reads them (the first present wins).
MONITOR_HEADERS = ("Operation-Location", "Azure-AsyncOperation", "Location")
_SUCCESS = "succeeded"
_FAILURE = "failed"
_CANCELED = "canceled"
#: The terminal states by outcome, compared lower-cased: azure-core's (`succeeded`,
#: `failed`, `canceled`), and those Microsoft's own SDKs end on for services that
#: spell them otherwise (Document Translation's `Cancelled` and `ValidationFailed`, the
#: Language services' `partiallySucceeded` / `partiallyCompleted`, a success with
#: errors in some of its items).
_OUTCOMES = {
    _SUCCESS: "success",
    "success": "success",  # Key Vault's security domain
    "ready": "success",  # App Configuration's snapshots
    "partiallysucceeded": "success",
    "partiallycompleted": "success",
    _FAILURE: "failure",
    "validationfailed": "failure",
    "invalid": "failure",  # Form Recognizer 2.1's custom models
    _CANCELED: "canceled",
    "cancelled": "canceled",
}
#: The documented states of a status field with no enum.
_PLAIN_STATES = ("NotStarted", "Running", "InProgress", "Succeeded", "Failed", "Canceled")
_FINAL_KINDS = ("azure-async-operation", "location", "original-uri", "operation-location")
_MONITOR_WORDS = frozenset({"opera", "statu", "pendi", "job"})
_VERBS = ("post", "put", "patch", "delete")
STATUS_MODEL: dict[str, Any] = {
    "type": "object",
    "description": "The status of a long-running operation, as its monitor reports it.",
    "required": ["status"],
    "properties": {
        "id": {"type": "string"},
        "status": {"type": "string"},
        "percentComplete": {"type": "number"},
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        },
    },
}


@attrs.frozen
class _Lro:
    op: ir.Operation
    raw: dict[str, Any]
    at: Location
    path: str
    method: str
    final: str | None
    final_schema: str | None
    headers: frozenset[str]


def _lros(root: dict[str, Any], name: str, by_id: dict[str, ir.Operation]) -> list[_Lro]:
    found = []
    paths = root.get("paths")
    for path, item in (paths if isinstance(paths, dict) else {}).items():
        if not isinstance(item, dict):
            continue
        for method in _VERBS:
            raw = item.get(method)
            if not isinstance(raw, dict) or raw.get("x-ms-long-running-operation") is not True:
                continue
            op = by_id.get(str(raw.get("operationId")))
            if op is None:
                continue
            options = raw.get("x-ms-long-running-operation-options")
            options = options if isinstance(options, dict) else {}
            final = options.get("final-state-via")
            schema = options.get("final-state-schema")
            headers: set[str] = set()
            for code, response in (raw.get("responses") or {}).items():
                if str(code).startswith("2") and isinstance(response, dict):
                    headers |= {str(h).lower() for h in response.get("headers") or {}}
            found.append(
                _Lro(
                    op,
                    raw,
                    Location(name, pointer_join("/paths", str(path), method)),
                    op.path,
                    method,
                    final if isinstance(final, str) else None,
                    schema if isinstance(schema, str) else None,
                    frozenset(headers),
                )
            )
    return found


def job_names(operation_ids: Iterable[str]) -> dict[str, str]:
    """A person's name for each operation's job: ``Group_Operation`` -> ``operation``
    (``DocumentModels_AnalyzeDocument`` -> ``analyze_document``); where two would share
    one, the full snake name of each."""
    ids = list(operation_ids)
    short = {i: snake(i.split("_", 1)[1] if "_" in i.strip("_") else i, "job") for i in ids}
    counts: dict[str, int] = {}
    for name in short.values():
        counts[name] = counts.get(name, 0) + 1
    out: dict[str, str] = {}
    taken: set[str] = set()
    for i in ids:
        name = short[i] if counts[short[i]] == 1 else snake(i, "job")
        base, n = name, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        out[i] = name
    return out


def _segments(path: str) -> list[str]:
    path = path.split("?", 1)[0]
    return [re.sub(r"\{[^}]*\}", "{}", s) for s in path.strip("/").split("/") if s]


def _stem(word: str) -> str:
    """A word as paths and operationIds are compared (``deletion`` and ``delete``)."""
    return word.lower().rstrip("s")[:5]


def _path_words(segments: Iterable[str]) -> set[str]:
    return {
        _stem(word)
        for segment in segments
        if segment != "{}"
        for word in words(segment.replace("{}", " "))
    }


class _Reader:
    def __init__(
        self,
        root: dict[str, Any],
        name: str,
        operations: dict[str, ir.Operation],
        schemas: dict[str, ir.NamedSchema],
        warnings: list[Problem],
        status_model: Any,
    ) -> None:
        self.root, self.name = root, name
        self.operations, self.schemas, self.warnings = operations, schemas, warnings
        self.status_model = status_model
        self.extra: dict[str, ir.Operation] = {}
        self.gets = [op for op in operations.values() if op.method.lower() == "get"]

    # -- types ----------------------------------------------------------------------

    def deref(self, t: ir.TypeRef | None) -> ir.TypeRef | ir.NamedSchema | None:
        for _ in range(32):
            if isinstance(t, ir.Nullable):
                t = t.inner
            elif isinstance(t, ir.Ref):
                named = self.schemas.get(t.key)
                if isinstance(named, ir.AliasSchema):
                    t = named.target
                else:
                    return named
            else:
                return t
        return None

    def status_of(self, t: ir.TypeRef | None) -> ir.Model | None:
        """The model ``t`` names when it has a usable ``status`` field: a string, or an
        enum holding a success state."""
        model = self.deref(t)
        if not isinstance(model, ir.Model):
            return None
        field = next((f for f in model.fields if f.wire == "status"), None)
        if field is None:
            return None
        kind = self.deref(field.type)
        if isinstance(kind, ir.EnumSchema):
            values = {str(m.value).lower() for m in kind.members}
            return model if _SUCCESS in values else None
        return model if isinstance(kind, ir.Primitive) and kind.kind == "str" else None

    def states(self, model: ir.Model) -> dict[str, list[str]]:
        field = next(f for f in model.fields if f.wire == "status")
        kind = self.deref(field.type)
        values = (
            [str(m.value) for m in kind.members]
            if isinstance(kind, ir.EnumSchema)
            else list(_PLAIN_STATES)
        )
        groups: dict[str, list[str]] = {"success": [], "failure": [], "canceled": []}
        pending = []
        for value in values:
            key = _OUTCOMES.get(value.lower())
            if key is None:
                pending.append(value)
            else:
                groups[key].append(value)
        return {**{k: v for k, v in groups.items() if v}, "pending": pending}

    def answered_states(self, lro: _Lro) -> dict[str, list[str]] | None:
        """The states of the create answer's own ``status`` enum, when it has one that
        names a success and a pending state; else None."""
        answer = self.deref(lro.op.response.type) if lro.op.response.type else None
        if not isinstance(answer, ir.Model):
            return None
        field = next((f for f in answer.fields if f.wire == "status"), None)
        if field is None or not isinstance(self.deref(field.type), ir.EnumSchema):
            return None
        states = self.states(answer)
        return states if states.get("success") and states.get("pending") else None

    def schema_key(self, ref: str | None) -> str | None:
        """The schema key of a ``final-state-schema`` (``#/definitions/X``)."""
        if not ref:
            return None
        tail = ref.split("#", 1)[-1].rsplit("/", 1)[-1]
        for key in self.schemas:
            if key.endswith("/components/schemas/" + tail):
                return key
        return None

    # -- the monitor ----------------------------------------------------------------

    def score(self, lro: _Lro, get: ir.Operation, preferred: set[str]) -> int:
        create = _segments(lro.path.split(":", 1)[0])
        create_full = _segments(lro.path)
        candidate = _segments(get.path)
        common = 0
        for a, b in zip(create, candidate):
            if a != b:
                break
            common += 1
        rest = _path_words(candidate[common:])
        action = {_stem(w) for w in words(lro.op.operation_id.split("_")[-1])}
        action |= _path_words([lro.path.rsplit(":", 1)[1]] if ":" in lro.path else [])
        score = common + 2 * len(rest & (action - _MONITOR_WORDS))
        if rest & _MONITOR_WORDS:
            score += 2
        extra = candidate[len(create_full) :]
        # The monitor under the created resource (``.../deployments/{d}/jobs/{id}``).
        under = candidate[: len(create_full)] == create_full and bool(extra)
        if under and all(s == "{}" or _path_words([s]) <= _MONITOR_WORDS for s in extra):
            score += 3
        if isinstance(get.response.type, ir.Ref) and get.response.type.key in preferred:
            score += 4
        if get.path.split("?", 1)[0] == lro.path.split("?", 1)[0]:
            score += 3
        return score

    def monitor(self, lro: _Lro) -> tuple[ir.Operation | None, ir.Model | None, str]:
        """The status operation of ``lro``, its record model, and how it was found."""
        preferred: set[str] = set()
        final_key = self.schema_key(lro.final_schema)
        if final_key:
            preferred.add(final_key)
        own = lro.op.response.type if lro.op.response.kind == "json" else None
        if isinstance(own, ir.Ref) and self.status_of(own) is not None:
            preferred.add(own.key)
        candidates = [
            (self.score(lro, get, preferred), -len(get.path), get.operation_id, get)
            for get in self.gets
            if get.response.kind == "json" and self.status_of(get.response.type) is not None
        ]
        if candidates:
            best = max(candidates, key=lambda c: c[:3])
            if best[0] > 0:
                model = self.status_of(best[3].response.type)
                return best[3], model, f"'{best[3].operation_id}' reads its monitor"
        for key, why in ((final_key, "final-state-schema"), (own, "its own answer")):
            ref = ir.Ref(key) if isinstance(key, str) else key
            model = self.status_of(ref) if ref is not None else None
            if model is not None and isinstance(ref, ir.Ref):
                return self.synthetic(lro, ref), model, f"the record is typed by {why}"
        return None, None, ""

    def synthetic(self, lro: _Lro, record: ir.TypeRef) -> ir.Operation:
        """A status operation the spec lacks: a GET of the monitor, typed by ``record``."""
        base = lro.path.split("?", 1)[0].split(":", 1)[0].rstrip("/")
        op_id = f"{lro.op.operation_id}.status"
        taken = {(o.method.lower(), o.path) for o in self.operations.values()}
        path = f"{base}/operations/{{operationId}}"
        while ("get", path) in taken:
            path = path.replace("/operations/", "/operations/status/", 1)
        op = ir.Operation(
            operation_id=op_id,
            name=snake(op_id),
            method="GET",
            path=path,
            summary="",
            description="",
            parameters=(
                ir.Parameter(
                    name="operation_id",
                    wire="operationId",
                    location="path",
                    type=ir.Primitive("str"),
                    required=True,
                ),
            ),
            body=None,
            response=ir.Response("200", "json", "application/json", record),
            security=lro.op.security,
            location=lro.op.location,
            server=lro.op.server,
            synthetic=True,
        )
        self.extra[op_id] = op
        return op

    # -- one job --------------------------------------------------------------------

    def declare(self, lro: _Lro) -> dict[str, Any] | str:
        """The declaration of ``lro``'s job, or why there is none."""
        if lro.final is not None and lro.final not in _FINAL_KINDS:
            return f"final-state-via {lro.final!r} is none of {', '.join(_FINAL_KINDS)}"
        named = {"operation-location", "azure-asyncoperation"} & lro.headers
        location_only = "location" in lro.headers and not named
        if location_only:
            read = self.location_record(lro)
            if read is not None:
                return self.declare_read(lro, *read)
        status, model, _ = (None, None, "") if location_only else self.monitor(lro)
        by_status_code = False
        if status is None:
            if named or lro.final in ("azure-async-operation", "operation-location"):
                model_ref = self.status_model()
                status = self.synthetic(lro, model_ref)
                model = self.status_of(model_ref)
            else:  # a Location monitor: the HTTP status says how the job is going
                model_ref = self.status_model()
                status = self.synthetic(lro, model_ref)
                model = self.status_of(model_ref)
                by_status_code = True
        assert model is not None
        node: dict[str, Any] = {
            "create": lro.op.operation_id,
            "status": status.operation_id,
            "operation_url": list(MONITOR_HEADERS),
            "record": "",
        }
        node["state"] = {"field": "/status", **self.states(model), "ignore_case": True}
        # A monitor the spec does not type (a synthetic one) takes its states from the
        # create answer's own status enum where it has one (Key Vault's security domain:
        # Success, InProgress, Failed), so what is waited for is what the answers say.
        answered = self.answered_states(lro) if status.synthetic else None
        if answered is not None:
            node["state"] = {"field": "/status", **answered, "ignore_case": True}
        if by_status_code:
            states = answered or {
                "success": ["Succeeded"],
                "failure": ["Failed"],
                "canceled": ["Canceled"],
                "pending": ["NotStarted", "Running", "InProgress"],
            }
            node["state"] = {"field": "/status", **states, "ignore_case": True}
            running = next(
                (s for s in states["pending"] if s.lower() in ("running", "inprogress")),
                states["pending"][0],
            )
            node["status_rules"] = [
                {"status": 202, "state": running},
                {"status": [200, 201, 204], "state": states["success"][0]},
            ]
        if "success" not in node["state"]:
            return f"the status field of {model.name} has no Succeeded state"
        cancel = None if by_status_code else self.cancel_of(status)
        if cancel is not None:
            node["cancel"] = cancel.operation_id
        if any(f.wire == "error" for f in model.fields):
            node["error_field"] = "/error"
        member = self.result_member(model)
        percent = next((f for f in model.fields if f.wire == "percentComplete"), None)
        if percent is not None:
            kind = self.deref(percent.type)
            if isinstance(kind, ir.Primitive) and kind.kind in ("int", "float"):
                node["progress"] = {"field": "/percentComplete"}
        method = lro.method
        if method == "delete":
            # Nothing is left to fetch: the terminal record is the answer, and a
            # failure raises (azure-core's OperationFailed).
            node["final_from"] = "record"
        elif method in ("put", "patch") and lro.final not in ("location",):
            final_get = self.resource_get(lro.path)
            if final_get is not None:
                node["result"] = final_get.operation_id
                node["final_from"] = "original-uri"
            else:
                node["final_from"] = "record"
        elif method == "post" and lro.final == "location":
            created = self.created_get(lro.path)
            if created is not None:  # the create answer's Location names the resource
                node["result"] = created.operation_id
                node["final_from"] = "create-location"
            else:
                node["final_from"] = "record"
        else:
            node["final_from"] = "record"
        if node["final_from"] == "record" and member is not None and method != "delete":
            node["result_field"] = f"/{member}"
        return node

    def status_path(self, model: ir.Model) -> tuple[str, ...] | None:
        """Where ``model`` holds a ``status`` enum: its own field, else one of a member
        model (``modelInfo.status``)."""
        for field in model.fields:
            if field.wire == "status":
                found = isinstance(self.deref(field.type), ir.EnumSchema)
                return ("status",) if found else None
        for field in model.fields:
            member = self.deref(field.type)
            if isinstance(member, ir.Model):
                inner = next((f for f in member.fields if f.wire == "status"), None)
                if inner is not None and isinstance(self.deref(inner.type), ir.EnumSchema):
                    return (field.wire, "status")
        return None

    def enum_states(self, model: ir.Model, path: tuple[str, ...]) -> dict[str, list[str]]:
        """The states of the enum at ``path`` in ``model``, classified as `states` does."""
        for key in path[:-1]:
            field = next(f for f in model.fields if f.wire == key)
            member = self.deref(field.type)
            assert isinstance(member, ir.Model)
            model = member
        return self.states(model)

    def location_record(
        self, lro: _Lro
    ) -> tuple[ir.Operation, tuple[str, ...], dict[str, list[str]]] | None:
        """What a ``Location`` monitor names, where the spec reads it: the ``GET`` of an
        item of the collection the create is at (``POST .../models`` or ``POST
        .../models/compose`` and ``GET .../models/{id}``), its record's status path
        and states; None when there is no such GET, or its status enum does not name a
        success, a failure and a pending state (the HTTP status then tells)."""
        base = _segments(lro.path.split(":", 1)[0])
        found = []
        for op in self.gets:
            item = _segments(op.path)
            if op.response.kind != "json" or item[-1:] != ["{}"]:
                continue
            if item[:-1] == base:
                rank = 0  # an item of the create's own collection
            elif base and base[-1] != "{}" and item[:-1] == base[:-1]:
                rank = 1  # an item of the collection the create is an action of
            else:
                continue
            model = self.deref(op.response.type)
            path = self.status_path(model) if isinstance(model, ir.Model) else None
            if path is None or not isinstance(model, ir.Model):
                continue
            states = self.enum_states(model, path)
            if all(states.get(k) for k in ("success", "failure", "pending")):
                found.append((rank, op.operation_id, op, path, states))
        if not found:
            return None
        _, _, op, path, states = min(found, key=lambda f: f[:2])
        return op, path, states

    def error_path(self, model: ir.Model) -> tuple[str, ...] | None:
        """Where ``model`` says why a job failed: its ``error``, else the ``error`` or
        ``errors`` of a member model (Form Recognizer's ``trainResult.errors``)."""
        if any(f.wire == "error" for f in model.fields):
            return ("error",)
        for field in model.fields:
            member = self.deref(field.type)
            if isinstance(member, ir.Model):
                inner = next((f for f in member.fields if f.wire in ("error", "errors")), None)
                if inner is not None:
                    return (field.wire, inner.wire)
        return None

    def declare_read(
        self,
        lro: _Lro,
        status: ir.Operation,
        path: tuple[str, ...],
        states: dict[str, list[str]],
    ) -> dict[str, Any]:
        """The declaration of a job whose ``Location`` names a record the spec reads
        (`location_record`): its status enum says how the job is going, and the
        terminal record is the result."""
        pointer = pointer_join("", *path)
        node: dict[str, Any] = {
            "create": lro.op.operation_id,
            "status": status.operation_id,
            # The Location alone: where the service names another monitor, or none,
            # the spec's reading of this one does not hold.
            "operation_url": ["Location"],
            "record": "",
            "state": {"field": pointer, **states, "ignore_case": True},
            "final_from": "record",
        }
        model = self.deref(status.response.type)
        assert isinstance(model, ir.Model)
        error = self.error_path(model)
        if error is not None:
            node["error_field"] = pointer_join("", *error)
        return node

    def result_member(self, model: ir.Model) -> str | None:
        """The member of a status monitor that holds the operation's result, as Azure's
        SDKs return it: `result`, or one named for it (`analyzeResult`), an object."""
        for field in model.fields:
            named = field.wire == "result" or re.fullmatch(r"[a-z]+Result", field.wire)
            if named and isinstance(self.deref(field.type), ir.Model):
                return field.wire
        return None

    def cancel_of(self, status: ir.Operation) -> ir.Operation | None:
        """The operation that cancels what `status` reads: a `DELETE` of its very path
        (Document Translation's `DELETE /document/batches/{id}`), or a `POST` of it with
        `:cancel` or `/cancel` added (the Guidelines' "Cancel" action); None if none."""
        for op in self.operations.values():
            if (
                op.method.lower() not in ("delete", "post")
                or op.operation_id == status.operation_id
            ):
                continue
            if cancel_suffix(status, op) is not None:
                return op
        return None

    def created_get(self, path: str) -> ir.Operation | None:
        """The GET of an item a POST at ``path`` creates (``GET .../conversions/{id}``
        for ``POST .../conversions``), typing what the create's ``Location`` names."""
        base = _segments(path.split(":", 1)[0])
        for op in self.gets:
            found = _segments(op.path)
            if found[:-1] == base and found[-1] == "{}" and op.response.kind == "json":
                return op
        return None

    def resource_get(self, path: str) -> ir.Operation | None:
        """The GET of the resource a PUT or PATCH at ``path`` writes."""
        bare = path.split("?", 1)[0]
        for op in self.gets:
            if op.path.split("?", 1)[0] == bare and op.response.kind == "json":
                return op
        return None


def read_azure(
    root: dict[str, Any],
    name: str,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    warnings: list[Problem],
    status_model: Any,
) -> Imported:
    """The jobs of the spec's ``x-ms-long-running-operation`` operations.

    ``status_model()`` returns the type of the operation status model added to the
    SDK's schemas (built only when a monitor needs it). An operation whose job cannot
    be declared soundly is left out with a warning in ``warnings``.
    """
    lros = _lros(root, name, operations)
    reader = _Reader(root, name, operations, schemas, warnings, status_model)
    names = job_names(lro.op.operation_id for lro in lros)
    jobs: dict[str, dict[str, Any]] = {}
    origins: dict[str, Location] = {}
    for lro in lros:
        declared = reader.declare(lro)
        if isinstance(declared, str):
            warnings.append(skipped(lro.at, declared))
            continue
        job = names[lro.op.operation_id]
        jobs[job] = declared
        origins[job] = lro.at
    return Imported(
        jobs,
        origins,
        dict(reader.extra),
        dialects={job: AZURE_ORIGIN for job in jobs},
        left_out_at={job: at.child("x-ms-long-running-operation") for job, at in origins.items()},
    )


def skipped(at: Location, why: str) -> Problem:
    """The warning of an operation left out of the jobs."""
    return left_out(at.child("x-ms-long-running-operation"), why)
