#!/usr/bin/env python3
"""jobgen benchmarks: one command, from a fresh clone.

    python3 bench/run.py            # full run (8-15 min on 2 shared cores)
    python3 bench/run.py --quick    # fewer repetitions (about 5 min)
    python3 bench/run.py --only waiters,scale   # sections: gen,profile,imports,size,waiters,scale,parallel,tests
    python3 bench/run.py --only gen --spec petstore,ex-sume   # these specs only (others kept)
    python3 bench/run.py --report   # re-render the tables from bench/results.json

The first run creates bench/.work/venv (jobgen installed from this checkout as a wheel,
plus the pinned peers in bench/requirements.txt) and bench/.work/sdk-venv (only the
generated SDKs' runtime dependencies, bench/requirements-sdk.txt); later runs reuse them
until those files or pyproject.toml change, and reinstall jobgen alone when generator/ or
templates/ change. Specs are read from ../shared/specs-real (override with --specs).
Writes bench/results.md, bench/results.json, and the results block of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
VENV = BENCH / ".work" / "venv"
PY = VENV / "bin" / "python"
SDK_VENV = BENCH / ".work" / "sdk-venv"
EXTRAS = "serve"  # the import probe samples responses with jobgen serve's sampler
SECTIONS = ("gen", "profile", "imports", "size", "waiters", "scale", "parallel", "tests")


def _stamp() -> str:
    digest = hashlib.sha256(EXTRAS.encode())
    for path in (
        BENCH / "requirements.txt",
        BENCH / "requirements-sdk.txt",
        REPO / "pyproject.toml",
    ):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _code_stamp() -> str:
    """The generator's own files: jobgen is reinstalled from them when they change."""
    digest = hashlib.sha256()
    for root in ("generator", "templates"):
        for path in sorted((REPO / root).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _pip(venv: Path) -> list[str]:
    python = str(venv / "bin" / "python")
    return [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]


def bootstrap() -> None:
    """Create or refresh the benchmark's two virtual environments.

    venv/ runs the generators and the harness, with jobgen installed from this checkout as
    a user installs it (a built wheel, not an editable install, whose import hook costs
    each run about 15 ms); sdk-venv/ holds only the generated SDKs' runtime dependencies,
    for the import-time probe.
    """
    stamp, code = VENV / ".bench-stamp", VENV / ".bench-code-stamp"
    if not (PY.exists() and stamp.exists() and stamp.read_text() == _stamp()):
        for venv, install in (
            (VENV, [f"{REPO}[{EXTRAS}]", "-r", str(BENCH / "requirements.txt")]),
            (SDK_VENV, ["-r", str(BENCH / "requirements-sdk.txt")]),
        ):
            print(f"setting up {venv} ...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
            subprocess.run([*_pip(venv), "--upgrade", "pip"], check=True)
            subprocess.run([*_pip(venv), *install], check=True)
        stamp.write_text(_stamp())
        code.write_text(_code_stamp())
    elif not code.exists() or code.read_text() != _code_stamp():
        print("installing jobgen from this checkout ...", file=sys.stderr, flush=True)
        subprocess.run([*_pip(VENV), "--no-deps", "--force-reinstall", str(REPO)], check=True)
        code.write_text(_code_stamp())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated sections: {','.join(SECTIONS)}"
    )
    parser.add_argument(
        "--report", action="store_true", help="only re-render results.md and docs from results.json"
    )
    parser.add_argument(
        "--specs",
        type=Path,
        default=REPO.parent / "shared" / "specs-real",
        help="folder with the real-world specs (default ../shared/specs-real)",
    )
    parser.add_argument(
        "--spec",
        help="comma-separated spec slugs for the generation section (e.g. petstore,openai,"
        "ex-sume); the other specs keep their previous results",
    )
    args = parser.parse_args()
    if Path(sys.prefix).resolve() != VENV.resolve():
        if sys.version_info < (3, 11):  # noqa: UP036 - run by any python3
            raise SystemExit("python 3.11+ is needed")
        bootstrap()
        os.execv(str(PY), [str(PY), str(Path(__file__).resolve()), *sys.argv[1:]])
    from suite import rerender, run_suite

    if args.report:
        rerender()
        return
    started = time.perf_counter()
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections: {', '.join(sorted(unknown))}")
    only_specs = {s.strip() for s in args.spec.split(",") if s.strip()} if args.spec else None
    run_suite(
        sections,
        quick=args.quick,
        specs_dir=args.specs.resolve(),
        started=started,
        only_specs=only_specs,
    )


if __name__ == "__main__":
    main()
