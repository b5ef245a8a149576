"""Memory of `jobgen serve` under a long load: RSS after N creates, and over a simulated 30 min.

Usage: python bench/serve_memory.py [--out bench/serve_memory.md]

Each measurement runs in a fresh child process that builds the simulated Sume API in
process and drives it with requests as the HTTP layer hands them over (``JobApp.handle``),
on an injected clock, so a 30-minute load takes seconds and no socket is involved (the
HTTP layer keeps no state between requests). Every job is created with an idempotency
key and polled once. RSS is the process's VmRSS after a full garbage collection.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SPEC = REPO / "specs" / "sume.yaml"
COUNTS = (0, 1_000, 10_000, 50_000, 100_000, 200_000)
RATE = 50.0  # creates per simulated second in the timed load
MINUTES = 30
LIMITS: dict[str, dict[str, Any]] = {
    "defaults (ttl 3600 s, 10,000 jobs, 10,000 log entries)": {},
    "ttl 60 s": {"job_ttl": 60.0},
    "no limits": {"job_ttl": None, "max_jobs": None, "max_log": None},
}


def rss_mb() -> float:
    gc.collect()
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def child(mode: str, limits: dict[str, Any]) -> dict[str, Any]:
    """Run in the child: the measurements of one configuration."""
    sys.path.insert(0, str(REPO))
    from jobgen.model.build import load_and_build
    from jobgen.server.app import JobApp
    from jobgen.server.store import Limits
    from jobgen.server.wire import Request

    now = [0.0]
    app = JobApp(load_and_build(SPEC), clock=lambda: now[0], limits=Limits(**limits))
    body = json.dumps({"input": {"type": "text", "text": "hello"}}).encode()

    def one(index: int) -> None:
        headers = {
            "x-api-key": f"key-{index % 7}",
            "idempotency-key": f"create-{index}",
            "content-type": "application/json",
            "host": "127.0.0.1:8000",
        }
        answer = app.handle(Request("POST", "/v1/jobs", "", headers, body, "127.0.0.1:8000"))
        job_id = json.loads(answer.body)["data"]["id"]
        app.handle(Request("GET", f"/v1/jobs/{job_id}", "expand=x", headers, b"", "127.0.0.1:8000"))

    baseline = rss_mb()
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    if mode == "count":
        done = 0
        for target in COUNTS:
            while done < target:
                one(done)
                done += 1
                now[0] += 1 / RATE
            rows.append(
                {
                    "creates": target,
                    "rss_mb": rss_mb(),
                    "jobs": len(app.store.jobs),
                    "log": len(app.store.log),
                }
            )
    else:
        done = 0
        for minute in range(0, MINUTES + 1, 3):
            while now[0] < minute * 60:
                one(done)
                done += 1
                now[0] += 1 / RATE
            rows.append(
                {
                    "minute": minute,
                    "creates": done,
                    "rss_mb": rss_mb(),
                    "jobs": len(app.store.jobs),
                    "log": len(app.store.log),
                }
            )
    return {"baseline_mb": baseline, "rows": rows, "seconds": time.perf_counter() - started}


def table(results: dict[str, dict[str, Any]], key: str, title: str) -> list[str]:
    names = list(results)
    points = [row[key] for row in results[names[0]]["rows"]]
    lines = [
        f"| {title} | " + " | ".join(names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for index, point in enumerate(points):
        cells = []
        for name in names:
            row = results[name]["rows"][index]
            cells.append(f"{row['rss_mb']:.0f} MB ({row['jobs']:,} jobs, {row['log']:,} logged)")
        lines.append(f"| {point:,} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BENCH / "serve_memory.md")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "LIMITS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], json.loads(args.child[1]))))
        return 0
    results: dict[str, dict[str, dict[str, Any]]] = {"count": {}, "time": {}}
    for mode, measured in results.items():
        for name, limits in LIMITS.items():
            done = subprocess.run(
                [sys.executable, __file__, "--child", mode, json.dumps(limits)],
                check=True,
                capture_output=True,
                text=True,
            )
            measured[name] = json.loads(done.stdout)
            print(f"{mode} / {name}: {measured[name]['seconds']:.0f} s", file=sys.stderr)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
    ).stdout.strip()
    lines = [
        "# `jobgen serve`: memory under load",
        "",
        (
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, Python "
            f"{platform.python_version()}. Command: `python bench/serve_memory.py`."
        ),
        "",
        "The Sume API in process, driven through `JobApp.handle` on an injected clock at "
        f"{RATE:.0f} creates per simulated second; each create carries an idempotency key "
        "and is polled once (two logged requests). RSS is VmRSS after `gc.collect()`, in a "
        "fresh process per column (baseline: "
        + ", ".join(f"{r['baseline_mb']:.0f} MB" for r in results["count"].values())
        + ").",
        "",
        "## RSS after N creates",
        "",
        *table(results["count"], "creates", "creates"),
        "",
        f"## RSS over a simulated {MINUTES}-minute load",
        "",
        *table(results["time"], "minute", "minute"),
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
