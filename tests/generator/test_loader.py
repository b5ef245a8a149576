"""Spec loading: formats, refs across files, and every kind of malformed input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from jobgen.cli import main
from jobgen.model.build import load_and_build
from jobgen.problems import Location, SpecError
from jobgen.spec.loader import SpecSet, load_spec
from tests.helpers import ROOT, SPECS, TEST_SPECS, write

MINIMAL = """openapi: 3.0.3
info: {title: Mini, version: "1"}
paths: {}
components:
  schemas:
"""


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_and_build(path)
    return [str(p) for p in caught.value.problems]


def test_yaml_31_and_json_30_load() -> None:
    assert len(load_and_build(TEST_SPECS / "features-3.1.yaml").schemas) >= 10
    assert "/components/schemas/Item" in "".join(
        load_and_build(TEST_SPECS / "features-3.0.json").schemas
    )


def test_relative_file_refs_and_cycles(tmp_path: Path) -> None:
    write(
        tmp_path / "models" / "node.yaml",
        "Node:\n  type: object\n  properties:\n    next: {$ref: '#/Node'}\n    peer: {$ref: '../spec.yaml#/components/schemas/Peer'}\n",
    )
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL
        + "    Peer:\n      type: object\n      properties:\n        node: {$ref: './models/node.yaml#/Node'}\n",
    )
    names = sorted(s.name for s in load_and_build(spec).schemas.values())
    assert names == ["Node", "Peer"]


def test_one_relative_ref_from_two_folders_names_two_files(tmp_path: Path) -> None:
    # ``common.yaml`` next to the spec and ``models/common.yaml`` are different files: the
    # same $ref text resolves against the folder of the document that holds it, however
    # often it is followed.
    write(tmp_path / "common.yaml", "Top: {type: string}\n")
    write(tmp_path / "models" / "common.yaml", "Inner: {type: integer}\n")
    write(
        tmp_path / "models" / "thing.yaml",
        "Thing:\n  type: object\n  properties:\n"
        "    a: {$ref: 'common.yaml#/Inner'}\n    b: {$ref: 'common.yaml#/Inner'}\n",
    )
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL + "    Holder:\n      type: object\n      properties:\n"
        "        top: {$ref: 'common.yaml#/Top'}\n"
        "        again: {$ref: 'common.yaml#/Top'}\n"
        "        thing: {$ref: 'models/thing.yaml#/Thing'}\n",
    )
    schemas = {s.name: s for s in load_and_build(spec).schemas.values()}
    assert sorted(schemas) == ["Holder", "Inner", "Thing", "Top"]
    assert {s.location.file for s in schemas.values()} == {
        str(spec),
        str(tmp_path / "common.yaml"),
        str(tmp_path / "models" / "common.yaml"),
        str(tmp_path / "models" / "thing.yaml"),
    }


def test_every_ref_outside_the_folder_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "secret.yaml", "A: {type: string}\n")
    spec = write(
        tmp_path / "api" / "spec.yaml",
        MINIMAL + "    A: {$ref: '../secret.yaml#/A'}\n    B: {$ref: '../secret.yaml#/A'}\n",
    )
    problems = problems_of(spec)
    assert len(problems) == 2
    assert all("points outside the spec's folder" in p for p in problems)
    assert {p.split("#", 1)[1].split(":", 1)[0] for p in problems} == {
        "/components/schemas/A/$ref",
        "/components/schemas/B/$ref",
    }


def test_broken_local_ref_names_file_and_pointer(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL
        + "    A:\n      type: object\n      properties:\n        b: {$ref: '#/components/schemas/Missing'}\n",
    )
    (problem,) = problems_of(spec)
    assert problem.startswith(f"{spec}#/components/schemas/A/properties/b/$ref")
    assert "'/components/schemas/Missing' does not exist" in problem


def test_a_misspelt_ref_or_type_suggests_the_name_meant(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL
        + "    Request:\n      type: object\n      properties:\n"
        + "        n: {type: integr}\n"
        + "        b: {$ref: '#/components/schemas/Requst'}\n"
        + "        c: {$ref: '#/componets/schemas/Request'}\n"
        + "        d: {$ref: '#/components/schemas/Zzzzzz'}\n",
    )
    found = problems_of(spec)
    at = f"{spec}#/components/schemas/Request/properties"
    assert f"{at}/n/type: unknown type 'integr' (did you mean 'integer'?)" in found
    assert (
        f"{at}/b/$ref: target '/components/schemas/Requst' does not exist"
        " (did you mean '/components/schemas/Request'?)"
    ) in found
    assert (
        f"{at}/c/$ref: target '/componets/schemas/Request' does not exist"
        " (did you mean '/components'?)"
    ) in found
    assert f"{at}/d/$ref: target '/components/schemas/Zzzzzz' does not exist" in found


def test_missing_referenced_file(tmp_path: Path) -> None:
    spec = write(tmp_path / "spec.yaml", MINIMAL + "    A: {$ref: './nowhere.yaml#/A'}\n")
    (problem,) = problems_of(spec)
    assert "nowhere.yaml not found" in problem and "#/components/schemas/A/$ref" in problem


def test_ref_outside_the_spec_folder_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "secret.yaml", "A: {type: string}\n")
    spec = write(tmp_path / "api" / "spec.yaml", MINIMAL + "    A: {$ref: '../secret.yaml#/A'}\n")
    (problem,) = problems_of(spec)
    assert "points outside the spec's folder" in problem


def test_pure_ref_cycle_is_an_error(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL
        + "    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n",
    )
    assert any("$ref cycle" in p for p in problems_of(spec))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"openapi: 3.0.3\ninfo: [unclosed", "is not valid YAML"),
        (b'{"openapi": "3.0.3", "info": ', "is not valid JSON"),
        (b"openapi: 3.0.3\ninfo:\n  title: caf\xe9\n", "is not UTF-8 text (byte 33, line 3)"),
        (b"swagger: '1.2'\ninfo: {title: x, version: '1'}\n", "Swagger 1.2 is not supported"),
        (b"openapi: 4.0.0\ninfo: {title: x, version: '1'}\n", "expected OpenAPI 3.0.x or 3.1.x"),
        (b"- just\n- a list\n", "must be a mapping at the top level"),
        (
            b"jobs:\n  job: {status: getJob}\n",
            "this looks like a job side file (it has 'jobs' and no 'openapi'): pass it with --jobs",
        ),
        (b"openapi: 3.1.0\ninfo: {version: '1'}\n", "'info.title' is required"),
    ],
)
def test_malformed_documents(tmp_path: Path, content: bytes, message: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(content)
    problems = problems_of(spec)
    assert any(message in p for p in problems), problems
    assert all(p.startswith(str(spec)) for p in problems)


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(10))}]" for i in range(1, 9)]
    spec = write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n")
    (problem,) = problems_of(spec)
    assert "YAML aliases" in problem


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_nesting_thousands_deep_is_refused(tmp_path: Path, suffix: str) -> None:
    depth = 5000
    if suffix == "json":
        text = '{"openapi": "3.0.3", "x": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    else:
        text = "openapi: 3.0.3\nx: " + "[" * depth + "]" * depth + "\n"
    spec = write(tmp_path / f"deep.{suffix}", text)
    (problem,) = problems_of(spec)
    # Ours ("nests deeper than 400 levels") or libyaml's own limit, whichever comes first.
    assert "nest" in problem and problem.startswith(f"{spec}#")


def test_duplicate_operation_ids(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "spec.yaml",
        """openapi: 3.0.3
info: {title: Dup, version: "1"}
paths:
  /a:
    get: {operationId: same, responses: {"204": {description: ok}}}
  /b:
    get: {operationId: same, responses: {"204": {description: ok}}}
""",
    )
    (problem,) = problems_of(spec)
    assert "#/paths/~1b/get/operationId" in problem and "duplicate operationId 'same'" in problem


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    spec = write(
        tmp_path / "spec.yaml",
        """openapi: 3.0.3
info: {title: Many, version: "1"}
paths:
  /a/{id}:
    get:
      operationId: a
      responses: {"204": {description: ok}}
  /b:
    get:
      operationId: b
      parameters: [{name: q, in: nowhere}]
      responses: {"204": {description: ok}}
components:
  schemas:
    Bad: {type: strange}
""",
    )
    problems = problems_of(spec)
    assert len(problems) == 3
    assert any("path parameter 'id'" in p for p in problems)
    assert any("/paths/~1b/get/parameters/0/in" in p for p in problems)
    assert any("/components/schemas/Bad/type: unknown type 'strange'" in p for p in problems)


def test_allof_ref_cycles_are_refused_naming_both_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``L1: {allOf: [$ref L2]}``, ``L2: {allOf: [$ref L1]}`` have no type (their SDK would
    not type-check and its decoder would never return): refused, as plain cycles are."""
    spec = write(
        tmp_path / "spec.yaml",
        MINIMAL
        + "    L1: {allOf: [{$ref: '#/components/schemas/L2'}]}\n"
        + "    L2: {allOf: [{$ref: '#/components/schemas/L1'}], nullable: true}\n"
        + "    L3: {allOf: [{$ref: '#/components/schemas/L3'}, {description: x}]}\n"
        + "    Tree: {type: array, items: {$ref: '#/components/schemas/Tree'}}\n",
    )
    out = tmp_path / "out"
    assert main(["generate", str(spec), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    l1, l2, l3 = (f"{spec}#/components/schemas/{n}" for n in ("L1", "L2", "L3"))
    assert f"error: {l1}: allOf/$ref cycle: the schema is only itself through {l2}" in err
    assert f"error: {l2}: allOf/$ref cycle: the schema is only itself through {l1}" in err
    assert f"error: {l3}: allOf/$ref cycle: the schema is only itself; it has no type" in err
    assert "Tree" not in err  # a list of itself is a type
    assert "3 problems; nothing was written" in err and not out.exists()


@pytest.mark.parametrize("count", [500, 5000])
def test_a_chain_of_refs_is_followed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """S0 -> S1 -> ... -> Sn, each only a ``$ref`` to the next: each reference is resolved
    once, so the work grows with the chain's length, not with its square (5,000 took
    783,000 resolutions and 49 s). Time per schema is measured in bench/ref_chain.py."""
    lines = [f"    S{i}: {{$ref: '#/components/schemas/S{i + 1}'}}" for i in range(count)]
    spec = write(
        tmp_path / "spec.yaml", MINIMAL + "\n".join(lines) + f"\n    S{count}: {{type: string}}\n"
    )
    calls = 0
    resolve = SpecSet.resolve

    def counted(self: SpecSet, ref: object, at: Location) -> tuple[Any, Location]:
        nonlocal calls
        calls += 1
        return resolve(self, ref, at)

    monkeypatch.setattr(SpecSet, "resolve", counted)
    sdk = load_and_build(spec)
    assert len(sdk.schemas) == count + 1
    assert calls <= 2 * count


def _tree(folder: Path) -> dict[str, bytes]:
    """The files of a generated SDK (bytecode Python cached beside them aside)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_spec_read_again_in_one_process_generates_the_committed_sdk_each_time(
    tmp_path: Path,
) -> None:
    """A process that reads the same files again (a test suite, a server per spec) parses
    them from a kept copy from the third time on: each load still gets data of its own, so
    a caller that changes its tree changes no later load. Oracle: the committed SDK, made by
    a fresh process (``jobgen generate --check`` in CI)."""
    spec = SPECS / "salesforce_bulk.yaml"  # with a file of its $refs: common/errors.yaml
    committed = _tree(ROOT / "generated" / "salesforce_bulk")
    for round in range(4):
        loaded = load_spec(spec)
        loaded.deref({"$ref": "common/errors.yaml#/components/schemas"}, Location(str(spec)))
        for document in loaded.documents.values():  # what a careless caller might do
            document.data.clear()
        out = tmp_path / str(round)
        assert (
            main(["generate", str(spec), "-o", str(out), "--package", "salesforce_bulk_sdk"]) == 0
        )
        assert _tree(out) == committed, f"round {round}"


def test_a_file_changed_in_place_is_read_anew(tmp_path: Path) -> None:
    """The same size and modification time, other content: the file is parsed again."""
    spec = tmp_path / "spec.yaml"
    for title in ("Aaaa", "Aaaa", "Aaaa", "Bbbb"):
        write(spec, MINIMAL.replace("Mini", title) + "    Thing: {type: string}\n")
        os.utime(spec, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        assert load_and_build(spec).title == title
