"""The jobs a spec's vendor dialects declare besides Azure's: Speakeasy's
``x-speakeasy-polling`` and Google's AIP-151 long-running operations."""

from __future__ import annotations

from typing import Any

from ...problems import Problem
from .. import ir
from .aip151 import read_aip151
from .imported import ImportedJob
from .speakeasy import read_speakeasy

__all__ = ["import_dialects"]


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
    for read in (read_speakeasy, read_aip151):
        found += read(spec, operations, schemas, problems, warnings)
    return found
