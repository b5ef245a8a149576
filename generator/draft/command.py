"""``jobgen jobs init SPEC``: draft a side file for a spec that declares no jobs."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import TextIO

import attrs

from ..model.build import build_sdk
from ..problems import Location, Problem, SpecError, counted, printable
from ..spec.loader import SpecSet, load_spec
from .emit import Rendered, render
from .find import Draft, draft_jobs

__all__ = ["Drafted", "default_output", "draft_spec", "init", "without_jobs"]


def without_jobs(spec: SpecSet) -> SpecSet:
    """The same spec with any ``x-jobgen`` of its root left out."""
    data = spec.root.data
    if not isinstance(data, dict) or "x-jobgen" not in data:
        return spec
    root = attrs.evolve(spec.root, data={k: v for k, v in data.items() if k != "x-jobgen"})
    stripped = SpecSet(root=root)
    stripped.add(root)
    return stripped


@attrs.frozen
class Drafted:
    draft: Draft
    rendered: Rendered
    left_out: tuple[str, ...] = ()
    """``job: problem`` for each job found whose declaration did not validate."""


_SIDE = "draft.jobs.yaml"


def _problems(spec: SpecSet, text: str) -> list[Problem]:
    """What ``jobgen validate`` says of the spec with ``text`` as its side file."""
    with tempfile.TemporaryDirectory(prefix="jobgen-draft-") as folder:
        side = Path(folder) / _SIDE
        side.write_text(text, encoding="utf-8")
        try:
            build_sdk(spec, jobs_file=side, jobs_name=_SIDE)
        except SpecError as exc:
            return list(exc.problems)
    return []


def _job_of(problem: Problem) -> str | None:
    """The job of the draft a problem is about (``draft.jobs.yaml#/jobs/NAME/...``)."""
    tokens = problem.location.pointer.split("/")
    if problem.location.file != _SIDE or len(tokens) < 3 or tokens[1] != "jobs":
        return None
    return tokens[2].replace("~1", "/").replace("~0", "~")


def draft_spec(path: Path) -> Drafted:
    """The draft of the spec at ``path``, built as if it declared no jobs, checked as
    ``jobgen validate`` checks a side file: a job whose declaration does not validate is
    left out (and named), so the draft validates as written."""
    spec = without_jobs(load_spec(path))
    try:
        draft = draft_jobs(build_sdk(spec))
        rendered = render(draft, path.name)
        left_out: list[str] = []
        while draft.jobs and (problems := _problems(spec, rendered.text)):
            bad = {_job_of(p) for p in problems}
            if None in bad:
                raise RuntimeError("the draft does not validate: " + "; ".join(map(str, problems)))
            left_out += [f"{_job_of(p)}: {printable(p.message)}" for p in problems]
            draft = attrs.evolve(
                draft, jobs=tuple(job for job in draft.jobs if job.name not in bad)
            )
            rendered = render(draft, path.name)
    except RecursionError:
        raise SpecError.at(
            Location(spec.root.name), "schemas nest too deeply to generate"
        ) from None
    return Drafted(draft, rendered, tuple(left_out))


def default_output(spec: Path) -> Path:
    """``specs/vendor.yaml`` -> ``vendor.jobs.yaml``, in the current directory."""
    return Path(f"{spec.stem}.jobs.yaml")


def _write(path: Path, text: str, force: bool) -> None:
    """Write ``text`` to ``path`` whole or not at all; an existing file only with ``force``."""
    if not force and os.path.lexists(path):
        raise FileExistsError(f"{printable(str(path))} exists: pass --force to replace it")
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{printable(str(path))}: the folder {printable(str(folder))} does not exist"
        )
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        if force:
            os.replace(temp, path)
        else:
            os.link(temp, path)  # fails, leaving nothing, if the file appeared meanwhile
            os.unlink(temp)
    except FileExistsError:
        os.unlink(temp)
        raise FileExistsError(
            f"{printable(str(path))} exists: pass --force to replace it"
        ) from None
    except BaseException:
        if os.path.lexists(temp):
            os.unlink(temp)
        raise


def init(spec: Path, output: Path | None, force: bool, out: TextIO | None = None) -> int:
    """Draft, write and say what was found; exit code 0 (errors raise)."""
    out = out or sys.stdout
    drafted = draft_spec(spec)
    draft, rendered = drafted.draft, drafted.rendered
    for note in drafted.left_out:
        print(f"note: left out the job {note}", file=sys.stderr)
    if draft.imported:
        print(
            f"note: not drafted: {counted(len(draft.imported), 'job')} the spec declares in"
            f" its own extensions, imported as they are: {printable(', '.join(draft.imported))}",
            file=sys.stderr,
        )
    if draft.resources:
        print(
            "note: not drafted: the status operations of live resources (their states change"
            f" and come back): {printable(', '.join(draft.resources))}",
            file=sys.stderr,
        )
    if not draft.jobs:
        others = "no other job" if draft.imported else "no job"
        print(
            f"{others} found in {printable(str(spec))}: nothing written (declare the jobs by hand, "
            "see docs/job-extension.md)",
            file=out,
        )
        return 0
    guesses = rendered.guesses
    summary = (
        f"{counted(len(draft.jobs), 'job')} drafted, "
        f"{guesses} {'guess' if guesses == 1 else 'guesses'} to check"
    )
    if output is not None and str(output) == "-":
        sys.stdout.write(rendered.text)
        print(summary, file=sys.stderr)
        return 0
    target = output if output is not None else default_output(spec)
    _write(target, rendered.text, force)
    print(f"{printable(str(target))}: {summary}", file=out)
    for job in draft.jobs:
        states = len(job.success) + len(job.failure) + len(job.canceled) + len(job.pending)
        start = printable(job.create) if job.create else "(no create)"
        ends = (
            counted(states, "state")
            if job.state_field is not None
            else f"ends when {printable(job.terminal_field or '')} is true"
        )
        print(f"  {job.name}: {start} -> {printable(job.status)} ({ends})", file=out)
    command = shlex.join(["jobgen", "validate", str(spec), "--jobs", str(target)])
    print(f"next: read each '# check:' line, then {printable(command)}", file=out)
    return 0
