"""`jobgen validate` does work linear in a spec's problems: the OpenAPI-schema check
indexes its errors by place and explains only the problems it shows, and "did you mean"
compares a dangling ``$ref`` with a bounded set of the names it could have meant (8,000
misspelt keys took 64 s, 20,000 schemas with 400 dangling refs 214 s). Work is counted
in Python function calls, which do not depend on the machine's load; the seconds are
measured by bench/problem_scaling.py."""

from __future__ import annotations

import difflib
import itertools
import json
import random
import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from jobgen.cli import main

KEYS_HEAD: dict[str, Any] = {"openapi": "3.0.3", "info": {"title": "Keys", "version": "1"}}


def misspelt_keys(count: int) -> dict[str, Any]:
    """``count`` operations, each with a parameter whose ``required`` is misspelt."""
    parameter = {"name": "x", "in": "query", "requird": True, "schema": {"type": "string"}}
    return {
        **KEYS_HEAD,
        "paths": {
            f"/p{i}": {
                "get": {
                    "operationId": f"op{i}",
                    "parameters": [parameter],
                    "responses": {"200": {"description": "ok"}},
                }
            }
            for i in range(count)
        },
    }


def dangling_refs(names: list[str], refs: dict[str, str]) -> dict[str, Any]:
    """A schema per name; ``refs``: schema name -> the (missing) schema its ``r`` names."""
    schemas: dict[str, Any] = {
        name: {"type": "object", "properties": {"v": {"type": "string"}}} for name in names
    }
    for name, target in refs.items():
        schemas[name]["properties"]["r"] = {"$ref": f"#/components/schemas/{target}"}
    first = {"$ref": f"#/components/schemas/{names[0]}"}
    ok = {"description": "ok", "content": {"application/json": {"schema": first}}}
    return {
        **KEYS_HEAD,
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": ok}}}},
        "components": {"schemas": schemas},
    }


def validate(
    tmp_path: Path, spec: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """The Python function calls `jobgen validate` makes on ``spec``, and what it said."""
    path = tmp_path / f"spec-{len(json.dumps(spec))}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    capsys.readouterr()
    sys.setprofile(profile)
    try:
        code = main(["validate", str(path)])
    finally:
        sys.setprofile(None)
    said = capsys.readouterr().err
    assert code == 2, said
    return calls, said


@pytest.fixture
def warm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One validation first: imports and the compiled OpenAPI schema are not counted."""
    (tmp_path / "warm.json").write_text(json.dumps(misspelt_keys(2)), encoding="utf-8")
    main(["validate", str(tmp_path / "warm.json")])
    capsys.readouterr()


def test_the_schema_check_works_linearly_in_its_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], warm: None
) -> None:
    small, said = validate(tmp_path, misspelt_keys(400), capsys)
    assert "and 350 more places that break the OpenAPI schema" in said
    assert "unknown key 'requird'; did you mean 'required'?" in said
    large, said = validate(tmp_path, misspelt_keys(800), capsys)
    assert "and 750 more places that break the OpenAPI schema" in said
    # Twice the problems, twice the work (the comparison of every error with every
    # other made it 3.3 times).
    assert large / small < 2.3, (small, large)


WORDS = (
    [
        "Blue",
        "Quick",
        "Lazy",
        "Open",
        "Closed",
        "Pending",
        "Active",
        "Remote",
        "Local",
        "Shared",
        "Private",
        "Public",
        "Signed",
        "Cached",
        "Batch",
        "Stream",
    ],
    [
        "Job",
        "Task",
        "Invoice",
        "Customer",
        "Order",
        "Payment",
        "Refund",
        "Upload",
        "Export",
        "Import",
        "Report",
        "Event",
        "Token",
        "Session",
        "Account",
        "Project",
    ],
    ["", "List", "Request", "Response", "Status", "Result", "Error", "Page", "Input", "Output"],
)
NAMES = sorted({"".join(parts) for parts in itertools.product(*WORDS)})


def _typo(name: str, rng: random.Random) -> str:
    """``name`` with one letter dropped, doubled or swapped among its first or last two."""
    at = rng.choice([1, 2, len(name) - 2, len(name) - 1])
    kind = rng.choice(["drop", "double", "swap"])
    if kind == "drop":
        return name[:at] + name[at + 1 :]
    if kind == "double":
        return name[:at] + name[at] + name[at:]
    return name[: at - 1] + name[at] + name[at - 1] + name[at + 1 :]


def test_did_you_mean_for_dangling_refs_works_linearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], warm: None
) -> None:
    def spec(schemas: int) -> dict[str, Any]:
        names = NAMES[:schemas]
        return dangling_refs(names, {name: name + "x" for name in names[: schemas // 10]})

    small, said = validate(tmp_path, spec(1000), capsys)
    assert said.count("does not exist (did you mean") == 100
    large, said = validate(tmp_path, spec(2000), capsys)
    assert said.count("does not exist (did you mean") == 200
    # Twice the schemas and twice the dangling refs, twice the work (comparing each
    # ref with every schema name made it four times).
    assert large / small < 2.3, (small, large)


def test_did_you_mean_among_many_names_agrees_with_comparing_them_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The oracle is difflib over every schema name: for a typo near either end of a
    name, the bounded candidate set finds the same suggestion."""
    rng = random.Random(35)
    refs = {}
    for name in rng.sample(NAMES, 60):
        typo = _typo(name, rng)
        if typo not in NAMES:
            refs[name] = typo
    _, said = validate(tmp_path, dangling_refs(NAMES, refs), capsys)
    suggested = dict(
        re.findall(
            r"target '/components/schemas/(\w+)' does not exist(?: \(did you mean "
            r"'/components/schemas/(\w+)'\?\))?",
            said,
        )
    )
    expected = {
        typo: (difflib.get_close_matches(typo, NAMES, n=1, cutoff=0.6) or [""])[0]
        for typo in refs.values()
    }
    assert len(NAMES) > 1000 and len(refs) > 50
    assert suggested == expected
