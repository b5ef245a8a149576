"""Runs the selected sections and writes bench/results.json, bench/results.md and the
results block of docs/benchmarks.md. Sections not run keep their previous results."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from common import BENCH, PY, REPO, WORK, bench_env, median, run_child, say

RESULTS_JSON = BENCH / "results.json"
RESULTS_MD = BENCH / "results.md"
DOCS = REPO / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench:results:begin -->", "<!-- bench:results:end -->"


def _environment(quick: bool) -> dict[str, Any]:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "generator", "templates"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        rev, dirty = "", ""
    versions = {}
    for dist in (
        "jobgen",
        "openapi-python-client",
        "ruff",
        "httpx",
        "attrs",
        "tenacity",
        "botocore",
    ):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "mode": "quick" if quick else "full",
        "git": rev + (" (generator/templates modified)" if dirty else ""),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_avg_start": os.getloadavg(),
        "versions": versions,
    }


def run_scale(quick: bool) -> dict[str, Any]:
    script = str(Path(__file__).with_name("scale.py"))
    env = bench_env()

    def child(tag: str, *extra: str) -> dict[str, Any]:
        out = WORK / "scale" / f"{tag}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        res = run_child(
            [str(PY), script, *extra, "--json", str(out)],
            log=WORK / "logs" / f"scale-{tag}.log",
            env=env,
            timeout=900,
        )
        if res["rc"] != 0:
            return {"error": (WORK / "logs" / f"scale-{tag}.log").read_text()[-1500:]}
        return json.loads(out.read_text())

    jobs, reads = 10_000, (2 if quick else 3)
    modes = {
        "jobgen wait_for_jobs": ["--mode", "jobgen"],
        "jobgen wait_for_job x N (gather)": ["--mode", "jobgen", "--gather"],
        "hand-written loop, same httpx client": ["--mode", "bare"],
    }
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for i in range(1 if quick else 3):
        for name, argv in modes.items():
            res = child(
                f"{name.split()[0]}-{len(argv)}-{i}",
                *argv,
                "--jobs",
                str(jobs),
                "--reads",
                str(reads),
            )
            runs[name].append(res)
            say(
                f"  scale {name:<40} {res.get('cpu_per_read_us', 0):.0f} us/read "
                f"{res.get('bytes_per_job', 0) / 1024:.1f} KiB/job"
            )
    summary: dict[str, Any] = {"jobs": jobs, "reads_per_job": reads, "modes": {}}
    for name, rs in runs.items():
        ok = [r for r in rs if "error" not in r]
        if not ok:
            summary["modes"][name] = {"error": rs[-1].get("error")}
            continue
        summary["modes"][name] = {
            key: median([r[key] for r in ok])
            for key in ("cpu_per_read_us", "bytes_per_job", "wall_s", "cpu_s", "rss_peak_mb")
        } | {"runs": len(ok), "ok_jobs": ok[-1]["ok"], "reads": ok[-1]["reads"]}
    profile_jobs = 2000
    summary["profile"] = {
        "jobs": profile_jobs,
        "jobgen": child(
            "profile-jobgen",
            "--mode",
            "jobgen",
            "--jobs",
            str(profile_jobs),
            "--reads",
            "3",
            "--profile",
        ).get("profile"),
        "bare": child(
            "profile-bare",
            "--mode",
            "bare",
            "--jobs",
            str(profile_jobs),
            "--reads",
            "3",
            "--profile",
        ).get("profile"),
    }
    rate_jobs = 3000 if quick else 10_000
    summary["rate"] = child(
        "rate", "--mode", "jobgen", "--jobs", str(rate_jobs), "--reads", "1", "--rate", "1000"
    )
    return summary


_DURATION = re.compile(r"^([0-9.]+)s (call|setup|teardown) +(\S+)", re.MULTILINE)


def run_tests() -> dict[str, Any]:
    """``make test`` as the Makefile runs it (the repository's .venv, which ``make`` creates):
    its wall time, and each test's time against the 300 s per-test timeout."""
    venv = REPO / ".venv" / "bin"
    if not (venv / "jobgen").exists():
        subprocess.run(["make", ".venv/.installed"], cwd=REPO, check=True)
    log = WORK / "logs" / "make-test.log"
    started = time.perf_counter()
    check = run_child([str(venv / "jobgen"), "generate", "--check"], log=log, cwd=REPO)
    pytest_log = WORK / "logs" / "make-test-pytest.log"
    argv = [str(venv / "python"), "-m", "pytest", "-n", "auto", "--dist", "loadgroup"]
    suite = run_child(
        [*argv, "-q", "-p", "no:cacheprovider", "--durations=0", "--durations-min=1"],
        log=pytest_log,
        cwd=REPO,
        timeout=3600,
    )
    wall = time.perf_counter() - started
    text = pytest_log.read_text(encoding="utf-8", errors="replace")
    per_test: dict[str, float] = {}
    for seconds, _, test in _DURATION.findall(text):
        per_test[test] = per_test.get(test, 0.0) + float(seconds)
    slowest = sorted(per_test.items(), key=lambda kv: kv[1], reverse=True)[:12]
    summary = next((line for line in reversed(text.splitlines()) if " in " in line), "")
    return {
        "seconds": wall,
        "rc": max(check["rc"], suite["rc"]),
        "summary": summary.strip("= "),
        "slowest": slowest,
        "timeout_s": 300,
        "load_avg": os.getloadavg(),
    }


def run_suite(
    sections: list[str],
    *,
    quick: bool,
    specs_dir: Path,
    started: float,
    only_specs: set[str] | None = None,
) -> None:
    """Run ``sections``; with ``only_specs``, the per-spec sections (gen, imports) run on
    those specs only and keep the previous results of the others."""
    import gen
    import imports
    import parallel
    import waiters

    results: dict[str, Any] = {}
    if RESULTS_JSON.exists():
        results = json.loads(RESULTS_JSON.read_text())
    results["environment"] = _environment(quick)
    prepared = gen.prepare_specs(specs_dir)
    results["specs"] = prepared
    timings: dict[str, float] = results.get("section_seconds", {})
    dates: dict[str, str] = results.get("section_dates", {})
    need_trees = {"imports", "size"} & set(sections)
    have_trees = all(
        (gen.out_dir(tool, slug, "yaml") / gen.package(tool, slug)).is_dir()
        for slug in prepared
        for tool in ("jobgen",)
    )
    if need_trees and not have_trees and "gen" not in sections:
        say("generated trees missing: running the generation section first")
        sections = ["gen", *sections]
    if only_specs and (unknown := only_specs - set(prepared)):
        raise SystemExit(
            f"unknown specs: {', '.join(sorted(unknown))} (known: {', '.join(prepared)})"
        )
    chosen = {k: v for k, v in prepared.items() if only_specs is None or k in only_specs}
    for section in sections:
        t = time.perf_counter()
        say(f"== {section}")
        if section == "gen":
            results["generation"] = {
                **(results.get("generation") or {}),
                **gen.run_generation(chosen, quick),
            }
        elif section == "profile":
            results["profile"] = gen.profile_jobgen(prepared, quick)
        elif section == "imports":
            results["imports"] = imports.run_imports(prepared, quick)
            results["import_all"] = imports.import_all(prepared, quick)
            results["import_floor"] = imports.import_floor(quick)
            results["importtime_top"] = {
                tool: imports.importtime_top("openai", tool) for tool in ("jobgen", "peer")
            }
        elif section == "size":
            results["size"] = gen.sdk_size(prepared)
        elif section == "waiters":
            results["waiters"] = waiters.run_waiters(quick)
        elif section == "scale":
            results["scale"] = run_scale(quick)
        elif section == "parallel":
            results["parallel"] = parallel.run_parallel(prepared, quick)
        elif section == "tests":
            results["tests"] = run_tests()
        timings[section] = time.perf_counter() - t
        dates[section] = time.strftime("%Y-%m-%d %H:%M %Z")
        say(f"   {section} took {timings[section]:.0f} s")
    results["section_seconds"] = timings
    results["section_dates"] = dates
    results["environment"]["load_avg_end"] = os.getloadavg()
    results["environment"]["total_seconds_this_run"] = time.perf_counter() - started
    RESULTS_JSON.write_text(json.dumps(results, indent=1, default=str))
    write_reports(results)
    say(
        f"wrote {RESULTS_MD.relative_to(REPO)} and {RESULTS_JSON.relative_to(REPO)} "
        f"in {time.perf_counter() - started:.0f} s"
    )


def write_reports(results: dict[str, Any]) -> None:
    import report

    text = report.render(results)
    RESULTS_MD.write_text(text)
    if DOCS.exists():
        docs = DOCS.read_text()
        if BEGIN in docs and END in docs:
            head, rest = docs.split(BEGIN, 1)
            _, tail = rest.split(END, 1)
            body = text.split("\n", 2)[2] if text.startswith("# ") else text
            DOCS.write_text(f"{head}{BEGIN}\n{body.strip()}\n{END}{tail}")


def rerender() -> None:
    write_reports(json.loads(RESULTS_JSON.read_text()))
