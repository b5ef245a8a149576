"""The changes ``jobgen diff`` reports, every kind of them, and the report they make up."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, Literal, TypeVar

import attrs

__all__ = [
    "ADDITIONS",
    "KINDS",
    "RESPONSE",
    "Bump",
    "Change",
    "Keyed",
    "Report",
    "Rollout",
    "Side",
    "keyed",
    "order",
]

Bump = Literal["major", "minor", "patch", "none"]
Side = Literal["request", "response"]
RESPONSE: frozenset[Side] = frozenset({"response"})

#: Every kind of change, with when it is breaking; docs/diff.md lists the same table.
KINDS: dict[str, str] = {
    "operation.removed": "always breaking",
    "operation.added": "never breaking",
    "operation.renamed": "breaking when the SDK method changes",
    "operation.sdk_method_changed": "always breaking",
    "operation.path_changed": "never breaking",
    "operation.http_method_changed": "never breaking",
    "operation.deprecated": "never breaking",
    "parameter.removed": "always breaking",
    "parameter.added": "breaking when required (without a default)",
    "parameter.renamed": "breaking when the Python argument name changes",
    "parameter.moved": "breaking when it moves into or out of the path",
    "parameter.reordered": "always breaking (path parameters are positional)",
    "parameter.type_changed": "breaking unless it widens (integer -> number)",
    "parameter.became_required": "always breaking",
    "parameter.became_optional": "never breaking",
    "body.added": "breaking when required",
    "body.removed": "always breaking",
    "body.type_changed": "breaking unless it widens (integer -> number)",
    "body.became_required": "always breaking",
    "body.became_optional": "never breaking",
    "body.media_type_changed": "never breaking",
    "response.type_changed": "always breaking",
    "response.status_changed": "never breaking (the SDK accepts any 2xx status)",
    "response.media_types_changed": "never breaking (what the SDK decodes is response.type_changed)",
    "response.header_added": "never breaking",
    "response.header_removed": "breaking when a job reads it (id or poll hint)",
    "schema.removed": "always breaking",
    "schema.added": "never breaking",
    "schema.renamed": "always breaking (the class name changes)",
    "schema.kind_changed": "always breaking",
    "schema.type_changed": "breaking unless an alias widens in requests only",
    "field.removed": "always breaking",
    "field.added": "breaking when required in a request model",
    "field.renamed": "always breaking (the attribute name changes)",
    "field.type_changed": "breaking unless it widens in a request-only model",
    "field.became_required": "breaking in a request model",
    "field.became_optional": "breaking in a response model",
    "field.became_nullable": "breaking in a response model",
    "field.became_non_nullable": "breaking in a request model",
    "field.became_read_only": "breaking in a request model (the server ignores it)",
    "field.became_write_only": "breaking in a response model (the server no longer sends it)",
    "field.access_relaxed": "never breaking (no longer read-only or write-only)",
    "constraint.tightened": "breaking where callers send the value (requests, parameters)",
    "constraint.loosened": "never breaking",
    "default.changed": "breaking where callers send the value, unless a default was added",
    "enum.value_removed": "always breaking",
    "enum.value_added": "never breaking (unknown values are kept)",
    "enum.member_renamed": "always breaking",
    "union.variant_removed": "always breaking",
    "union.variant_added": "never breaking",
    "auth.removed": "always breaking",
    "auth.added": "never breaking",
    "auth.changed": "breaking when the client's credential arguments change",
    "client.base_url_changed": "never breaking",
    "job.removed": "always breaking",
    "job.added": "never breaking",
    "job.waiters_renamed": "always breaking",
    "job.terminal_state_added": "always breaking (deployed SDKs raise UnknownJobState on it)",
    "job.pending_state_added": "always breaking (deployed SDKs raise UnknownJobState on it)",
    "job.state_removed": "always breaking (new SDKs raise UnknownJobState on an old server)",
    "job.state_reclassified": "always breaking",
    "job.record_changed": "always breaking",
    "job.status_operation_changed": "never breaking",
    "job.create_added": "never breaking",
    "job.create_removed": "always breaking",
    "job.create_changed": "never breaking",
    "job.result_added": "never breaking",
    "job.result_removed": "always breaking",
    "job.result_changed": "never breaking",
    "job.pointer_changed": "breaking when the record, state, terminal field or job id moves",
    "job.ready_field_changed": "breaking when a readiness field moves or is added",
    "job.idempotency_changed": "breaking when a header deployed SDKs send changes or goes",
    "job.poll_changed": "never breaking",
    "job.carry_added": "always breaking (every wait and handle needs the new value)",
    "job.carry_removed": "always breaking (callers still pass the value)",
    "job.carry_changed": "breaking when the value's type changes",
    "job.result_once_changed": "breaking when the result becomes one-shot",
    "job.result_body_changed": "always breaking (wait_for_result returns another type)",
    "job.cancel_added": "never breaking",
    "job.cancel_removed": "always breaking",
    "job.cancel_changed": "never breaking",
    "job.progress_changed": "never breaking",
    "job.stall_after_changed": "breaking when declared or shortened (waits end sooner)",
    "job.operation_url_changed": "breaking when jobs become, or stop being, known by URL",
    "job.status_rules_changed": "always breaking (waits end on other answers)",
    "job.final_from_changed": "always breaking (the result comes from elsewhere)",
}

#: Kinds that add something: a release holding one (and nothing breaking) is minor.
ADDITIONS = frozenset(
    {
        "operation.added",
        "parameter.added",
        "body.added",
        "schema.added",
        "field.added",
        "enum.value_added",
        "union.variant_added",
        "auth.added",
        "job.added",
        "job.pending_state_added",
        "job.create_added",
        "job.result_added",
        "job.cancel_added",
    }
)


K = TypeVar("K")
V = TypeVar("V")


@attrs.frozen
class Keyed(Generic[K, V]):
    """Two versions of a keyed collection, matched by key, each part in its order."""

    removed: list[tuple[K, V]]
    added: list[tuple[K, V]]
    kept: list[tuple[K, V, V]]


def keyed(olds: Mapping[K, V], news: Mapping[K, V]) -> Keyed[K, V]:
    """What only the old version has, what only the new one has, and what both have."""
    return Keyed(
        removed=[(k, v) for k, v in olds.items() if k not in news],
        added=[(k, v) for k, v in news.items() if k not in olds],
        kept=[(k, v, news[k]) for k, v in olds.items() if k in news],
    )


@attrs.frozen
class Rollout:
    """What a change to job semantics does while SDK and server versions meet: each field is
    the one-line reason it breaks that population, or None where it does not."""

    #: SDKs already deployed, against the new server (the server ships first).
    deployed: str | None = None
    #: SDKs regenerated from the new spec, against a server not yet upgraded (clients first).
    regenerated: str | None = None


@attrs.frozen
class Change:
    """One difference an SDK caller may notice."""

    kind: str
    location: str
    message: str
    breaking: bool
    #: Job semantics only: who breaks during a rollout (a breaking verdict of its own).
    rollout: Rollout | None = None

    @property
    def addition(self) -> bool:
        return not self.breaking and self.kind in ADDITIONS


@attrs.frozen
class Report:
    """Every change between two SDK models, breaking first."""

    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.breaking)

    @property
    def additions(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.addition)

    @property
    def breaks_deployed(self) -> tuple[Change, ...]:
        """Changes that break SDKs already deployed once the server ships."""
        return tuple(c for c in self.changes if c.rollout and c.rollout.deployed)

    @property
    def breaks_regenerated(self) -> tuple[Change, ...]:
        """Changes that break regenerated SDKs against a server not yet upgraded."""
        return tuple(c for c in self.changes if c.rollout and c.rollout.regenerated)

    @property
    def others(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.breaking and not c.addition)

    @property
    def bump(self) -> Bump:
        if not self.changes:
            return "none"
        if self.breaking:
            return "major"
        if self.additions:
            return "minor"
        return "patch"


def order(change: Change) -> tuple[bool, bool, str, str, str]:
    return (not change.breaking, not change.addition, change.location, change.kind, change.message)
