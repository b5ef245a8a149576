"""The CI report: for every SDK the config lists, is the generated code current, and what
does the spec change break for its callers? Run as ``python -m jobgen.ci``; the GitHub
Action (``action.yml``) runs it and posts the report as the job summary.

```console
$ python -m jobgen.ci --base origin/main [--config jobgen.toml] [--summary FILE]
```

The stale check is ``jobgen generate --check`` for each SDK; the breaking-change report is
``jobgen diff git:BASE:SPEC SPEC``. A spec that did not exist at the base revision is
reported as new. The report (Markdown) is appended to ``--summary``, by default to
``$GITHUB_STEP_SUMMARY`` when that is set, and printed otherwise. The base defaults to
``origin/$GITHUB_BASE_REF`` in a pull request; without one only the stale check runs.

The SDK's version is held to what the comparison found: a breaking change needs a major bump
(0.x: a minor one), an addition a minor bump (0.x: a patch), measured from the SDK's version at
the base revision (its config ``version``, else the numbers of the spec's ``info.version``).
A missing major bump fails unless ``--allow-breaking``, which then warns that it is missing; a
missing minor bump fails, or warns where the SDK's config says ``version_check = "warn"``.

Exit codes: 0 every SDK is current, and every change has its version bump (or is let through);
1 an SDK is stale, or a change lacks its bump; 2 bad input (config, a spec that does not validate at
either revision, an unknown base revision), each problem named in the report; 70 an
internal error.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import attrs

from .config import find_config, load_targets
from .diff import Report, diff_sdks, load_sdk, render_text
from .pipeline import Target, check
from .problems import SpecError, counted

__all__ = ["SdkResult", "main", "render_summary", "run"]

EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 70
DIFF_LINES = 200


@attrs.frozen
class SdkResult:
    """What the report says about one SDK."""

    target: Target
    stale: tuple[str, ...] = ()
    drift: str = ""
    report: Report | None = None
    new_spec: bool = False
    errors: tuple[str, ...] = ()
    versions: Versions | None = None
    """The SDK's version at the base revision and now, when both were read."""

    @property
    def breaking(self) -> bool:
        return self.report is not None and bool(self.report.breaking)


@attrs.frozen
class Versions:
    """An SDK's version at the base revision and now, and the spec's ``info.version`` now."""

    old: str
    new: str
    spec: str


class _Stop(Exception):
    """A problem that stops the whole report (no config, no git, an unknown base)."""


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise _Stop("git is not installed") from None


def _top() -> Path:
    done = _git("rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise _Stop("not inside a git repository: the base revision cannot be read")
    return Path(done.stdout.strip())


def _at_base(base: str, top: Path, path: Path) -> str | None:
    """``path`` relative to the repository's top, if it exists at ``base``."""
    relative = path.resolve().relative_to(top.resolve()).as_posix()
    return relative if _git("cat-file", "-e", f"{base}:{relative}").returncode == 0 else None


def _check(target: Target) -> tuple[tuple[str, ...], str]:
    drift = check(target)
    names = tuple(f"{name} ({what})" if name else what for name, what in drift.entries())
    return names, drift.diff_text()


def _compare(target: Target, base: str, top: Path) -> tuple[Report | None, bool, Versions | None]:
    """The report for one SDK, or (None, True, None) when its spec is new since ``base``;
    and the versions derived from the spec at ``base`` and now (a pinned version in the
    config replaces them later)."""
    old_spec = _at_base(base, top, target.spec)
    if old_spec is None:
        return None, True, None
    old_jobs = _at_base(base, top, target.jobs) if target.jobs is not None else None
    old = load_sdk(f"git:{base}:{old_spec}", f"git:{base}:{old_jobs}" if old_jobs else None)
    new = load_sdk(str(target.spec), str(target.jobs) if target.jobs is not None else None)
    return diff_sdks(old, new), False, Versions(old.sdk_version, new.sdk_version, new.version)


def _one(target: Target, base: str | None, top: Path | None) -> SdkResult:
    errors: list[str] = []
    stale: tuple[str, ...] = ()
    drift = ""
    report: Report | None = None
    new_spec = False
    versions: Versions | None = None
    try:
        stale, drift = _check(target)
    except SpecError as exc:
        errors.extend(str(p) for p in exc.problems)
    except OSError as exc:
        errors.append(str(exc))
    if base is not None and top is not None:
        try:
            report, new_spec, versions = _compare(target, base, top)
        except SpecError as exc:
            errors.extend(str(p) for p in exc.problems if str(p) not in errors)
        except (OSError, ValueError, _Stop) as exc:
            errors.append(str(exc))
    return SdkResult(target, stale, drift, report, new_spec, tuple(errors), versions)


def run(config: Path, base: str | None) -> list[SdkResult]:
    """Check every SDK ``config`` lists; compare its spec with ``base`` when given."""
    targets = load_targets(config)
    top = None
    if base is not None:
        top = _top()
        if _git("rev-parse", "--verify", "--quiet", f"{base}^{{commit}}").returncode != 0:
            raise _Stop(
                f"unknown base revision {base!r} (fetch it, e.g. actions/checkout with fetch-depth: 0)"
            )
    return [_one(target, base, top) for target in targets]


def _fenced(text: str, lang: str = "text") -> str:
    """A code block no backtick run inside ``text`` can close."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def _status(result: SdkResult) -> tuple[str, str]:
    if result.errors:
        return "error", "error"
    code = f"stale ({counted(len(result.stale), 'file')})" if result.stale else "up to date"
    if result.new_spec:
        return code, "new spec (absent at the base revision)"
    report = result.report
    if report is None:
        return code, "not compared"
    if not report.changes:
        return code, "no changes"
    return code, (
        f"{len(report.breaking)} breaking, {len(report.additions)} "
        f"addition{'' if len(report.additions) == 1 else 's'}, "
        f"{len(report.others)} other; suggested bump: {report.bump}"
    )


def render_summary(results: Sequence[SdkResult], base: str | None) -> str:
    """The Markdown report: a table of every SDK, then the details of each."""
    lines = ["## jobgen: generated SDKs", ""]
    lines.append(
        f"Specs compared with {_code(base)}." if base else "No base revision: stale check only."
    )
    lines += ["", "| SDK | Spec | Generated code | Changes for SDK callers |", "|---|---|---|---|"]
    for result in results:
        code, changes = _status(result)
        target = result.target
        lines.append(
            f"| {_code(str(target.output))} | {_code(str(target.spec))} | {code} | {changes} |"
        )
    for result in results:
        details = _details(result)
        if details:
            lines += ["", f"### {_code(str(result.target.output))}", "", *details]
    return "\n".join(lines) + "\n"


def _details(result: SdkResult) -> list[str]:
    out: list[str] = []
    if result.errors:
        out += ["Problems (exit 2):", "", _fenced("\n".join(result.errors)), ""]
    if result.stale:
        out += [
            "Generated code is stale: run `jobgen generate` and commit the result.",
            "",
            *(f"- {_code(name)}" for name in result.stale),
            "",
        ]
        diff = result.drift.splitlines()
        if diff:
            shown = diff[:DIFF_LINES]
            if len(diff) > DIFF_LINES:
                shown.append(f"... cut at {DIFF_LINES} of {len(diff)} lines")
            out += [
                "<details><summary>Diff</summary>",
                "",
                _fenced("\n".join(shown), "diff"),
                "",
                "</details>",
                "",
            ]
    if result.report is not None and result.report.changes:
        text = _fenced(render_text(result.report))
        if result.breaking:
            out += [text, ""]
        else:
            out += ["<details><summary>What changed</summary>", "", text, "", "</details>", ""]
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m jobgen.ci",
        description="Stale check and breaking-change report for every SDK the config lists.",
    )
    parser.add_argument(
        "--base",
        help="revision to compare each spec with (default: origin/$GITHUB_BASE_REF, if set)",
    )
    parser.add_argument(
        "--config", type=Path, help="jobgen.toml or pyproject.toml (default: found)"
    )
    parser.add_argument(
        "--summary",
        type=Path,
        help="append the Markdown report here (default: $GITHUB_STEP_SUMMARY, else print it)",
    )
    parser.add_argument(
        "--allow-breaking",
        action="store_true",
        help="report breaking changes without failing (exit 0)",
    )
    return parser


def _write(summary: Path | None, text: str) -> None:
    if summary is None:
        print(text, end="")
        return
    with summary.open("a", encoding="utf-8") as handle:
        handle.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    base = args.base or (
        f"origin/{os.environ['GITHUB_BASE_REF']}" if os.environ.get("GITHUB_BASE_REF") else None
    )
    summary = args.summary or (
        Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None
    )
    config = args.config or find_config(Path.cwd())
    try:
        if config is None:
            raise _Stop("no [tool.jobgen] in pyproject.toml (or jobgen.toml) found")
        results = run(config, base)
    except SpecError as exc:
        problems = [str(p) for p in exc.problems]
        _write(summary, "## jobgen: generated SDKs\n\n" + _fenced("\n".join(problems)) + "\n")
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_INPUT
    except _Stop as exc:
        _write(summary, f"## jobgen: generated SDKs\n\n{exc}\n")
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - a report, never a bare traceback
        print(f"jobgen: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    _write(summary, render_summary(results, base))
    if summary is not None:
        for result in results:
            code, changes = _status(result)
            print(f"{result.target.output}: {code}; {changes}")
            for error in result.errors:
                print(f"error: {error}", file=sys.stderr)
    if any(r.errors for r in results):
        return EXIT_INPUT
    pinned = _pinned_at_base(config, base) if base is not None else {}
    failed = False
    for result in results:
        for line in _verdict(result, args.allow_breaking, config, pinned):
            failed = failed or line.startswith("error:")
            print(line, file=sys.stderr)
    return EXIT_FAILED if failed else 0


def _verdict(
    result: SdkResult, allow_breaking: bool, config: Path, pinned: dict[str, str]
) -> list[str]:
    """The last lines of a run for one SDK: why it fails, and what lets it through."""
    out = str(result.target.output)
    lines = []
    if result.stale:
        lines.append(f"error: {out} is stale: run `jobgen generate` and commit the result")
    report, versions = result.report, result.versions
    if report is None or versions is None or report.bump not in ("major", "minor"):
        return lines
    version = result.target.version
    old = pinned.get(_key(result.target.output, config), versions.old if version is None else None)
    new = version if version is not None else versions.new
    needed = report.bump
    made = _bump_between(old, new) if old is not None else None
    if made is not None and _LEVELS.index(made) >= _LEVELS.index(needed):
        return lines
    if version is None:
        where = (
            f'info.version = "{_next(versions.spec, needed)}" in {result.target.spec}, '
            f'now "{versions.spec}"; the SDK\'s version follows it'
        )
    else:
        where = f'version = "{_next(version, needed)}" for {out} in {config.name}'
    if needed == "major":
        breaking = len(report.breaking)
        count = counted(breaking, "change") + (" breaks" if breaking == 1 else " break")
        if allow_breaking:
            if version is not None and old == version:
                lines.append(
                    f'warning: {out} keeps version = "{version}" from the base revision in '
                    f"{config.name} although {count} callers: set {where}"
                )
            else:
                lines.append(
                    f"warning: {out}: {count} callers and the major version bump is still "
                    f"missing: set {where}"
                )
            return lines
        lines.append(f"error: {result.target.spec}: {count} SDK callers (suggested bump: major)")
        lines.append(
            f"  to release {'it' if breaking == 1 else 'them'}, bump the major version "
            f"({where}), or let the check through with --allow-breaking (the Action's "
            "allow-breaking input, e.g. from a 'breaking-change' label: docs/ci.md)"
        )
        return lines
    additions = counted(len(report.additions), "addition")
    level = "warning" if result.target.version_check == "warn" else "error"
    lines.append(
        f"{level}: {result.target.spec}: {additions} without a minor version bump: set {where}"
        + ("" if level == "warning" else ' (or version_check = "warn" in its config entry)')
    )
    return lines


_LEVELS = ("none", "patch", "minor", "major")


def _bump_between(old: str, new: str) -> str:
    """The bump from ``old`` to ``new``, read as semantic versions; in 0.x the minor number
    announces breaking changes and the patch number additions."""
    from packaging.version import InvalidVersion, Version

    try:
        a, b = Version(old), Version(new)
    except InvalidVersion:
        return "none"
    if b <= a:
        return "none"
    if a.major == 0 and b.major == 0:
        if b.minor > a.minor:
            return "major"
        return "minor" if b.micro > a.micro else "patch"
    if b.major > a.major:
        return "major"
    if b.minor > a.minor:
        return "minor"
    return "patch"


def _next(version: str, bump: str) -> str:
    """The next version that announces ``bump`` ("major" or "minor"; 0.x one place lower)."""
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        return version
    major, minor, micro = parsed.major, parsed.minor, parsed.micro
    if major == 0:
        return f"0.{minor + 1}.0" if bump == "major" else f"0.{minor}.{micro + 1}"
    return f"{major + 1}.0.0" if bump == "major" else f"{major}.{minor + 1}.0"


def _key(output: Path, config: Path) -> str:
    """An SDK's output folder as its config writes it, whatever folder the config is in."""
    try:
        return output.resolve().relative_to(config.parent.resolve()).as_posix()
    except ValueError:
        return output.as_posix()


def _pinned_at_base(config: Path, base: str) -> dict[str, str]:
    """Each SDK's pinned ``version`` in the config as it was at ``base``, by output."""
    import tempfile

    try:
        top = _top()
        relative = _at_base(base, top, config)
    except (_Stop, ValueError):
        return {}
    if relative is None:
        return {}
    shown = _git("show", f"{base}:{relative}")
    if shown.returncode != 0:
        return {}
    with tempfile.TemporaryDirectory(prefix="jobgen-ci-") as tmp:
        old = Path(tmp) / config.name
        old.write_text(shown.stdout, encoding="utf-8")
        try:
            targets = load_targets(old)
        except SpecError:
            return {}
        return {_key(t.output, old): t.version for t in targets if t.version is not None}


if __name__ == "__main__":
    sys.exit(main())
