"""``[tool.jobgen]`` in pyproject.toml (or a ``jobgen.toml``): the SDKs one command regenerates.

```toml
[[tool.jobgen.sdk]]
spec = "specs/sume.yaml"
output = "generated/sume"
package = "sume_sdk"
jobs = "specs/sume.jobs.yaml"   # optional side file of job declarations
```
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .pipeline import Target
from .problems import Location, Problem, SpecError

__all__ = ["find_config", "load_targets"]


def find_config(start: Path) -> Path | None:
    """The nearest jobgen.toml, or pyproject.toml with a [tool.jobgen] table."""
    for directory in (start, *start.parents):
        candidate = directory / "jobgen.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError):
                return pyproject
            if "jobgen" in data.get("tool", {}):
                return pyproject
    return None


def load_targets(path: Path) -> list[Target]:
    """Targets listed in a config file; paths are relative to the file."""
    name = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError.at(Location(name), f"is not valid TOML: {exc}") from None
    table: Any = data.get("tool", {}).get("jobgen") if path.name == "pyproject.toml" else data
    at = Location(name, "/tool/jobgen" if path.name == "pyproject.toml" else "")
    if not isinstance(table, dict) or not isinstance(table.get("sdk"), list) or not table["sdk"]:
        raise SpecError.at(
            at.child("sdk"), "expected a list of [[sdk]] tables, each with 'spec' and 'output'"
        )
    problems: list[Problem] = []
    targets: list[Target] = []
    base = path.parent
    for index, entry in enumerate(table["sdk"]):
        entry_at = at.child("sdk", index)
        if not isinstance(entry, dict):
            problems.append(Problem(entry_at, "must be a table"))
            continue
        for key in entry:
            if key not in ("spec", "output", "package", "jobs"):
                problems.append(
                    Problem(
                        entry_at.child(key),
                        f"unknown key '{key}' (known: spec, output, package, jobs)",
                    )
                )
        missing = [k for k in ("spec", "output") if not isinstance(entry.get(k), str)]
        for key in missing:
            problems.append(Problem(entry_at.child(key), "is required and must be a string"))
        if missing:
            continue
        package = entry.get("package")
        jobs = entry.get("jobs")
        targets.append(
            Target(
                spec=_relative(base, entry["spec"]),
                output=_relative(base, entry["output"]),
                package=package if isinstance(package, str) else None,
                jobs=_relative(base, jobs) if isinstance(jobs, str) else None,
            )
        )
    if problems:
        raise SpecError(problems)
    return targets


def _relative(base: Path, value: str) -> Path:
    path = Path(value)
    if path.is_absolute():
        return path
    try:
        return (base / path).relative_to(Path.cwd())
    except ValueError:
        return base / path
