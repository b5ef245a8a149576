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

from common import BIN, PY, WORK, bench_env, median, run_child, say
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


RENDER_PHASE = """
import json, resource, sys, time
from pathlib import Path
from jobgen.config import load_targets
from jobgen.pipeline import render_all

def cpu():
    return sum(
        getattr(resource.getrusage(who), field)
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        for field in ("ru_utime", "ru_stime")
    )

targets = load_targets(Path(sys.argv[1]))
c0, t0 = cpu(), time.perf_counter()
render_all(targets)
wall, used = time.perf_counter() - t0, cpu() - c0
print(json.dumps({"wall_s": wall, "cpu_s": used}))
"""


def _render_phase(config: Path, rounds: int) -> dict[str, Any]:
    """The rendering phase alone (every SDK rendered in memory, in the worker processes),
    timed in-process: its CPU time, workers included, over its wall time."""
    samples = []
    for i in range(rounds + 1):
        log = WORK / "logs" / f"parallel-render-{i}.log"
        # cwd: not the checkout, whose generator/ would shadow the installed one
        argv = [str(PY), "-c", RENDER_PHASE, str(config)]
        res = run_child(argv, log=log, env=bench_env(), cwd=WORK)
        text = log.read_text(errors="replace").strip()
        if res["rc"] != 0:
            return {"error": text[-1500:]}
        if i:
            samples.append(json.loads(text.splitlines()[-1]))
    wall = median([s["wall_s"] for s in samples]) or 0.0
    cpu = median([s["cpu_s"] for s in samples]) or 0.0
    return {"wall_s": wall, "cpu_s": cpu, "cores_busy": cpu / wall if wall else 0.0}


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
    render = _render_phase(config, rounds)
    return {
        "render": render,
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
