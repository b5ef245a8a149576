"""Import Speakeasy's ``x-speakeasy-polling`` as job declarations.

Speakeasy declares polling on the operation that reads a resource: a list of named
entries, each with ``successCriteria`` (required) and ``failureCriteria``, lists of
conditions that must all hold (``$statusCode == 200``, ``$response.body#/status ==
"completed"``, ``!=``, or ``type: regex`` with a ``context``), and ``delaySeconds``,
``intervalSeconds`` and ``limitCount`` (defaults 1, 1 and 60).

Each entry becomes one job (see "Imported declarations" in ``docs/job-extension.md``):

- ``status``: the operation; the state field is the one pointer the body conditions
  test, and it must have an enum: ``success`` / ``failure`` are the enum values the
  criteria accept, ``pending`` the rest (a value named as surely canceled or failed,
  such as ``canceled``, is classified so by its name, with a warning: a wait must not
  poll a finished job until its deadline); a boolean the success criteria want true is
  the job's ``terminal_field`` instead;
- ``create``: a ``POST`` (or ``PUT``) returning the record (on the status path's
  collection first), or a ``POST`` on the collection returning the id; else none;
- ``final_from: record``: the succeeded record is the result, as Speakeasy's polling
  method returns the response that met the success criteria;
- ``poll``: ``first`` = ``delaySeconds``, ``floor`` = ``intervalSeconds`` (never two
  reads closer than the interval Speakeasy polls at; jobgen still backs off above it),
  ``cap`` = 30 s or the larger of the two; ``limitCount`` is not imported: a jobgen
  wait ends at its deadline.

A malformed entry (not a mapping, no name, no success criteria, a condition that does
not parse, a pointer the response does not have, criteria matching no documented
value) is a problem naming its file and pointer. A well-formed entry that jobgen cannot
express as a job (criteria on the status code alone or on another status than the
operation's success, conditions on two fields, a state field without an enum, a status
call that needs more than the id) is a warning, and no job.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

import attrs

from ...problems import Location, Problem
from .. import ir
from ..names import snake
from ..shapes import (
    ERROR_FIELDS,
    deref,
    field_named,
    find_model,
    id_field,
    inputs_needed,
    path_name,
)
from ..states import classify
from .common import split_pointer, type_at
from .imported import SPEAKEASY_EXTENSION, ImportedJob, raw_node

__all__ = ["EXTENSION", "read_speakeasy"]

EXTENSION = SPEAKEASY_EXTENSION
_ENTRY_KEYS = frozenset(
    {"name", "successCriteria", "failureCriteria", "delaySeconds", "intervalSeconds", "limitCount"}
)
_CONDITION = re.compile(
    r"^\s*(?:\$statusCode|\$response\.body#(?P<pointer>/\S*|))\s*(?P<op>==|!=)(?!=)\s*(?P<value>.*?)\s*$"
)
_CONTEXT = re.compile(r"^\s*(?:\$statusCode|\$response\.body#(?P<pointer>/\S*|))\s*$")
_DEFAULT_CAP = 30.0


@attrs.frozen
class _Test:
    """One criterion: on the status code (``pointer`` None) or a value in the body."""

    pointer: str | None
    op: Literal["==", "!=", "regex"]
    value: Any
    at: Location

    def holds(self, value: Any) -> bool:
        if self.op == "regex":
            return re.search(str(self.value), str(value)) is not None
        same = value == self.value or (
            isinstance(self.value, str) and not isinstance(value, str) and str(value) == self.value
        )
        return same if self.op == "==" else not same


def _value(text: str) -> Any:
    """A condition's value: JSON (``"errored"``, ``200``, ``true``), else the bare word."""
    try:
        return json.loads(text)
    except ValueError:
        return text.strip("'") if len(text) > 1 and text[0] == text[-1] == "'" else text


class _Reader:
    def __init__(
        self,
        operations: dict[str, ir.Operation],
        schemas: dict[str, ir.NamedSchema],
        problems: list[Problem],
        warnings: list[Problem],
    ) -> None:
        self.operations = operations
        self.schemas = schemas
        self.problems = problems
        self.warnings = warnings

    def problem(self, at: Location, message: str) -> None:
        self.problems.append(Problem(at, message))

    def warn(self, at: Location, message: str) -> None:
        self.warnings.append(Problem(at, f"{message}: no job imported from it"))

    # -- the extension as written

    def criteria(self, entry: dict[str, Any], key: str, at: Location) -> list[_Test] | None:
        raw = entry.get(key)
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.problem(at.child(key), "must be a list of criteria ({condition: ...})")
            return None
        tests: list[_Test] = []
        for index, item in enumerate(raw):
            item_at = at.child(key, index)
            test = self.criterion(item, item_at)
            if test is None:
                return None
            tests.append(test)
        return tests

    def criterion(self, item: Any, at: Location) -> _Test | None:
        if not isinstance(item, dict) or not isinstance(item.get("condition"), str):
            self.problem(at, "a criterion is a mapping with a 'condition' string")
            return None
        condition = item["condition"]
        kind = item.get("type", "simple")
        if kind == "regex":
            context = item.get("context")
            found = _CONTEXT.match(context) if isinstance(context, str) else None
            if found is None:
                self.problem(
                    at.child("context"),
                    "a regex criterion needs a 'context': $statusCode or $response.body#/pointer",
                )
                return None
            try:
                re.compile(condition)
            except re.error as error:
                self.problem(at.child("condition"), f"not a regular expression: {error}")
                return None
            return _Test(found.group("pointer"), "regex", condition, at)
        if kind != "simple":
            self.problem(at.child("type"), f"must be simple or regex, not {kind!r}")
            return None
        found = _CONDITION.match(condition)
        if found is None or not found.group("value"):
            self.problem(
                at.child("condition"),
                f"cannot read {condition!r}: a condition is '$statusCode == 200' or"
                " '$response.body#/pointer == value' (== or !=)",
            )
            return None
        op: Literal["==", "!="] = "==" if found.group("op") == "==" else "!="
        return _Test(found.group("pointer"), op, _value(found.group("value")), at)

    def seconds(self, entry: dict[str, Any], key: str, at: Location, default: float) -> float:
        value = entry.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 <= value < math.inf
        ):
            self.problem(at.child(key), f"must be a non-negative number of seconds, not {value!r}")
            return default
        return float(value)

    # -- one entry

    def entry(self, op: ir.Operation, raw: Any, at: Location) -> tuple[str, dict[str, Any]] | None:
        """The entry's name and the job declaration it maps to; None when there is none."""
        if not isinstance(raw, dict):
            self.problem(at, "an x-speakeasy-polling entry is a mapping with a 'name'")
            return None
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            self.problem(at.child("name"), "'name' is required: the polling method's name")
            return None
        for key in raw:
            if key not in _ENTRY_KEYS:
                self.warnings.append(
                    Problem(
                        at.child(str(key)), f"unknown key '{key}' of x-speakeasy-polling, ignored"
                    )
                )
        if not raw.get("successCriteria"):
            self.problem(
                at.child("successCriteria"), "'successCriteria' is required (a non-empty list)"
            )
            return None
        success = self.criteria(raw, "successCriteria", at)
        failure = self.criteria(raw, "failureCriteria", at)
        delay = self.seconds(raw, "delaySeconds", at, 1.0)
        interval = self.seconds(raw, "intervalSeconds", at, 1.0)
        limit = raw.get("limitCount", 60)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            self.problem(at.child("limitCount"), f"must be a positive whole number, not {limit!r}")
        if success is None or failure is None:
            return None
        classes = self.states(op, success, failure, at)
        if classes is None:
            return None
        field, success_values, failure_values, canceled_values, pending = classes
        declaration: dict[str, Any] = {
            "status": op.operation_id,
            "final_from": "record",
            "state": {
                "field": field,
                "success": success_values,
                "failure": failure_values,
                "canceled": canceled_values,
                "pending": pending,
            },
            "poll": {
                "first": delay,
                "floor": interval,
                "cap": max(_DEFAULT_CAP, delay, interval),
            },
        }
        if success_values is None:
            declaration["terminal_field"] = declaration.pop("state")["field"]
        record = deref(op.response.type, self.schemas)
        error = field_named(record, ERROR_FIELDS) if isinstance(record, ir.Model) else None
        if error is not None:
            declaration["error_field"] = "/" + error.wire.replace("~", "~0").replace("/", "~1")
        creates = self.create(op)
        if creates is not None:
            declaration["create"], declaration["id_from"] = creates
        return name, declaration

    def states(
        self, op: ir.Operation, success: list[_Test], failure: list[_Test], at: Location
    ) -> tuple[str, list[Any] | None, list[Any], list[Any], list[Any]] | None:
        """The state field and its classes, from the criteria (success None: the field
        is a boolean flag, true when the job is done)."""
        for test in (*success, *failure):
            if test.pointer is None and not (
                test.op == "==" and str(test.value) == op.response.status
            ):
                self.warn(
                    test.at,
                    f"a criterion on the HTTP status other than the success answer"
                    f" ({op.response.status}) of '{op.operation_id}'",
                )
                return None
        body_tests = [t for t in (*success, *failure) if t.pointer is not None]
        body = op.response.type if op.response.kind == "json" else None
        if body_tests and body is None:
            self.problem(at, f"'{op.operation_id}' has no JSON success response to test")
            return None
        types: dict[str, ir.TypeRef] = {}
        for test in body_tests:
            assert test.pointer is not None and body is not None
            if test.pointer in types:
                continue
            found, why = type_at(
                body, split_pointer(test.pointer), self.schemas, "the response body"
            )
            if found is None:
                self.problem(test.at.child("context" if test.op == "regex" else "condition"), why)
                return None
            types[test.pointer] = found
        if not any(t.pointer is not None for t in success):
            self.warn(at.child("successCriteria"), "the success criteria test no value of the body")
            return None
        if len(types) > 1:
            self.warn(
                at, f"the criteria test several fields ({', '.join(sorted(types))}), not one state"
            )
            return None
        field, found = next(iter(types.items()))
        first = body_tests[0]
        enum = deref(found, self.schemas)
        if isinstance(enum, ir.Primitive) and enum.kind == "bool":
            return self.flag(field, success, failure, at)
        if not isinstance(enum, ir.EnumSchema):
            self.warn(
                first.at,
                f"the state at {field} has no enum, so the states that keep a wait going"
                " cannot be listed (declare the job in a side file)",
            )
            return None
        values = [m.value for m in enum.members]

        def accepted(tests: list[_Test]) -> list[Any]:
            body_tests = [t for t in tests if t.pointer is not None]
            if not body_tests:
                return []
            return [v for v in values if all(t.holds(v) for t in body_tests)]

        won, lost = accepted(success), accepted(failure)
        if not won:
            self.problem(
                at.child("successCriteria"),
                f"the success criteria accept no value of {enum.name}"
                f" ({', '.join(map(str, values))})",
            )
            return None
        both = [v for v in won if v in lost]
        if both:
            self.problem(
                at.child("failureCriteria"),
                f"{', '.join(map(str, both))} meet both the success and the failure criteria",
            )
            return None
        canceled: list[Any] = []
        pending: list[Any] = []
        for value in values:
            if value in won or value in lost:
                continue
            guess = classify(value)
            if guess.check is None and guess.kind in ("canceled", "failure"):
                (canceled if guess.kind == "canceled" else lost).append(value)
                self.warnings.append(
                    Problem(
                        at,
                        f"state '{value}' meets neither criteria: read as {guess.kind}"
                        " from its name (a wait does not poll it until its deadline)",
                    )
                )
            else:
                pending.append(value)
        return field, won, [v for v in values if v in lost], canceled, pending

    def flag(
        self, field: str, success: list[_Test], failure: list[_Test], at: Location
    ) -> tuple[str, None, list[Any], list[Any], list[Any]] | None:
        """A boolean the success criteria want true (``$response.body#/done == true``):
        the job's ``terminal_field``, its error field telling a failure."""
        tests = [t for t in success if t.pointer is not None]
        if any(t.pointer is not None for t in failure) or not all(
            t.holds(True) and not t.holds(False) for t in tests
        ):
            self.warn(
                at,
                f"the criteria on the boolean {field} are not 'true ends the wait' alone"
                " (failure criteria on it, or success on false)",
            )
            return None
        return field, None, [], [], []

    def create(self, status: ir.Operation) -> tuple[str, str] | None:
        """The create of the status operation's record: ``(operationId, id_from)``."""
        if len(status.path_parameters) != 1:
            return None
        param = status.path_parameters[0]
        record = deref(status.response.type, self.schemas)
        if not isinstance(record, ir.Model):
            return None
        base = status.path.split("{" + param.wire + "}")[0].rstrip("/")
        by_record: list[tuple[ir.Operation, str]] = []
        by_id: list[tuple[ir.Operation, str]] = []
        for op in self.operations.values():
            method = op.method.lower()
            if op is status or method not in ("post", "put") or op.response.kind != "json":
                continue
            if "{" + param.wire + "}" in op.path:
                continue
            at = find_model(op.response.type, record.key, self.schemas)
            ident = id_field(record, param.wire)
            if at is not None and ident is not None:
                by_record.append((op, "/" + "/".join((*at, ident.wire))))
                continue
            top = deref(op.response.type, self.schemas)
            if op.path == base and method == "post" and isinstance(top, ir.Model):
                found = id_field(top, param.wire)
                if found is not None:
                    by_id.append((op, "/" + found.wire))
        on_collection = [c for c in by_record if c[0].path == base]
        chosen = (on_collection or by_record or by_id)[:1]
        if not chosen:
            return None
        op, id_from = chosen[0]
        return op.operation_id, id_from


def job_name(op: ir.Operation, entry: str, entries: int) -> str:
    """``getTranscript`` at ``/transcripts/{transcript_id}`` -> ``transcript``; with several
    entries on the operation, each is told apart by its name without ``WaitFor``:
    ``transcript_completed``."""
    params = op.path_parameters
    if len(params) == 1:
        base = op.path.split("{" + params[0].wire + "}")[0] + "{" + params[0].wire + "}"
        name = path_name(params[0].wire, base)
    else:
        name = snake(op.operation_id, "job")
        name = re.sub(r"^(get|read|retrieve|fetch|poll|describe)_", "", name)
    if entries > 1:
        tail = re.sub(r"^(wait_(for|until)_|wait_)", "", snake(entry, "entry"))
        name = f"{name}_{tail}"
    return name


def read_speakeasy(
    spec: Any,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
    warnings: list[Problem],
) -> list[ImportedJob]:
    """A job per ``x-speakeasy-polling`` entry of the spec's operations."""
    reader = _Reader(operations, schemas, problems, warnings)
    out: list[ImportedJob] = []
    for op in operations.values():
        node = raw_node(spec, op.location)
        if not isinstance(node, dict) or EXTENSION not in node or op.location is None:
            continue
        at = op.location.child(EXTENSION)
        entries = node[EXTENSION]
        if not isinstance(entries, list) or not entries:
            reader.problem(at, "must be a list of polling entries, each with a 'name'")
            continue
        for index, raw in enumerate(entries):
            entry_at = at.child(index)
            read = reader.entry(op, raw, entry_at)
            if read is None:
                continue
            name, declaration = read
            params = op.path_parameters
            needs = inputs_needed(op, params[0].wire, schemas) if len(params) == 1 else None
            if needs is None or needs:
                reader.warn(
                    entry_at,
                    f"'{op.operation_id}' needs more than the job id (one path parameter)",
                )
                continue
            out.append(
                ImportedJob(
                    name=job_name(op, name, len(entries)),
                    declaration=declaration,
                    dialect=f"imported from {EXTENSION} at",
                    location=entry_at,
                )
            )
    return out
