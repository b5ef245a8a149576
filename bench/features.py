#!/usr/bin/env python3
"""Which of the everyday client features (issue 13's ten) a generated SDK has, found by
running it: jobgen vs openapi-python-client, on the OpenAI spec and an example spec.

    .venv/bin/python bench/features.py   # writes bench/features.md and bench/features.json

(``make .venv/.installed`` first: the examples come from jobgen's simulated server.)
Each SDK is generated into bench/.work/features/ (the bench venv of bench/run.py holds
both generators), then one fresh interpreter per SDK imports it and calls it over
``httpx.MockTransport``: a feature counts only when the call does what the feature
promises (both pages iterated, the real file name on the wire, typed events...). A
check that raises is reported with its error. Request and response bodies are example
values of the operation's schemas (jobgen's sampler), the same for both SDKs.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work" / "features"
VENV_PY = BENCH / ".work" / "venv" / "bin" / "python"
#: shared/specs-real beside the clone, or beside the folder of worktrees holding it.
REAL_SPECS = next(
    (p / "shared" / "specs-real" for p in REPO.parents if (p / "shared" / "specs-real").is_dir()),
    REPO.parent / "shared" / "specs-real",
)
SPECS = {
    "openai": REAL_SPECS / "openai-openapi.yaml",
    "stripe_report_runs": REPO / "specs" / "stripe_report_runs.yaml",
}
FEATURES = [
    ("pagination", "Pagination (every page, lazily)"),
    ("raw", "Raw response (status, headers, parsed body)"),
    ("options", "Per-call options (headers, timeout, retries)"),
    ("uploads", "Uploads (a path, its real file name)"),
    ("downloads", "Downloads (bytes as sent)"),
    ("events", "Server-sent events (typed iterator)"),
    ("credentials", "Credentials (environment, error at construction)"),
    ("serialization", "Serialization by the book"),
    ("retries", "Retries (503 on GET; keyed POST)"),
    ("logging", "Logging (<API>_LOG)"),
]
#: Per spec: the operation each check calls (None: the spec has no such operation).
OPERATIONS: dict[str, dict[str, str | None]] = {
    "openai": {
        "pagination": "listBatches",
        "raw": "retrieveBatch",
        "options": "retrieveBatch",
        "uploads": "createFile",
        "downloads": "createSpeech",
        "events": "createChatCompletion",
        "credentials": "retrieveBatch",
        "serialization": "listRunSteps",
        "retries": "retrieveBatch",
        "logging": "retrieveBatch",
    },
    "stripe_report_runs": {
        "pagination": "GetReportingReportRuns",
        "raw": "GetReportingReportRunsReportRun",
        "options": "GetReportingReportRunsReportRun",
        "uploads": None,
        "downloads": None,
        "events": None,
        "credentials": "GetReportingReportRunsReportRun",
        "serialization": "PostReportingReportRuns",
        "retries": "PostReportingReportRuns",
        "logging": "GetReportingReportRunsReportRun",
    },
}
BLOB = bytes(range(256)) * 2  # not UTF-8: a download read as text changes it


def package(tool: str, slug: str) -> str:
    return ("jg_" if tool == "jobgen" else "peer_") + slug


# -- the parent: generate, plan, run the probes, write the table ------------------------


def generate(tool: str, slug: str) -> Path:
    """The folder holding the generated package (generated once, then reused)."""
    out = WORK / tool / slug
    pkg = package(tool, slug)
    # jobgen writes a project folder holding the package; the peer, with --meta none,
    # the package itself.
    root = out / pkg if tool == "jobgen" else out
    if (root / pkg / "__init__.py").exists():
        return root
    out.mkdir(parents=True, exist_ok=True)
    bin_dir = VENV_PY.parent
    if tool == "jobgen":
        argv = [str(bin_dir / "jobgen"), "generate", str(SPECS[slug]), "-o", str(out / pkg)]
        argv += ["--package", pkg]
    else:
        argv = [str(bin_dir / "openapi-python-client"), "generate", "--path", str(SPECS[slug])]
        argv += ["--meta", "none", "--output-path", str(out / pkg)]
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(argv, cwd=out, env=env, capture_output=True, check=False)
    return root


def plan(slug: str) -> dict[str, Any]:
    """Per check: the operation, jobgen's method for it, and example bodies."""
    from jobgen.model import ir
    from jobgen.model.build import load_and_build
    from jobgen.server.samples import Sampler

    sdk = load_and_build(SPECS[slug], package=package("jobgen", slug))
    sampler = Sampler(sdk.schemas, timestamp="2025-01-02T03:04:05Z")
    by_id = {op.operation_id: (r, op) for r in sdk.resources for op in r.operations}
    out: dict[str, Any] = {"env_prefix": package("jobgen", slug).upper()}
    for feature, operation_id in OPERATIONS[slug].items():
        if operation_id is None:
            continue
        resource, op = by_id[operation_id]
        entry: dict[str, Any] = {
            "operation_id": operation_id,
            "attr": resource.attr,
            "method": op.name,
            "stream_method": op.stream_name,
            "path_args": ["x1" for p in op.path_parameters],
            "response": None,
            "body": None,
            "event": None,
        }
        if op.response.type is not None and op.response.kind == "json":
            entry["response"] = sampler.sample(op.response.type, force=True)
        if op.body is not None and op.body.kind in ("json", "form", "multipart"):
            entry["body"] = sampler.sample(op.body.type, force=True)
            if isinstance(op.body.type, ir.Ref):
                entry["body_model"] = sdk.schemas[op.body.type.key].name
        if op.response.events is not None:
            entry["event"] = sampler.sample(op.response.events, force=True)
        out[feature] = entry
    return out


def main() -> None:
    sys.path.insert(0, str(BENCH))
    import run  # the bench venv: both generators, and the SDKs' dependencies

    run.bootstrap()
    sys.path.insert(0, str(REPO))
    results: dict[str, Any] = {}
    for slug in sys.argv[1:] or SPECS:
        steps = plan(slug)
        for tool in ("jobgen", "peer"):
            root = generate(tool, slug)
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
                json.dump(steps, handle)
            proc = subprocess.run(
                [str(VENV_PY), __file__, "--probe", tool, str(root), package(tool, slug)]
                + [handle.name],
                capture_output=True,
                text=True,
                check=False,
            )
            os.unlink(handle.name)
            lines = proc.stdout.strip().splitlines()
            if proc.returncode != 0 or not lines:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                results[f"{tool}/{slug}"] = {
                    f: ["no", f"SDK unusable: {tail}"] for f, _ in FEATURES
                }
            else:
                results[f"{tool}/{slug}"] = json.loads(lines[-1])
            print(f"{tool}/{slug}: done", file=sys.stderr, flush=True)
    (BENCH / "features.json").write_text(json.dumps(results, indent=2) + "\n")
    (BENCH / "features.md").write_text(report(results))


def report(results: dict[str, Any]) -> str:
    peer_version = subprocess.run(
        [
            str(VENV_PY),
            "-c",
            "import importlib.metadata as m; print(m.version('openapi-python-client'))",
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    lines = [
        "# Client features, checked by running the generated SDKs",
        "",
        "Reproduce: `make .venv/.installed && .venv/bin/python bench/features.py` (writes this",
        "file and bench/features.json; the first run sets up bench/.work/venv).",
        f"jobgen (this checkout) vs openapi-python-client {peer_version}, each SDK called over",
        "`httpx.MockTransport` by a fresh interpreter; a feature counts only when the call does",
        "what it promises. `n/a`: the spec has no operation for it.",
        "",
    ]
    for slug in [s for s in SPECS if f"jobgen/{s}" in results]:
        lines += [f"## {slug}", "", "| feature | jobgen | openapi-python-client |", "|---|---|---|"]
        for feature, title in FEATURES:
            cells = []
            for tool in ("jobgen", "peer"):
                status, note = results[f"{tool}/{slug}"].get(feature, ["n/a", ""])
                note = note.replace("|", "/").replace("\n", " ")[:110]
                cells.append(f"**{status}**" + (f": {note}" if note else ""))
            op = OPERATIONS[slug][feature]
            lines.append(f"| {title}{f' (`{op}`)' if op else ''} | {cells[0]} | {cells[1]} |")
        totals = [
            sum(results[f"{tool}/{slug}"][f][0] == "yes" for f, _ in FEATURES)
            for tool in ("jobgen", "peer")
        ]
        applicable = sum(OPERATIONS[slug][f] is not None for f, _ in FEATURES)
        lines += [f"| **total** | {totals[0]} of {applicable} | {totals[1]} of {applicable} |", ""]
    return "\n".join(lines)


# -- the child: import one SDK and call it ----------------------------------------------


class Server:
    """A MockTransport handler answering from a queue of responses, recording requests."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        import httpx

        request.read()
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return answer if isinstance(answer, httpx.Response) else httpx.Response(200, json=answer)


def _snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class Adapter:
    """Calls one operation the way the SDK's users do."""

    def __init__(self, pkg: Any, steps: dict[str, Any]) -> None:
        self.pkg = pkg
        self.steps = steps

    def model(self, name: str) -> Any:
        import importlib

        return getattr(importlib.import_module(self.pkg.__name__ + ".models"), name)

    def body(self, step: dict[str, Any], **override: Any) -> Any:
        data = {**(step["body"] or {}), **override}
        name = step.get("body_model")
        if name is None:
            return data
        return self.model(name).from_dict(data)


class JobgenAdapter(Adapter):
    def client(self, transport: Any, **kwargs: Any) -> Any:
        kwargs.setdefault(self._credential(), "secret-1")
        return self.pkg.Client(transport=transport, **kwargs)

    def _credential(self) -> str:
        import inspect

        params = [p for p in inspect.signature(self.pkg.Client).parameters if p != "self"]
        return params[0]

    def call(self, client: Any, step: dict[str, Any], variant: str = "", **kw: Any) -> Any:
        resource = getattr(client, step["attr"])
        if variant:
            resource = getattr(resource, variant)
        if step["body"] is not None and "body" not in kw:
            kw["body"] = self.body(step)
        return getattr(resource, step["method"])(*step["path_args"], **kw)


class PeerAdapter(Adapter):
    def client(self, transport: Any, **kwargs: Any) -> Any:
        return self.pkg.AuthenticatedClient(
            base_url="https://api.example", token="secret-1", httpx_args={"transport": transport}
        )

    def module(self, step: dict[str, Any]) -> Any:
        import importlib

        root = Path(self.pkg.__file__).parent / "api"
        for path in sorted(root.glob("*/*.py")):
            if path.stem.replace("_", "") == _snake(step["operation_id"]):
                return importlib.import_module(
                    f"{self.pkg.__name__}.api.{path.parent.name}.{path.stem}"
                )
        raise LookupError(f"{step['operation_id']} was not generated")

    def call(self, client: Any, step: dict[str, Any], variant: str = "", **kw: Any) -> Any:
        fn = getattr(self.module(step), "sync_detailed" if variant else "sync")
        if step["body"] is not None and "body" not in kw:
            kw["body"] = self.body(step)
        return fn(*step["path_args"], client=client, **kw)


def _transport(server: Server) -> Any:
    import httpx

    return httpx.MockTransport(server)


def check_pagination(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    page = dict(step["response"])
    items_key = next(k for k, v in page.items() if isinstance(v, list))
    item = page[items_key][0]
    first = {**page, items_key: [item], "has_more": True, "last_id": "id-1"}
    second = {**page, items_key: [item], "has_more": False, "last_id": "id-2"}
    server = Server(first, second)
    result = a.call(a.client(_transport(server)), step)
    got = list(result) if not hasattr(result, items_key) else getattr(result, items_key)
    ok = len(got) == 2 and len(server.requests) == 2
    return ok, f"{len(server.requests)} request(s), {len(got)} item(s) of 2"


def check_raw(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    import httpx

    server = Server(httpx.Response(200, json=step["response"], headers={"x-request-id": "req_7"}))
    raw = a.call(a.client(_transport(server)), step, "with_raw_response")
    parsed = raw.parse() if hasattr(raw, "parse") else raw.parsed
    ok = int(raw.status_code) == 200 and raw.headers["x-request-id"] == "req_7"
    return ok and parsed is not None, f"status, headers and a parsed {type(parsed).__name__}"


def check_options(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    server = Server(step["response"])
    client = a.client(_transport(server))
    try:
        a.call(client, step, extra_headers={"X-Probe": "1"}, timeout=3.0, max_retries=0)
    except TypeError as exc:
        return False, f"not per call: {exc}"
    return server.requests[0].headers.get("X-Probe") == "1", "extra_headers, timeout, max_retries"


def _enum_value(a: Adapter, cls: Any, field: str, value: str) -> Any:
    """``value`` as the enum a model's field is typed with (named in its annotation)."""
    import enum

    import attrs

    annotation = attrs.fields_dict(cls)[field].type
    names = re.findall(r"[A-Za-z_]\w*", str(getattr(annotation, "__name__", annotation)))
    for name in names:
        try:
            target = a.model(name)
        except AttributeError:
            continue
        if isinstance(target, type) and issubclass(target, enum.Enum):
            return target(value)
    return value


def check_uploads(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    cls = a.model(step["body_model"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.jsonl"
        path.write_bytes(b'{"x": 1}\n')
        body = cls(file=path, purpose=_enum_value(a, cls, "purpose", "batch"))
        server = Server(step["response"])
        a.call(a.client(_transport(server)), step, body=body)
    sent = server.requests[0].content
    return b'filename="train.jsonl"' in sent, "a Path in the file field"


def check_downloads(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    import httpx

    server = Server(httpx.Response(200, content=BLOB, headers={"content-type": "audio/mpeg"}))
    result = a.call(a.client(_transport(server)), step)
    data = result if isinstance(result, bytes) else getattr(result, "payload", None)
    data = data.read() if hasattr(data, "read") else data
    return data == BLOB, f"returned {type(result).__name__}"


def check_events(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    import httpx

    event = json.dumps(step["event"])
    body = f"data: {event}\n\ndata: {event}\n\ndata: [DONE]\n\n".encode()
    server = Server(
        httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
    )
    client = a.client(_transport(server))
    if isinstance(a, JobgenAdapter) and step["stream_method"]:
        step = {**step, "method": step["stream_method"]}
    result = a.call(client, step)
    events = list(result) if hasattr(result, "__iter__") else [result]
    typed = all(hasattr(e, "data") and hasattr(e.data, "to_dict") for e in events)
    return len(events) == 2 and typed, f"{len(events)} item(s) of type {type(result).__name__}"


def check_credentials(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    if not isinstance(a, JobgenAdapter):
        try:
            a.pkg.AuthenticatedClient(base_url="https://api.example")
        except TypeError as exc:
            return False, f"no environment variable; without a token: TypeError: {exc}"
        return False, "no environment variable"
    name = f"{a.steps['env_prefix']}_{a._credential().upper()}"
    try:
        a.pkg.Client()
    except a.pkg.errors.MissingCredentials:
        pass
    else:
        return False, "no error without credentials"
    os.environ[name] = "from-env"
    try:
        server = Server(step["response"])
        a.call(a.pkg.Client(transport=_transport(server)), step)
    finally:
        del os.environ[name]
    sent = str(server.requests[0].headers.get("authorization", ""))
    return sent.endswith("from-env"), f"{name}; MissingCredentials without one"


def check_serialization(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    server = Server(step["response"])
    client = a.client(_transport(server))
    if step["operation_id"] == "listRunSteps":
        value = "step_details.tool_calls[*].file_search.results[*].content"
        include: list[Any] = [value, value]
        if isinstance(a, PeerAdapter):
            hint = typing.get_type_hints(a.module(step).sync)["include"]
            item = next(typing.get_args(h)[0] for h in typing.get_args(hint) if typing.get_args(h))
            include = [item(value), item(value)]
        result = a.call(client, step, include=include)
        if hasattr(result, "page"):  # a jobgen pager sends when it is read
            result.page()
        sent = server.requests[0].url.params.get_list("include[]")
        return len(sent) == 2, f"include[]={sent} (an array query parameter, repeated keys)"
    a.call(client, step, body=a.body(step, expand=["a", "b"]))
    sent = server.requests[0].content.decode()
    ok = "expand%5B0%5D=a" in sent and "expand%5B1%5D=b" in sent
    return ok, "form array per its declared encoding (deepObject): " + sent[:60]


def check_retries(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    import httpx

    server = Server(httpx.Response(503), step["response"])
    client = a.client(_transport(server))
    try:
        a.call(client, step)
    except Exception as exc:  # noqa: BLE001 - any failure means no retry
        return False, f"{type(exc).__name__} after {len(server.requests)} request(s)"
    keys = {r.headers.get("idempotency-key") for r in server.requests}
    if step["body"] is not None:
        return len(server.requests) == 2 and len(
            keys
        ) == 1 and None not in keys, "POST with one key"
    return len(server.requests) == 2, f"{len(server.requests)} requests"


def check_logging(a: Adapter, step: dict[str, Any]) -> tuple[bool, str]:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logging.getLogger().addHandler(Keep())
    logging.getLogger().setLevel(logging.DEBUG)
    server = Server(step["response"])
    a.call(a.client(_transport(server)), step)
    mine = [r for r in records if r.name.startswith(a.pkg.__name__)]
    return bool(mine), (mine[0].getMessage()[:80] if mine else "no log record from the SDK")


CHECKS: dict[str, Callable[[Adapter, dict[str, Any]], tuple[bool, str]]] = {
    "pagination": check_pagination,
    "raw": check_raw,
    "options": check_options,
    "uploads": check_uploads,
    "downloads": check_downloads,
    "events": check_events,
    "credentials": check_credentials,
    "serialization": check_serialization,
    "retries": check_retries,
    "logging": check_logging,
}


def probe(tool: str, root: str, name: str, plan_file: str) -> None:
    steps = json.loads(Path(plan_file).read_text())
    os.environ[f"{steps['env_prefix']}_LOG"] = "info"  # read when the SDK is imported
    sys.path.insert(0, root)
    import importlib

    pkg = importlib.import_module(name)
    adapter: Adapter = JobgenAdapter(pkg, steps) if tool == "jobgen" else PeerAdapter(pkg, steps)
    out: dict[str, list[str]] = {}
    for feature, _ in FEATURES:
        step = steps.get(feature)
        if step is None:
            out[feature] = ["n/a", ""]
            continue
        try:
            if isinstance(adapter, PeerAdapter):
                adapter.module(step)  # the peer skips operations it cannot generate
            ok, note = CHECKS[feature](adapter, step)
        except Exception as exc:  # noqa: BLE001 - a failing check is a result
            ok, note = (
                False,
                f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            )
        out[feature] = ["yes" if ok else "no", note]
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        probe(*sys.argv[2:6])
    else:
        main()
