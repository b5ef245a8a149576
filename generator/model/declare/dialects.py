"""The jobs a spec's vendor dialects declare: Speakeasy's ``x-speakeasy-polling`` and
Google's AIP-151 long-running operations, each imported as a side file's declaration."""

from __future__ import annotations

from typing import Any

import attrs

from ...problems import Problem
from .. import ir
from ..names import NameSet
from .aip151 import read_aip151
from .imported import Imported
from .speakeasy import read_speakeasy

__all__ = ["import_dialects"]


def import_dialects(
    spec: Any,
    operations: dict[str, ir.Operation],
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
    warnings: list[Problem],
) -> list[Imported]:
    """Every job the spec's vendor dialects declare, each with a name of its own."""
    found: list[Imported] = []
    for read in (read_speakeasy, read_aip151):
        found += read(spec, operations, schemas, problems, warnings)
    names = NameSet()
    return [attrs.evolve(item, name=names.claim(item.name)) for item in found]
