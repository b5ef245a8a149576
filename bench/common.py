"""Shared helpers: paths, child processes with their resource usage, medians, line counts."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
VENV = WORK / "venv"
BIN = VENV / "bin"
PY = BIN / "python"
SDK_PY = WORK / "sdk-venv" / "bin" / "python"  # only the generated SDKs' dependencies


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def run_child(
    argv: list[str],
    *,
    log: Path,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> dict[str, Any]:
    """Run ``argv`` with stdout+stderr to ``log``: wall time, exit code and CPU time.

    CPU time comes from ``wait4``: the child's own plus that of the processes it
    waited for (ruff, for both generators). Its ru_maxrss is not used: Linux carries
    it over exec from the forking process, so children measure their own VmHWM.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "seconds": wall,
        "rc": proc.returncode,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
    }


def tree_stats(root: Path) -> dict[str, int]:
    """Files (without __pycache__), Python files and their lines under ``root``."""
    files = py_files = py_lines = 0
    for path in root.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        files += 1
        if path.suffix == ".py":
            py_files += 1
            py_lines += count_lines(path)
    return {"files": files, "py_files": py_files, "py_lines": py_lines}


def count_lines(path: Path, *, code_only: bool = False) -> int:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not code_only:
        return text.count("\n")
    return sum(
        1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )


def bench_env() -> dict[str, str]:
    """The environment for children: the bench venv first on PATH (its ruff for both)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env.pop("PYTHONPATH", None)
    # Both tools run as installed, from cached bytecode: with this set, the editable
    # checkout's modules (which no install step compiled) were compiled on every run,
    # about 0.1 s of CPU per jobgen run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONHASHSEED"] = "0"
    return env


def say(message: str) -> None:
    print(message, flush=True, file=sys.stderr)
