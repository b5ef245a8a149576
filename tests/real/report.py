"""Measure every real spec's SDK and print the table of docs/real-specs.md.

    .venv/bin/python -m tests.real.report [SPEC_ID ...]

Generates each SDK (with its job side file) into a temporary directory, imports every
module, runs ruff and mypy --strict on it, and round-trips the spec's examples.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from pathlib import Path

from jobgen.pipeline import Target, generate
from tests.real.realspecs import (
    MYPY,
    RUFF,
    SPECS,
    coverage,
    import_all,
    inventory,
    round_trip_examples,
    run,
)


def main(ids: list[str]) -> int:
    print(
        "| spec | operations | schemas (named / built) | warnings | generation | output "
        "| import | ruff | mypy --strict | examples round-tripped |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="jobgen-real-") as tmp:
        for spec in SPECS:
            if ids and spec.id not in ids:
                continue
            out = Path(tmp) / spec.id
            target = Target(spec.spec, out, package=spec.package, jobs=spec.side_file)
            generated = generate(target)
            sdk = generated.sdk
            found = coverage(sdk, inventory(spec.spec))
            sys.path.insert(0, str(out))
            started = time.perf_counter()
            package = importlib.import_module(spec.package)
            modules, failures = import_all(package)
            imported = time.perf_counter() - started
            trip = round_trip_examples(sdk, package)
            ruff = run([*RUFF, "--no-cache", str(out)], out)
            started = time.perf_counter()
            mypy = run([*MYPY, spec.package], out)
            checked = time.perf_counter() - started
            files = sum(1 for _ in (out / spec.package).rglob("*.py"))
            print(
                f"| {spec.path} "
                f"| {found.operations_generated} / {found.operations} "
                f"| {found.schemas_generated} / {found.schemas} ({len(sdk.schemas)} built) "
                f"| {len(sdk.warnings)} "
                f"| {generated.seconds:.1f} s "
                f"| {generated.lines:,} lines, {files:,} modules "
                f"| {modules - len(failures):,} / {modules:,} in {imported:.1f} s "
                f"| {'clean' if ruff.returncode == 0 else 'FAILED'} "
                f"| {'clean' if mypy.returncode == 0 else 'FAILED'} ({checked:.0f} s) "
                f"| {trip.total - len(trip.failures)} / {trip.total} |",
                flush=True,
            )
            for warning in sdk.warnings:
                print(f"<!-- {spec.id} warning: {warning} -->", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
