"""Stage timings and a cProfile of jobgen generating one spec (run in the bench venv).

Usage: python bench/profile_gen.py SPEC OUT [--repeat N] [--json FILE]

Stages: load (parse the document), model (build the intermediate model), render
(templates and line layout: the code comes out formatted, no formatter runs), write
(atomic swap into OUT). Timings are medians of N passes; the profile is of one extra
pass, attributed to jobgen's files and its libraries (jinja2, yaml, attrs...).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import time
from pathlib import Path

from jobgen.model.build import build_sdk
from jobgen.render.output import write_tree
from jobgen.render.render import render_sdk
from jobgen.spec.loader import load_spec


def one_pass(spec: Path, out: Path) -> dict[str, float]:
    times: dict[str, float] = {}
    t = time.perf_counter()
    loaded = load_spec(spec)
    times["load"] = time.perf_counter() - t
    t = time.perf_counter()
    sdk = build_sdk(loaded, package="jg_profile")
    times["model"] = time.perf_counter() - t
    t = time.perf_counter()
    files = render_sdk(sdk, spec.name)
    times["render"] = time.perf_counter() - t
    t = time.perf_counter()
    write_tree(files, out)
    times["write"] = time.perf_counter() - t
    times["total"] = sum(times.values())
    return times


def _where(filename: str) -> str:
    if "/generator/" in filename:
        return "jobgen:" + filename.split("/generator/", 1)[1]
    for lib in ("jinja2", "yaml", "attrs", "attr", "markupsafe", "subprocess", "json", "re"):
        if f"/{lib}/" in filename or filename.endswith(f"/{lib}.py"):
            return "lib:" + lib
    if filename.startswith("<template>") or filename.endswith(".j2") or "templates/" in filename:
        return "jinja2 templates (compiled)"
    if filename == "~":
        return "builtins"
    return "other:" + Path(filename).name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    passes = [one_pass(args.spec, args.out) for _ in range(args.repeat)]
    stages = {k: statistics.median(p[k] for p in passes) for k in passes[0]}

    profiler = cProfile.Profile()
    profiler.enable()
    one_pass(args.spec, args.out)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = max(row[3] for row in stats.stats.values())  # cumulative of the outermost call
    by_function = []
    by_file: dict[str, float] = {}
    for (filename, line, name), (_, ncalls, tottime, cumtime, _) in stats.stats.items():
        where = _where(filename)
        by_file[where] = by_file.get(where, 0.0) + tottime
        if filename == "~":
            label = name
        elif "/generator/" in filename:
            label = f"generator/{filename.split('/generator/', 1)[1]}:{name}"
        else:
            label = f"{Path(filename).parent.name}/{Path(filename).name}:{name}"
        by_function.append(
            {
                "function": label,
                "line": line,
                "calls": ncalls,
                "tottime": tottime,
                "cumtime": cumtime,
            }
        )
    top_self = sorted(by_function, key=lambda r: r["tottime"], reverse=True)[:15]
    jobgen_cum = [r for r in by_function if r["function"].startswith("generator/")]
    top_cum = sorted(jobgen_cum, key=lambda r: r["cumtime"], reverse=True)[:25]
    files = sorted(by_file.items(), key=lambda kv: kv[1], reverse=True)[:15]
    result = {
        "spec": str(args.spec),
        "passes": args.repeat,
        "stages_s": stages,
        "profiled_total_s": total,
        "top_self": top_self,
        "top_cumulative_jobgen": top_cum,
        "by_file": [{"where": w, "tottime": t, "share": t / total} for w, t in files],
    }
    text = json.dumps(result, indent=2)
    if args.json:
        args.json.write_text(text)
    print(json.dumps(stages, indent=2))


if __name__ == "__main__":
    main()
