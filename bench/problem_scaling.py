"""How `jobgen validate` scales with the problems of a spec (issue 35, item 3: 8,000
misspelt keys took 64 s; 20,000 schemas with 400 dangling refs 214 s).

Usage: python bench/problem_scaling.py [--keys 1000,4000,8000,20000]
       [--refs 100,400,4000,20000] [--schemas 20000] [--md OUT]

Two families of specs, each validated by `jobgen validate` in a fresh process:

- ``keys``: N operations, each with a parameter whose ``required`` is misspelt
  ``requird``: N problems of the OpenAPI-schema check (50 shown, the rest counted).
- ``refs``: ``--schemas`` schemas, N of them with a property whose ``$ref`` names a schema
  that does not exist (``Schemma<i>`` for ``Schema<i>``): N dangling refs, each with its
  "did you mean" among the schema names.

Prints a Markdown table: wall seconds, CPU seconds of the process, peak RSS, the problems
reported, and CPU microseconds per problem (flat when the check is linear).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
JOBGEN = Path(sys.executable).with_name("jobgen")


def keys_spec(count: int) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Keys", "version": "1"},
        "paths": {
            f"/p{i}": {
                "get": {
                    "operationId": f"op{i}",
                    "parameters": [
                        {"name": "x", "in": "query", "requird": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
            for i in range(count)
        },
    }


def refs_spec(count: int, schemas: int) -> dict[str, Any]:
    named: dict[str, Any] = {
        f"Schema{i}": {"type": "object", "properties": {"v": {"type": "string"}}}
        for i in range(schemas)
    }
    for i in range(count):
        named[f"Schema{i}"]["properties"]["r"] = {"$ref": f"#/components/schemas/Schemma{i}"}
    ok = {
        "description": "ok",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Schema0"}}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Refs", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": ok}}}},
        "components": {"schemas": named},
    }


def measure(path: Path) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS (KiB) and problems found (shown and counted)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(
            [str(JOBGEN), "validate", str(path)], stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        err.seek(0)
        lines = err.read().splitlines()
    if child.returncode != 2:
        raise SystemExit(f"{path.name}: exit {child.returncode}\n" + "\n".join(lines[-20:]))
    problems = 0
    for line in lines:
        more = re.search(r"and ([0-9,]+) more place", line)
        if more is not None:
            problems += int(more.group(1).replace(",", ""))
        elif line.startswith("error: "):
            problems += 1
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", default="1000,4000,8000,20000")
    parser.add_argument("--refs", default="100,400,4000,20000")
    parser.add_argument("--schemas", type=int, default=20000)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args()
    rows = ["| spec | problems | wall s | CPU s | CPU µs per problem | peak RSS MB |"]
    rows.append("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        cases: list[tuple[str, dict[str, Any]]] = [
            (f"{int(n):,} misspelt keys", keys_spec(int(n))) for n in args.keys.split(",") if n
        ]
        cases += [
            (f"{args.schemas:,} schemas, {int(n):,} dangling refs", refs_spec(int(n), args.schemas))
            for n in args.refs.split(",")
            if n
        ]
        for index, (label, spec) in enumerate(cases):
            path = Path(folder) / f"spec{index}.json"
            path.write_text(json.dumps(spec), encoding="utf-8")
            wall, cpu, rss, problems = measure(path)
            row = (
                f"| {label} | {problems:,} | {wall:.2f} | {cpu:.2f} |"
                f" {cpu / max(problems, 1) * 1e6:,.0f} | {rss / 1024:.0f} |"
            )
            rows.append(row)
            print(row, flush=True)
    if args.md is not None:
        args.md.write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
