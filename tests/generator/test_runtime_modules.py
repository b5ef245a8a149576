"""Each SDK ships the runtime modules it uses and no others: what its generated modules
import, closed over the runtime's own imports. Checked through generated SDKs: every
relative import resolves to a shipped file, every module imports, a job-less SDK ships
no job machinery yet type-checks and calls a real server, each feature brings its
modules exactly when the spec uses it, and regeneration deletes the modules it drops."""

from __future__ import annotations

import ast
import copy
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from jobgen.config import load_targets
from jobgen.pipeline import Target, generate
from jobgen.render.render import RUNTIME_DIR
from jobgen.render.shipping import INDEX, closure, imported, names_from, runtime_init, survey
from tests.helpers import REAL_SPECS, ROOT, SPECS, TEST_SPECS, imported_sdk, write

TARGETS = load_targets(ROOT / "pyproject.toml")
# What only an SDK with jobs needs: waits, handles, fleets, webhooks, event streams.
JOB_MODULES = {
    "waiting.waiter",
    "waiting.core",
    "waiting.spec",
    "waiting.base",
    "waiting.reads",
    "waiting.handle",
    "waiting.jobhttp",
    "fleet.waits",
}
WEBHOOK_MODULES = {"webhooks.deliveries", "webhooks.hybrid"}
NOT_IN_A_PLAIN_SDK = (
    JOB_MODULES | WEBHOOK_MODULES | {"http.events", "http.pagination", "http.oauth2"}
)
REAL = [
    ("petstore", "petstore-3.0.yaml", None),
    ("baseline30", "openapi-python-client-baseline-3.0.json", None),
    ("baseline31", "openapi-python-client-baseline-3.1.yaml", None),
    ("assemblyai", "assemblyai-openapi.yml", SPECS / "vendor" / "assemblyai.jobs.yaml"),
]


def package_dir(out: Path) -> Path:
    return next(p for p in out.iterdir() if (p / "__init__.py").is_file())


def shipped(out: Path) -> set[str]:
    """The runtime modules of the SDK by dotted name below ``_runtime`` (``waiting.core``),
    package ``__init__`` files aside."""
    runtime = package_dir(out) / "_runtime"
    return {
        ".".join(p.relative_to(runtime).with_suffix("").parts)
        for p in runtime.rglob("*.py")
        if p.name != "__init__.py"
    }


def unresolved(out: Path) -> list[str]:
    """Relative imports of the SDK's modules (runtime included, at any depth, under
    TYPE_CHECKING too) whose module, or runtime module, is not a shipped file."""
    pkg = package_dir(out)
    runtime = pkg / "_runtime"
    missing = []
    for path in sorted(pkg.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            target = base.joinpath(*(node.module or "").split(".")) if node.module else base
            where = f"{path.relative_to(pkg)}:{node.lineno}"
            if not (target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()):
                missing.append(f"{where}: {node.module}")
            elif target.is_dir() and (target == runtime or runtime in target.parents):
                # The runtime's packages define no names of their own: each is a module.
                missing += [
                    f"{where}: {target.relative_to(pkg)}.{alias.name}"
                    for alias in node.names
                    if not (target / f"{alias.name}.py").is_file()
                    and not (target / alias.name / "__init__.py").is_file()
                ]
    return missing


_IMPORT_ALL = """
import importlib, json, pkgutil, sys
pkg = importlib.import_module(sys.argv[1])
failed = []
for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        failed.append(f"{info.name}: {exc!r}")
runtime = importlib.import_module(sys.argv[1] + "._runtime")
for owner in (pkg, runtime):
    for name in owner.__all__:
        try:
            getattr(owner, name)
        except Exception as exc:
            failed.append(f"{owner.__name__}.{name}: {exc!r}")
absent = {}
for owner, name in [(pkg, "WaitConfig"), (pkg, "JobHandle"), (pkg, "ProgressDisplay"),
                    (pkg, "EventStream"), (runtime, "SyncJobWaiter")]:
    try:
        getattr(owner, name)
    except AttributeError as exc:
        absent[name] = str(exc)
print(json.dumps({"failed": failed, "all": pkg.__all__, "runtime_all": runtime.__all__,
                  "absent": absent}))
"""


def import_all(out: Path) -> dict[str, Any]:
    """In a fresh interpreter: import the package and every module of it, resolve every
    name of its ``__all__`` and of its runtime's, try the job and event names."""
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, package_dir(out).name],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def check_sdk(out: Path) -> dict[str, Any]:
    assert unresolved(out) == []
    seen = import_all(out)
    assert seen["failed"] == []
    return seen


@pytest.mark.parametrize("target", TARGETS, ids=[t.output.name for t in TARGETS])
def test_every_committed_sdk_imports_only_what_it_ships(target: Target) -> None:
    out = ROOT / target.output
    seen = check_sdk(out)
    # Every example has jobs: its users keep the whole surface.
    assert {"WaitConfig", "JobHandle", "ProgressDisplay", "PollEvent"} <= set(seen["all"])
    assert (package_dir(out) / "fleet.py").is_file()
    assert JOB_MODULES <= shipped(out)
    # Carried values are machinery of their own: they ship exactly when a job declares some.
    # (A spec whose jobs are imported from a vendor dialect has no x-jobgen: nothing carried.)
    spec = yaml.safe_load((ROOT / target.spec).read_text(encoding="utf-8"))
    jobs = spec.get("x-jobgen", {}).get("jobs", {})
    assert ("waiting.carry" in shipped(out)) == any("carry" in job for job in jobs.values())


@pytest.fixture(scope="module")
def real_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not REAL_SPECS.is_dir():
        pytest.skip(f"{REAL_SPECS} is missing")
    return tmp_path_factory.mktemp("real")


@pytest.mark.parametrize(("name", "spec", "jobs"), REAL, ids=[r[0] for r in REAL])
def test_sdks_of_published_specs_import_only_what_they_ship(
    real_out: Path, name: str, spec: str, jobs: Path | None
) -> None:
    out = real_out / name
    generate(Target(spec=REAL_SPECS / spec, output=out, package=f"{name}_sdk", jobs=jobs))
    seen = check_sdk(out)
    if jobs is None:
        assert shipped(out).isdisjoint(NOT_IN_A_PLAIN_SDK)
        assert not (package_dir(out) / "fleet.py").exists()
        assert set(seen["absent"]) == {
            "WaitConfig",
            "JobHandle",
            "ProgressDisplay",
            "EventStream",
            "SyncJobWaiter",
        }
    else:
        assert JOB_MODULES <= shipped(out)
        assert "WaitConfig" in seen["all"] and set(seen["absent"]) == {"EventStream"}


def test_a_plain_sdk_exports_no_job_names_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    generate(Target(spec=TEST_SPECS / "features-3.0.json", output=out, package="plain_sdk"))
    seen = check_sdk(out)
    assert shipped(out).isdisjoint(NOT_IN_A_PLAIN_SDK)
    names = {"WaitConfig", "JobHandle", "PollEvent", "JobOutcome", "ProgressDisplay"}
    names |= {"JobTimeout", "WaitError", "MissingJobId", "ClientCredentials", "TokenError"}
    names.add("UnreadableStatus")
    assert names.isdisjoint(seen["all"]) and "Timing" in seen["all"]
    assert {"SDKError", "APIStatusError", "NotFoundError", "DecodeError"} <= set(seen["all"])
    errors_doc = (package_dir(out) / "errors.py").read_text()
    assert "WaitError" not in errors_doc and "MissingCredentials\n" in errors_doc
    assert seen["absent"]["WaitConfig"] == "module 'plain_sdk' has no attribute 'WaitConfig'"
    # The runtime's own table names only shipped modules: the waiter's names are not there.
    assert "SyncJobWaiter" not in seen["runtime_all"] and "RetryPolicy" in seen["runtime_all"]
    absent = "module 'plain_sdk._runtime' has no attribute 'SyncJobWaiter'"
    assert seen["absent"]["SyncJobWaiter"] == absent
    runtime = (package_dir(out) / "_runtime" / "__init__.py").read_text()
    assert '"SyncJobWaiter"' not in runtime and '"RetryPolicy": "http.retry"' in runtime
    pyproject = (out / "pyproject.toml").read_text()
    assert "fleet" not in pyproject and "rich" not in pyproject
    readme = (out / "README.md").read_text()
    assert "JobTimeout" not in readme and "WaitConfig" not in readme


def test_a_plain_sdk_passes_mypy_strict(tmp_path: Path, mypy_cache: Path) -> None:
    out = tmp_path / "plain"
    generate(Target(spec=TEST_SPECS / "features-3.1.yaml", output=out, package="plain_sdk"))
    assert shipped(out).isdisjoint(JOB_MODULES | WEBHOOK_MODULES | {"http.events"})
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), "plain_sdk"],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


THING = {"id": "6f1c5e0a-8a5b-4a57-9d5e-0c8f1f2f9b11", "created_at": "2026-11-29T08:00:00Z"}


class _Things(BaseHTTPRequestHandler):
    """GET /api/things/<id>: a 503 first (when asked with ?flaky), then the thing."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        if "flaky" in self.path and len([h for h in self.hits if "flaky" in h]) == 1:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps({**THING, "color": "red", "tags": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def things_server() -> Iterator[str]:
    _Things.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Things)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api"
    finally:
        server.shutdown()
        server.server_close()


def test_a_plain_sdk_calls_a_real_server_and_retries(tmp_path: Path, things_server: str) -> None:
    with imported_sdk(TEST_SPECS / "features-3.1.yaml", tmp_path, "plain_call_sdk") as sdk:
        assert not hasattr(sdk, "WaitConfig")
        sleeps: list[float] = []
        timing = sdk.Timing(sleep=sleeps.append, rng=lambda: 0.5)
        with sdk.Client(key_header_api_key="k", base_url=things_server, timing=timing) as client:
            thing = client.things.get("t1")
            assert str(thing.id) == THING["id"]
            again = client.things.get("t1", extra_query={"flaky": "1"})
            assert again.id == thing.id
        assert len(sleeps) == 1  # the 503 was retried after the injected sleep
        assert [h.split("?")[0] for h in _Things.hits] == ["/api/things/t1"] * 3
        prefix = "plain_call_sdk._runtime."
        modules = {n[len(prefix) :] for n in sys.modules if n.startswith(prefix)}
        assert modules.isdisjoint(NOT_IN_A_PLAIN_SDK)


# -- each feature brings its modules exactly when the spec uses it -----------------------


def _spec(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((SPECS / name).read_text(encoding="utf-8"))
    return loaded


def _generated(tmp_path: Path, spec: dict[str, Any], name: str) -> Path:
    path = write(tmp_path / f"{name}.yaml", yaml.safe_dump(spec, sort_keys=False))
    # Relative $refs of the examples (specs/common) resolve from the copy's folder.
    common = tmp_path / "common"
    if not common.exists():
        common.symlink_to(SPECS / "common", target_is_directory=True)
    out = tmp_path / f"out-{name}"
    generate(Target(spec=path, output=out, package=f"{name}_sdk"))
    assert unresolved(out) == []
    return out


def _without_jobs(spec: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    spec.pop("x-jobgen", None)
    return spec


def test_job_modules_ship_with_jobs_only(tmp_path: Path) -> None:
    spec = _spec("azure_operations.yaml")
    with_jobs = shipped(_generated(tmp_path, spec, "jobs"))
    without = shipped(_generated(tmp_path, _without_jobs(spec), "nojobs"))
    assert JOB_MODULES <= with_jobs
    assert without.isdisjoint(JOB_MODULES)
    # Result downloads belong to the waits: they come with jobs; this job carries no
    # values, so the machinery of carried values stays out.
    assert "http.download" in with_jobs and "http.download" not in without
    assert "waiting.carry" not in with_jobs | without


def test_carry_ships_exactly_when_a_job_declares_carry(tmp_path: Path) -> None:
    spec = _spec("deepl_documents.yaml")
    carried = _generated(tmp_path, spec, "carried")
    assert "waiting.carry" in shipped(carried)
    sume = _spec("sume.yaml")
    assert not any("carry" in job for job in sume["x-jobgen"]["jobs"].values())
    plain = _generated(tmp_path, sume, "uncarried")
    assert JOB_MODULES <= shipped(plain) and "waiting.carry" not in shipped(plain)
    # Nothing of the SDK without carried values imports the module, even for type checks.
    assert unresolved(plain) == []
    check_sdk(plain)


def test_webhook_modules_ship_with_declared_webhooks_only(tmp_path: Path) -> None:
    spec = _spec("sume.yaml")
    quiet = copy.deepcopy(spec)
    for job in quiet["x-jobgen"]["jobs"].values():
        job.pop("webhooks", None)
    hooked = shipped(_generated(tmp_path, spec, "hooked"))
    plain = shipped(_generated(tmp_path, quiet, "quiet"))
    assert WEBHOOK_MODULES <= hooked
    assert plain.isdisjoint(WEBHOOK_MODULES) and JOB_MODULES <= plain


def _one_get(response: dict[str, Any], **op: Any) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Small", "version": "1.0.0"},
        "servers": [{"url": "https://small.example"}],
        "paths": {
            "/items": {
                "get": {
                    "operationId": "listItems",
                    "tags": ["items"],
                    **op,
                    "responses": {"200": response},
                }
            }
        },
    }


ITEMS = {"type": "array", "items": {"type": "string"}}
PAGE = {"type": "object", "properties": {"items": ITEMS, "next_cursor": {"type": "string"}}}
JSON_PAGE = {"description": "A page.", "content": {"application/json": {"schema": PAGE}}}
CURSOR = [{"name": "cursor", "in": "query", "schema": {"type": "string"}}]


@pytest.mark.parametrize(
    ("feature", "modules", "spec", "baseline"),
    [
        (
            "pagination",
            {"http.pagination"},
            _one_get(JSON_PAGE, parameters=CURSOR),
            _one_get(
                {
                    "description": "A page.",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            ),
        ),
        (
            "events",
            {"http.events"},
            _one_get(
                {
                    "description": "Events.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                }
            ),
            _one_get(
                {"description": "Text.", "content": {"text/plain": {"schema": {"type": "string"}}}}
            ),
        ),
        (
            # A bearer scheme takes a token credential too (tokens.py).
            "oauth2",
            {"http.oauth2", "http.tokens"},
            {
                **_one_get(JSON_PAGE),
                "security": [{"oauth": []}],
                "components": {
                    "securitySchemes": {
                        "oauth": {
                            "type": "oauth2",
                            "flows": {
                                "clientCredentials": {
                                    "tokenUrl": "https://small.example/token",
                                    "scopes": {},
                                }
                            },
                        }
                    }
                },
            },
            {
                **_one_get(JSON_PAGE),
                "security": [{"key": []}],
                "components": {
                    "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}
                },
            },
        ),
    ],
)
def test_a_feature_brings_its_modules(
    tmp_path: Path, feature: str, modules: set[str], spec: dict[str, Any], baseline: dict[str, Any]
) -> None:
    used = shipped(_generated(tmp_path, spec, feature))
    plain = shipped(_generated(tmp_path, baseline, "plain"))
    assert modules <= used and plain.isdisjoint(modules)
    assert used - modules == plain  # nothing else comes or goes
    assert used.isdisjoint(JOB_MODULES)


def test_regenerating_deletes_the_runtime_modules_it_no_longer_ships(tmp_path: Path) -> None:
    """The output of an SDK with jobs (as the generator of every runtime module left it),
    regenerated without jobs: the manifest's files that are no longer written go, and a
    file of the user's stays."""
    spec = _spec("azure_operations.yaml")
    out = _generated(tmp_path, spec, "shrink")
    pkg = package_dir(out)
    (pkg / "extensions.py").write_text("MINE = 1\n", encoding="utf-8")
    before = shipped(out)
    path = write(tmp_path / "shrink.yaml", yaml.safe_dump(_without_jobs(spec), sort_keys=False))
    generate(Target(spec=path, output=out, package="shrink_sdk"))
    after = shipped(out)
    assert JOB_MODULES <= before and after.isdisjoint(JOB_MODULES) and after < before
    assert not (pkg / "fleet.py").exists()
    assert (pkg / "extensions.py").read_text(encoding="utf-8") == "MINE = 1\n"
    manifest = json.loads((out / ".jobgen-manifest.json").read_text(encoding="utf-8"))
    listed = json.dumps(manifest)
    assert "_runtime/waiting/waiter.py" not in listed and "_runtime/http/layer.py" in listed
    assert not (pkg / "_runtime" / "waiting").exists()
    check_sdk(out)


def test_the_runtime_init_names_every_public_name_for_type_checkers() -> None:
    """The runtime's ``__init__`` imports each name of its table under TYPE_CHECKING,
    as `runtime_init` writes that block (so pyright and mypy see what ``__getattr__``
    loads); an SDK's copy names only what it ships."""
    runtime = ROOT / "generator" / "runtime"
    source = (runtime / "__init__.py").read_text(encoding="utf-8")
    everything = frozenset(
        ".".join(p.relative_to(runtime).with_suffix("").parts) for p in runtime.rglob("*.py")
    )
    assert runtime_init(source, everything) == source


# -- the runtime's subpackages --------------------------------------------------------------


def test_a_runtime_package_ships_with_the_modules_under_it_only(tmp_path: Path) -> None:
    """Every folder of a shipped runtime is a package holding a module the SDK uses; the
    groups an SDK does not use (waits, webhooks, fleets for a plain API) are not there."""
    plain = tmp_path / "plain"
    generate(Target(spec=TEST_SPECS / "features-3.0.json", output=plain, package="nested_sdk"))
    outs = [ROOT / target.output for target in TARGETS] + [plain]
    for out in outs:
        runtime = package_dir(out) / "_runtime"
        folders = (p for p in runtime.rglob("*") if p.is_dir() and p.name != "__pycache__")
        for folder in [runtime, *folders]:
            assert (folder / "__init__.py").is_file(), folder
            assert [p for p in folder.rglob("*.py") if p.name != "__init__.py"], folder
    groups = {p.name for p in (package_dir(plain) / "_runtime").iterdir() if p.is_dir()} - {
        "__pycache__"
    }
    assert groups == {"shared", "wire", "http"}
    assert {"waiting", "webhooks", "fleet"} <= {
        p.name for p in (ROOT / "generated" / "sume" / "sume_sdk" / "_runtime").iterdir()
    }


_NESTED = {
    "__init__.py": "if TYPE_CHECKING:\n    from .d.seven import S\n",
    "a/__init__.py": '"""A."""\n',
    "a/one.py": "from ..b.two import T\nfrom . import three\n",
    "a/three.py": "def f():\n    from .four import F\n",
    "a/four.py": "from .deep.eight import E\n",
    "a/deep/__init__.py": "",
    "a/deep/eight.py": "from ...c import five\nfrom ... import b\n",
    "b/__init__.py": "",
    "b/two.py": "if TYPE_CHECKING:\n    from ..c.six import (\n        S,\n        U,\n    )\n",
    "c/__init__.py": "",
    "c/five.py": "",
    "c/six.py": "",
    "c/unused.py": "",
    "d/__init__.py": "",
    "d/seven.py": "",
}


def test_the_closure_follows_relative_imports_at_any_depth(tmp_path: Path) -> None:
    """``from ..b.two import T``, ``from . import three``, ``from ...c import five`` (in a
    function, under TYPE_CHECKING, in parentheses): each names its module, and every
    package on the way ships its ``__init__``; the runtime ``__init__``'s own imports
    are not followed."""
    runtime = tmp_path / "rt"
    for name, text in _NESTED.items():
        write(runtime / name, text)
    generated = {
        "pkg/resources/x.py": "from .._runtime.a import one as _one\n",
        "pkg/_client.py": "x = 1\nfrom ._runtime.c.six import S\n",
    }
    assert imported(generated, runtime) == {"a.one", "c.six"}
    assert closure({"a.one"}, runtime) == {
        "__init__",
        "a.__init__",
        "a.one",
        "a.three",
        "a.four",
        "a.deep.__init__",
        "a.deep.eight",
        "b.__init__",
        "b.two",
        "c.__init__",
        "c.five",
        "c.six",
    }
    shipped_modules = closure({"a.one"}, runtime)
    assert names_from("c.six", shipped_modules, runtime) == {"S", "U"}
    assert names_from("b.two", shipped_modules, runtime) == {"T"}


# -- the stored survey of the runtime's imports ------------------------------------------------


def test_the_stored_survey_is_the_runtimes_own() -> None:
    """generator/render/runtime_index.json says what the runtime's sources say now; after
    an edit of the runtime, ``python -m jobgen.render.shipping`` writes it again."""
    stored = json.loads(INDEX.read_text(encoding="utf-8"))
    assert stored == survey(RUNTIME_DIR), "stale: run `python -m jobgen.render.shipping`"
    assert stored["imports"]["waiting.core"], "the survey lists each module's imports"


def test_an_edited_runtime_is_surveyed_anew_not_read_from_the_stored_survey(
    tmp_path: Path,
) -> None:
    """A runtime whose sources differ from the stored survey's (here a copy in which
    ``wire.serde`` imports one more module, in a function) ships what its own import
    statements say."""
    runtime = tmp_path / "runtime"
    shutil.copytree(RUNTIME_DIR, runtime, ignore=shutil.ignore_patterns("__pycache__"))
    before = closure({"wire.serde"}, RUNTIME_DIR)
    assert "fleet.waits" not in before
    serde = runtime / "wire" / "serde.py"
    serde.write_text(
        serde.read_text(encoding="utf-8") + "\n\ndef _f():\n    from ..fleet.waits import X\n",
        encoding="utf-8",
    )
    assert closure({"wire.serde"}, runtime) == before | {"fleet.__init__", "fleet.waits"} | (
        closure({"fleet.waits"}, RUNTIME_DIR)
    )
    assert ["fleet.waits", "X"] in survey(runtime)["imports"]["wire.serde"]
    assert survey(runtime)["digest"] != json.loads(INDEX.read_text(encoding="utf-8"))["digest"]
