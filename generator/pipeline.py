"""The generator's stages, end to end: load -> model -> render -> format -> write."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import attrs

from .model import ir
from .model.build import load_and_build, package_problem
from .problems import Location, SpecError
from .render.manifest import MANIFEST, render_manifest
from .render.output import Drift, compare, is_kept, write_tree
from .render.render import render_sdk

__all__ = ["Generated", "Target", "check", "generate", "render"]


@attrs.frozen
class Target:
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


@attrs.frozen
class Generated:
    """What one generation produced: the model, the file count and size, and the time."""

    sdk: ir.Sdk
    files: int
    lines: int
    seconds: float


def _render(target: Target) -> tuple[ir.Sdk, dict[str, str]]:
    sdk = load_and_build(
        target.spec, package=target.package, jobs_file=target.jobs, version=target.version
    )
    if target.package is None and (problem := package_problem(sdk.package)):
        raise SpecError.at(
            Location(str(target.spec), "/info/title"),
            f"{problem} (the name comes from the title: choose one with --package)",
        )
    rendered = render_sdk(sdk, target.spec.name)
    files = {r: t for r, t in rendered.items() if not is_kept(r, target.keep)}
    options: dict[str, Any] = {"package": sdk.package, "version": sdk.sdk_version}
    if target.keep:
        options["keep"] = list(target.keep)
    files[MANIFEST] = render_manifest(sdk, files, options)
    return sdk, files


def render(target: Target) -> dict[str, str]:
    """Every file of a target's SDK, as written, in memory; raises SpecError on bad input."""
    return _render(target)[1]


def generate(target: Target) -> Generated:
    """Generate a target's SDK into its output directory (atomically)."""
    started = time.perf_counter()
    sdk, files = _render(target)
    inputs = [target.spec] if target.jobs is None else [target.spec, target.jobs]
    write_tree(files, target.output, target.keep, inputs)
    lines = sum(text.count("\n") for text in files.values())
    return Generated(sdk, len(files), lines, time.perf_counter() - started)


def check(target: Target) -> Drift:
    """How the SDK on disk differs from what :func:`generate` would write (same bytes)."""
    return compare(render(target), target.output, str(target.output), target.keep)
