"""A small spec's generation against the import floor, in user CPU seconds.

Usage: python bench/small_spec.py [--rounds N] [--spec SPEC] [--python PYTHON]

The floor is ``python -c "import jinja2, attrs, yaml"``; the figure is ``python -m jobgen
generate SPEC -o TMP --package P`` (by default specs/sume.yaml), both run by the same
interpreter. By default that is the one of bench/.work/small-venv, a clean virtual
environment holding jobgen as users install it: a wheel built from this checkout
(reinstalled when the source changes) and its dependencies, with every module's bytecode
compiled; an editable install would add its import hook to every run, which users of the
wheel never pay. ``--python`` names another interpreter instead (one that has jobgen).
They alternate, one warm-up each first (bytecode compiled), and the medians of the child
processes' own user CPU time (``wait4``) are printed with their difference: the target is
a difference within 0.1 s. User time is quoted because it is the steadiest figure on a
shared machine; system time (writing the tree) is printed beside it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / "bench" / ".work" / "small-venv"


def _source_stamp() -> str:
    """A digest of what the wheel is built from (the generator, templates, packaging)."""
    digest = hashlib.sha256()
    files = [REPO / "pyproject.toml", *REPO.glob("setup.*")]
    for folder in ("generator", "templates"):
        files += (REPO / folder).rglob("*")
    for path in sorted(f for f in files if f.is_file() and "__pycache__" not in f.parts):
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def wheel_python() -> str:
    """The interpreter of the clean venv, with jobgen's wheel of this checkout installed."""
    python, stamp = VENV / "bin" / "python", VENV / ".source-stamp"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    fresh = not python.exists()
    if fresh:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    current = _source_stamp()
    if not stamp.exists() or stamp.read_text() != current:
        # pip builds the wheel from the checkout (not editable) and installs it, with its
        # dependencies the first time.
        again = [] if fresh else ["--no-deps", "--force-reinstall"]
        subprocess.run([*pip, *again, str(REPO)], check=True)
        subprocess.run([str(python), "-m", "compileall", "-q", str(VENV / "lib")], check=True)
        stamp.write_text(current)
    return str(python)


def _usage(argv: list[str]) -> tuple[float, float]:
    """User and system CPU seconds of one run of ``argv`` (which must succeed)."""
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(
            f"{' '.join(argv)} failed: {proc.stderr.read().decode() if proc.stderr else ''}"
        )
    return usage.ru_utime, usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--spec", type=Path, default=REPO / "specs" / "sume.yaml")
    parser.add_argument("--python", help="an interpreter with jobgen (default: the clean venv)")
    args = parser.parse_args()
    args.python = args.python or wheel_python()
    floor = [args.python, "-c", "import jinja2, attrs, yaml"]
    with tempfile.TemporaryDirectory() as tmp:
        generate = [args.python, "-m", "jobgen", "generate", str(args.spec)]
        generate += ["-o", str(Path(tmp) / "out"), "--package", "small_sdk"]
        _usage(floor)
        _usage(generate)
        runs: dict[str, list[tuple[float, float]]] = {"floor": [], "generate": []}
        for _ in range(args.rounds):
            runs["floor"].append(_usage(floor))
            runs["generate"].append(_usage(generate))
    user = {k: statistics.median(u for u, _ in v) for k, v in runs.items()}
    system = {k: statistics.median(s for _, s in v) for k, v in runs.items()}
    load = os.getloadavg()[0]
    print(f"{args.spec.name}, {args.rounds} rounds, load average {load:.2f} at the end")
    shown = Path(args.python)
    print(f"  interpreter {shown.relative_to(REPO) if shown.is_relative_to(REPO) else shown}")
    for name in ("floor", "generate"):
        print(f"  {name:9} user {user[name]:.3f} s  system {system[name]:.3f} s (medians)")
    gap = user["generate"] - user["floor"]
    print(f"  difference (user): {gap:.3f} s ({'within' if gap <= 0.1 else 'over'} 0.1 s)")


if __name__ == "__main__":
    main()
