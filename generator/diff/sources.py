"""Where the two specs of a diff come from: a file, or ``git:REV:path`` at a git revision.

A revision's spec is materialised into a temporary directory together with every YAML
and JSON file of its folder (and below), so relative ``$ref``s resolve as they did at
that revision. Problems are reported as SpecErrors naming the ``git:REV:path`` source.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath

import attrs

from ..model import ir
from ..model.build import build_sdk, load_and_build
from ..problems import Location, SpecError
from ..spec.loader import load_spec

__all__ = ["GitSource", "config_side_files", "load_sdk", "materialise", "parse_source"]

PREFIX = "git:"
SUFFIXES = (".yaml", ".yml", ".json")


@attrs.frozen
class GitSource:
    """A file as it was at a git revision: ``git:REV:path``.

    As with ``git show REV:path``, the path is relative to the top of the repository
    unless it starts with ``./`` or ``../`` (then it is relative to the current directory).
    """

    rev: str
    path: str

    def __str__(self) -> str:
        return f"{PREFIX}{self.rev}:{self.path}"


def parse_source(text: str) -> Path | GitSource:
    """``git:REV:path`` names a file at a revision; anything else is a path."""
    if text.startswith(PREFIX):
        rev, sep, path = text[len(PREFIX) :].partition(":")
        if not sep or not rev or not path:
            raise SpecError.at(Location(text), "expected git:REV:path, e.g. git:HEAD~1:spec.yaml")
        return GitSource(rev, path)
    return Path(text)


def _git(cwd: Path, *args: str, source: GitSource, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise SpecError.at(Location(str(source)), "git is not installed") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SpecError.at(
            Location(str(source)), f"git {args[0]} failed: {reason[-1] if reason else 'no output'}"
        )
    return done.stdout


def _repo_path(source: GitSource) -> tuple[Path, str]:
    """The repository's top folder, and the source's path relative to it."""
    cwd = Path.cwd()
    top = Path(_git(cwd, "rev-parse", "--show-toplevel", source=source).decode().strip())
    path = source.path
    if path.startswith(("./", "../")) or path in (".", ".."):
        prefix = _git(cwd, "rev-parse", "--show-prefix", source=source).decode().strip()
        path = prefix + path
    path = posixpath.normpath(path)
    if path.startswith("../") or path in ("..", "."):
        raise SpecError.at(Location(str(source)), "the path is outside the repository")
    return top, path


def _in_repo(top: Path, folder: Path, source: GitSource) -> str:
    """``folder`` (a path of the working tree) relative to the repository's top."""
    try:
        relative = folder.resolve().relative_to(top.resolve())
    except ValueError:
        raise SpecError.at(
            Location(str(folder)), f"--ref-root is outside the repository of {source}"
        ) from None
    return relative.as_posix() or "."


def ref_root_in(copy: Path, source: Path | GitSource, ref_root: Path | None) -> Path | None:
    """Where ``ref_root`` is in the temporary copy of ``source`` (``copy``: its spec)."""
    if ref_root is None or isinstance(source, Path):
        return ref_root
    top, path = _repo_path(source)
    top_copy = copy.parents[len(PurePosixPath(path).parts) - 1]  # the copy of the repository
    return top_copy / _in_repo(top, ref_root, source)


def _blobs(top: Path, rev: str, pathspec: str, source: GitSource) -> list[tuple[str, str]]:
    """(object id, path) of each file at ``rev`` under ``pathspec``."""
    out = _git(top, "ls-tree", "-r", "-z", "--full-tree", rev, "--", pathspec, source=source)
    blobs = []
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        mode, kind, oid = meta.split()
        if kind == "blob" and mode != "120000":
            blobs.append((oid, path))
    return blobs


def _write_blobs(top: Path, blobs: list[tuple[str, str]], into: Path, source: GitSource) -> None:
    data = _git(
        top,
        "cat-file",
        "--batch",
        source=source,
        stdin="".join(oid + "\n" for oid, _ in blobs).encode(),
    )
    at = 0
    for oid, path in blobs:
        header_end = data.index(b"\n", at)
        header = data[at:header_end].decode().split()
        if len(header) != 3 or header[0] != oid:
            raise SpecError.at(Location(str(source)), f"git cat-file: unexpected answer for {path}")
        size = int(header[2])
        body = data[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
        target = into.joinpath(*PurePosixPath(path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


def config_side_files(old: str, new: str) -> tuple[str | None, str | None, Path] | None:
    """The side files the nearest config (found as ``jobgen generate`` finds it) gives
    the two specs of a diff, and that config; None when it lists neither spec.

    A spec at a git revision gets its side file as it was at that revision (none, when
    the file did not exist then)."""
    from ..config import find_config, load_targets  # tomllib, only for a diff without --jobs

    config = find_config(Path.cwd())
    if config is None:
        return None
    try:
        targets = load_targets(config)
    except SpecError:
        return None
    sides = {_resolved(t.spec): t.jobs for t in targets if t.jobs is not None}
    found = [_side_of(parse_source(text), sides) for text in (old, new)]
    if found == [None, None]:
        return None
    return found[0], found[1], config


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _side_of(source: Path | GitSource, sides: dict[Path, Path]) -> str | None:
    if isinstance(source, Path):
        side = sides.get(_resolved(source))
        return str(side) if side is not None else None
    try:
        top, path = _repo_path(source)
    except SpecError:
        return None
    side = sides.get(_resolved(top / path))
    if side is None:
        return None
    relative = Path(os.path.relpath(_resolved(side), _resolved(top))).as_posix()
    if relative.startswith("../"):
        return None
    exists = any(p == relative for _, p in _blobs(top, source.rev, relative, source))
    return str(GitSource(source.rev, relative)) if exists else None


@contextmanager
def materialise(
    source: Path | GitSource, *, folder: bool = True, ref_root: Path | None = None
) -> Iterator[Path]:
    """A path on disk holding ``source``; for a revision, a temporary copy.

    With ``folder``, every YAML and JSON file of the source's folder (and below) at that
    revision is copied too, so that relative ``$ref``s resolve; with ``ref_root`` (a folder
    of the working tree), that folder's instead (see :func:`ref_root_in`).
    """
    if isinstance(source, Path):
        yield source
        return
    top, path = _repo_path(source)
    blobs = _blobs(top, source.rev, path, source)
    if not any(p == path for _, p in blobs):
        raise SpecError.at(Location(str(source)), f"no file {path} at revision {source.rev}")
    if folder:
        parent = posixpath.dirname(path) or "."
        if ref_root is not None:
            parent = _in_repo(top, ref_root, source)
        blobs = [
            (oid, p)
            for oid, p in _blobs(top, source.rev, parent, source)
            if p == path or p.lower().endswith(SUFFIXES)
        ]
    with tempfile.TemporaryDirectory(prefix="jobgen-diff-") as tmp:
        _write_blobs(top, blobs, Path(tmp), source)
        yield Path(tmp).joinpath(*PurePosixPath(path).parts)


def load_sdk(spec: str, jobs: str | None = None, ref_root: Path | None = None) -> ir.Sdk:
    """Build the SDK model of ``spec`` (a path or ``git:REV:path``) and its optional side
    file; ``$ref``s may reach into ``ref_root`` (at the same revision, for a git source)."""
    spec_source = parse_source(spec)
    jobs_source = parse_source(jobs) if jobs is not None else None
    if isinstance(spec_source, Path) and not isinstance(jobs_source, GitSource):
        return load_and_build(spec_source, jobs_file=jobs_source, ref_root=ref_root)
    with ExitStack() as stack:
        spec_path = stack.enter_context(materialise(spec_source, ref_root=ref_root))
        jobs_path = (
            stack.enter_context(materialise(jobs_source, folder=False))
            if jobs_source is not None
            else None
        )
        loaded = load_spec(
            spec_path,
            name=str(spec_source),
            ref_root=ref_root_in(spec_path, spec_source, ref_root),
        )
        try:
            return build_sdk(
                loaded,
                jobs_file=jobs_path,
                jobs_name=str(jobs_source) if jobs_source is not None else None,
            )
        except RecursionError:
            raise SpecError.at(
                Location(loaded.root.name), "schemas nest too deeply to generate"
            ) from None
