"""Time per schema of a chain of ``$ref``s: S0 -> S1 -> ... -> Sn, each only a reference
to the next (issue: 1,250 took 3.0 s, 5,000 took 49 s, ~783,000 resolutions).

Usage: python bench/ref_chain.py [--sizes 500,1250,2500,5000] [--rounds 3] [--md OUT]

Builds the SDK model (``load_and_build``: reading, resolving, modelling; nothing rendered)
of each chain, best of ``rounds``, and prints a Markdown table: seconds, microseconds per
schema, and ``SpecSet.resolve`` calls per schema.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from jobgen.model.build import load_and_build
from jobgen.problems import Location
from jobgen.spec.loader import SpecSet

HEAD = 'openapi: 3.0.3\ninfo: {title: Chain, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n'


def chain(folder: Path, count: int) -> Path:
    lines = [f"    S{i}: {{$ref: '#/components/schemas/S{i + 1}'}}" for i in range(count)]
    path = folder / f"chain-{count}.yaml"
    path.write_text(HEAD + "\n".join(lines) + f"\n    S{count}: {{type: string}}\n")
    return path


def measure(path: Path, rounds: int) -> tuple[float, int]:
    calls = 0
    resolve = SpecSet.resolve

    def counted(self: SpecSet, ref: object, at: Location) -> tuple[Any, Location]:
        nonlocal calls
        calls += 1
        return resolve(self, ref, at)

    best = float("inf")
    for _ in range(rounds):
        calls = 0
        SpecSet.resolve = counted  # type: ignore[method-assign]
        try:
            started = time.perf_counter()
            load_and_build(path)
            best = min(best, time.perf_counter() - started)
        finally:
            SpecSet.resolve = resolve  # type: ignore[method-assign]
    return best, calls


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="500,1250,2500,5000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args()
    rows = ["| schemas | seconds (best) | µs per schema | resolve calls | calls per schema |"]
    rows.append("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            seconds, calls = measure(chain(Path(tmp), size), args.rounds)
            rows.append(
                f"| {size:,} | {seconds:.2f} | {seconds / size * 1e6:.0f} "
                f"| {calls:,} | {calls / size:.2f} |"
            )
            print(rows[-1], flush=True)
    if args.md:
        args.md.write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
