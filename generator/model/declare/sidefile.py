"""Read the ``x-jobgen`` job extension and check it against the operations and schemas.

See ``docs/job-extension.md`` for the format. Every inconsistency becomes a problem
naming the file and the JSON pointer of the offending value.
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs

from ...problems import Location, Nearest, Problem, closest, pointer_join, printable
from .. import ir
from ..operations import media_kind
from .carry import read_carry, read_constants, unsupplied
from .common import cancel_suffix, deref_type, split_pointer, type_at, unknown_keys
from .imported import Imported, left_out
from .opurl import POLLING_KEYS, check_rule_states, read_polling, rule_states
from .webhooks import WebhookOperations, read_webhooks

__all__ = ["build_jobs"]

_KNOWN_KEYS = frozenset(
    {
        "create",
        "status",
        "result",
        "cancel",
        "id_parameter",
        "id_from",
        "record",
        "state",
        "terminal_field",
        "result_ready_field",
        "result_field",
        "error_field",
        "poll",
        "idempotency_header",
        "progress",
        "stall_after",
        "webhooks",
        "description",
        "carry",
        "constants",
        "result_once",
        "result_media_type",
        "id_last_segment",
    }
    | POLLING_KEYS
)
_PROGRESS_KEYS = frozenset({"field", "done", "total"})
_STATE_KEYS = frozenset({"field", "success", "failure", "canceled", "pending", "ignore_case"})
_POLL_KEYS = frozenset({"body_hint", "headers", "floor", "first", "cap"})
_BODY_HINT_KEYS = frozenset({"field", "unit"})
_HEADER_KEYS = frozenset({"name", "format"})
_EXTENSION_KEYS = frozenset({"jobs", "jobgen", "spec", "auth_prefix", "bearer"})
_HEADER_FORMATS = ("retry-after", "seconds", "milliseconds")
_MEDIA_TYPE = re.compile(r"[A-Za-z0-9][\w.+-]*/[A-Za-z0-9][\w.+-]*\Z")


class _JobReader:
    def __init__(
        self,
        operations: dict[str, ir.Operation],
        schemas: dict[str, ir.NamedSchema],
        problems: list[Problem],
        webhooks: WebhookOperations | None = None,
    ) -> None:
        self.operations = operations
        self.schemas = schemas
        self.problems = problems
        self.webhooks = webhooks
        self._near: Nearest | None = None  # the operationIds, indexed at the first typo

    def problem(self, at: Location, message: str) -> None:
        self.problems.append(Problem(at, message))

    def operation(
        self, node: dict[str, Any], key: str, at: Location, required: bool
    ) -> ir.Operation | None:
        value = node.get(key)
        if value is None:
            if required:
                self.problem(at, f"'{key}' is required: the operationId that reads the job")
            return None
        if not isinstance(value, str):
            self.problem(at.child(key), "must be an operationId (a string)")
            return None
        op = self.operations.get(value)
        if op is None:
            if self._near is None:
                self._near = Nearest(self.operations)
            meant = self._near.closest(value)
            hint = f" (did you mean '{printable(meant)}'?)" if meant is not None else ""
            self.problem(at.child(key), f"unknown operationId '{value}'{hint}")
            # Read on with the operation most likely meant: the rest of the declaration's
            # problems are found in this run too (the SDK is not generated either way).
            return self.operations[meant] if meant is not None else None
        return op

    def pointer(self, node: dict[str, Any], key: str, at: Location) -> tuple[str, ...] | None:
        value = node.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or (value and not value.startswith("/")):
            self.problem(at.child(key), f"must be a JSON pointer such as '/status', not {value!r}")
            return None
        return split_pointer(value)

    def resolve(
        self,
        root: ir.TypeRef,
        path: tuple[str, ...] | None,
        at: Location,
        root_name: str = "the record",
    ) -> ir.TypeRef | None:
        """The type at ``path`` from ``root``; a problem at ``at`` (which names the key,
        so the message does not) when there is none."""
        if path is None:
            return None
        found, why = type_at(root, path, self.schemas, root_name)
        if found is None:
            self.problem(at, why)
        return found

    def number(self, node: dict[str, Any], key: str, at: Location, default: float) -> float:
        value = node.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            self.problem(at.child(key), f"must be a non-negative number of seconds, not {value!r}")
            return default
        return float(value)

    def states(self, node: dict[str, Any], key: str, at: Location) -> tuple[str, ...]:
        value = node.get(key, [])
        if not isinstance(value, list) or not all(
            isinstance(v, (str, int)) and not isinstance(v, bool) for v in value
        ):
            self.problem(at.child(key), "must be a list of state values")
            return ()
        return tuple(str(v) for v in value)

    def job(self, name: str, node: Any, at: Location, origin: str | None = None) -> ir.Job | None:
        if not isinstance(node, dict):
            self.problem(at, "a job declaration must be a mapping")
            return None
        unknown_keys(node, _KNOWN_KEYS, at, self.problems)
        status = self.operation(node, "status", at, required=True)
        create = self.operation(node, "create", at, required=False)
        result = self.operation(node, "result", at, required=False)
        cancel = self.operation(node, "cancel", at, required=False)
        if status is None:
            return None

        result = self._result_media_type(node, at, result)
        polling = read_polling(node, at, self.problems, has_result=result is not None)
        # A result operation given values of the terminal record (OpenAI's output file)
        # need not take the job id; any other is called with it.
        record_fed = _record_fed(node.get("carry"))
        by_id = polling.final_from == "result" and not record_fed
        # A job polled at its operation URL needs the id parameter only where a call
        # takes the id: a result fetched by id, or a cancel.
        cancel_at_url = cancel_suffix(status, cancel) if polling.operation_url else None
        if polling.operation_url and cancel is not None and cancel_at_url is None:
            self.problem(
                at.child("cancel"),
                f"'{cancel.operation_id}' is on neither the path of '{status.operation_id}'"
                " nor below it (':cancel', '/cancel'): a job polled at its operation URL is"
                " canceled there, as it has no job id to call another operation with",
            )
        by_url_only = (
            bool(polling.operation_url)
            and (cancel is None or cancel_at_url is not None)
            and not (by_id and result is not None)
        )
        id_parameter = self._id_parameter(node, at, status, result if by_id else None, by_url_only)
        record_path = self.pointer(node, "record", at) or ()
        body_type = status.response.type if status.response.kind == "json" else None
        if body_type is None:
            self.problem(
                at.child("status"),
                f"operation '{status.operation_id}' has no JSON success response to read the job from",
            )
            return None
        record_type = self.resolve(body_type, record_path, at.child("record"), "the status answer")
        if record_type is None:
            return None

        id_path, id_header = self._id_source(node, at, create, "operation_url" in node)
        last_segment = node.get("id_last_segment", False)
        if not isinstance(last_segment, bool):
            self.problem(
                at.child("id_last_segment"), f"must be true or false, not {last_segment!r}"
            )
            last_segment = False
        if last_segment and id_path is None:
            self.problem(
                at.child("id_last_segment"),
                "'id_last_segment' needs 'id_from' naming a value of the create answer",
            )
            last_segment = False
        state_path, classes = self._state(node, at, record_type, rule_states(node))
        check_rule_states(polling, frozenset(s for c in classes for s in c), at, self.problems)
        terminal_path = self.pointer(node, "terminal_field", at)
        self._expect(
            record_type, terminal_path, at.child("terminal_field"), "terminal_field", "bool"
        )
        if state_path is None and terminal_path is None:
            self.problem(
                at, "declare 'state' or 'terminal_field': the waiter needs one to know when to stop"
            )
        ready_path = self.pointer(node, "result_ready_field", at)
        self._expect(
            record_type, ready_path, at.child("result_ready_field"), "result_ready_field", "bool"
        )
        error_path = self.pointer(node, "error_field", at)
        error_type = self.resolve(record_type, error_path, at.child("error_field"))
        result_path = self.pointer(node, "result_field", at)
        result_type = self.resolve(record_type, result_path, at.child("result_field"))
        if result_path is not None and polling.final_from != "record":
            self.problem(
                at.child("result_field"),
                "the result is a member of the terminal record only with final_from: record"
                f" (this job's is {polling.final_from})",
            )
        hint_path, hint_unit, headers, floor, first, cap = self._poll(
            node.get("poll"), at.child("poll"), record_type
        )
        idem = node.get("idempotency_header")
        if idem is not None and not isinstance(idem, str):
            self.problem(at.child("idempotency_header"), "must be a header name")
            idem = None
        success, failure, canceled, pending = classes
        calls = [(k, op) for k, op in (("status", status), ("result", result), ("cancel", cancel))]
        carry = read_carry(
            node.get("carry"),
            at.child("carry"),
            create=create,
            calls=[(k, op) for k, op in calls if op is not None],
            id_parameter=id_parameter,
            schemas=self.schemas,
            problems=self.problems,
            record=record_type,
            final_from=polling.final_from,
        )
        constants = read_constants(
            node.get("constants"),
            at.child("constants"),
            calls=[(k, op) for k, op in calls if op is not None],
            id_parameter=id_parameter,
            schemas=self.schemas,
            problems=self.problems,
        )
        sent = tuple(c for c in carry if not c.record)  # what status and cancel receive
        if cancel_at_url is None:  # at the operation URL, the URL carries the id
            self._cancel(cancel, at, id_parameter, sent, constants)
        if not polling.operation_url:  # the operation URL carries what the status needs
            self._only_the_id(status, "status", at, id_parameter, sent, constants)
        # (A record value refused above is not reported again as missing here.)
        if polling.final_from == "result" and (any(c.record for c in carry) or not record_fed):
            self._only_the_id(result, "result", at, id_parameter, carry, constants)
        result_once = node.get("result_once", False)
        if not isinstance(result_once, bool):
            self.problem(at.child("result_once"), f"must be true or false, not {result_once!r}")
            result_once = False
        if result_once and result is None:
            self.problem(at.child("result_once"), "'result_once' needs a 'result' operation")
        progress = self._progress(node.get("progress"), at.child("progress"), record_type)
        stall_after = node.get("stall_after")
        if stall_after is not None and (
            isinstance(stall_after, bool)
            or not isinstance(stall_after, (int, float))
            or not 0 < stall_after < math.inf
        ):
            self.problem(
                at.child("stall_after"),
                f"must be a positive number of seconds, not {stall_after!r}",
            )
            stall_after = None
        webhooks = read_webhooks(
            self,
            node.get("webhooks"),
            at.child("webhooks"),
            job_name=name,
            record_path=record_path,
            record_type=record_type,
            id_path=id_path,
            create=create,
            create_declared=node.get("create") is not None,
            operations=self.webhooks,
        )
        return ir.Job(
            name=name,
            status=status,
            create=create,
            result=result,
            id_parameter=id_parameter,
            id_path=id_path,
            id_header=id_header,
            record_path=record_path,
            record_type=record_type,
            state_path=state_path,
            success=success,
            failure=failure,
            canceled=canceled,
            pending=pending,
            terminal_path=terminal_path,
            ready_path=ready_path,
            error_path=error_path,
            hint_path=hint_path,
            hint_unit=hint_unit,
            header_hints=headers,
            floor=floor,
            first=first,
            cap=cap,
            idempotency_header=idem,
            location=at,
            cancel=cancel,
            cancel_at_url=cancel_at_url,
            progress_path=progress[0],
            progress_done_path=progress[1],
            progress_total_path=progress[2],
            stall_after=None if stall_after is None else float(stall_after),
            carry=carry,
            constants=constants,
            result_once=result_once,
            error_type=error_type,
            webhooks=webhooks,
            operation_url=polling.operation_url,
            status_rules=polling.rules,
            final_from=polling.final_from,
            result_path=result_path,
            result_type=result_type,
            id_last_segment=last_segment,
            ignore_case=self._ignore_case(node, at),
            origin=origin,
        )

    def _result_media_type(
        self, node: dict[str, Any], at: Location, result: ir.Operation | None
    ) -> ir.Operation | None:
        """``result_media_type``: what the result operation really answers, where its
        spec is wrong (OpenAI's ``downloadFile`` says JSON and sends a ``.jsonl`` file).
        The operation is read as answering that media type, everywhere it is called."""
        value = node.get("result_media_type")
        if value is None or result is None:
            if value is not None:
                self.problem(
                    at.child("result_media_type"), "'result_media_type' needs a 'result' operation"
                )
            return result
        if not isinstance(value, str) or not _MEDIA_TYPE.match(value):
            self.problem(
                at.child("result_media_type"),
                f"must be a media type such as 'application/jsonl' or 'text/plain', not {value!r}",
            )
            return result
        kind = media_kind(value)
        if kind == "json":
            rtype = result.response.type if result.response.kind == "json" else ir.AnyType()
            response = attrs.evolve(result.response, kind="json", media_type=value, type=rtype)
        elif kind == "text":
            response = attrs.evolve(
                result.response, kind="text", media_type=value, type=ir.Primitive("str")
            )
        elif kind in (None, "binary"):
            response = attrs.evolve(
                result.response, kind="binary", media_type=value, type=ir.Primitive("bytes")
            )
        else:
            self.problem(
                at.child("result_media_type"),
                f"'{value}' is a request body's media type, not a result's",
            )
            return result
        return attrs.evolve(result, response=response)

    def _ignore_case(self, node: dict[str, Any], at: Location) -> bool:
        """``state.ignore_case``: states compared without regard to case."""
        raw = node.get("state")
        value = raw.get("ignore_case", False) if isinstance(raw, dict) else False
        if not isinstance(value, bool):
            self.problem(at.child("state", "ignore_case"), f"must be true or false, not {value!r}")
            return False
        return value

    def _progress(
        self, raw: Any, at: Location, record: ir.TypeRef
    ) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None, tuple[str, ...] | None]:
        """``progress: {field: /percent}`` or ``progress: {done: /n, total: /of}``."""
        none = (None, None, None)
        if raw is None:
            return none
        if not isinstance(raw, dict):
            self.problem(at, "must be a mapping with 'field', or with 'done' and 'total'")
            return none
        unknown_keys(raw, _PROGRESS_KEYS, at, self.problems)
        paths = {key: self.pointer(raw, key, at) for key in ("field", "done", "total")}
        if (paths["field"] is None) == (paths["done"] is None and paths["total"] is None):
            self.problem(at, "declare either 'field' (a percentage) or both 'done' and 'total'")
            return none
        if paths["field"] is None and (paths["done"] is None or paths["total"] is None):
            missing = "total" if paths["total"] is None else "done"
            self.problem(
                at, f"'{missing}' is required with '{'done' if missing == 'total' else 'total'}'"
            )
            return none
        for key, path in paths.items():
            found = self.resolve(record, path, at.child(key))
            if found is not None and not self._numeric(found):
                self.problem(
                    at.child(key),
                    f"progress.{key} must be a number field, but it is {self._kind(found)}",
                )
        return paths["field"], paths["done"], paths["total"]

    def _cancel(
        self,
        cancel: ir.Operation | None,
        at: Location,
        id_parameter: str,
        carry: tuple[ir.Carry, ...] = (),
        constants: tuple[ir.Constant, ...] = (),
    ) -> None:
        """A cancel operation must take the job id (and nothing the job lacks). The job
        need not have a canceled state: a canceled job may end in an ordinary terminal
        state (Anthropic's batches go `canceling`, then `ended`)."""
        if cancel is None:
            return
        if id_parameter not in [p.wire for p in cancel.path_parameters]:
            self.problem(
                at.child("cancel"),
                f"'{cancel.operation_id}' has no path parameter '{id_parameter}'",
            )
        self._only_the_id(cancel, "cancel", at, id_parameter, carry, constants)

    def _only_the_id(
        self,
        op: ir.Operation | None,
        key: str,
        at: Location,
        id_parameter: str,
        carry: tuple[ir.Carry, ...] = (),
        constants: tuple[ir.Constant, ...] = (),
    ) -> None:
        """Refuse an operation that needs more than the job id, the carried values and
        the declaration's constants."""
        if op is None:
            return
        given = tuple(c for c in constants if c.call == key)
        needs = unsupplied(op, id_parameter, carry, self.schemas, given)
        if needs:
            alone = "the job id and its carried values" if carry else "the job id alone"
            self.problem(
                at.child(key),
                f"'{op.operation_id}' needs {', '.join(needs)}, which nothing supplies:"
                f" the SDK calls it with {alone} (declare the missing values under 'carry')",
            )

    def _expect(
        self, record: ir.TypeRef, path: tuple[str, ...] | None, at: Location, what: str, kind: str
    ) -> None:
        found = self.resolve(record, path, at)
        if found is None:
            return
        node = deref_type(found, self.schemas)
        if isinstance(node, ir.Primitive) and node.kind != kind:
            self.problem(
                at,
                f"{what} must be a {'boolean' if kind == 'bool' else kind} field, but it is {node.kind}",
            )

    def _numeric(self, found: ir.TypeRef) -> bool:
        """Whether a value of type ``found`` can be a number (a union: any variant)."""
        node = deref_type(found, self.schemas)
        if isinstance(node, ir.Primitive):
            return node.kind in ("int", "float")
        if isinstance(node, ir.ConstType):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if isinstance(node, (ir.InlineUnion, ir.UnionSchema)):
            return any(self._numeric(variant) for variant in node.variants)
        return isinstance(node, ir.AnyType)

    def _kind(self, found: ir.TypeRef) -> str:
        node = deref_type(found, self.schemas)
        if isinstance(node, ir.Primitive):
            return {"str": "a string", "bool": "a boolean"}.get(node.kind, node.kind)
        if isinstance(node, ir.EnumSchema):
            return f"the enum {node.name}"
        if isinstance(node, ir.Model):
            return f"an object ({node.name})"
        if isinstance(node, (ir.ListType, ir.MapType)):
            return "an array" if isinstance(node, ir.ListType) else "an object"
        return "not a number"

    def _id_parameter(
        self,
        node: dict[str, Any],
        at: Location,
        status: ir.Operation,
        result: ir.Operation | None,
        optional: bool = False,
    ) -> str:
        wires = [p.wire for p in status.path_parameters]
        value = node.get("id_parameter")
        if value is None:
            if len(wires) != 1 and optional:
                return ""  # no call takes the id: the operation URL is the job's id
            if len(wires) != 1:
                self.problem(
                    at,
                    f"'id_parameter' is required: '{status.operation_id}' has {len(wires)} path parameters",
                )
                return wires[0] if wires else "id"
            value = wires[0]
        elif not isinstance(value, str) or value not in wires:
            self.problem(
                at.child("id_parameter"),
                f"'{value}' is not a path parameter of '{status.operation_id}' (it has: {', '.join(wires) or 'none'})",
            )
            return str(value)
        if result is not None and value not in [p.wire for p in result.path_parameters]:
            self.problem(
                at.child("result"), f"'{result.operation_id}' has no path parameter '{value}'"
            )
        return value

    def _id_source(
        self,
        node: dict[str, Any],
        at: Location,
        create: ir.Operation | None,
        by_url: bool = False,
    ) -> tuple[tuple[str, ...] | None, str | None]:
        value = node.get("id_from")
        if by_url:
            if value is not None:
                self.problem(
                    at.child("id_from"),
                    "'id_from' does not apply with 'operation_url': the job is its URL",
                )
            return None, None
        if create is None:
            if value is not None and node.get("create") is None:
                self.problem(at.child("id_from"), "'id_from' needs a 'create' operation")
            return None, None
        if value is None:
            self.problem(
                at, "'id_from' is required with 'create': where the new job's id is in its response"
            )
            return None, None
        if isinstance(value, str) and value.startswith("header:"):
            return None, value.split(":", 1)[1].strip()
        path = self.pointer(node, "id_from", at)
        if path is None:
            return None, None
        if create.response.kind != "json" or create.response.type is None:
            self.problem(
                at.child("create"),
                f"'{create.operation_id}' has no JSON success response to read the id from",
            )
            return path, None
        self.resolve(create.response.type, path, at.child("id_from"), "the create answer")
        return path, None

    def _state(
        self,
        node: dict[str, Any],
        at: Location,
        record: ir.TypeRef,
        synthetic: frozenset[str] = frozenset(),
    ) -> tuple[tuple[str, ...] | None, tuple[tuple[str, ...], ...]]:
        """The state field and its classes; ``synthetic`` states (given by status
        rules, not read from the field) need not be values of its enum."""
        raw = node.get("state")
        empty: tuple[tuple[str, ...], ...] = ((), (), (), ())
        if raw is None:
            return None, empty
        state_at = at.child("state")
        if not isinstance(raw, dict):
            self.problem(state_at, "must be a mapping with 'field' and the state lists")
            return None, empty
        unknown = unknown_keys(raw, _STATE_KEYS, state_at, self.problems)
        # States listed under a misspelt key are reported there, not again as unclassified.
        misfiled = {str(v) for key in unknown if isinstance(raw[key], list) for v in raw[key]}
        path = self.pointer(raw, "field", state_at)
        if path is None:
            self.problem(
                state_at, "'field' is required: a JSON pointer to the state inside the record"
            )
            return None, empty
        groups = tuple(
            self.states(raw, key, state_at) for key in ("success", "failure", "canceled", "pending")
        )
        seen: dict[str, str] = {}
        for key, values in zip(("success", "failure", "canceled", "pending"), groups):
            for value in values:
                if value in seen:
                    self.problem(
                        state_at.child(key),
                        f"state '{value}' is classified twice ({seen[value]} and {key})",
                    )
                seen[value] = key
        if not groups[0] and not raw.get("success"):
            self.problem(state_at.child("success"), "at least one success state is required")
        found = self.resolve(record, path, state_at.child("field"))
        if found is not None:
            enum = deref_type(found, self.schemas)
            if isinstance(enum, ir.EnumSchema):
                documented = {str(m.value) for m in enum.members}
                misspelt = {
                    v: closest(v, documented - set(seen))
                    for values in groups
                    for v in values
                    if v not in documented and v not in synthetic
                }
                meant = {v for v in misspelt.values() if v is not None}
                for value in sorted(documented - set(seen) - misfiled - meant):
                    self.problem(
                        state_at,
                        f"state '{value}' of {enum.name} is not classified: add it to success, failure, canceled or pending",
                    )
                for key, values in zip(("success", "failure", "canceled", "pending"), groups):
                    for index, value in enumerate(values):
                        if value not in documented and value not in synthetic:
                            self.problem(
                                state_at.child(key, index),
                                f"state '{value}' is not one of {enum.name}'s values"
                                f" ({', '.join(sorted(documented))})"
                                + (
                                    f"; did you mean '{misspelt[value]}'?"
                                    if misspelt.get(value)
                                    else ""
                                ),
                            )
            elif not (
                isinstance(enum, ir.Primitive) and enum.kind in ("str", "int")
            ) and not isinstance(enum, ir.AnyType):
                self.problem(state_at.child("field"), "the state field must be a string or an enum")
        return path, groups

    def _poll(
        self, raw: Any, at: Location, record: ir.TypeRef
    ) -> tuple[tuple[str, ...] | None, Any, tuple[ir.HeaderHint, ...], float, float, float]:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            self.problem(at, "must be a mapping")
            raw = {}
        unknown_keys(raw, _POLL_KEYS, at, self.problems)
        hint_path = None
        unit = "seconds"
        hint = raw.get("body_hint")
        if hint is not None:
            if isinstance(hint, dict):
                unknown_keys(hint, _BODY_HINT_KEYS, at.child("body_hint"), self.problems)
                hint_path = self.pointer(hint, "field", at.child("body_hint"))
                if hint_path is None:
                    self.problem(
                        at.child("body_hint"),
                        "'field' is required: a JSON pointer to the hint inside the record",
                    )
                found = self.resolve(record, hint_path, at.child("body_hint", "field"))
                if found is not None and not self._numeric(found):
                    self.problem(
                        at.child("body_hint", "field"),
                        f"body_hint.field must be a number field, but it is {self._kind(found)}",
                    )
                unit = hint.get("unit", "seconds")
                if unit not in ("seconds", "milliseconds"):
                    self.problem(
                        at.child("body_hint", "unit"),
                        f"unit must be seconds or milliseconds, not {unit!r}",
                    )
                    unit = "seconds"
            else:
                self.problem(at.child("body_hint"), "must be a mapping with 'field' and 'unit'")
        headers: list[ir.HeaderHint] = []
        # Retry-After is the standard hint: honoured unless the declaration lists headers.
        declared = raw.get("headers", [{"name": "Retry-After", "format": "retry-after"}])
        if declared is not None and not isinstance(declared, list):
            self.problem(at.child("headers"), "must be a list of header hints")
            declared = None
        for index, item in enumerate(declared or []):
            item_at = at.child("headers", index)
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                self.problem(item_at, "a header hint needs a 'name'")
                continue
            unknown_keys(item, _HEADER_KEYS, item_at, self.problems)
            fmt = item.get(
                "format", "retry-after" if item["name"].lower() == "retry-after" else "seconds"
            )
            if fmt not in _HEADER_FORMATS:
                self.problem(
                    item_at.child("format"),
                    f"format must be one of {', '.join(_HEADER_FORMATS)}, not {fmt!r}",
                )
                continue
            headers.append(ir.HeaderHint(item["name"], fmt))
        floor = self.number(raw, "floor", at, 0.0)
        first = self.number(raw, "first", at, 1.0)
        cap = self.number(raw, "cap", at, 30.0)
        if first > cap:
            self.problem(at.child("first"), f"first ({first}) must not exceed cap ({cap})")
        if floor > cap:
            self.problem(at.child("floor"), f"floor ({floor}) must not exceed cap ({cap})")
        return hint_path, unit, tuple(headers), floor, first, cap


def _record_fed(carry: Any) -> bool:
    """Whether a ``carry`` mapping reads a value from the terminal record."""
    return isinstance(carry, dict) and any(
        isinstance(item, dict) and str(item.get("from", "")).startswith("record:")
        for item in carry.values()
    )


def build_jobs(
    extension: Any,
    at: Location,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
    webhooks: WebhookOperations | None = None,
    imported: Imported | None = None,
    warnings: list[Problem] | None = None,
) -> tuple[ir.Job, ...]:
    """The jobs an ``x-jobgen`` mapping (or a side file) declares, and those
    ``imported`` from the spec's own dialect (see "Imported declarations" in
    docs/job-extension.md): a declared job of the same name completes the imported one
    key by key, one naming the same ``create`` replaces it."""
    declared: dict[str, Any] = {}
    if extension is not None:
        if not isinstance(extension, dict):
            problems.append(Problem(at, "must be a mapping with a 'jobs' key"))
            return ()
        unknown_keys(extension, _EXTENSION_KEYS, at, problems)
        jobs_node = extension.get("jobs")
        if not isinstance(jobs_node, dict) or not jobs_node:
            if imported is None or not imported.jobs or "jobs" in extension:
                problems.append(Problem(at.child("jobs"), "must map job names to declarations"))
                return ()
            jobs_node = {}
        declared = jobs_node
    all_operations = {**operations, **(imported.operations if imported else {})}
    reader = _JobReader(all_operations, schemas, problems, webhooks)
    out = []
    creates = {str(node.get("create")) for node in declared.values() if isinstance(node, dict)}
    origins = imported.origins if imported is not None else {}
    for name, node in declared.items():
        origin = f"declared at {at.child('jobs', str(name))}"
        if imported is not None and str(name) in imported.jobs and isinstance(node, dict):
            node = {**imported.jobs[str(name)], **node}
            origin += f", over the job {imported.origin(str(name))}"
        job = reader.job(str(name), node, at.child("jobs", str(name)), origin)
        if job is not None:
            out.append(job)
            if warnings is not None:
                warnings.extend(untyped_reads(job, at.child("jobs", str(name)), schemas))
    if imported is None:
        return tuple(out)
    for name, node in imported.jobs.items():
        if name in declared or node.get("create") in creates:
            continue
        found: list[Problem] = []
        own = _JobReader(all_operations, schemas, found, webhooks)
        job = own.job(name, node, origins[name], imported.origin(name))
        if found or job is None:
            if warnings is not None:
                why = found[0].message if found else "it does not read as a job"
                warnings.append(left_out(imported.left_out_at.get(name, origins[name]), why))
            continue
        out.append(job)
        if warnings is not None:
            warnings.extend(untyped_reads(job, origins[name], schemas))
    return tuple(out)


def untyped_reads(job: ir.Job, at: Location, schemas: dict[str, ir.NamedSchema]) -> list[Problem]:
    """A warning when the job reads fields of a status answer whose schema is empty
    (``application/json: {}``): nothing checks that they exist, and the record is untyped."""
    body = job.status.response.type
    if body is None or not isinstance(deref_type(body, schemas), ir.AnyType):
        return []
    reads = [
        (key, path)
        for key, path in (
            ("state", job.state_path),
            ("terminal_field", job.terminal_path),
            ("result_ready_field", job.ready_path),
            ("error_field", job.error_path),
            ("poll hint", job.hint_path),
            ("progress", job.progress_path),
            ("progress done", job.progress_done_path),
            ("progress total", job.progress_total_path),
        )
        if path is not None
    ]
    if not reads:
        return []
    shown = ", ".join(f"{key} {pointer_join('', *job.record_path, *path)}" for key, path in reads)
    return [
        Problem(
            at.child("status"),
            f"operation '{job.status.operation_id}' answers JSON with no schema, so the fields "
            f"this job reads ({shown}) are not checked and its record is untyped (Any): "
            "give the status response a schema",
        )
    ]
