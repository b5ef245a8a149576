"""Webhooks of a job: the spec's ``webhooks`` (3.1) and ``callbacks``, and the job's ``webhooks:`` key.

A job declares ``webhooks:`` in its ``x-jobgen`` entry (see ``docs/webhooks.md``): which
webhook or callback operation delivers it (its request body is the typed event), where the
record and the job id are in a delivery, the signature scheme, the secret's environment
variable, the create field carrying a per-job URL, the sender's retry schedule, and the
slow poll schedule of a wait that listens for deliveries.
"""

from __future__ import annotations

from typing import Any

from ...problems import Location, Problem, did_you_mean
from ...runtime.webhooks.rules import secret_env_problem, tolerance_problem
from ...spec.loader import SpecSet
from .. import ir
from ..operations import METHODS, OperationBuilder, safe_deref
from .common import unknown_keys

__all__ = ["WebhookOperations", "read_webhooks"]

_KEYS = frozenset(
    {"event", "record", "id_field", "signature", "secret_env", "url_field", "delivery", "fallback"}
)
_SIGNATURE_KEYS = frozenset(
    {"scheme", "id_header", "timestamp_header", "signature_header", "tolerance"}
)
_DELIVERY_KEYS = frozenset({"attempts", "first", "cap"})
_FALLBACK_KEYS = frozenset({"floor", "first", "cap"})
_SCHEMES = ("standard-webhooks", "hmac-sha256")


class WebhookOperations:
    """The operations of a spec's ``webhooks`` and of its operations' ``callbacks``, by id.

    Their request bodies are typed only when a job names them (``find``).
    """

    def __init__(
        self, spec: SpecSet, operations: OperationBuilder, problems: list[Problem]
    ) -> None:
        self.spec = spec
        self.builder = operations
        self.problems = problems
        self.nodes: dict[str, tuple[dict[str, Any], Location]] = {}
        root = spec.root.data
        name = spec.root.name
        hooks = root.get("webhooks")
        if isinstance(hooks, dict):
            for key, item in hooks.items():
                self._item(item, Location(name, "/webhooks").child(str(key)))
        paths = root.get("paths")
        for path, item in (paths or {}).items() if isinstance(paths, dict) else ():
            for method in METHODS:
                op = item.get(method) if isinstance(item, dict) else None
                callbacks = op.get("callbacks") if isinstance(op, dict) else None
                if not isinstance(callbacks, dict):
                    continue
                at = Location(name, "/paths").child(str(path), method, "callbacks")
                for key, callback in callbacks.items():
                    callback, cb_at = safe_deref(spec, callback, at.child(str(key)), problems)
                    if isinstance(callback, dict):
                        for expression, inner in callback.items():
                            self._item(inner, cb_at.child(str(expression)))

    def _item(self, item: Any, at: Location) -> None:
        item, at = safe_deref(self.spec, item, at, self.problems)
        if not isinstance(item, dict):
            return
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict) and isinstance(op.get("operationId"), str):
                self.nodes.setdefault(op["operationId"], (op, at.child(method)))

    def find(self, operation_id: str) -> ir.TypeRef | None:
        """The type of the JSON request body of ``operation_id``; None if it has none.

        An inline schema becomes a model named after the operation (``...Event``).
        """
        node, at = self.nodes[operation_id]
        body, at = safe_deref(
            self.spec, node.get("requestBody"), at.child("requestBody"), self.problems
        )
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict):
            return None
        media = next((m for m in content if "json" in str(m).lower()), None)
        found = content.get(media) if media is not None else None
        if not isinstance(found, dict) or "schema" not in found:
            return None
        hint = operation_id[:1].upper() + operation_id[1:] + "Event"
        return self.builder.schemas.type_of(
            found["schema"], at.child("content", str(media), "schema"), hint
        )


def _pointer(reader: Any, node: dict[str, Any], key: str, at: Location) -> tuple[str, ...] | None:
    found: tuple[str, ...] | None = reader.pointer(node, key, at)
    return found


def _mapping(
    reader: Any, node: dict[str, Any], key: str, at: Location, known: frozenset[str]
) -> dict[str, Any]:

    raw = node.get(key)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        reader.problem(at.child(key), "must be a mapping")
        return {}
    unknown_keys(raw, known, at.child(key), reader.problems)
    return raw


def _header(reader: Any, node: dict[str, Any], key: str, at: Location, default: str) -> str:
    value = node.get(key, default)
    if not isinstance(value, str) or not value.strip() or any(c in value for c in " :\r\n"):
        reader.problem(at.child(key), f"must be a header name, not {value!r}")
        return default
    return value.lower()


def read_webhooks(
    reader: Any,
    raw: Any,
    at: Location,
    *,
    job_name: str,
    record_path: tuple[str, ...],
    record_type: ir.TypeRef,
    id_path: tuple[str, ...] | None,
    create: ir.Operation | None,
    create_declared: bool,
    operations: WebhookOperations | None,
) -> ir.Webhooks | None:
    """The job's ``webhooks:`` declaration, checked; None when absent or wrong."""

    if raw is None:
        return None
    if not isinstance(raw, dict):
        reader.problem(at, "must be a mapping (see docs/webhooks.md)")
        return None
    before = len(reader.problems)
    unknown_keys(raw, _KEYS, at, reader.problems)
    known = operations.nodes if operations is not None else {}
    event_id = raw.get("event")
    if event_id is None and len(known) == 1:
        event_id = next(iter(known))
    event_type: ir.TypeRef | None = None
    if event_id is not None:
        if not isinstance(event_id, str) or event_id not in known:
            listed = ", ".join(sorted(known)) or "none"
            hint = did_you_mean(str(event_id), known) if isinstance(event_id, str) else ""
            reader.problem(
                at.child("event"),
                f"no webhook or callback operation '{event_id}'{hint} (the spec has: {listed})",
            )
        else:
            assert operations is not None
            event_type = operations.find(event_id)
            if event_type is None:
                reader.problem(
                    at.child("event"), f"'{event_id}' has no JSON request body to decode"
                )
    deliv_record = _pointer(reader, raw, "record", at)
    if deliv_record is None:
        deliv_record = record_path
    delivered = record_type
    if event_type is not None:
        found = reader.resolve(event_type, deliv_record, at.child("record"), "the delivery")
        delivered = found if found is not None else record_type
    job_id = _pointer(reader, raw, "id_field", at)
    if job_id is None:
        if id_path is not None and id_path[: len(record_path)] == record_path:
            job_id = id_path[len(record_path) :]
        else:
            reader.problem(at, "'id_field' is required: where the job id is in a delivered record")
            job_id = ("id",)
    reader.resolve(delivered, job_id, at.child("id_field"))

    sig = _mapping(reader, raw, "signature", at, _SIGNATURE_KEYS)
    scheme = sig.get("scheme", "standard-webhooks")
    if scheme not in _SCHEMES:
        reader.problem(
            at.child("signature", "scheme"),
            f"scheme must be one of {', '.join(_SCHEMES)}, not {scheme!r}",
        )
        scheme = "standard-webhooks"
    standard = scheme == "standard-webhooks"
    sig_at = at.child("signature")
    id_header = _header(reader, sig, "id_header", sig_at, "webhook-id")
    ts_header = _header(
        reader,
        sig,
        "timestamp_header",
        sig_at,
        "webhook-timestamp" if standard else "x-webhook-timestamp",
    )
    sig_header = _header(
        reader,
        sig,
        "signature_header",
        sig_at,
        "webhook-signature" if standard else "x-webhook-signature",
    )
    tolerance = reader.number(sig, "tolerance", sig_at, 300.0)
    problem = tolerance_problem(tolerance)
    if problem is not None:
        reader.problem(sig_at.child("tolerance"), problem)
        tolerance = 300.0
    secret_env = raw.get("secret_env", f"{job_name.upper()}_WEBHOOK_SECRET")
    problem = secret_env_problem(secret_env)
    if problem is not None:
        reader.problem(at.child("secret_env"), problem)
        secret_env = "WEBHOOK_SECRET"

    url_field = _pointer(reader, raw, "url_field", at)
    if url_field is not None and (create is not None or not create_declared):
        if create is None or create.body is None or create.body.kind != "json":
            reader.problem(
                at.child("url_field"), "'url_field' needs a 'create' operation with a JSON body"
            )
        else:
            reader.resolve(create.body.type, url_field, at.child("url_field"), "the create request")

    delivery = _mapping(reader, raw, "delivery", at, _DELIVERY_KEYS)
    attempts = delivery.get("attempts", 10)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= 100:
        reader.problem(
            at.child("delivery", "attempts"), f"must be an integer from 1 to 100, not {attempts!r}"
        )
        attempts = 10
    retry_first = reader.number(delivery, "first", at.child("delivery"), 5.0)
    retry_cap = reader.number(delivery, "cap", at.child("delivery"), 3600.0)

    fallback = _mapping(reader, raw, "fallback", at, _FALLBACK_KEYS)
    fb_at = at.child("fallback")
    fb_floor = reader.number(fallback, "floor", fb_at, 30.0)
    fb_first = reader.number(fallback, "first", fb_at, 30.0)
    fb_cap = reader.number(fallback, "cap", fb_at, 300.0)
    if fb_first > fb_cap or fb_floor > fb_cap:
        reader.problem(fb_at, f"floor and first must not exceed cap ({fb_cap:g})")
    if len(reader.problems) > before:
        return None
    return ir.Webhooks(
        event=event_id if event_type is not None else None,
        event_type=event_type,
        record_path=deliv_record,
        id_path=job_id,
        scheme=scheme,
        id_header=id_header,
        timestamp_header=ts_header,
        signature_header=sig_header,
        tolerance=tolerance,
        secret_env=secret_env,
        url_field=url_field,
        attempts=attempts,
        retry_first=retry_first,
        retry_cap=retry_cap,
        fallback_floor=fb_floor,
        fallback_first=fb_first,
        fallback_cap=fb_cap,
    )
