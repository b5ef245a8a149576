"""Run a console script in this interpreter and record its own peak RSS.

Usage: python bench/rss_wrap.py OUT.json SCRIPT [ARGS...]

Writes {"self_mb": ...} at exit: the peak RSS of this process (VmHWM, which exec
resets; ru_maxrss would carry over the RSS of the process that forked it), so the
generator's own memory is told apart from the harness and from its ruff subprocesses.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys


def peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _record(path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"self_mb": peak_rss_mb()}, fh)


if __name__ == "__main__":
    out, script, *args = sys.argv[1:]
    atexit.register(_record, out)
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as if run directly
    runpy.run_path(script, run_name="__main__")
