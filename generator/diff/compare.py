"""Compare two SDK models and list what changed for the callers of the generated SDK.

A change is *breaking* when code written against the old SDK can fail, or behave
differently, with the SDK generated from the new spec. Operations are matched by
operationId (or, failing that, by method and path), schemas by key, then by class
name, then by identical structure (twins told apart by what refers to them); types are
compared through the schemas they name, so a schema whose key changed but whose
structure did not is the same type. The comparison is split by area: operations,
schemas, jobs (with auth and the client); :mod:`.details` reads what the SDK model
leaves out (constraints, defaults, response headers) from the spec documents.
"""

from __future__ import annotations

from ..model import ir
from .changes import ADDITIONS, KINDS, Bump, Change, Report, order
from .context import Context
from .jobs import auth_changes, client_changes, job_changes
from .operations import operation_changes
from .schemas import schema_changes

__all__ = ["ADDITIONS", "KINDS", "Bump", "Change", "Report", "diff_sdks"]


def diff_sdks(old: ir.Sdk, new: ir.Sdk) -> Report:
    """What changed, for the callers of the SDK, from ``old`` to ``new``."""
    ctx = Context(old, new)
    found = {
        *operation_changes(ctx),
        *schema_changes(ctx),
        *auth_changes(ctx),
        *job_changes(ctx),
        *client_changes(ctx),
    }
    return Report(
        old=f"{old.title} {old.version}",
        new=f"{new.title} {new.version}",
        changes=tuple(sorted(found, key=order)),
    )
