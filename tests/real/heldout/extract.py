"""Cut a vendor's published OpenAPI document down to the paths a held-out case needs.

    python tests/real/heldout/extract.py SOURCE OUT PREFIX...

keeps ``openapi``/``swagger``, ``info``, ``servers``, ``security``, ``tags`` and the
security schemes, every path starting with one of the PREFIXes (as published, in the
published order), and every component those paths reach through local ``$ref``s,
transitively. Nothing is rewritten: what is kept is byte-for-byte the vendor's data,
written as YAML. README.md lists the prefixes used for each spec.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            found.add(ref)
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def _at(doc: Any, ref: str) -> tuple[list[str], Any]:
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")]
    node = doc
    for token in tokens:
        node = node[token]
    return tokens, node


def extract(doc: dict[str, Any], prefixes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("openapi", "swagger", "info", "host", "basePath", "schemes", "servers"):
        if key in doc:
            out[key] = doc[key]
    for key in ("consumes", "produces", "security", "tags", "securityDefinitions"):
        if key in doc:
            out[key] = doc[key]
    out["paths"] = {p: v for p, v in doc["paths"].items() if any(p.startswith(x) for x in prefixes)}
    seen: set[str] = set()
    todo: set[str] = set()
    _refs(out["paths"], todo)
    kept: dict[str, Any] = {}
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        tokens, node = _at(doc, ref)
        where = kept
        for token in tokens[:-1]:
            where = where.setdefault(token, {})
        where[tokens[-1]] = node
        _refs(node, todo)
    schemes = doc.get("components", {}).get("securitySchemes")
    if schemes:
        kept.setdefault("components", {})["securitySchemes"] = schemes
    # Components in the published order.
    for top, sections in kept.items():
        published = doc[top]
        ordered: dict[str, Any] = {}
        for section in published:
            if section in sections:
                if isinstance(sections[section], dict) and isinstance(published[section], dict):
                    ordered[section] = {
                        k: sections[section][k]
                        for k in published[section]
                        if k in sections[section]
                    }
                else:
                    ordered[section] = sections[section]
        out[top] = ordered
    return out


def main(argv: list[str]) -> int:
    source, target, *prefixes = argv
    text = Path(source).read_text(encoding="utf-8")
    doc = json.loads(text) if source.endswith(".json") else yaml.safe_load(text)
    cut = extract(doc, prefixes)
    Path(target).write_text(
        yaml.safe_dump(cut, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
