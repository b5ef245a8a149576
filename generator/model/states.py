"""Classify a job's states by their names: success, failure, canceled or pending.

A state is read as its words (``JobComplete`` -> job, complete; ``in-progress`` -> in,
progress). A word ending in ``-ing`` means the job is still moving (``cancelling``,
``finalizing``), and so does a request not yet carried out (``cancel_requested``,
``CANCELLATION_REQUESTED``): pending, whatever else the name says. Otherwise the first class whose
words the name holds wins, canceled before failure before success (``completed_with_errors``
is a failure, and marked to check). What no word names is pending. Words that only
suggest an outcome (``expired``, ``ready``, ``ended``, ``deleted``) classify with a note to
check: a job deleted is over, read as canceled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import attrs

from .names import words

__all__ = ["Classified", "StateClass", "classify", "classify_all"]

StateClass = Literal["success", "failure", "canceled", "pending"]

# Words sure of their class, and words that only suggest it (these get a `# check:`).
_SURE: dict[StateClass, frozenset[str]] = {
    "canceled": frozenset({"canceled", "cancelled", "aborted"}),
    "failure": frozenset({"failed", "failure", "fail", "error", "errored", "errors"}),
    "success": frozenset(
        {"completed", "complete", "succeeded", "success", "successful", "done", "finished"}
    ),
}
_LIKELY: dict[StateClass, frozenset[str]] = {
    "canceled": frozenset(
        {"cancel", "abort", "revoked", "terminated", "stopped", "killed", "deleted", "removed"}
    ),
    "failure": frozenset(
        {"expired", "rejected", "timeout", "timedout", "incomplete", "denied", "invalid"}
    ),
    "success": frozenset(
        {"ended", "ready", "processed", "fulfilled", "ok", "succeed", "validated", "verified"}
    ),
}
_ORDER: tuple[StateClass, ...] = ("canceled", "failure", "success")
# Words of a state still on its way: the outcome they name has been asked for only.
_REQUESTED = frozenset({"requested", "request", "pending", "queued", "scheduled"})
# Words that end in -ing but do not describe motion.
_NOT_MOTION = frozenset({"nothing", "string", "thing", "ring"})


@attrs.frozen
class Classified:
    state: str | int
    kind: StateClass
    check: str | None = None
    """Why the guess is unsure, or None."""


def _words(state: str | int) -> list[str]:
    return [w.lower() for w in words(str(state))]


def classify(state: str | int) -> Classified:
    """The class of one state, from its name alone."""
    tokens = _words(state)
    moving = any(t.endswith("ing") and len(t) > 4 and t not in _NOT_MOTION for t in tokens)
    if moving or (len(tokens) > 1 and any(t in _REQUESTED for t in tokens)):
        if any(t in _SURE[k] or t in _LIKELY[k] for k in _ORDER for t in tokens):
            why = "'-ing'" if moving else "a request not yet carried out"
            return Classified(state, "pending", f"a state still moving ({why}), read as pending")
        return Classified(state, "pending")
    sure = [k for k in _ORDER if any(t in _SURE[k] for t in tokens)]
    likely = [k for k in _ORDER if any(t in _LIKELY[k] for t in tokens)]
    if len(sure) == 1 and not (set(likely) - set(sure)):
        return Classified(state, sure[0])
    if sure or likely:
        kind = (sure or likely)[0]
        return Classified(state, kind, f"read as {kind} from its name")
    return Classified(state, "pending")


def classify_all(states: Sequence[str | int]) -> list[Classified]:
    """Every state classified. Where several states read as success, each is to check,
    and one listed before a pending state (as ``UploadComplete`` before ``InProgress``
    and ``JobComplete``) is read as a step on the way, pending, when another success
    state comes after every pending one: enums list a lifecycle in its order."""
    found = [classify(s) for s in states]
    # A state that ends what another one is doing (``dubbed`` after ``dubbing``,
    # ``translated`` after ``translating``) is the job's success, when nothing else is.
    if not any(c.kind == "success" for c in found):
        last = [(_words(c.state) or [""])[-1] for c in found]
        doing = {w[:-3] for w in last if w.endswith("ing")}
        found = [
            attrs.evolve(c, kind="success", check="read as success: it ends a state still moving")
            if c.kind == "pending" and not c.check and w.endswith("ed") and w[:-2] in doing
            else c
            for c, w in zip(found, last)
        ]
    successes = [i for i, c in enumerate(found) if c.kind == "success"]
    if len(successes) < 2:
        return found
    last_pending = max((i for i, c in enumerate(found) if c.kind == "pending"), default=-1)
    steps = {i for i in successes if i < last_pending}
    if len(steps) == len(successes):
        steps = set()
    note = "one of several states read as success"
    return [
        attrs.evolve(c, kind="pending", check="read as a step before the job's success")
        if i in steps
        else attrs.evolve(c, check=c.check or note)
        if i in successes
        else c
        for i, c in enumerate(found)
    ]
