"""`from_dict` and `to_dict` time of generated models: Sume's Job and OpenAI's RunObject.

Each root (`--root label=dir`, a directory holding `sume_sdk` and `jg_openai`) is measured
in a fresh interpreter, in turn within each round, so a busy machine slows them alike; the
figures are the median and the minimum over `--runs` rounds of the best of 5 `timeit`
repeats, in microseconds per call. The first call (which builds a field table) happens
before timing.

    git archive 3199d49 generated/sume | tar -x -C /tmp/before
    jobgen generate ../shared/specs-real/openai-openapi.yaml -o /tmp/openai --package jg_openai
    python bench/model_speed.py --root before=/tmp/before/generated/sume:/tmp/openai-before \
        --root after=generated/sume:/tmp/openai
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

PROBE = r"""
import json, sys, timeit
from sume_sdk.models import Job
from jg_openai.models import RunObject

JOB = {
    "id": "job_123", "status": "processing", "terminal": False, "result_ready": False,
    "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:09.5Z",
    "next_poll_after_seconds": 2.5, "mode": "polling", "webhook_url": None,
    "progress": {"percent": 40, "stage": "summarising"}, "metadata": {"team": "a"},
}
RUN = {
    "id": "run_abc", "object": "thread.run", "created_at": 1700000000,
    "thread_id": "thread_1", "assistant_id": "asst_1", "status": "in_progress",
    "required_action": None, "last_error": None, "expires_at": 1700000600,
    "started_at": 1700000001, "cancelled_at": None, "failed_at": None,
    "completed_at": None, "incomplete_details": None, "model": "gpt-4o",
    "instructions": "Be brief.",
    "tools": [{"type": "code_interpreter"}, {"type": "file_search"}],
    "metadata": {"k": "v"},
    "usage": {"completion_tokens": 10, "prompt_tokens": 20, "total_tokens": 30},
    "max_prompt_tokens": 1000, "max_completion_tokens": 500,
    "truncation_strategy": {"type": "auto", "last_messages": None},
    "tool_choice": "auto", "parallel_tool_calls": True, "response_format": "auto",
    "temperature": 1.0, "top_p": 1.0,
}
out = {}
for name, cls, payload in (("Job", Job, JOB), ("RunObject", RunObject, RUN)):
    value = cls.from_dict(payload)
    assert value.to_dict() == payload or name == "Job", value.to_dict()
    for op, call in (("from_dict", lambda: cls.from_dict(payload)), ("to_dict", value.to_dict)):
        number = 2000
        best = min(timeit.repeat(call, number=number, repeat=5)) / number
        out[f"{name}.{op}"] = best * 1e6
print(json.dumps(out))
"""


def measure(paths: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": paths, "PYTHONHASHSEED": "0"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", action="append", required=True, help="label=dir:dir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    roots = dict(r.split("=", 1) for r in args.root)
    rounds: dict[str, list[dict[str, float]]] = {label: [] for label in roots}
    for _ in range(args.runs):
        for label, paths in roots.items():
            rounds[label].append(measure(paths))
    print("| root | measure | median µs | min µs |")
    print("|---|---|---|---|")
    for label, results in rounds.items():
        for key in results[0]:
            values = [r[key] for r in results]
            print(f"| {label} | {key} | {statistics.median(values):.1f} | {min(values):.1f} |")


if __name__ == "__main__":
    main()
