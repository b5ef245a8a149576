"""The generator's stages, end to end: load -> model -> render -> format -> write."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from .fieldwise import Node
from .model import ir
from .model.build import load_and_build, package_problem
from .problems import Location, Problem, SpecError
from .render.manifest import MANIFEST, render_manifest
from .render.output import Drift, compare, is_kept, write_tree
from .render.render import render_sdk

__all__ = [
    "Generated",
    "Target",
    "check",
    "check_all",
    "generate",
    "generate_all",
    "load_target",
    "problems_of",
    "render",
    "render_all",
]


@attrs.frozen(eq=False, repr=False)
class Target(Node):
    """One SDK to generate: a spec, optional side file of job declarations, output, package
    and the SDK's own version (None: derived from the spec's ``info.version``)."""

    spec: Path
    output: Path
    package: str | None = None
    jobs: Path | None = None
    version: str | None = None
    keep: tuple[str, ...] = ()
    """Paths (fnmatch patterns, relative to the output) that the user owns: jobgen never
    writes, compares or deletes them."""
    auth_prefix: tuple[tuple[str, str], ...] = ()
    """The word sent before an API key, by apiKey security scheme (the config's
    ``auth_prefix``); it overrides the one read from the spec."""
    auth_prefix_at: Location | None = attrs.field(default=None, eq=False)
    """Where ``auth_prefix`` is written, for its problems."""
    ref_root: Path | None = None
    """A folder holding the spec's own that its ``$ref``s may reach into (``--ref-root``)."""
    version_check: str = "fail"
    """What the CI report does with an addition released without a minor version bump:
    ``fail`` or ``warn`` (python -m jobgen.ci)."""


@attrs.frozen(eq=False, repr=False)
class Generated(Node):
    """What one generation produced: the model, the file count and size, and the time."""

    sdk: ir.Sdk
    files: int
    lines: int
    seconds: float


def _render(target: Target) -> tuple[ir.Sdk, dict[str, str]]:
    sdk = load_target(target)
    rendered = render_sdk(sdk, target.spec.name)
    files = {r: t for r, t in rendered.items() if not is_kept(r, target.keep)}
    options: dict[str, Any] = {"package": sdk.package, "version": sdk.sdk_version}
    if target.keep:
        options["keep"] = list(target.keep)
    if target.auth_prefix:
        options["auth_prefix"] = dict(target.auth_prefix)
    files[MANIFEST] = render_manifest(sdk, files, options)
    return sdk, files


def problems_of(targets: Sequence[Target]) -> list[Problem]:
    """Every problem of each target's spec, side file and options, as generation would
    find them (nothing rendered): one run reports them all."""
    found: list[Problem] = []
    for target in targets:
        try:
            load_target(target)
        except SpecError as exc:
            found.extend(exc.problems)
    return found


def load_target(target: Target) -> ir.Sdk:
    """The SDK model of a target (its spec, side file and options); raises SpecError."""
    sdk = load_and_build(
        target.spec,
        package=target.package,
        jobs_file=target.jobs,
        version=target.version,
        auth_prefix=dict(target.auth_prefix),
        auth_prefix_at=target.auth_prefix_at,
        ref_root=target.ref_root,
    )
    if target.package is None and (problem := package_problem(sdk.package)):
        raise SpecError.at(
            Location(str(target.spec), "/info/title"),
            f"{problem} (the name comes from the title: choose one with --package)",
        )
    return sdk


def render(target: Target) -> dict[str, str]:
    """Every file of a target's SDK, as written, in memory; raises SpecError on bad input."""
    return _render(target)[1]


def generate(target: Target) -> Generated:
    """Generate a target's SDK into its output directory (atomically)."""
    started = time.perf_counter()
    sdk, files = _render(target)
    return _write(target, sdk, files, time.perf_counter() - started)


def _write(target: Target, sdk: ir.Sdk, files: dict[str, str], seconds: float) -> Generated:
    started = time.perf_counter()
    inputs = [target.spec] if target.jobs is None else [target.spec, target.jobs]
    write_tree(files, target.output, target.keep, inputs)
    lines = sum(text.count("\n") for text in files.values())
    return Generated(sdk, len(files), lines, seconds + time.perf_counter() - started)


def check(target: Target) -> Drift:
    """How the SDK on disk differs from what :func:`generate` would write (same bytes)."""
    return compare(render(target), target.output, str(target.output), target.keep)


_Rendered = tuple[ir.Sdk, dict[str, str], float]


@attrs.frozen(eq=False, repr=False)
class _Failed(Node):
    problems: tuple[Problem, ...]


def _timed_render(target: Target) -> _Rendered | _Failed:
    started = time.perf_counter()
    try:
        sdk, files = _render(target)
    except SpecError as exc:
        return _Failed(exc.problems)  # returned, not raised: every target's are reported
    return sdk, files, time.perf_counter() - started


def _render_all(targets: Sequence[Target]) -> list[_Rendered]:
    """Every target rendered in memory, several at once in worker processes (one per core);
    raises one SpecError with the problems of every target that has any."""
    workers = min(len(targets), os.cpu_count() or 1)
    if workers <= 1:
        results = [_timed_render(target) for target in targets]
    else:
        # Imported here: a run with one SDK does without them (30 ms).
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            results = list(pool.map(_timed_render, targets))
    problems = [p for r in results if isinstance(r, _Failed) for p in r.problems]
    if problems:
        raise SpecError(problems)
    return [r for r in results if not isinstance(r, _Failed)]


def render_all(targets: Sequence[Target]) -> list[dict[str, str]]:
    """:func:`render` of several targets, in parallel (one worker process per core, as
    :func:`generate_all` renders): every file of each SDK, in memory, nothing written.
    Raises one SpecError with the problems of every target that has any."""
    return [files for _, files, _ in _render_all(targets)]


def generate_all(targets: Sequence[Target]) -> list[Generated]:
    """Generate several SDKs: all are rendered (in parallel) before any is written, so bad
    input in one of them writes none."""
    rendered = _render_all(targets)
    return [_write(t, *r) for t, r in zip(targets, rendered)]


def check_all(targets: Sequence[Target]) -> list[Drift]:
    """:func:`check` of several targets, rendered in parallel."""
    rendered = _render_all(targets)
    return [compare(f, t.output, str(t.output), t.keep) for t, (_, f, _) in zip(targets, rendered)]
