#!/usr/bin/env python3
"""Cost of checking a spec against the official OpenAPI schema (generator/spec/specschema.py).

    .venv/bin/python bench/spec_schema.py [SPECS_DIR]

For OpenAI's and Stripe's published specs (../shared/specs-real by default): the time to
parse the document, the first check in a fresh process (the schema file read and compiled),
and the median of 7 later checks; and the same for a load and build of the whole SDK model
with the check as it runs in generation.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from jobgen.model.build import load_and_build
from jobgen.spec import loader
from jobgen.spec.specschema import check_spec_schema

ROOT = Path(__file__).resolve().parent.parent
SPECS = (
    ("openai-openapi.yaml", "openai.jobs.yaml"),
    ("stripe-spec3-2022-03-23.yaml", "stripe.jobs.yaml"),
)


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "specs-real"
    for name, side in SPECS:
        path = folder / name
        start = time.perf_counter()
        data = loader._parse(loader._decode(path.read_bytes(), name), path, name)
        parsed = time.perf_counter() - start
        start = time.perf_counter()
        check_spec_schema(data, name)
        first = time.perf_counter() - start
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            check_spec_schema(data, name)
            runs.append(time.perf_counter() - start)
        builds = []
        for _ in range(3):
            start = time.perf_counter()
            load_and_build(path, jobs_file=ROOT / "specs" / "vendor" / side)
            builds.append(time.perf_counter() - start)
        print(
            f"{name:<32} parse {parsed * 1000:7.0f} ms   check: first {first * 1000:5.0f} ms,"
            f" then {statistics.median(runs) * 1000:5.1f} ms   load+build"
            f" {statistics.median(builds) * 1000:6.0f} ms"
        )


if __name__ == "__main__":
    main()
