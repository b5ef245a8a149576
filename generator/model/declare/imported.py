"""Job declarations imported from vendor dialects, and what their importers share.

Every importer (``azure.py``, ``speakeasy.py``, ``aip151.py``) turns what a spec already
says about its jobs into the mapping a side file holds for one job (the ``jobs`` entry
format of ``docs/job-extension.md``), with where it came from. ``sidefile.build_jobs``
then reads each as it reads a declared job, under the precedence documented there.
"""

from __future__ import annotations

from typing import Any

import attrs

from ...fieldwise import Node
from ...problems import Location, Problem
from .. import ir

__all__ = ["SPEAKEASY_EXTENSION", "Imported", "ImportedJob", "left_out", "raw_node"]


#: Speakeasy's polling extension on an operation (read by ``speakeasy``; ``dialects``
#: loads that reader only for a spec that has it).
SPEAKEASY_EXTENSION = "x-speakeasy-polling"


@attrs.frozen(eq=False, repr=False)
class ImportedJob(Node):
    """One imported job, as an importer finds it (before the names are made unique)."""

    name: str
    declaration: dict[str, Any]
    dialect: str
    """How the origin is said: ``imported from x-speakeasy-polling at``."""
    location: Location
    """Where the dialect declares the job (its origin, and where a job left out is named)."""


@attrs.frozen(eq=False, repr=False)
class Imported(Node):
    """The jobs a spec declares in vendor dialects, as side-file declarations, by job name."""

    jobs: dict[str, dict[str, Any]]
    """Each job's declaration (the ``jobs`` entry format of a side file)."""
    origins: dict[str, Location]
    """Where each came from (Azure: the operation carrying ``x-ms-long-running-operation``)."""
    operations: dict[str, ir.Operation]
    """Status operations made up for monitors the spec has no operation for (never
    public methods: only the record type and, for ``jobgen serve``, a path)."""
    shown: dict[str, str] = attrs.field(factory=dict)
    """Each origin as messages show it (in the document as written: Swagger 2.0's own
    pointers)."""
    dialects: dict[str, str] = attrs.field(factory=dict)
    """How each job's origin is said (``imported from x-speakeasy-polling at``)."""
    left_out_at: dict[str, Location] = attrs.field(factory=dict)
    """Where a job whose declaration does not read is named as left out (default: its
    origin)."""

    def origin(self, name: str) -> str:
        """Where the job ``name`` came from, as ``jobgen validate`` says it."""
        shown = self.shown.get(name) or str(self.origins[name])
        return f"{self.dialects.get(name, 'imported at')} {shown}"

    def with_jobs(self, found: list[ImportedJob], taken: set[str]) -> Imported:
        """These jobs and ``found``, each of those under a name not in ``taken``
        (numbered, as ``job_2``, where it is)."""
        jobs, origins = dict(self.jobs), dict(self.origins)
        dialects, left = dict(self.dialects), dict(self.left_out_at)
        used = {name.lower() for name in (*jobs, *taken)}
        for item in found:
            name, n = item.name, 1
            while name.lower() in used:
                n += 1
                name = f"{item.name}_{n}"
            used.add(name.lower())
            jobs[name] = item.declaration
            origins[name] = item.location
            dialects[name] = item.dialect
        return attrs.evolve(self, jobs=jobs, origins=origins, dialects=dialects, left_out_at=left)


def left_out(at: Location, why: str) -> Problem:
    """The warning of a job a dialect declares that is left out of the SDK."""
    return Problem(
        at, f"not imported as a job: {why}; declare it in a side file (--jobs) to wait for it"
    )


def raw_node(spec: Any, at: Location | None) -> Any:
    """The node of the spec's documents at ``at`` (None when there is none)."""
    if spec is None or at is None:
        return None
    try:
        node: Any = spec.document_at(at).data
    except KeyError:
        return None
    for token in at.pointer.split("/")[1:] if at.pointer else ():
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node
