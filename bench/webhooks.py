"""Status reads per job and detection lag: webhooks first, polling as fallback.

    python bench/webhooks.py               # 100 jobs per case; writes bench/webhooks.md
    python bench/webhooks.py --jobs 500

Run it with the repository's .venv. In one process: `jobgen serve specs/sume.yaml` (a
`RunningServer`) signing webhooks, an HTTP endpoint serving the committed Sume SDK's
`webhook_receiver().asgi_app()`, and N jobs created with `mode: webhook` and that
endpoint's URL. Each job runs 3 to 6 s (spread evenly), then completes; all N are created
and waited on at once with one `AsyncClient` (`asyncio.gather` of a create followed by
`wait_for_job(..., deadline=120)`).

Cases:

- polling: no `events=`; Sume's schedule (its 2 s hint, its 2 s floor);
- webhooks: `events=receiver`, every delivery arrives;
- webhooks dropped: `events=receiver`, the server drops every delivery (scenario
  `webhook: {drop: true}`): the waits fall back to polling on the declared slow schedule
  (Sume: floor 30 s).

Reported per case: status reads per job (mean, max) and detection lag, the time from the
moment the job became terminal on the server to the moment its wait returned (median,
p90, max); a wait that began after its job had finished counts from its start.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import platform
import statistics
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(REPO), str(REPO / "generated" / "sume")]

import sume_sdk
from sume_sdk.models import CreateJobRequest, TextInput

from jobgen.server import run_server
from jobgen.server.listen import base_url, bind, make_server

KEY = "bench-key"
SECRET = "whsec_" + base64.b64encode(b"bench webhook secret of 32 bytes").decode()


def serve_receiver(app: Any) -> tuple[str, Any, threading.Thread]:
    sock = bind("127.0.0.1", 0)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return base_url(sock), server, thread


async def run_case(
    server: Any, receiver: Any, url: str, jobs: int, *, events: bool, drop: bool
) -> dict[str, Any]:
    durations = [3.0 + 3.0 * i / max(1, jobs - 1) for i in range(jobs)]
    async with sume_sdk.AsyncClient(api_key=KEY, base_url=server.base_url) as client:

        async def one(seconds: float) -> tuple[str, float]:
            scenario: dict[str, Any] = {"states": [{"state": "processing", "seconds": seconds}]}
            if drop:
                scenario["webhook"] = {"drop": True}
            body = CreateJobRequest(
                input=TextInput(type="text", text="hello"), mode="webhook", webhook_url=url
            )
            header = {"x-jobgen-scenario": json.dumps(scenario)}
            job = await client.jobs.create(body=body, extra_headers=header)
            options: dict[str, Any] = {"deadline": 120}
            if events:
                options["events"] = receiver
            began = time.monotonic()
            await client.jobs.wait_for_job(job.data.id, **options)
            return job.data.id, began, time.monotonic()

        done = await asyncio.gather(*(one(seconds) for seconds in durations))
    reads, lags = [], []
    for (job_id, began, end), seconds in zip(done, durations):
        terminal = server.app.store.jobs[job_id].created + seconds
        lags.append(end - max(terminal, began))
        reads.append(sum(1 for r in server.requests(job_id) if r.operation == "status"))
    return {"reads": reads, "lags": lags}


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--out", type=Path, default=BENCH / "webhooks.md")
    args = parser.parse_args()

    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    receiver = sume_sdk.Client(api_key=KEY).jobs.webhook_receiver(secret=SECRET)
    url, listener, thread = serve_receiver(receiver.asgi_app())
    rows = []
    try:
        with run_server(REPO / "specs" / "sume.yaml", webhook_secret=SECRET) as server:
            for name, events, drop in [
                ("polling (no events=)", False, False),
                ("webhooks, every delivery arrives", True, False),
                ("webhooks, every delivery dropped (fallback)", True, True),
            ]:
                found = asyncio.run(
                    run_case(server, receiver, url, args.jobs, events=events, drop=drop)
                )
                reads, lags = found["reads"], found["lags"]
                rows.append(
                    f"| {name} | {args.jobs} | {statistics.mean(reads):.2f} | {max(reads)} "
                    f"| {statistics.median(lags):.3f} | {quantile(lags, 0.9):.3f} "
                    f"| {max(lags):.3f} |"
                )
                print(rows[-1], flush=True)
    finally:
        listener.should_exit = True
        thread.join()

    command = "python bench/webhooks.py" + (f" --jobs {args.jobs}" if args.jobs != 100 else "")
    text = f"""# Webhooks first, polling as fallback

{started}, SDK generated/sume, Python {platform.python_version()}, {os.cpu_count()} CPUs \
(load average {load:.2f} at start). Command: `{command}`.

{args.jobs} jobs per case, each running 3 to 6 s, all created and waited on at once with
one `AsyncClient`. Status reads per job (target with webhooks: 0 when deliveries arrive, the
fallback schedule when they do not) and detection lag in seconds, from the moment the
job became terminal on the server (or the wait began, if later) to the moment its wait
returned. The server, the receiver and the client share one process and its GIL.

| case | jobs | reads/job (mean) | reads/job (max) | lag median | lag p90 | lag max |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Reading it: with webhooks a wait listens before its first status read (the fallback's
first interval, 30 s for Sume, at most half the deadline) and is woken by the delivery,
so a job whose delivery arrives costs no read. Without deliveries, the fallback reads
after 30 s and then every 30 s or more, so the lag is what remains of the first 30 s
(Sume's own schedule polls every 2 s: more reads, a lag of up to 2 s). See
docs/webhooks.md.
"""
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
