"""The jobs a spec's vendor dialects declare besides Azure's: Speakeasy's
``x-speakeasy-polling`` and Google's AIP-151 long-running operations.

Each reader is loaded only for a spec that shows the mark it reads (the extension on an
operation; a model with an Operation's ``name``, ``done`` and ``error``): most specs have
neither, and their generation does not pay for importing them."""

from __future__ import annotations

from typing import Any

from ...problems import Problem
from .. import ir
from .imported import SPEAKEASY_EXTENSION, ImportedJob, raw_node

__all__ = ["import_dialects"]

#: The fields every AIP-151 Operation has (``aip151.is_operation_shape`` checks the rest).
_OPERATION_FIELDS = frozenset({"name", "done", "error"})


def import_dialects(
    spec: Any,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
    warnings: list[Problem],
) -> list[ImportedJob]:
    """Every job ``x-speakeasy-polling`` entries and AIP-151 Operation shapes declare
    (names not yet made unique)."""
    found: list[ImportedJob] = []
    if any(_speakeasy_marked(spec, op) for op in operations.values()):
        from .speakeasy import read_speakeasy

        found += read_speakeasy(spec, operations, schemas, problems, warnings)
    if any(_operation_like(schema) for schema in schemas.values()):
        from .aip151 import read_aip151

        found += read_aip151(spec, operations, schemas, problems, warnings)
    return found


def _speakeasy_marked(spec: Any, op: ir.Operation) -> bool:
    node = raw_node(spec, op.location)
    return isinstance(node, dict) and SPEAKEASY_EXTENSION in node


def _operation_like(schema: ir.NamedSchema) -> bool:
    return isinstance(schema, ir.Model) and _OPERATION_FIELDS <= {f.wire for f in schema.fields}
