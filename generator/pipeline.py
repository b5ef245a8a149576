"""The generator's stages, end to end: load -> model -> render -> format -> write."""

from __future__ import annotations

import time
from pathlib import Path

import attrs

from .model import ir
from .model.build import load_and_build
from .render.output import Drift, compare, format_files, write_tree
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
    sdk: ir.Sdk
    files: dict[str, str]
    seconds: float

    @property
    def lines(self) -> int:
        return sum(text.count("\n") for text in self.files.values())


def render(target: Target) -> Generated:
    """Build and render a target in memory; raises SpecError on bad input."""
    started = time.perf_counter()
    sdk = load_and_build(target.spec, package=target.package, jobs_file=target.jobs)
    files = format_files(render_sdk(sdk, target.spec.name))
    return Generated(sdk, files, time.perf_counter() - started)


def generate(target: Target) -> Generated:
    generated = render(target)
    write_tree(generated.files, target.output)
    return generated


def check(target: Target) -> Drift:
    return compare(render(target).files, target.output, str(target.output))
