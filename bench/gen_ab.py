"""Generation time of this checkout against another revision, run alternately.

Usage: python bench/gen_ab.py [--base REV] [--rounds N] [--importtime] SPEC...

Each round runs ``python -m generator generate SPEC -o OUT --package p`` once with the
revision's ``generator`` package (extracted with ``git archive`` into
``bench/.work/ab/REV``) and once with this checkout's, alternating which goes first, in
fresh output directories. Both use this checkout's ``.venv`` and run from cached bytecode
(``PYTHONDONTWRITEBYTECODE`` is dropped; an untimed first run compiles it). Reported:
median wall time and median CPU time (user + system of the process), per spec and side.
``--importtime`` also prints the modules with the largest own import time (``python -X
importtime``, median self time over the rounds) for the first spec.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".venv" / "bin" / "python"
WORK = REPO / "bench" / ".work" / "ab"


def extract(rev: str) -> Path:
    """The ``generator`` package of ``rev`` (templates linked in, as an install has them)."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    root = WORK / sha
    if not (root / "generator").is_dir():
        archive = subprocess.run(
            ["git", "archive", sha, "generator", "templates"],
            cwd=REPO,
            check=True,
            capture_output=True,
        ).stdout
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
        (root / "generator" / "templates").symlink_to("../templates")
    return root


def env_for(source: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(source)
    return env


def run_once(
    source: Path, spec: Path, out: Path, extra: tuple[str, ...] = ()
) -> tuple[float, float, str]:
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [
            str(PYTHON),
            *extra,
            "-m",
            "generator",
            "generate",
            str(spec),
            "-o",
            str(out),
            "--package",
            "p",
        ],
        env=env_for(source),
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stderr


def self_times(stderr: str) -> dict[str, float]:
    """Module -> own import time in ms, from ``-X importtime`` output."""
    times: dict[str, float] = {}
    for line in stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line[len("import time:") :].split("|")
            times[name.strip()] = int(own) / 1000
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", type=Path)
    parser.add_argument("--base", default="main")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    sides = {args.base: extract(args.base), "this": REPO}
    out_root = Path(tempfile.mkdtemp(prefix="gen-ab-"))
    try:
        for spec in args.specs:
            spec = spec.resolve()
            for name, source in sides.items():  # compiles the bytecode, untimed
                run_once(source, spec, out_root / name)
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
            for i in range(args.rounds):
                order = list(sides.items()) if i % 2 == 0 else list(reversed(sides.items()))
                for name, source in order:
                    wall, cpu, _ = run_once(source, spec, out_root / name)
                    runs[name].append((wall, cpu))
            for name, values in runs.items():
                wall = statistics.median(w for w, _ in values)
                cpu = statistics.median(c for _, c in values)
                print(
                    f"{spec.name:44} {name:8} wall {wall:6.3f} s  cpu {cpu:6.3f} s  (n={len(values)})"
                )
        if args.importtime:
            spec = args.specs[0].resolve()
            for name, source in sides.items():
                samples: dict[str, list[float]] = {}
                for _ in range(args.rounds):
                    _, _, err = run_once(source, spec, out_root / name, ("-X", "importtime"))
                    for module, ms in self_times(err).items():
                        samples.setdefault(module, []).append(ms)
                total = sum(statistics.median(v) for v in samples.values())
                print(f"\n{name}: {len(samples)} modules, {total:.0f} ms own import time in all")
                top = sorted(samples.items(), key=lambda kv: -statistics.median(kv[1]))[:15]
                for module, values in top:
                    print(f"  {statistics.median(values):6.1f} ms  {module}")
    finally:
        shutil.rmtree(out_root, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
