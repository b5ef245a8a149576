"""Build jobgen's sdist and wheel and check them as a release needs them.

``python -m tests.ci.release DIR [--tag vX.Y.Z]`` is the build half of
.github/workflows/release.yml, and tests/ci/test_release.py runs the same function in CI:

- ``python -m build`` makes the sdist, then the wheel from the sdist (so the sdist is complete);
- ``twine check --strict`` accepts both (metadata and the README as PyPI renders it);
- both are named for ``jobgen.__version__``, the one version source; a tag, when given, is
  ``v`` followed by that version, and CHANGELOG.md has a section for it;
- the wheel installs the import package ``jobgen`` (with its templates, runtime, word counts
  and ``py.typed``) and nothing named ``generator``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ReleaseProblem(Exception):
    """A distribution that must not be published, and why."""


def version() -> str:
    text = (ROOT / "generator" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if found is None:
        raise ReleaseProblem('generator/__init__.py: no __version__ = "..." line')
    return found.group(1)


def changelog_sections() -> list[str]:
    """The headings of CHANGELOG.md's sections: ``Unreleased`` and each version."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)


def build_and_check(out: Path, tag: str | None = None) -> tuple[Path, Path]:
    """The checked sdist and wheel, built into ``out``."""
    current = version()
    if tag is not None:
        if tag != f"v{current}":
            raise ReleaseProblem(f"tag {tag!r} is not v{current} (jobgen.__version__)")
        if current not in changelog_sections():
            raise ReleaseProblem(f"CHANGELOG.md has no section '## [{current}]'")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    sdists = sorted(out.glob("jobgen-*.tar.gz"))
    wheels = sorted(out.glob("jobgen-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise ReleaseProblem(f"expected one sdist and one wheel in {out}, found {sdists + wheels}")
    sdist, wheel = sdists[0], wheels[0]
    for made in (sdist, wheel):
        if not made.name.startswith(f"jobgen-{current}"):
            raise ReleaseProblem(f"{made.name} is not version {current}")
    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    if twine.returncode != 0:
        raise ReleaseProblem(f"twine check --strict:\n{twine.stdout}{twine.stderr}")
    _check_wheel(wheel)
    _check_sdist(sdist)
    return sdist, wheel


def _check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    if tops != {"jobgen"}:
        raise ReleaseProblem(f"{wheel.name} installs {sorted(tops)}, not only jobgen")
    needed = [
        "jobgen/py.typed",
        "jobgen/cli.py",
        "jobgen/runtime/waiting/core.py",
        "jobgen/templates/package/__init__.py.jinja",
        "jobgen/model/ngrams/unigrams.tsv",
        "jobgen/model/ngrams/NOTICE",
    ]
    missing = [name for name in needed if name not in names]
    if missing:
        raise ReleaseProblem(f"{wheel.name} lacks {missing}")


def _check_sdist(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = [
        name
        for name in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "generator/cli.py")
        if name not in names
    ]
    if missing:
        raise ReleaseProblem(f"{sdist.name} lacks {missing}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ci.release", description=__doc__)
    parser.add_argument("out", type=Path, help="the folder the sdist and wheel are built into")
    parser.add_argument("--tag", help="the release tag (vX.Y.Z) to check against the version")
    args = parser.parse_args(argv)
    try:
        sdist, wheel = build_and_check(args.out, args.tag)
    except (ReleaseProblem, subprocess.CalledProcessError) as problem:
        detail = getattr(problem, "stderr", None) or b""
        text = detail.decode(errors="replace") if isinstance(detail, bytes) else str(detail)
        print(f"release: {problem}\n{text}".rstrip(), file=sys.stderr)
        return 1
    print(f"checked {sdist.name} and {wheel.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
