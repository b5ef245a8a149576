#!/usr/bin/env python3
"""How long another client waits while `jobgen serve` answers a hostile request.

    .venv/bin/python bench/serve_hostile.py            # writes bench/serve_hostile.{json,md}

Starts `jobgen serve tests/server/specs/requests.yaml` in its own process. For each case,
one client sends the hostile request over and over for two seconds while another reads a
job's status every 5 ms; the table gives the hostile request's own time (median) and the
other client's status read times (median, 99th percentile, worst), against a run with no
hostile client. The cases are those of the red-team pass on serve: ten adjacent path
parameters, a multipart header folded 200,000 times, 10,000 parts, parts nested 1,000
deep, a lone surrogate in JSON, a value the pattern engine gives up on, plus a form of
100,000 fields and a valid 1 MiB JSON body.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "server" / "specs" / "requests.yaml"
KEY = {"x-api-key": "key-1"}
SECONDS = 2.0
VICTIM_PERIOD = 0.005


def _multipart(parts: list[bytes]) -> tuple[bytes, dict[str, str]]:
    body = b"".join(b"--b\r\n" + part + b"\r\n" for part in parts) + b"--b--\r\n"
    return body, {"content-type": "multipart/form-data; boundary=b"}


def _folded() -> tuple[bytes, dict[str, str]]:
    head = b'Content-Disposition: form-data; name="title"\r\nX-Long: a'
    return _multipart([head + b"\r\n a" * 200_000 + b"\r\n\r\nx"])


def _many_parts() -> tuple[bytes, dict[str, str]]:
    part = b'Content-Disposition: form-data; name="title"\r\n\r\nx'
    return _multipart([part] * 10_000)


def _nested() -> tuple[bytes, dict[str, str]]:
    inner = b"x"
    for depth in range(1000):
        boundary = f"n{depth}".encode()
        inner = (
            b"Content-Type: multipart/mixed; boundary="
            + boundary
            + b"\r\n\r\n--"
            + boundary
            + b"\r\n"
            + inner
            + b"\r\n--"
            + boundary
            + b"--"
        )
    return _multipart([b'Content-Disposition: form-data; name="title"\r\n' + inner])


Case = tuple[str, str, str, Callable[[], tuple[bytes, dict[str, str]]]]

CASES: list[Case] = [
    (
        "10 adjacent path parameters, 30-character path",
        "POST",
        "/" + "a" * 30 + "!/jobs",
        lambda: (b"", {}),
    ),
    (
        "10 adjacent path parameters, 8,000-character path",
        "POST",
        "/" + "a" * 8000 + "!/jobs",
        lambda: (b"", {}),
    ),
    ("multipart: a header folded 200,000 times", "POST", "/notes", _folded),
    ("multipart: 10,000 parts", "POST", "/notes", _many_parts),
    ("multipart: parts nested 1,000 deep", "POST", "/notes", _nested),
    (
        "JSON: a lone surrogate",
        "POST",
        "/notes",
        lambda: (b'{"title": "\\ud800"}', {"content-type": "application/json"}),
    ),
    (
        "JSON: a value the pattern engine gives up on",
        "POST",
        "/labels",
        lambda: (
            json.dumps({"label": "a" * 40 + "!"}).encode(),
            {"content-type": "application/json"},
        ),
    ),
    (
        "form: 100,000 fields",
        "POST",
        "/notes",
        lambda: (
            "&".join(f"f{i}=x" for i in range(100_000)).encode(),
            {"content-type": "application/x-www-form-urlencoded"},
        ),
    ),
    (
        "JSON: a valid 1 MiB body",
        "POST",
        "/notes",
        lambda: (
            json.dumps({"title": "t", "notes": ["x" * 100] * 9000}).encode(),
            {"content-type": "application/json"},
        ),
    ),
]


def _start() -> tuple[subprocess.Popen[str], str]:
    jobgen = Path(sys.executable).with_name("jobgen")
    process = subprocess.Popen(
        [str(jobgen), "serve", str(SPEC), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://[\d.]+:\d+", line)
    assert found, line
    return process, found.group(0)


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "median": round(statistics.median(ordered) * 1000, 2),
        "p99": round(p99 * 1000, 2),
        "max": round(ordered[-1] * 1000, 2),
    }


def run_case(base: str, case: Case | None) -> dict[str, object]:
    with httpx.Client(base_url=base, headers=KEY, timeout=120) as victim:
        job = victim.post("/_jobgen/jobs", params={"job_name": "note"}, json={"final": "never"})
        job_id = job.json()["id"]
        victim.get(f"/tasks/{job_id}")  # warm the connection
        stop = threading.Event()
        hostile_times: list[float] = []
        statuses: set[int] = set()

        def hostile() -> None:
            assert case is not None
            _, method, path, make = case
            body, headers = make()
            with httpx.Client(base_url=base, headers=KEY, timeout=120) as client:
                while not stop.is_set():
                    start = time.perf_counter()
                    answer = client.request(method, path, content=body, headers=headers)
                    hostile_times.append(time.perf_counter() - start)
                    statuses.add(answer.status_code)

        thread = threading.Thread(target=hostile) if case else None
        if thread:
            thread.start()
            time.sleep(0.2)
        reads: list[float] = []
        end = time.perf_counter() + SECONDS
        while time.perf_counter() < end:
            start = time.perf_counter()
            answer = victim.get(f"/tasks/{job_id}")
            reads.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text
            time.sleep(VICTIM_PERIOD)
        stop.set()
        if thread:
            thread.join()
    row: dict[str, object] = {"case": case[0] if case else "no hostile client"}
    if case:
        row["hostile_status"] = sorted(statuses)
        row["hostile_requests"] = len(hostile_times)
        row["hostile_ms_median"] = _ms(hostile_times)["median"]
    row["other_client_ms"] = _ms(reads)
    row["other_client_reads"] = len(reads)
    return row


def main() -> None:
    process, base = _start()
    try:
        rows = [run_case(base, None)] + [run_case(base, case) for case in CASES]
    finally:
        process.terminate()
        process.wait(10)
    load = os.getloadavg()[0]
    (ROOT / "bench" / "serve_hostile.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = [
        "# Another client's wait while `jobgen serve` answers a hostile request",
        "",
        "`.venv/bin/python bench/serve_hostile.py` (2 cores shared with other work, load",
        f"average {load:.1f} at the end of this run; the worst figures vary from run to run).",
        "Each hostile request is sent over and over for 2 s while another client reads a",
        "job's status every 5 ms.",
        "",
        "| hostile request | its answer | its time (median) | other client's read: median / p99 / max |",
        "|---|---|---|---|",
    ]
    for row in rows:
        other = row["other_client_ms"]
        assert isinstance(other, dict)
        status = ", ".join(str(s) for s in row.get("hostile_status", [])) or "-"  # type: ignore[attr-defined]
        own = f"{row['hostile_ms_median']} ms" if "hostile_ms_median" in row else "-"
        lines.append(
            f"| {row['case']} | {status} | {own} | "
            f"{other['median']} / {other['p99']} / {other['max']} ms |"
        )
    (ROOT / "bench" / "serve_hostile.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
