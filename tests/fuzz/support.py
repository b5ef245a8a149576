"""Run the CLI in-process and check the contract for bad input.

Bad input of any kind must end with exit code 2, one ``error: file#pointer: message``
line per problem on stderr, no traceback, and nothing written: no new output
directory, no staging leftovers, and an existing generated tree left byte-identical.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from jobgen.cli import main

EXIT_INPUT = 2
PROBLEM = re.compile(
    r"^error: (?P<file>[^#\n]+)#(?P<pointer>(?:/.*?)?): (?P<message>\S.*)$", re.DOTALL
)
SUMMARY = re.compile(r"^\d+ problems?(; nothing was written)?$")


@attrs.frozen
class Run:
    code: int
    stdout: str
    stderr: str


@attrs.frozen
class Problem:
    file: str
    pointer: str
    message: str


def run_cli(argv: Sequence[str | Path]) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(arg) for arg in argv])
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 1
    return Run(code, out.getvalue(), err.getvalue())


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` (and its mode), hashed: equal digests, identical trees."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        + oct(path.stat().st_mode)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def problems_in(run: Run, *, multiline: bool = False) -> list[Problem]:
    """Parse stderr of a refused run; fails unless every problem keeps to the format.

    ``multiline``: spec text quoted in a pointer or a message may carry line breaks
    (problems are printed as found), so a problem may span lines; each must still
    start with ``error: file#pointer: ``.
    """
    assert run.code == EXIT_INPUT, (
        f"exit {run.code}, expected {EXIT_INPUT}\n{run.stdout}\n{run.stderr}"
    )
    for text in (run.stdout, run.stderr):
        assert "Traceback" not in text and "internal error" not in text, text
    lines = run.stderr.splitlines()
    assert lines and SUMMARY.match(lines[-1]), run.stderr
    chunks = re.split(r"\n(?=error: )", "\n".join(lines[:-1])) if multiline else lines[:-1]
    found = []
    for chunk in chunks:
        match = PROBLEM.match(chunk)
        assert match, f"not 'error: file#pointer: message': {chunk!r}"
        found.append(Problem(match["file"], match["pointer"], match["message"]))
    assert found, run.stderr
    return found


def assert_refused(
    argv: Sequence[str | Path],
    *,
    files: Iterable[Path | str],
    pointer: str | None = None,
    contains: str | None = None,
) -> list[Problem]:
    """Run ``argv``; check exit 2 and that every problem names one of ``files``.

    ``pointer``: some problem's pointer starts with it. ``contains``: some message has it.
    """
    run = run_cli(argv)
    found = problems_in(run)
    allowed = {str(f) for f in files}
    for problem in found:
        assert problem.file in allowed, f"{problem.file} is not one of {sorted(allowed)}"
    if pointer is not None:
        assert any(p.pointer.startswith(pointer) for p in found), (pointer, run.stderr)
    if contains is not None:
        assert any(contains in p.message for p in found), (contains, run.stderr)
    return found


def check_refused_everywhere(
    spec: Path,
    work: Path,
    generated: Path,
    *,
    files: Iterable[Path | str] = (),
    pointer: str | None = None,
    contains: str | None = None,
    extra: Sequence[str | Path] = (),
) -> list[Problem]:
    """``validate``, ``generate`` into a new folder and over an existing generated tree:
    each refuses the spec the same way and writes nothing."""
    allowed = [spec, *files]
    found = assert_refused(
        ["validate", spec, *extra], files=allowed, pointer=pointer, contains=contains
    )

    fresh = work / "fresh-out" / "sdk"
    before = sorted(work.rglob("*"))
    assert_refused(
        ["generate", spec, "-o", fresh, *extra], files=allowed, pointer=pointer, contains=contains
    )
    assert not fresh.exists() and not fresh.parent.exists()
    assert sorted(work.rglob("*")) == before

    existing = work / "existing"
    shutil.copytree(generated, existing)
    digest = tree_digest(existing)
    assert_refused(
        ["generate", spec, "-o", existing, *extra],
        files=allowed,
        pointer=pointer,
        contains=contains,
    )
    assert tree_digest(existing) == digest
    leftovers = [p.name for p in work.iterdir() if p.name.startswith(".existing")]
    assert not leftovers, leftovers
    shutil.rmtree(existing)
    return found
