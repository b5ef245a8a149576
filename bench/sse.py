"""Event streams: time and peak memory of one ``data:`` line that never ends.

    python bench/sse.py                          # writes bench/sse.md
    python bench/sse.py --sdk DIR --label NAME   # another generated Sume SDK (DIR holds
                                                 # sume_sdk), e.g. an older checkout's
    python bench/sse.py --sizes 16,64            # megabytes of the line

Each case runs in a fresh interpreter: a Sume `Client` over `httpx.MockTransport` reads
`jobs.stream_events(...)` whose body is `data: ` and N MB of `x`, no newline, in 64 KiB
chunks (httpx's own chunk size). Reported: seconds until the iteration ended (the stream
ended, or the SDK refused the line) and the process's peak RSS above its RSS before the
call (`ru_maxrss`, Linux). With `--limit MB` the line limit is raised to that
(`stream.limits(max_line=...)`), to time parsing itself; without it the SDK's defaults
apply (an SDK older than the limits ignores `--limit`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CHUNK = 64 * 1024

CHILD = r"""
import json, resource, sys, time
import httpx
sys.path.insert(0, sys.argv[1])
import sume_sdk

size, limit = int(sys.argv[2]), int(sys.argv[3])


class Body(httpx.SyncByteStream):
    def __iter__(self):
        yield b"data: "
        chunk = b"x" * CHUNK
        for _ in range(size // CHUNK):
            yield chunk


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())


client = sume_sdk.Client(api_key="k", transport=httpx.MockTransport(answer))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
outcome = "ended"
try:
    stream = client.jobs.stream_events("job_1")
    if limit and hasattr(stream, "limits"):
        stream = stream.limits(max_line=limit, max_event=limit)
    for _ in stream:
        pass
except Exception as error:
    outcome = type(error).__name__
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_mb": (peak - before) / 1024, "outcome": outcome}))
""".replace("CHUNK", str(CHUNK))


def run(sdk: Path, size_mb: int, limit_mb: int) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(sdk), str(size_mb << 20), str(limit_mb << 20)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sdk", type=Path, default=REPO / "generated" / "sume")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--sizes", default="16,64")
    parser.add_argument("--limit", type=int, default=0, help="max_line in MB (0: defaults)")
    args = parser.parse_args()
    print(f"## {args.label}: `{shlex.join(['python', 'bench/sse.py', *sys.argv[1:]])}`\n")
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}\n"
    )
    print("| line | outcome | seconds | peak RSS above start (MB) |")
    print("|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        result = run(args.sdk, size, args.limit)
        print(
            f"| {size} MB | {result['outcome']} | {result['seconds']:.2f} |"
            f" {result['peak_mb']:.0f} |"
        )
    print()


if __name__ == "__main__":
    main()
