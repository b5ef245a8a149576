"""Parallel generation: one ``jobgen generate`` over a config listing several SDKs, against
the same SDKs generated one ``jobgen generate SPEC`` at a time.

The config lists every small spec of the run (the real small specs and the examples), in
their YAML form. Rounds alternate the two ways (the first swaps every round). "Cores busy"
is the parallel run's CPU time (its own and its worker processes') over its wall time.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from common import BIN, WORK, bench_env, median, run_child, say
from gen import package


def _targets(prepared: dict[str, dict[str, Any]]) -> dict[str, Path]:
    return {slug: Path(info["paths"]["yaml"]) for slug, info in prepared.items() if info["small"]}


def _config(root: Path, targets: dict[str, Path]) -> Path:
    lines = []
    for slug, spec in targets.items():
        lines += [
            "[[tool.jobgen.sdk]]",
            f"spec = {json.dumps(str(spec))}",
            f"output = {json.dumps(f'out/{slug}')}",
            f"package = {json.dumps(package('jobgen', slug))}",
            "",
        ]
    config = root / "pyproject.toml"
    config.write_text("\n".join(lines), encoding="utf-8")
    return config


def run_parallel(prepared: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    root = WORK / "parallel"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    targets = _targets(prepared)
    config = _config(root, targets)
    env = bench_env()
    jobgen = str(BIN / "jobgen")
    rounds = 1 if quick else 3
    parallel: list[dict[str, Any]] = []
    serial: list[dict[str, Any]] = []
    for i in range(rounds + 1):  # round 0 warms the bytecode and template caches
        order = ("parallel", "serial") if i % 2 == 0 else ("serial", "parallel")
        for way in order:
            shutil.rmtree(root / "out", ignore_errors=True)
            if way == "parallel":
                log = WORK / "logs" / f"parallel-{i}.log"
                res = run_child([jobgen, "generate", "--config", str(config)], log=log, env=env)
                if res["rc"] != 0:
                    return {"error": log.read_text(errors="replace")[-1500:]}
                if i:
                    parallel.append(res)
                continue
            total = {"seconds": 0.0, "cpu_seconds": 0.0}
            for slug, spec in targets.items():
                log = WORK / "logs" / f"serial-{slug}-{i}.log"
                argv = [jobgen, "generate", str(spec), "-o", str(root / "out" / slug)]
                res = run_child([*argv, "--package", package("jobgen", slug)], log=log, env=env)
                if res["rc"] != 0:
                    return {"error": log.read_text(errors="replace")[-1500:]}
                total["seconds"] += res["seconds"]
                total["cpu_seconds"] += res["cpu_seconds"]
            if i:
                serial.append(total)
        if i:
            say(
                f"  parallel {len(targets)} SDKs: one run {parallel[-1]['seconds']:.2f} s, "
                f"one by one {serial[-1]['seconds']:.2f} s"
            )
    cpus = os.cpu_count() or 1
    par_wall = median([r["seconds"] for r in parallel]) or 0.0
    par_cpu = median([r["cpu_seconds"] for r in parallel]) or 0.0
    ser_wall = median([r["seconds"] for r in serial]) or 0.0
    busy = par_cpu / par_wall if par_wall else 0.0
    return {
        "sdks": list(targets),
        "cpus": cpus,
        "workers": min(len(targets), cpus),
        "rounds": rounds,
        "parallel_wall_s": par_wall,
        "parallel_cpu_s": par_cpu,
        "serial_wall_s": ser_wall,
        "serial_cpu_s": median([r["cpu_seconds"] for r in serial]),
        "cores_busy": busy,
        "speedup": ser_wall / par_wall if par_wall else None,
        "load_avg": os.getloadavg(),
    }
