"""The generator's stages, end to end: load -> model -> render -> format -> write."""

from __future__ import annotations

import time
from pathlib import Path

import attrs

from .model import ir
from .model.build import load_and_build
from .render.output import Drift, compare, write_tree
from .render.render import render_sdk

__all__ = ["Generated", "Target", "check", "generate", "render"]


@attrs.frozen
class Target:
    """One SDK to generate: a spec, optional side file of job declarations, output and package."""

    spec: Path
    output: Path
    package: str | None = None
    jobs: Path | None = None


@attrs.frozen
class Generated:
    """What one generation produced: the model, the file count and size, and the time."""

    sdk: ir.Sdk
    files: int
    lines: int
    seconds: float


def _render(target: Target) -> tuple[ir.Sdk, dict[str, str]]:
    sdk = load_and_build(target.spec, package=target.package, jobs_file=target.jobs)
    return sdk, render_sdk(sdk, target.spec.name)


def render(target: Target) -> dict[str, str]:
    """Every file of a target's SDK, formatted, in memory; raises SpecError on bad input."""
    return _render(target)[1]


def generate(target: Target) -> Generated:
    """Generate a target's SDK into its output directory (atomically)."""
    started = time.perf_counter()
    sdk, files = _render(target)
    write_tree(files, target.output)
    lines = sum(
        path.read_bytes().count(b"\n") for path in target.output.rglob("*") if path.is_file()
    )
    return Generated(sdk, len(files), lines, time.perf_counter() - started)


def check(target: Target) -> Drift:
    return compare(render(target), target.output, str(target.output))
