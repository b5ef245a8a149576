"""Import Google's long-running operations (AIP-151) as job declarations.

An AIP-151 API answers a long-running call with a ``google.longrunning.Operation``:
``{name, done, error, response, metadata}``, read again at ``GET /v1/{name=operations/**}``
until ``done``. Its state is no string: it is the boolean ``done`` and the presence of
``error``. jobgen reads that with the declaration keys it has (see "Imported
declarations" in ``docs/job-extension.md``):

- ``terminal_field: /done`` and ``error_field: /error``: a record whose ``done`` is
  ``true`` is terminal, a failure when ``error`` holds a value (not null), a success
  otherwise; a record whose ``done`` is ``false`` or absent (proto3 JSON leaves a false
  ``done`` out) is pending. That is how Google's own client decides (``done`` first,
  then ``error``);
- ``final_from: record``: the result is the terminal Operation, its ``response`` typed as
  the spec types it;
- ``id_from: /name``: the job's id is the Operation's name. Polled at a path whose last
  segment is the id under a collection (``/v1/operations/{operation}``, the form of
  ``{name=operations/*}``), the id is the last segment of the name
  (``id_last_segment: true``: ``operations/123`` -> ``123``); polled at ``/v1/{name}``,
  the whole name;
- ``poll``: Google's client defaults, ``first`` 1 s and ``cap`` 20 s.

A schema has the Operation shape when it has a string ``name``, a boolean ``done``, an
``error`` and a ``response`` or ``metadata``. The status operation is a ``GET`` with one
path parameter (and nothing else it needs) answering that shape, a path naming
``operations`` first; each other operation answering that shape (``POST``, ``PUT``,
``PATCH``, ``DELETE``; not the operation's own ``:cancel``, ``:wait`` or delete) is the
create of one job, named after it (``translateDocument`` -> ``translate_document``).
Nothing is imported from a spec without both.
"""

from __future__ import annotations

import re
from typing import Any

from ...problems import Problem
from .. import ir
from ..shapes import create_name, deref, inputs_needed, kind
from .imported import ImportedJob

__all__ = ["is_operation_shape", "read_aip151"]

#: Google's api_core polling: first delay 1 s, growing to 20 s.
_FIRST, _CAP = 1.0, 20.0
_SKIP_SUFFIXES = (":cancel", ":wait", ":delete")
#: A version segment of a path: v1, v2.1, v1beta1, v1alpha, v1p1beta1.
_VERSION = re.compile(r"v\d+(?:\.\d+)*(?:(?:alpha|beta|p)\d*)*", re.IGNORECASE)


def is_operation_shape(t: ir.TypeRef | None, schemas: dict[str, ir.NamedSchema]) -> bool:
    """Whether ``t`` is a ``google.longrunning.Operation``-shaped object."""
    model = deref(t, schemas)
    if not isinstance(model, ir.Model):
        return False
    fields = {f.wire: f for f in model.fields}
    return (
        "name" in fields
        and kind(fields["name"].type, schemas) == "str"
        and "done" in fields
        and kind(fields["done"].type, schemas) == "bool"
        and "error" in fields
        and ("response" in fields or "metadata" in fields)
    )


def _status(
    operations: dict[str, ir.Operation], schemas: dict[str, ir.NamedSchema]
) -> ir.Operation | None:
    found = []
    for op in operations.values():
        if op.method.lower() != "get" or op.response.kind != "json":
            continue
        if len(op.path_parameters) != 1 or not op.path.endswith("}"):
            continue
        if not is_operation_shape(op.response.type, schemas):
            continue
        needs = inputs_needed(op, op.path_parameters[0].wire, schemas)
        if needs is None or needs:
            continue
        found.append(("operations" not in op.path.lower(), op.path.count("/"), op.path, op))
    if not found:
        return None
    found.sort(key=lambda item: item[:3])
    return found[0][3]


def _last_segment(status: ir.Operation) -> bool:
    """Whether the status path puts the id under a collection (``/v1/operations/{id}``)
    rather than taking the whole name (``/v1/{name}``)."""
    before = status.path.rsplit("{", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return bool(before) and _VERSION.fullmatch(before) is None


def read_aip151(
    spec: Any,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
    warnings: list[Problem],
) -> list[ImportedJob]:
    """A job per operation answering an AIP-151 Operation, polled at its ``GET``."""
    del spec, problems, warnings  # shapes only: nothing declared, nothing to refuse
    status = _status(operations, schemas)
    if status is None:
        return []
    out: list[ImportedJob] = []
    for op in operations.values():
        method = op.method.lower()
        if op is status or method == "get" or op.response.kind != "json":
            continue
        if op.path.endswith(_SKIP_SUFFIXES) or (method == "delete" and op.path == status.path):
            continue
        if op.path.startswith(status.path):
            continue  # an action on the operation itself
        if not is_operation_shape(op.response.type, schemas) or op.location is None:
            continue
        declaration: dict[str, Any] = {
            "create": op.operation_id,
            "status": status.operation_id,
            "id_from": "/name",
            "terminal_field": "/done",
            "error_field": "/error",
            "final_from": "record",
            "poll": {"first": _FIRST, "cap": _CAP},
        }
        if _last_segment(status):
            declaration["id_last_segment"] = True
        out.append(
            ImportedJob(
                name=create_name(op),
                declaration=declaration,
                dialect="imported from the AIP-151 Operation shape at",
                location=op.location.child("responses", op.response.status),
            )
        )
    return out
