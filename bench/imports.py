"""Import time of the generated SDKs: `import pkg`, one model's from_dict, one client call.

Each measurement is a fresh interpreter of bench/.work/sdk-venv, which holds only the
SDKs' runtime dependencies (httpx, attrs, tenacity, python-dateutil): in the main
bench venv httpx would also import click, rich and pygments for its CLI. Bytecode is
compiled by an untimed warm-up run first, as after an install. The call goes through httpx.MockTransport and
returns an example body for the operation's response schema; the example comes from
jobgen's sampler (generator/server/samples.py), and both SDKs decode the same bytes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from common import SDK_PY, WORK, bench_env, median, run_child, say
from gen import out_dir, package

#: slug -> operationId of the call (a GET whose response is a named model, used as the model too)
PROBES = {
    "baseline-3.0": "reference_response",
    "baseline-3.1": "reference_response",
    "assemblyai": "getTranscript",
    "stripe": "GetReportingReportRunsReportRun",
    "openai": "retrieveBatch",
}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _probe_specs(prepared: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    from jobgen.model import ir
    from jobgen.model.build import load_and_build
    from jobgen.server.samples import Sampler

    found: dict[str, dict[str, Any]] = {}
    for slug, operation_id in PROBES.items():
        spec = Path(prepared[slug]["paths"]["yaml"])
        sdk = load_and_build(spec, package=package("jobgen", slug))
        for resource in sdk.resources:
            for op in resource.operations:
                if op.operation_id == operation_id:
                    break
            else:
                continue
            break
        else:
            raise LookupError(f"{slug}: no operation {operation_id}")
        ref = op.response.type
        assert isinstance(ref, ir.Ref), ref
        schema = sdk.schemas[ref.key]
        sample = Sampler(sdk.schemas, timestamp="2025-01-02T03:04:05Z").sample(ref)
        found[slug] = {
            "operation_id": operation_id,
            "schema": ref.key.rsplit("/", 1)[-1],
            "path_args": ["bench-id" for p in op.parameters if p.location == "path"],
            "jobgen": {"resource": resource.attr, "method": op.name, "model_class": schema.name},
            "sample": sample,
        }
    return found


def _peer_names(pkg_dir: Path, operation_id: str, schema: str) -> dict[str, str] | None:
    for path in sorted((pkg_dir / "api").glob("*/*.py")):
        if path.stem.replace("_", "") == _norm(operation_id):
            imports = re.findall(r"from \.\.\.models\.(\w+) import (\w+)", path.read_text())
            names = [cls for _, cls in imports if _norm(cls) == _norm(schema)]
            if not names:
                return None
            return {"op_module": f"{path.parent.name}.{path.stem}", "model_class": names[0]}
    return None


def _with_credentials(env: dict[str, str], root: Path, pkg: str) -> dict[str, str]:
    """``env`` plus a dummy value for every credential variable the jobgen client reads
    (a client of a spec with security refuses to send without credentials)."""
    client = root / pkg / "_client.py"
    if not client.exists():
        return env
    names = re.findall(r'_environ\.get\("([A-Za-z0-9_]+)"\)', client.read_text(encoding="utf-8"))
    return {**env, **dict.fromkeys(names, "bench-credential")}


def run_imports(prepared: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    probes = _probe_specs(prepared)
    rounds = 3 if quick else 7
    env = bench_env()
    results: dict[str, Any] = {}
    for slug, probe in probes.items():
        row: dict[str, Any] = {"operation_id": probe["operation_id"], "schema": probe["schema"]}
        for tool in ("jobgen", "peer"):
            root = out_dir(tool, slug, "yaml")
            pkg = package(tool, slug)
            if not (root / pkg / "__init__.py").exists():
                row[tool] = {"error": "no generated package (generation failed)"}
                continue
            names = (
                probe["jobgen"]
                if tool == "jobgen"
                else _peer_names(root / pkg, probe["operation_id"], probe["schema"])
            )
            if names is None:
                row[tool] = {"error": f"{probe['operation_id']} or its model was not generated"}
                continue
            spec = {
                "tool": tool,
                "path": str(root),
                "package": pkg,
                **names,
                "path_args": probe["path_args"],
                "model_sample": probe["sample"],
                "response": probe["sample"],
            }
            probe_file = WORK / "probes" / f"{tool}-{slug}.json"
            probe_file.parent.mkdir(parents=True, exist_ok=True)
            probe_file.write_text(json.dumps(spec))
            argv = [str(SDK_PY), str(Path(__file__).with_name("import_probe.py")), str(probe_file)]
            samples = []
            error = None
            for i in range(rounds + 1):  # the first run compiles bytecode and is not counted
                log = WORK / "logs" / f"import-{tool}-{slug}-{i}.log"
                res = run_child(argv, log=log, env=_with_credentials(env, root, pkg))
                text = log.read_text(errors="replace")
                if res["rc"] != 0:
                    error = text.strip().splitlines()[-1][:300] if text.strip() else "failed"
                    break
                if i:
                    samples.append(
                        {**json.loads(text.strip().splitlines()[-1]), "process_s": res["seconds"]}
                    )
            if error:
                row[tool] = {"error": error}
                say(f"  import {slug:<13} {tool:<6} error: {error}")
                continue
            row[tool] = {
                key: median([s[key] for s in samples])
                for key in ("import_s", "model_s", "call_s", "total_s", "process_s", "peak_rss_mb")
            }
            row[tool]["runs"] = len(samples)
            row[tool]["modules"] = samples[-1]["modules"]
            say(f"  import {slug:<13} {tool:<6} {row[tool]['total_s']:.3f} s")
        jg, peer = row.get("jobgen", {}), row.get("peer", {})
        if "total_s" in jg and "total_s" in peer:
            row["ratio"] = jg["total_s"] / peer["total_s"]
        results[slug] = row
    return results


FLOOR = """
import json, time
t0 = time.perf_counter()
import httpx, attrs, tenacity
print(json.dumps({"total_s": time.perf_counter() - t0}))
"""


def import_floor(quick: bool) -> dict[str, Any]:
    """A fresh interpreter importing only jobgen's runtime dependencies."""
    samples = []
    for i in range((3 if quick else 7) + 1):
        log = WORK / "logs" / f"import-floor-{i}.log"
        res = run_child([str(SDK_PY), "-c", FLOOR], log=log, env=bench_env())
        if res["rc"] == 0 and i:
            samples.append(json.loads(log.read_text().strip().splitlines()[-1])["total_s"])
    return {"total_s": median(samples), "runs": len(samples)}


IMPORT_ALL = """
import importlib, json, pathlib, sys, time
root, pkg = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
base = pathlib.Path(root) / pkg
names = sorted(
    ".".join((pkg, *p.relative_to(base).with_suffix("").parts)).removesuffix(".__init__")
    for p in base.rglob("*.py")
    if "__pycache__" not in p.parts
)
skipped, failed = [], []
t0 = time.perf_counter()
for name in names:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:  # an optional extra (celery, rich) not installed
        if (exc.name or "").split(".")[0] == pkg:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
        else:
            skipped.append(name)
    except Exception as exc:  # a module of the package that does not import
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print(json.dumps({
    "total_s": time.perf_counter() - t0,
    "modules": len(names),
    "skipped": skipped,
    "failed": failed,
}))
"""


def import_all(prepared: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    """A fresh interpreter importing every module of each generated package (OpenAI's has
    thousands), in the SDK-only venv; modules needing an extra that is not installed (the
    fleet's celery) are skipped and listed."""
    rounds = 3 if quick else 5
    results: dict[str, Any] = {}
    for slug in prepared:
        row: dict[str, Any] = {}
        for tool in ("jobgen", "peer"):
            root = out_dir(tool, slug, "yaml")
            pkg = package(tool, slug)
            if not (root / pkg / "__init__.py").exists():
                continue
            samples: list[dict[str, Any]] = []
            for i in range(rounds + 1):  # the first run compiles bytecode
                log = WORK / "logs" / f"import-all-{tool}-{slug}-{i}.log"
                argv = [str(SDK_PY), "-c", IMPORT_ALL, str(root), pkg]
                res = run_child(argv, log=log, env=bench_env())
                text = log.read_text(errors="replace").strip()
                if res["rc"] != 0:
                    row[tool] = {"error": text.splitlines()[-1][:300] if text else "failed"}
                    break
                if i:
                    samples.append({**json.loads(text.splitlines()[-1]), **res})
            else:
                row[tool] = {
                    "total_s": median([s["total_s"] for s in samples]),
                    "cpu_s": median([s["cpu_seconds"] for s in samples]),
                    "modules": samples[-1]["modules"],
                    "skipped": samples[-1]["skipped"],
                    "failed": samples[-1]["failed"],
                    "runs": len(samples),
                }
                say(f"  import all {slug:<13} {tool:<6} {row[tool]['total_s']:.2f} s")
        jg, peer = row.get("jobgen", {}), row.get("peer", {})
        if jg.get("total_s") and peer.get("total_s"):
            row["ratio"] = jg["total_s"] / peer["total_s"]
        results[slug] = row
    return results


def importtime_top(slug: str, tool: str, limit: int = 8) -> dict[str, Any]:
    """Self import time (`-X importtime`, one run) summed by package, and the top modules.

    The SDK's own modules are grouped one level down (`pkg._runtime`, `pkg.models`...).
    """
    probe_file = WORK / "probes" / f"{tool}-{slug}.json"
    if not probe_file.exists():
        return {}
    log = WORK / "logs" / f"importtime-{tool}-{slug}.log"
    argv = [
        str(SDK_PY),
        "-X",
        "importtime",
        str(Path(__file__).with_name("import_probe.py")),
        str(probe_file),
    ]
    env = _with_credentials(bench_env(), out_dir(tool, slug, "yaml"), package(tool, slug))
    run_child(argv, log=log, env=env)
    rows = []
    for line in log.read_text(errors="replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
        if m:
            rows.append({"module": m.group(3), "self_ms": int(m.group(1)) / 1000})
    pkg = package(tool, slug)
    groups: dict[str, float] = {}
    for row in rows:
        parts = row["module"].split(".")
        key = ".".join(parts[:2]) if parts[0] == pkg else parts[0]
        groups[key] = groups.get(key, 0.0) + row["self_ms"]
    return {
        "total_ms": sum(r["self_ms"] for r in rows),
        "modules": len(rows),
        "groups": sorted(
            ({"group": k, "self_ms": v} for k, v in groups.items()),
            key=lambda g: g["self_ms"],
            reverse=True,
        )[:limit],
        "top": sorted(rows, key=lambda r: r["self_ms"], reverse=True)[:limit],
    }
