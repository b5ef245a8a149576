"""The committed SDKs in generated/: current, lint-clean, type-clean and importable.

These run real tools (ruff, mypy --strict, pyright --strict, fresh virtual environments on every
CPython from 3.9 to 3.13), so they are marked slow; CI runs them all the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jobgen.config import load_targets
from jobgen.pipeline import check
from tests.helpers import ROOT, pyright_strict, typecheck_paths

TARGETS = load_targets(ROOT / "pyproject.toml")
IDS = [t.output.name for t in TARGETS]


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_committed_sdk_matches_the_generator(target: object) -> None:
    drift = check(target)  # type: ignore[arg-type]
    assert drift.clean, f"stale: {drift.stale} missing: {drift.missing} extra: {drift.extra}"


@pytest.mark.slow
def test_generated_sdks_pass_ruff() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--target-version",
            "py39",
            "--no-cache",
            "generated",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_generated_sdk_passes_mypy_strict(target: object, mypy_cache: Path) -> None:
    out = ROOT / target.output  # type: ignore[attr-defined]
    package = next(p.name for p in out.iterdir() if (p / "__init__.py").is_file())
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(mypy_cache),
            "--python-version",
            "3.10",
            package,
        ],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _packages() -> list[Path]:
    return [
        next(p for p in (ROOT / t.output).iterdir() if (p / "__init__.py").is_file())
        for t in TARGETS
    ]


@pytest.mark.slow
def test_generated_sdks_pass_pyright_strict(tmp_path: Path) -> None:
    """What the templates wrote for every committed SDK, and every runtime module any of
    them ships, once (the runtime is copied verbatim: a module is the same in each SDK),
    at the SDKs' Python floor (3.9). The exhaustive run checks every SDK whole."""
    paths = typecheck_paths(_packages())
    problems, analysed = pyright_strict(paths, tmp_path)
    assert analysed == len(paths)
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
@pytest.mark.exhaustive
def test_generated_sdks_pass_pyright_strict_whole(tmp_path: Path) -> None:
    """Every committed SDK, whole, at its own Python floor (3.9): what a team that runs
    pyright --strict over its repository sees of the SDK it committed."""
    packages = _packages()
    problems, analysed = pyright_strict(packages, tmp_path)
    assert analysed >= 50 * len(packages)
    assert problems == [], "\n".join(problems)


_IMPORT_PROBE = """
import importlib, json, pkgutil, sys
package = importlib.import_module(sys.argv[1])
loaded = sorted(m for m in ("asyncio", "tenacity") if m in sys.modules)
heavy = ("http.layer", "http.base", "waiting.spec", "waiting.waiter", "waiting.core",
         "http.retry", "webhooks.deliveries", "webhooks.hybrid")
runtime = sorted(m for m in heavy if f"{sys.argv[1]}._runtime.{m}" in sys.modules)
resources = importlib.import_module(sys.argv[1] + ".resources")
for module in pkgutil.iter_modules(resources.__path__):
    importlib.import_module(f"{resources.__name__}.{module.name}")
lazy = ("http.events", "waiting.handle", "webhooks.deliveries")
operations = sorted(m for m in lazy if f"{sys.argv[1]}._runtime.{m}" in sys.modules)
exported = {name: getattr(package, name) for name in package.__all__}
print(json.dumps({"loaded": loaded, "runtime": runtime, "operations": operations,
                  "exported": sorted(exported), "dir": dir(package)}))
"""


def _probe(target: object, script: str) -> tuple[str, Any]:
    """Run ``script`` with the committed SDK's package name in a fresh interpreter: the
    package name and the JSON the script printed."""
    out = ROOT / target.output  # type: ignore[attr-defined]
    package = next(p.name for p in out.iterdir() if (p / "__init__.py").is_file())
    proc = subprocess.run(
        [sys.executable, "-c", script, package],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return package, json.loads(proc.stdout)


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_a_plain_import_loads_no_asyncio_tenacity_or_http_layer(target: object) -> None:
    package, seen = _probe(target, _IMPORT_PROBE)
    assert seen["loaded"] == [], f"`import {package}` loaded {seen['loaded']}"
    # The HTTP layer and the waiter load with the first client or wait, not on import.
    assert seen["runtime"] == [], f"`import {package}` loaded _runtime.{seen['runtime']}"
    # Handles, event streams and webhook receivers load when a method asks for one.
    assert seen["operations"] == [], f"resources loaded _runtime.{seen['operations']}"
    # Every exported name still resolves, the lazy ones on first use.
    assert "AsyncJobHandle" in seen["exported"] and "ProgressDisplay" in seen["exported"]
    assert set(seen["exported"]) <= set(seen["dir"])


_SUBPACKAGES_PROBE = """
import importlib, json, sys
pkg = importlib.import_module(sys.argv[1])
loaded_before = sorted(n for n in sys.modules if n.startswith(sys.argv[1] + ".resources"))
models, resources = pkg.models, pkg.resources
print(json.dumps({
    "before": loaded_before,
    "models": models.__name__,
    "resources": resources.__name__,
    "model": getattr(models, models.__all__[0]).__name__,
}))
"""


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_models_and_resources_are_reachable_from_the_package(target: object) -> None:
    """`import sdk; sdk.models.Job` works without importing sdk.models first, and a plain
    import still loads no resource module."""
    package, seen = _probe(target, _SUBPACKAGES_PROBE)
    assert seen["before"] == []
    assert seen["models"] == f"{package}.models"
    assert seen["resources"] == f"{package}.resources"
    assert seen["model"]


_README_PROBE = r"""
import ast, importlib, inspect, json, re, sys
package = importlib.import_module(sys.argv[1])
readme = open("README.md", encoding="utf-8").read()
blocks = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
calls, problems, clients = [], [], {}


def parse(block):
    try:
        return ast.parse(block)
    except SyntaxError:  # an `except` clause shown alone
        return ast.parse("try:\n    pass\n" + block)


def chain(node):
    names = []
    while isinstance(node, ast.Attribute):
        names.insert(0, node.attr)
        node = node.value
    return names if isinstance(node, ast.Name) and node.id == "client" else None


def client(name, call):
    # The client as the example makes it (its arguments bound to the real signature),
    # given a local base URL: nothing is sent, methods are only looked up and bound.
    cls = getattr(package, name)
    kwargs = {k.arg: "x" for k in call.keywords}
    try:
        inspect.signature(cls).bind(*call.args, **kwargs)
    except TypeError as exc:
        problems.append(f"{ast.unparse(call)}: {exc}")
    if name not in clients:
        clients[name] = cls(**{**kwargs, "base_url": "http://127.0.0.1:9"})
    return clients[name]


for block in blocks:
    tree = parse(block)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == package.__name__:
            problems += [a.name for a in node.names if not hasattr(package, a.name)]
    made = [
        item.context_expr
        for node in ast.walk(tree)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
        if isinstance(item.context_expr, ast.Call)
        and isinstance(item.context_expr.func, ast.Name)
        and item.context_expr.func.id in ("Client", "AsyncClient")
    ]
    used = client(made[0].func.id, made[0]) if made else clients.get("Client")
    for node in ast.walk(tree):
        names = chain(node.func) if isinstance(node, ast.Call) else None
        if not names or used is None:
            continue
        target = used
        try:
            for name in names:
                target = getattr(target, name)
            inspect.signature(target).bind(*node.args, **{k.arg: k.value for k in node.keywords})
            calls.append(".".join(["client", *names]))
        except (AttributeError, TypeError) as exc:
            problems.append(f"{ast.unparse(node)}: {exc}")
print(json.dumps({"blocks": len(blocks), "calls": calls, "problems": problems}))
"""


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_the_readme_examples_call_what_the_sdk_has(target: object) -> None:
    """Every Python block of the SDK README parses, imports names the package has, and
    each ``client....(...)`` call it shows binds to that method's real signature."""
    seen = _probe(target, _README_PROBE)[1]
    assert seen["problems"] == []
    assert seen["blocks"] >= 4
    # The usage example's first call, in both clients, and the per-call options.
    assert any(call.startswith("client.with_options") for call in seen["calls"])
    assert len(seen["calls"]) >= 6


def test_the_readme_documents_webhooks_exactly_where_the_sdk_has_them() -> None:
    """Sume's jobs deliver webhooks: its README shows the receiver its SDK has, with the
    secret's variable; an SDK without webhooks says nothing of them."""
    sume = (ROOT / "generated" / "sume" / "README.md").read_text(encoding="utf-8")
    section = sume[sume.index("### Webhooks") : sume.index("### Non-blocking handles")]
    assert "receiver = client.jobs.webhook_receiver()  # secret: $SUME_WEBHOOK_SECRET" in section
    assert "client.jobs.wait_for_job(job_id, events=receiver)" in section
    code = (ROOT / "generated" / "sume" / "sume_sdk" / "resources" / "jobs.py").read_text()
    assert "def webhook_receiver(" in code and "def asgi_app(" in (
        ROOT / "generated" / "sume" / "sume_sdk" / "_runtime" / "webhooks" / "deliveries.py"
    ).read_text(encoding="utf-8")
    stripe = (ROOT / "generated" / "stripe_report_runs" / "README.md").read_text()
    assert "Webhooks" not in stripe and "webhook_receiver" not in stripe
