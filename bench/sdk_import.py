"""`import <sdk>` of committed SDKs: seconds, and whether asyncio or tenacity loaded.

Each run is a fresh interpreter started in the SDK's directory, so the package imported
is the one under the given root; the time is the import alone, as `time.perf_counter()`
sees it inside the child. Roots (`--root label=dir`, e.g. the SDKs of the parent commit
and the current ones) are measured in turn within each round, so a busy machine slows
both alike; the reported figures are the median and the minimum over `--runs` rounds of
the wall time and of the CPU time (`time.process_time()` around the import, steadier on a
loaded machine), after one untimed round that compiles bytecode. `--python` may be given
more than once: the development venv (where httpx also imports rich for its CLI) and a clean venv holding only an SDK's
own dependencies. The `floor` row imports just httpx and attrs.

    git archive HEAD~1 generated | tar -x -C /tmp/before
    python bench/sdk_import.py --python .venv/bin/python --python /tmp/sdkvenv/bin/python \
        --root before=/tmp/before/generated --root after=generated
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROBE = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
package = __import__(sys.argv[1])
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
assert package.__file__.startswith(sys.argv[2]), package.__file__
loaded = [m for m in ("asyncio", "tenacity", "rich") if m in sys.modules]
print(json.dumps({"import_s": seconds, "cpu_s": cpu, "loaded": loaded}))
"""

FLOOR = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import httpx, attrs
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"import_s": seconds, "cpu_s": cpu, "loaded": []}))
"""


def probe(python: str, sdk_dir: Path | None, package: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    argv = [os.path.abspath(python), "-c", FLOOR]
    if sdk_dir is not None:
        argv = [os.path.abspath(python), "-c", PROBE, package, str(sdk_dir)]
    proc = subprocess.run(argv, cwd=sdk_dir, env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", required=True)
    parser.add_argument("--root", action="append", required=True, help="label=directory")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("sdk_import.json"))
    args = parser.parse_args()

    # label, sdk, directory, package
    cases: list[tuple[str, str, Path | None, str]] = [("floor", "httpx+attrs", None, "")]
    for spec in args.root:
        label, _, root = spec.partition("=")
        for sdk_dir in sorted(p for p in Path(root).resolve().iterdir() if p.is_dir()):
            package = next(p.name for p in sdk_dir.iterdir() if (p / "__init__.py").is_file())
            cases.append((label, sdk_dir.name, sdk_dir, package))
    samples: dict[tuple[str, str, str], list[float]] = {}
    cpu: dict[tuple[str, str, str], list[float]] = {}
    loaded: dict[tuple[str, str, str], list[str]] = {}
    load_before = os.getloadavg()[0]
    for i in range(args.runs + 1):  # round 0 writes bytecode and is not counted
        for label, sdk, sdk_dir, package in cases:
            for python in args.python:
                seen = probe(python, sdk_dir, package)
                if i:
                    samples.setdefault((label, sdk, python), []).append(seen["import_s"])
                    cpu.setdefault((label, sdk, python), []).append(seen["cpu_s"])
                    loaded[label, sdk, python] = seen["loaded"]
    rows = [
        {
            "label": label,
            "sdk": sdk,
            "python": python,
            "import_s": round(statistics.median(values), 4),
            "min_s": round(min(values), 4),
            "cpu_s": round(statistics.median(cpu[label, sdk, python]), 4),
            "cpu_min_s": round(min(cpu[label, sdk, python]), 4),
            "runs": len(values),
            "loaded": loaded[label, sdk, python],
        }
        for (label, sdk, python), values in samples.items()
    ]
    for row in rows:
        print(
            f"{row['label']:<7} {row['sdk']:<20} {row['python']:<24} "
            f"{row['import_s']:.3f} s (min {row['min_s']:.3f}), "
            f"CPU {row['cpu_s']:.3f} s (min {row['cpu_min_s']:.3f})  loaded {','.join(row['loaded']) or '-'}"
        )
    result = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [load_before, os.getloadavg()[0]],
        "command": " ".join(["python", *sys.argv]),
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
