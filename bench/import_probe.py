"""Child process: import a generated SDK, decode one model, make one call over MockTransport.

Usage: python bench/import_probe.py PROBE.json  (prints one JSON line of timings)

Only the standard library is imported before the clock starts; httpx and everything
else is counted, since both SDKs import it on their own.
"""

from __future__ import annotations

import importlib
import json
import sys
import time


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        probe = json.load(fh)
    sys.path.insert(0, probe["path"])
    body = json.dumps(probe["response"]).encode()
    pkg_name = probe["package"]

    t0 = time.perf_counter()
    pkg = importlib.import_module(pkg_name)
    t1 = time.perf_counter()

    models = importlib.import_module(pkg_name + ".models")
    model = getattr(models, probe["model_class"])
    record = model.from_dict(probe["model_sample"])
    t2 = time.perf_counter()

    import httpx

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    transport = httpx.MockTransport(handler)
    args = probe["path_args"]
    if probe["tool"] == "jobgen":
        client = pkg.Client(base_url="http://bench.invalid", transport=transport)
        resource = getattr(client, probe["resource"])
        result = getattr(resource, probe["method"])(*args)
    else:
        client_mod = importlib.import_module(pkg_name + ".client")
        client = client_mod.Client(
            base_url="http://bench.invalid", httpx_args={"transport": transport}
        )
        op = importlib.import_module(f"{pkg_name}.api.{probe['op_module']}")
        response = op.sync_detailed(*args, client=client)
        result = response.parsed
        if response.status_code != 200 or result is None:
            raise SystemExit(f"peer call did not decode: {response.status_code} {result!r}")
    t3 = time.perf_counter()
    print(
        json.dumps(
            {
                "import_s": t1 - t0,
                "model_s": t2 - t1,
                "call_s": t3 - t2,
                "total_s": t3 - t0,
                "record_type": type(record).__name__,
                "result_type": type(result).__name__,
                "modules": len(sys.modules),
                "peak_rss_mb": peak_rss_mb(),
            }
        )
    )


def peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


if __name__ == "__main__":
    main()
