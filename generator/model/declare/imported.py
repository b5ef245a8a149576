"""A job declaration imported from a vendor dialect, and what the importers share.

Every importer turns what a spec already says about its jobs into the mapping a side
file holds for one job (the ``jobs`` entry format of ``docs/job-extension.md``), with
its origin. The job reader then checks it and builds the job, as it does a declared one.
"""

from __future__ import annotations

from typing import Any

import attrs

from ...problems import Location

__all__ = ["Imported", "raw_node"]


@attrs.frozen
class Imported:
    """One imported job: its name, its declaration and where the spec declares it."""

    name: str
    declaration: dict[str, Any]
    origin: str
    """``imported from x-speakeasy-polling at file#pointer`` and the like."""
    location: Location
    """Where the dialect declares the job (problems with the declaration are named here)."""


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

