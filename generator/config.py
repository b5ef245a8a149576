"""``[tool.jobgen]`` in pyproject.toml or jobgen.toml: the SDKs one command regenerates.

```toml
[[tool.jobgen.sdk]]
spec = "specs/sume.yaml"        # required
output = "generated/sume"       # required
package = "sume_sdk"            # import name; default: from the spec's title
jobs = "specs/sume.jobs.yaml"   # side file of job declarations
version = "1.2.0"               # the SDK's own version, or:
version_from = "spec"           # (the default) the numbers of the spec's info.version
keep = ["README.md"]            # files (fnmatch patterns) the user owns: never written
auth_prefix = { authHeader = "DeepL-Auth-Key" }  # apiKey scheme -> word sent before the key
ref_root = "specs"              # a folder holding the spec's own that its $refs may reach
```

jobgen.toml holds the same ``[tool.jobgen]`` table, or (shorter) top-level ``[[sdk]]``
tables. Paths are relative to the config file. Every problem is reported at once, each
with the config file and the JSON pointer of the value.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

from .model.build import package_problem, version_problem
from .pipeline import Target
from .problems import Location, Problem, SpecError, did_you_mean
from .render.manifest import MANIFEST

__all__ = ["find_config", "keep_problem", "load_targets", "no_jobs_hint", "read_targets"]

_KEYS = (
    "spec",
    "output",
    "package",
    "jobs",
    "version",
    "version_from",
    "keep",
    "auth_prefix",
    "ref_root",
    "version_check",
)
_VERSION_FROM = ("spec",)
_VERSION_CHECK = ("fail", "warn")


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


def _table(data: dict[str, Any], path: Path, at: Location) -> tuple[Any, Location]:
    """The table that lists the SDKs, and where it is."""
    tool = data.get("tool")
    nested = tool.get("jobgen") if isinstance(tool, dict) else None
    if path.name == "pyproject.toml":
        return nested, at.child("tool", "jobgen")
    if nested is not None and "sdk" in data:
        raise SpecError.at(
            at.child("sdk"),
            "list the SDKs either in [tool.jobgen] or as top-level [[sdk]] tables, not both",
        )
    if nested is not None:
        return nested, at.child("tool", "jobgen")
    return data, at


def load_targets(path: Path) -> list[Target]:
    """Targets listed in a config file; paths are relative to the file."""
    targets, problems = read_targets(path)
    if problems:
        raise SpecError(problems)
    return targets


def read_targets(path: Path) -> tuple[list[Target], list[Problem]]:
    """The entries of a config file that are sound, as targets, and the problems of the
    others (so that a run can report the problems of the specs those targets name too).
    A file that cannot be read as a config at all raises SpecError."""
    name = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError.at(Location(name), "file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError.at(Location(name), f"is not valid TOML: {exc}") from None
    table, at = _table(data, path, Location(name))
    if not isinstance(table, dict) or not isinstance(table.get("sdk"), list) or not table["sdk"]:
        raise SpecError.at(
            at.child("sdk"), "expected a list of [[sdk]] tables, each with 'spec' and 'output'"
        )
    problems: list[Problem] = [
        Problem(
            at.child(key),
            f"unknown key '{key}'{did_you_mean(str(key), ['sdk']) or ' (known: sdk)'}",
        )
        for key in table
        if key != "sdk"
    ]
    targets: list[Target] = []
    outputs: dict[Path, int] = {}
    for index, entry in enumerate(table["sdk"]):
        target = _target(entry, at.child("sdk", index), path.parent, problems)
        if target is None:
            continue
        # Two SDKs written to one folder: the second would replace the first.
        first = outputs.setdefault(Path(os.path.abspath(target.output)), index)
        if first != index:
            problems.append(
                Problem(
                    at.child("sdk", index, "output"),
                    f"{str(target.output)!r} is also the output of sdk entry {first}:"
                    " each SDK needs a folder of its own",
                )
            )
        targets.append(target)
    return targets, problems


def _target(entry: Any, at: Location, base: Path, problems: list[Problem]) -> Target | None:
    if not isinstance(entry, dict):
        problems.append(Problem(at, "must be a table"))
        return None
    count = len(problems)
    unknown = 0  # an unknown key alone leaves the entry's spec to be checked too
    for key, value in entry.items():
        if key not in _KEYS:
            hint = did_you_mean(str(key), _KEYS) or f" (known: {', '.join(_KEYS)})"
            problems.append(Problem(at.child(key), f"unknown key '{key}'{hint}"))
            unknown += 1
        elif key == "keep":
            if not isinstance(value, list):
                problems.append(
                    Problem(at.child(key), f"must be an array of strings, not {_toml_type(value)}")
                )
                continue
            for index, pattern in enumerate(value):
                problem = (
                    f"must be a string, not {_toml_type(pattern)}"
                    if not isinstance(pattern, str)
                    else keep_problem(pattern)
                )
                if problem:
                    problems.append(Problem(at.child(key, index), problem))
        elif key == "auth_prefix":
            if not isinstance(value, dict):
                problems.append(Problem(at.child(key), f"must be a table, not {_toml_type(value)}"))
                continue
            for scheme, word in value.items():
                if not isinstance(word, str):
                    problems.append(
                        Problem(at.child(key, scheme), f"must be a string, not {_toml_type(word)}")
                    )
        elif not isinstance(value, str):
            problems.append(Problem(at.child(key), f"must be a string, not {_toml_type(value)}"))
    for key in ("spec", "output"):
        if key not in entry:
            problems.append(Problem(at.child(key), "is required and must be a string"))
    if len(problems) > count + unknown:
        return None
    package, version, version_from = (entry.get(k) for k in ("package", "version", "version_from"))
    if package is not None and (problem := package_problem(package)):
        problems.append(Problem(at.child("package"), problem))
    if version is not None and (problem := version_problem(version)):
        problems.append(Problem(at.child("version"), problem))
    if version_from is not None and version_from not in _VERSION_FROM:
        problems.append(
            Problem(at.child("version_from"), f"must be one of: {', '.join(_VERSION_FROM)}")
        )
    if entry.get("version_check", "fail") not in _VERSION_CHECK:
        problems.append(
            Problem(at.child("version_check"), f"must be one of: {', '.join(_VERSION_CHECK)}")
        )
    if version is not None and version_from is not None:
        problems.append(
            Problem(at.child("version_from"), "give either 'version' or 'version_from', not both")
        )
    for key in ("spec", "output", "jobs", "ref_root"):
        if key in entry and not entry[key].strip():
            problems.append(Problem(at.child(key), "must not be empty"))
    if len(problems) > count + unknown:
        return None
    jobs = entry.get("jobs")
    ref_root = entry.get("ref_root")
    return Target(
        spec=_relative(base, entry["spec"]),
        output=_relative(base, entry["output"]),
        package=package,
        jobs=_relative(base, jobs) if jobs is not None else None,
        version=version,
        keep=tuple(entry.get("keep", ())),
        auth_prefix=tuple(sorted(entry.get("auth_prefix", {}).items())),
        auth_prefix_at=at.child("auth_prefix"),
        ref_root=_relative(base, ref_root) if ref_root is not None else None,
        version_check=entry.get("version_check", "fail"),
    )


def keep_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot name files the user keeps in the output, or None."""
    parts = PurePosixPath(pattern).parts
    if not pattern.strip() or pattern.startswith("/") or "\\" in pattern or ".." in parts:
        return f"{pattern!r} must be a path inside the output directory, with '/' separators"
    if fnmatch.fnmatchcase(MANIFEST, pattern):
        return f"{pattern!r} would keep {MANIFEST}, which jobgen must write"
    return None


def _toml_type(value: Any) -> str:
    for kind, label in ((bool, "a boolean"), (int, "a number"), (float, "a number")):
        if isinstance(value, kind):
            return label
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date or time"


def _relative(base: Path, value: str) -> Path:
    """The path as the user will read it in messages: relative to the cwd where it can be."""
    path = Path(value)
    if path.is_absolute():
        return path
    try:
        return (base / path).relative_to(Path.cwd())
    except ValueError:
        return base / path


_SIDE_FILE_SUFFIXES = (".jobs.yaml", ".jobs.yml", ".jobs.json")


def no_jobs_hint(spec: Path, jobs: Path | None, command: str = "generate") -> str:
    """What to tell someone whose spec (with side file ``jobs``, if any) declared no job:
    the side file they most likely forgot, else how jobs are declared. ``command`` is the
    jobgen command they ran; ``generate`` and ``validate`` also run from the config."""
    if jobs is None:
        config = find_config(Path.cwd())
        named = _side_file_in_config(config, spec) if config is not None else None
        if config is not None and named is not None:
            if config.is_relative_to(Path.cwd()):
                config = config.relative_to(Path.cwd())
            hint = f"{config} names {named} as its side file: pass it with --jobs {named}"
            if command in ("generate", "validate"):
                hint += f", or run `jobgen {command}` with no SPEC to use the config"
            return hint
        beside = _side_file_beside(spec)
        if beside is not None:
            return (
                f"{beside} sits beside the spec: pass it with --jobs {beside}"
                " (or set jobs = ... for this spec in [tool.jobgen])"
            )
    return (
        "the SDK is a plain client without waiters; declare the jobs with an x-jobgen "
        "mapping in the spec or a side file passed with --jobs, which "
        f"`jobgen jobs init {shlex.quote(str(spec))}` drafts (docs/job-extension.md)"
    )


def _side_file_in_config(config: Path, spec: Path) -> Path | None:
    """The side file ``config`` lists for ``spec``, if any."""
    try:
        targets = load_targets(config)
    except SpecError:
        return None
    for target in targets:
        if target.jobs is not None and _same_file(target.spec, spec):
            return target.jobs
    return None


_SIDE_FILE_SUFFIXES = (".jobs.yaml", ".jobs.yml", ".jobs.json")


def _side_file_beside(spec: Path) -> Path | None:
    """A side file in the spec's folder: ``<spec stem>.jobs.yaml`` first, else any."""
    try:
        beside = sorted(
            child
            for child in spec.parent.iterdir()
            if child.name.endswith(_SIDE_FILE_SUFFIXES) and child.is_file()
        )
    except OSError:
        return None
    stem = spec.name.split(".")[0] + "."
    beside.sort(key=lambda child: not child.name.startswith(stem))
    return beside[0] if beside else None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
