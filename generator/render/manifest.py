"""The manifest at the root of every generated SDK: what it was generated from, and what
was written.

One JSON file instead of an input hash in every file header: a change to one schema
changes one model file plus this file. It names the generator version, every input by
content (spec documents by their path relative to the spec's folder, the side file) and
the options, and lists every file jobgen wrote with its sha256 — which is how a later run
knows which files it may replace or delete and which ones it must leave alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .. import __version__
from ..fieldwise import Node
from ..model import ir

__all__ = ["MANIFEST", "Manifest", "read_manifest", "render_manifest", "summarise_change"]

MANIFEST = ".jobgen-manifest.json"
FORMAT = 1


@attrs.frozen(eq=False, repr=False)
class Manifest(Node):
    """A manifest read back from disk."""

    generator: str
    inputs: Mapping[str, Any]
    files: Mapping[str, str]


def render_manifest(sdk: ir.Sdk, files: Mapping[str, str], options: Mapping[str, Any]) -> str:
    """The manifest of ``files`` (every other file of the SDK, as written)."""
    spec = {name.partition(":")[2]: sha for name, sha in sdk.inputs if name.startswith("spec:")}
    jobs = {name.partition(":")[2]: sha for name, sha in sdk.inputs if name.startswith("jobs:")}
    inputs: dict[str, Any] = {"spec": spec}
    if jobs:
        inputs["jobs"] = jobs
    inputs["options"] = dict(sorted(options.items()))
    data = {
        "manifest": FORMAT,
        "generator": f"jobgen {__version__}",
        "inputs": inputs,
        "files": {
            rel: hashlib.sha256(text.encode("utf-8")).hexdigest()
            for rel, text in sorted(files.items())
            if rel != MANIFEST
        },
    }
    return json.dumps(data, indent=2, ensure_ascii=True) + "\n"


def read_manifest(root: Path) -> Manifest | None:
    """The manifest of the SDK at ``root``, or None if there is none (or it is unreadable)."""
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return _parse(data)


def _parse(data: Any) -> Manifest | None:
    if not isinstance(data, dict) or data.get("manifest") != FORMAT:
        return None
    files, inputs, generator = data.get("files"), data.get("inputs"), data.get("generator")
    if not (isinstance(files, dict) and isinstance(inputs, dict) and isinstance(generator, str)):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None
    return Manifest(generator, inputs, files)


def summarise_change(old_text: str, new_text: str) -> str:
    """What changed between two manifests, in one line (``inputs ...; 3 file hashes``)."""
    try:
        old, new = _parse(json.loads(old_text)), _parse(json.loads(new_text))
    except ValueError:
        old = new = None
    if old is None or new is None:
        return "not a jobgen manifest" if old is None else "unreadable"
    parts = []
    if old.generator != new.generator:
        parts.append(f"generator {old.generator} -> {new.generator}")
    for key in sorted(set(old.inputs) | set(new.inputs)):
        before, after = old.inputs.get(key), new.inputs.get(key)
        if before == after:
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            names = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            parts.append(f"{key} {', '.join(names)}")
        else:
            parts.append(key)
    changed = sum(
        1 for k in set(old.files) | set(new.files) if old.files.get(k) != new.files.get(k)
    )
    if changed:
        parts.append(f"{changed} file hash{'es' if changed != 1 else ''}")
    return "; ".join(parts) or "formatting only"
