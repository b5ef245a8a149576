"""Property: breakout text planted in any string field of a spec stays data.

Hypothesis picks string fields of a rich spec (names, descriptions, titles, URLs,
security scheme and header names, enum values, defaults, examples, tags, x-jobgen
fields, the spec's file name) and plants payloads in them: quotes of every kind,
backslashes, line breaks, U+2028, NUL, jinja syntax and ``__import__`` calls. Each
spec is either refused (exit 2, ``file#pointer`` lines, nothing written) or generates a
package that imports without running anything, keeps every planted enum value,
default and server URL exactly, writes a README that renders (as GitHub-flavoured
Markdown, bare URLs linked) no link, image or HTML tag from spec text, and (checked
once over the whole batch) passes ruff, ``ruff format --check`` and mypy --strict.

``JOBGEN_BREAKOUT_EXAMPLES`` raises the example count for a longer hunt.
"""

from __future__ import annotations

import copy
import enum
import functools
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tests.fuzz.support import problems_in, run_cli
from tests.helpers import SPECS

EXAMPLES = int(os.environ.get("JOBGEN_BREAKOUT_EXAMPLES", "0")) or 14
PAYLOADS = [
    '"""',
    "'''",
    '"',
    "'",
    "\\",
    "\\N{",
    "\n",
    "\r\n",
    "\u2028",
    "\x00",
    "\t",
    "{{ 7 * 7 }}",
    "{% raw %}",
    "{#",
    "-->",
    "`|",
    "宽" * 30,  # East Asian wide: two columns each
    "__import__('pathlib').Path(SENTINEL).touch()",
    '"""; __import__("pathlib").Path(SENTINEL).touch(); """',
    "'; __import__('pathlib').Path(SENTINEL).touch() #",
    "\n__import__('pathlib').Path(SENTINEL).touch()\n",
    # Markdown and HTML for the README: links, images, tags, bare URLs and addresses.
    "<img src=x onerror=alert(1)>",
    "[click](https://evil.example/)",
    "![x](https://evil.example/i.png)",
    ") <b>x</b> (",
    " https://evil.example/x ",
    " <https://evil.example> ",
    " someone@evil.example ",
]
# Where a string is text (rather than structure: ``type``, ``in``, ``$ref``...).
TEXT_KEYS = frozenset(
    {"title", "description", "summary", "url", "name", "operationId", "version", "default"}
    | {"example", "examples", "enum", "tags", "idempotency_header", "success", "failure"}
    | {"canceled", "pending", "create", "status", "result", "id_parameter"}
)
NAME_MAPS = frozenset({"properties", "schemas", "securitySchemes", "jobs"})


@functools.cache
def _seed() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((SPECS / "sume.yaml").read_text(encoding="utf-8"))
    get_job = doc["paths"]["/v1/jobs/{job_id}"]["get"]
    get_job.setdefault("parameters", []).extend(
        [
            {
                "name": "view",
                "in": "query",
                "description": "How much of the record to return.",
                "schema": {"type": "string", "enum": ["full", "brief"], "default": "full"},
            },
            {"name": "trace", "in": "query", "schema": {"type": "string", "default": "off"}},
            {"name": "X-Trace-Id", "in": "header", "schema": {"type": "string"}},
        ]
    )
    # An operation-level server: the README names it.
    doc["paths"]["/v1/jobs/{job_id}/result"]["get"]["servers"] = [
        {"url": "https://results.example/v1"}
    ]
    return doc


_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)")
_MARKDOWN = MarkdownIt("gfm-like")


def _readme_tags(readme: str) -> tuple[set[str], str]:
    """The HTML tags a README renders to (GitHub-flavoured: bare URLs are linked), and
    the HTML itself."""
    html = _MARKDOWN.render(readme)
    return set(_TAG.findall(html)), html


def _template_tags(tmp_path: Path) -> set[str]:
    """The tags of the seed spec's README: what the template itself renders."""
    clean = tmp_path / "clean.yaml"
    clean.write_text(yaml.safe_dump(_seed()), encoding="utf-8")
    run = run_cli(["generate", clean, "-o", tmp_path / "clean", "--package", "clean_sdk"])
    assert run.code == 0, run.stderr
    return _readme_tags((tmp_path / "clean" / "README.md").read_text(encoding="utf-8"))[0]


def _check_readme(readme: str, allowed: set[str]) -> None:
    """Spec text adds no link, image or tag to the rendered README."""
    tags, html = _readme_tags(readme)
    assert tags <= allowed, (sorted(tags - allowed), html[:4000])
    assert "<a " not in html and "<img" not in html and "href=" not in html, html[:4000]


def _text_strings(node: Any, key: str = "") -> Iterator[str]:
    """The strings of ``node`` that are text or names, not structure."""
    if isinstance(node, dict):
        for k, v in node.items():
            if key in NAME_MAPS:
                yield k
            yield from _text_strings(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from _text_strings(item, key)
    elif (
        isinstance(node, str)
        and (key in TEXT_KEYS or key.startswith("x-"))
        and not node.startswith("#/")  # a reference, not text
    ):
        yield node


def _escape_pointer(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1")


def _rewrite(node: Any, renames: dict[str, str], key: str = "", in_jobs: bool = False) -> Any:
    """Every occurrence renamed (names as keys, text as values), with ``$ref`` fragments and
    x-jobgen pointers following, so the spec stays consistent."""
    if isinstance(node, dict):
        out = {}
        names = key in NAME_MAPS or key == "security"
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                head, _, last = v.rpartition("/")
                out[k] = f"{head}/{_escape_pointer(renames[last])}" if last in renames else v
            else:
                new_key = renames.get(k, k) if names else k
                out[new_key] = _rewrite(v, renames, k, in_jobs or k == "x-jobgen")
        return out
    if isinstance(node, list):
        return [_rewrite(item, renames, key, in_jobs) for item in node]
    if isinstance(node, str):
        if in_jobs and node.startswith("/") and node not in renames:
            return "/".join(
                _escape_pointer(renames[p]) if p in renames else p for p in node.split("/")
            )
        return renames.get(node, node)
    return node


@st.composite
def hostile_specs(draw: st.DrawFn, sentinel: str) -> tuple[dict[str, Any], str, dict[str, str]]:
    seed = _seed()
    strings = sorted(set(_text_strings(seed)))
    chosen = draw(st.lists(st.sampled_from(strings), min_size=1, max_size=6, unique=True))
    renames = {}
    for text in chosen:
        payload = draw(st.sampled_from(PAYLOADS)).replace("SENTINEL", repr(sentinel))
        where = draw(st.sampled_from(["suffix", "prefix", "whole"]))
        renames[text] = {"suffix": text + payload, "prefix": payload + text}.get(where, payload)
    note(f"renames: {renames!r}")
    doc = _rewrite(copy.deepcopy(seed), renames)
    # (Not "#": problems name ``file#pointer``, so the test's parser would misread it.)
    name = draw(st.sampled_from(["spec", 'spec\'"""', "spec\nimport os", "spec{{x}}", "s\u2028\\"]))
    return doc, name, renames


def _import_all(out: Path, package: str) -> list[Any]:
    sys.path.insert(0, str(out))
    try:
        root = importlib.import_module(package)
        modules = [root]
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            modules.append(importlib.import_module(info.name))
        return modules
    finally:
        sys.path.remove(str(out))


def _forget(package: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def _planted(doc: Any, renames: dict[str, str], key: str) -> set[str]:
    """The renamed strings that sit under ``key`` (an enum list or a default)."""
    found: set[str] = set()
    planted = set(renames.values())

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == key:
                    values = v if isinstance(v, list) else [v]
                    found.update(x for x in values if isinstance(x, str) and x in planted)
                walk(v)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(doc)
    return found


def _check_values(modules: list[Any], doc: dict[str, Any], renames: dict[str, str]) -> None:
    """Planted enum values, parameter defaults and the server URL come back exactly."""
    members: set[object] = set()
    defaults: set[object] = set()
    for module in modules:
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, enum.Enum):
                members.update(m.value for m in obj)
            if isinstance(obj, type) and obj.__module__ == module.__name__:
                for member in vars(obj).values():
                    if inspect.isfunction(member):
                        for p in inspect.signature(member).parameters.values():
                            value = p.default
                            defaults.add(value.value if isinstance(value, enum.Enum) else value)
    schemas = doc["components"]["schemas"]
    assert _planted(schemas, renames, "enum") <= members
    assert _planted(doc["paths"], renames, "default") <= defaults
    url = doc["servers"][0]["url"]
    if url in renames.values() and "://" in url:
        client = next(m for m in modules if m.__name__.endswith("._client"))
        assert inspect.signature(client.Client.__init__).parameters["base_url"].default == url


def _run(tool: list[str], cwd: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", *tool], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.exhaustive  # a fuzz sweep: make test-all (CI); test_injection.py replays its finds
def test_planted_breakout_text_stays_data(tmp_path: Path, mypy_cache: Path) -> None:
    batch = tmp_path / "batch"
    batch.mkdir()
    sentinel = tmp_path / "pwned"
    counter = iter(range(10**6))
    outcomes = {0: 0, 2: 0}
    allowed = _template_tags(tmp_path)

    @settings(
        derandomize=True,
        database=None,
        deadline=None,
        max_examples=EXAMPLES,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(hostile_specs(str(sentinel)))
    def one(case: tuple[dict[str, Any], str, dict[str, str]]) -> None:
        doc, name, renames = case
        n = next(counter)
        work = tmp_path / f"case{n}"
        work.mkdir()
        spec = work / f"{name}.yaml"
        spec.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        package = f"breakout_sdk_{n}"
        out = work / "out"
        run = run_cli(["generate", spec, "-o", out, "--package", package])
        assert run.code in outcomes, run.stderr
        outcomes[run.code] += 1
        if run.code == 2:
            for problem in problems_in(run, multiline=True):
                assert Path(problem.file).resolve().is_relative_to(work), problem
            assert not out.exists()
            return
        try:
            _check_values(_import_all(out, package), doc, renames)
        finally:
            _forget(package)
        _check_readme((out / "README.md").read_text(encoding="utf-8"), allowed)
        assert not sentinel.exists(), "importing the generated SDK ran spec text"
        shutil.copytree(out / package, batch / package)

    one()
    assert outcomes[0], f"no planted spec generated: {outcomes}"
    _run(
        ["ruff", "check", "--isolated", "--target-version", "py39", "--no-cache"]
        + ["--select", "E4,E7,E9,F,W6,I,RUF022", "."],
        batch,
    )
    _run(
        ["ruff", "format", "--check", "--isolated", "--target-version", "py39", "--no-cache", "."],
        batch,
    )
    packages = sorted(p.name for p in batch.iterdir() if p.name.startswith("breakout_sdk_"))
    _run(["mypy", "--strict", "--cache-dir", str(mypy_cache), *packages], batch)


@pytest.mark.slow
def test_the_readme_renders_no_link_or_html_from_spec_text(tmp_path: Path) -> None:
    """The holes once found, planted at once: an operation-level server URL (printed
    beside, not inside, a code span), a title and a version holding links, tags, bare
    URLs and addresses."""
    allowed = _template_tags(tmp_path)
    doc = copy.deepcopy(_seed())
    doc["info"]["title"] = "Jobs [click](https://evil.example/) <img src=x> https://evil.example"
    doc["info"]["version"] = "1.0 www.evil.example someone@evil.example"
    doc["paths"]["/v1/jobs/{job_id}/result"]["get"]["servers"] = [
        {"url": "https://results.example/v1)<img src=x onerror=alert(1)>[a](https://evil.example"}
    ]
    spec = tmp_path / "hostile.yaml"
    spec.write_text(yaml.safe_dump(doc), encoding="utf-8")
    run = run_cli(["generate", spec, "-o", tmp_path / "out", "--package", "hostile_sdk"])
    assert run.code == 0, run.stderr
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "results.example" in readme and "evil.example" in readme
    _check_readme(readme, allowed)
    assert "www\\.evil.example" in readme  # not linked by renderers that link www. names
