"""A client per task: the CPU time of constructing N `Client`s (or `AsyncClient`s) of an SDK.

    python bench/client_construct.py                    # the committed Sume SDK
    python bench/client_construct.py --sdk "before=DIR" --sdk "after=generated/sume"
                                                        # SDKs side by side (DIR holds sume_sdk)
    python bench/client_construct.py --count 200 --rounds 7

Each round runs every SDK in turn (the first one swaps each round), sync then async,
each in a fresh interpreter: import the SDK, then construct and close `--count` clients
(`Client(api_key=..., base_url="https://...")`; `AsyncClient` with `await aclose()`
inside one event loop), timed from the first construction to the last close. The
interpreter start and the import are not timed. Reported: medians over the rounds of
the process's CPU time (user + system) and wall time for all N, CPU per client, and
how many CA bundles were loaded into a TLS context (`ssl.SSLContext.load_verify_locations`,
counted in the child), which is the cost this measures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

CHILD = r"""
import json, ssl, sys, time

sys.path.insert(0, sys.argv[1])
import sume_sdk

count, kind = int(sys.argv[2]), sys.argv[3]
loads = []
load = ssl.SSLContext.load_verify_locations


def counted(self, *args, **kwargs):
    loads.append(1)
    return load(self, *args, **kwargs)


ssl.SSLContext.load_verify_locations = counted
options = {"api_key": "key-1", "base_url": "https://api.example"}


def clock():
    return time.process_time(), time.perf_counter()


if kind == "sync":
    cpu, wall = clock()
    for _ in range(count):
        sume_sdk.Client(**options).close()
    cpu_end, wall_end = clock()
else:
    import asyncio

    async def main():
        cpu, wall = clock()
        for _ in range(count):
            await sume_sdk.AsyncClient(**options).aclose()
        return cpu, wall, *clock()

    cpu, wall, cpu_end, wall_end = asyncio.run(main())
print(json.dumps({"cpu": cpu_end - cpu, "wall": wall_end - wall, "loads": len(loads)}))
"""


def run(sdk: Path, count: int, kind: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(sdk), str(count), kind],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sdk",
        action="append",
        metavar="LABEL=DIR",
        help="a generated Sume SDK (DIR holds sume_sdk); repeatable",
    )
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    sdks = [tuple(s.split("=", 1)) for s in args.sdk or [f"this checkout={REPO}/generated/sume"]]
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    for round_ in range(args.rounds):
        order = sdks if round_ % 2 == 0 else sdks[::-1]
        for label, folder in order:
            for kind in ("sync", "async"):
                result = run(Path(folder).resolve(), args.count, kind)
                runs.setdefault((label, kind), []).append(result)
    command = shlex.join(["python", "bench/client_construct.py", *sys.argv[1:]])
    print(f"`{command}`\n")
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {args.rounds} rounds,"
        f" load average {os.getloadavg()[0]:.2f} at the end\n"
    )
    print("| SDK | client | clients | CPU s | wall s | CPU per client | CA bundles loaded |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, _ in sdks:
        for kind in ("sync", "async"):
            results = runs[(label, kind)]
            cpu = statistics.median(r["cpu"] for r in results)
            wall = statistics.median(r["wall"] for r in results)
            loads = statistics.median(r["loads"] for r in results)
            name = "Client" if kind == "sync" else "AsyncClient"
            print(
                f"| {label} | {name} | {args.count} | {cpu:.3f} | {wall:.3f} |"
                f" {cpu / args.count * 1000:.2f} ms | {loads:.0f} |"
            )


if __name__ == "__main__":
    main()
