"""Generation: jobgen vs openapi-python-client, side by side, on the same spec files.

Each spec is used as YAML and as JSON (the missing format is converted once into
bench/.work/specs/). Runs alternate between the two tools (which one goes first
swaps every round), so both see the same machine load. A tool that fails on a spec
is not run again on it: its time to failure is reported once.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml
from common import BIN, PY, REPO, WORK, bench_env, count_lines, median, run_child, say, tree_stats

RSS_WRAP = str(Path(__file__).with_name("rss_wrap.py"))

Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML 1.2 core schema: `no`, `on` and `2020-08-27` stay strings, as in JSON."""


Loader.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag.rsplit(":", 1)[1] not in ("bool", "int", "float", "null", "timestamp")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _rx, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", list("~nN") + [""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^[-+]?[0-9]+$", list("-+0123456789")),
    (
        "float",
        (
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    ),
):
    Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_rx), _first)
Loader.add_constructor(
    "tag:yaml.org,2002:int",  # 0755 is 755, not octal
    lambda loader, node: int(loader.construct_scalar(node), 10),
)

#: slug -> (file in specs-real, small?): every OpenAPI spec there (the Azure set is Swagger
#: 2.0, which neither tool reads)
SPECS: dict[str, tuple[str, bool]] = {
    "petstore": ("petstore-3.0.yaml", True),
    "baseline-3.0": ("openapi-python-client-baseline-3.0.json", True),
    "baseline-3.1": ("openapi-python-client-baseline-3.1.yaml", True),
    "assemblyai": ("assemblyai-openapi.yml", True),
    "stripe": ("stripe-spec3-2022-03-23.yaml", False),
    "openai": ("openai-openapi.yaml", False),
    "digitalocean": ("digitalocean/DigitalOcean-public.v2.yaml", False),
}
#: slug -> file in the repository's specs/ (the examples)
EXAMPLES: dict[str, str] = {
    "ex-sume": "sume.yaml",
    "ex-stripe-report-runs": "stripe_report_runs.yaml",
    "ex-salesforce-bulk": "salesforce_bulk.yaml",
    "ex-azure-operations": "azure_operations.yaml",
}

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _path_item(source: Path, item: Any) -> Any:
    """A path item, read from its own file where the spec refers to one."""
    if isinstance(item, dict) and isinstance(item.get("$ref"), str) and "#" not in item["$ref"]:
        text = (source.parent / item["$ref"]).read_text(encoding="utf-8")
        return yaml.load(text, Loader=Loader)
    return item


def package(tool: str, slug: str) -> str:
    return ("jg_" if tool == "jobgen" else "peer_") + re.sub(r"\W", "_", slug)


def prepare_specs(specs_dir: Path) -> dict[str, dict[str, Any]]:
    """Both formats of every spec (originals kept as they are), with their counts."""
    out_dir = WORK / "specs"
    out_dir.mkdir(parents=True, exist_ok=True)
    prepared: dict[str, dict[str, Any]] = {}
    sources = {slug: (name, specs_dir / name, small) for slug, (name, small) in SPECS.items()}
    sources.update(
        {slug: (f"specs/{name}", REPO / "specs" / name, True) for slug, name in EXAMPLES.items()}
    )
    for slug, (name, source, small) in sources.items():
        is_json = source.suffix == ".json"
        text = source.read_text(encoding="utf-8")
        data = json.loads(text) if is_json else yaml.load(text, Loader=Loader)
        paths = {"json" if is_json else "yaml": source}
        # A spec whose $refs reach other files is used as it is (a copy elsewhere would
        # break them); a single-file spec also in the other format.
        single = "$ref" not in text or not re.search(r"""\$ref['"]?:\s*['"]?[^#'"\s]""", text)
        other = out_dir / f"{slug}.{'yaml' if is_json else 'json'}"
        if not single:
            pass
        elif not other.exists() or other.stat().st_mtime < source.stat().st_mtime:
            if is_json:
                other.write_text(
                    yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True),
                    encoding="utf-8",
                )
            else:
                other.write_text(json.dumps(data, default=str, ensure_ascii=False), "utf-8")
        if single:
            paths["yaml" if is_json else "json"] = other
        items = [_path_item(source, item) for item in (data.get("paths") or {}).values()]
        operations = sum(
            1 for item in items if isinstance(item, dict) for method in METHODS if method in item
        )
        schemas = len(((data.get("components") or {}).get("schemas")) or {})
        prepared[slug] = {
            "file": name,
            "small": small,
            "paths": {fmt: str(p) for fmt, p in paths.items()},
            "bytes": {fmt: p.stat().st_size for fmt, p in paths.items()},
            "operations": operations,
            "schemas": schemas,
        }
    return prepared


def _argv(tool: str, spec: Path, out: Path, slug: str, rss: Path) -> list[str]:
    # Both console scripts run under rss_wrap.py (same interpreter, no extra process),
    # which records the generator's own peak RSS apart from its ruff subprocesses.
    wrap = [str(PY), RSS_WRAP, str(rss)]
    if tool == "jobgen":
        return [
            *wrap,
            str(BIN / "jobgen"),
            "generate",
            str(spec),
            "-o",
            str(out),
            "--package",
            package(tool, slug),
        ]
    # --meta none: the output directory is the package itself; default config, so the
    # peer's post-hooks run: `ruff check . --fix-only --extend-select=I`, `ruff format .`
    return [
        *wrap,
        str(BIN / "openapi-python-client"),
        "generate",
        "--path",
        str(spec),
        "--meta",
        "none",
        "--output-path",
        str(out / package(tool, slug)),
    ]


def out_dir(tool: str, slug: str, fmt: str) -> Path:
    return WORK / "out" / tool / f"{slug}-{fmt}"


_SCHEMA_LINE = re.compile(
    r"^Unable to (?:parse|process) schema (/components/schemas/[^\s:]+)", re.MULTILINE
)
_REMOVED = re.compile(r"resulted in the removal of:\n((?:/components/schemas/\S+\n)+)")


def parse_peer_log(text: str) -> dict[str, Any]:
    removed = set(_SCHEMA_LINE.findall(text))
    for block in _REMOVED.findall(text):
        removed.update(block.split())
    warning_lines = re.findall(r"^WARNING .*$", text, re.MULTILINE)
    crash = None
    if "Traceback" in text:
        tail = [line for line in text.splitlines() if line and not line.startswith(("│", "╭", "╰"))]
        crash = " ".join(tail[-3:])[:200]
    return {
        "warnings": len(warning_lines) + len(_SCHEMA_LINE.findall(text)),
        "endpoints_skipped": sum("Endpoint will not be generated" in w for w in warning_lines),
        "responses_omitted": text.count("response will be omitted"),
        "schemas_removed": len(removed),
        "crash": crash,
    }


def parse_jobgen_log(text: str) -> dict[str, Any]:
    found = re.search(r"(\d+) schemas, (\d+) operations", text)
    warnings = [line for line in text.splitlines() if "warn" in line.lower()]
    crash = None
    if not found:
        crash = " ".join(text.strip().splitlines()[-3:])[:200]
    return {
        "warnings": len(warnings),
        "warning_lines": warnings[:20],
        "schemas": int(found.group(1)) if found else None,
        "operations": int(found.group(2)) if found else None,
        "crash": crash,
    }


def peer_operations(pkg_dir: Path) -> int:
    api = pkg_dir / "api"
    return sum(1 for p in api.glob("*/*.py") if p.name != "__init__.py") if api.is_dir() else 0


def run_generation(prepared: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    env = bench_env()
    results: dict[str, Any] = {}
    for slug, info in prepared.items():
        rounds = (3 if quick else 5) if info["small"] else (1 if quick else 3)
        for fmt in info["paths"]:
            spec = Path(info["paths"][fmt])
            key = f"{slug}.{fmt}"
            runs: dict[str, list[dict[str, Any]]] = {"jobgen": [], "peer": []}
            failed: set[str] = set()
            for i in range(rounds):
                order = ("jobgen", "peer") if i % 2 == 0 else ("peer", "jobgen")
                for tool in order:
                    if tool in failed:
                        continue
                    out = out_dir(tool, slug, fmt)
                    shutil.rmtree(out, ignore_errors=True)
                    out.mkdir(parents=True)
                    log = WORK / "logs" / f"gen-{tool}-{key}-{i}.log"
                    rss = log.with_suffix(".rss.json")
                    rss.unlink(missing_ok=True)
                    res = run_child(_argv(tool, spec, out, slug, rss), log=log, cwd=out, env=env)
                    res["log"] = str(log)
                    if rss.exists():
                        res.update(json.loads(rss.read_text()))
                    runs[tool].append(res)
                    say(
                        f"  gen {key:<18} {tool:<6} run {i + 1}/{rounds}: "
                        f"{res['seconds']:.2f} s rc={res['rc']}"
                    )
                    if res["rc"] != 0:
                        failed.add(tool)
            entry: dict[str, Any] = {"spec": key, "rounds": rounds}
            for tool, tool_runs in runs.items():
                last = tool_runs[-1]
                text = Path(last["log"]).read_text(encoding="utf-8", errors="replace")
                dropped = parse_jobgen_log(text) if tool == "jobgen" else parse_peer_log(text)
                out = out_dir(tool, slug, fmt)
                stats = tree_stats(out) if last["rc"] == 0 or tool == "peer" else {}
                ok = all(r["rc"] == 0 for r in tool_runs)
                if tool == "peer":
                    dropped["operations"] = peer_operations(out / package(tool, slug))
                entry[tool] = {
                    "ok": ok,
                    "runs": len(tool_runs),
                    "seconds": [r["seconds"] for r in tool_runs],
                    "median_s": median([r["seconds"] for r in tool_runs]),
                    "cpu_s": median([r["cpu_seconds"] for r in tool_runs]),
                    "peak_rss_mb": max(r.get("self_mb", 0.0) for r in tool_runs),
                    **stats,
                    "dropped": dropped,
                }
            # Paired ratio: each round's two runs ran back to back under the same load
            # (a tool that failed stopped after that run, so its list is a prefix).
            pairs = [j / p for j, p in zip(entry["jobgen"]["seconds"], entry["peer"]["seconds"])]
            entry["ratio"] = median(pairs)
            entry["paired_rounds"] = len(pairs)
            results[key] = entry
    return results


def sdk_size(prepared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Lines per operation and per model in the YAML-generated trees of both tools."""
    sizes: dict[str, Any] = {}
    for slug in prepared:
        row: dict[str, Any] = {}
        for tool in ("jobgen", "peer"):
            pkg_dir = out_dir(tool, slug, "yaml") / package(tool, slug)
            if not pkg_dir.is_dir():
                row[tool] = None
                continue
            op_dir, op_glob = ("resources", "*.py") if tool == "jobgen" else ("api", "*/*.py")
            op_files = [p for p in (pkg_dir / op_dir).glob(op_glob) if p.name != "__init__.py"]
            model_files = [p for p in (pkg_dir / "models").glob("*.py") if p.name != "__init__.py"]
            if tool == "jobgen":
                log = max((WORK / "logs").glob(f"gen-jobgen-{slug}.yaml-*.log"))
                ops = parse_jobgen_log(log.read_text()).get("operations") or 0
            else:
                ops = len(op_files)
            op_lines = sum(count_lines(p, code_only=True) for p in op_files)
            model_lines = sum(count_lines(p, code_only=True) for p in model_files)
            all_py = [p for p in pkg_dir.rglob("*.py") if "__pycache__" not in p.parts]
            total = sum(count_lines(p, code_only=True) for p in all_py)
            row[tool] = {
                "operations": ops,
                "models": len(model_files),
                "op_lines": op_lines,
                "model_lines": model_lines,
                "lines_per_op": op_lines / ops if ops else None,
                "lines_per_model": model_lines / len(model_files) if model_files else None,
                "total_lines": total,
                "support_lines": total - op_lines - model_lines,
            }
        sizes[slug] = row
    return sizes


def profile_jobgen(prepared: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    spec = prepared["openai"]["paths"]["yaml"]
    out = WORK / "out" / "profile"
    log = WORK / "logs" / "profile-openai.log"
    res = run_child(
        [
            str(PY),
            str(Path(__file__).with_name("profile_gen.py")),
            spec,
            str(out),
            "--repeat",
            "1" if quick else "3",
            "--json",
            str(WORK / "profile-openai.json"),
        ],
        log=log,
        env=bench_env(),
    )
    if res["rc"] != 0:
        return {"error": log.read_text()[-2000:]}
    return json.loads((WORK / "profile-openai.json").read_text())
