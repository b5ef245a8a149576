"""What splitting run-together names costs: in-process, and in a whole ``jobgen generate``.

    .venv/bin/python bench/segmentation.py [--source DIR] [--repeat N] [SPEC_ID ...]

For each real spec (default: assemblyai and stripe; ids of tests/real/realspecs.py):

- *in-process*: a fresh interpreter builds the spec's model (``load_and_build``, no
  rendering) with ``names._segmented``, the one entry point of splitting, wrapped to sum
  its CPU time; reported: the runs of letters it was asked about, their CPU time, and the
  process's peak RSS (VmHWM);
- *generate*: ``python -m jobgen generate`` of the spec into a temporary folder under
  ``/usr/bin/time``: CPU time (user + system) and peak RSS, the median of ``--repeat`` runs.

``--source DIR``: run the generator of another checkout (e.g. ``git worktree add`` of main,
or ``git archive main | tar -x -C DIR``), to compare before and after with one command.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.real.realspecs import SPECS

_PROBE = """
import json, sys, time
sys.path.insert(0, {source!r})
from jobgen.model import names
from jobgen.model.build import load_and_build
from pathlib import Path
spent = [0.0, 0]
segmented = names._segmented
def timed(run):
    start = time.process_time()
    try:
        return segmented(run)
    finally:
        spent[0] += time.process_time() - start
        spent[1] += 1
names._segmented = timed
start = time.process_time()
load_and_build(Path({spec!r}), package={package!r}, jobs_file={jobs})
build = time.process_time() - start
with open("/proc/self/status", encoding="ascii") as status:
    peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) / 1024
print(json.dumps({{"runs": spent[1], "segment_s": spent[0], "build_s": build, "peak_mb": peak}}))
"""


def in_process(source: Path, spec_id: str) -> dict[str, float]:
    spec = next(s for s in SPECS if s.id == spec_id)
    jobs = f"Path({str(spec.side_file)!r})" if spec.side_file else "None"
    code = _PROBE.format(source=str(source), spec=str(spec.spec), package=spec.package, jobs=jobs)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=source, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def generate(source: Path, spec_id: str) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MB) of one ``jobgen generate``."""
    spec = next(s for s in SPECS if s.id == spec_id)
    with tempfile.TemporaryDirectory() as out:
        args = [sys.executable, "-m", "jobgen", "generate", str(spec.spec)]
        args += ["-o", out, "--package", spec.package]
        if spec.side_file:
            args += ["--jobs", str(spec.side_file)]
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", *args],
            cwd=source,
            capture_output=True,
            text=True,
            check=True,
        )
    user, system, kb = proc.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), int(kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", default=["assemblyai", "stripe"])
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    source = args.source.resolve()
    print(f"generator: {source}")
    print("| spec | runs asked | splitting CPU s | model build CPU s | build peak MB |", end="")
    print(" generate CPU s | generate peak MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec_id in args.specs:
        probe = in_process(source, spec_id)
        runs = [generate(source, spec_id) for _ in range(args.repeat)]
        cpu = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs)
        print(
            f"| {spec_id} | {probe['runs']} | {probe['segment_s']:.3f} | {probe['build_s']:.2f}"
            f" | {probe['peak_mb']:.0f} | {cpu:.2f} | {peak:.0f} |"
        )


if __name__ == "__main__":
    main()
