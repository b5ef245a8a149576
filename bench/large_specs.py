"""CPU of the generator's in-process work on the largest published specs, as a test suite or
a server per spec repeats it: the unsatisfiable-schema pass, building the SDK model again
in one process, and setting up a simulated server.

Usage: python bench/large_specs.py [--specs DIR] [--rounds 5]

For Stripe, OpenAI and DigitalOcean (with their side files in ``specs/vendor``) it prints
a Markdown table of CPU seconds (``time.process_time``), the median of ``rounds``:
``schema_warnings`` over the loaded spec; ``load_and_build`` the first, second and fourth
time in the process (a file read a third time or more is unpickled from a kept copy); and
``run_server`` (constructed, not started) the first time in a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: shared/specs-real beside the clone, or beside the folder of worktrees holding it.
REAL_SPECS = next(
    (p / "shared" / "specs-real" for p in REPO.parents if (p / "shared" / "specs-real").is_dir()),
    REPO.parent / "shared" / "specs-real",
)

SPECS = (
    ("stripe", "stripe-spec3-2022-03-23.yaml"),
    ("openai", "openai-openapi.yaml"),
    ("digitalocean", "digitalocean/DigitalOcean-public.v2.yaml"),
)


def _cpu(action: object) -> float:
    started = time.process_time()
    action()  # type: ignore[operator]
    return time.process_time() - started


def measure(spec: Path, jobs: Path, rounds: int) -> dict[str, float]:
    from jobgen.model.build import load_and_build
    from jobgen.model.satisfiable import schema_warnings

    builds = [_cpu(lambda: load_and_build(spec, jobs_file=jobs)) for _ in range(4)]
    loaded = load_and_build(spec, jobs_file=jobs).spec
    assert loaded is not None
    warnings = [_cpu(lambda: schema_warnings(loaded)) for _ in range(rounds)]
    return {
        "schema_warnings": statistics.median(warnings),
        "build 1st": builds[0],
        "build 2nd": builds[1],
        "build 4th": builds[3],
    }


def server_start(spec: Path, jobs: Path) -> float:
    """CPU of constructing ``run_server(spec, jobs)`` first thing in a fresh process."""
    code = (
        "import sys, time\n"
        "from jobgen.server.runner import run_server\n"
        "t = time.process_time(); run_server(sys.argv[1], sys.argv[2])\n"
        "print(time.process_time() - t)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(spec), str(jobs)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return float(run.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=Path, default=REAL_SPECS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    columns = ["schema_warnings", "build 1st", "build 2nd", "build 4th", "run_server"]
    print("| spec | " + " | ".join(f"{c} s" for c in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, file in SPECS:
        spec, jobs = args.specs / file, REPO / "specs" / "vendor" / f"{name}.jobs.yaml"
        figures = measure(spec, jobs, args.rounds)
        starts = [server_start(spec, jobs) for _ in range(3)]
        figures["run_server"] = statistics.median(starts)
        print(f"| {name} | " + " | ".join(f"{figures[c]:.3f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
