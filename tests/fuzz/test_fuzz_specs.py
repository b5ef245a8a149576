"""Property: a mutated spec either generates an inert, compiling SDK or is refused cleanly.

Refused means exit 2 with ``file#pointer: message`` lines and nothing written; any
other exit code, a traceback, or partial output fails. Deterministic (derandomized);
``JOBGEN_FUZZ_EXAMPLES`` raises the example count for a longer hunt.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import os
import pkgutil
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from jobgen.spec.loader import load_document
from tests.fuzz.mutate import (
    mutated,
    node_paths,
    swagger2_mutated,
    swagger2_slots,
    value_at,
)
from tests.fuzz.support import problems_in, run_cli
from tests.helpers import SPECS, TEST_SPECS

EXAMPLES = int(os.environ.get("JOBGEN_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=EXAMPLES or 50,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SEEDS = {
    "sume": (SPECS / "sume.yaml", []),
    "features": (TEST_SPECS / "features-3.1.yaml", ["shared/tree.yaml"]),
    # Swagger 2.0 as Azure publishes it (mutated as written, before its OpenAPI 3 reading).
    "azure-2.0": (TEST_SPECS / "azure-2.0.json", []),
}


@functools.cache
def _seed(name: str) -> Any:
    path, _ = SEEDS[name]
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    return load_document(path, str(path)).data


def _dump(doc: Any, suffix: str) -> str:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        if suffix == "json":
            return json.dumps(doc, indent=1)
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    finally:
        sys.setrecursionlimit(limit)


def _import_all(out: Path, package: str) -> Iterator[str]:
    sys.path.insert(0, str(out))
    try:
        root = importlib.import_module(package)
        yield package
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            importlib.import_module(info.name)
            yield info.name
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


def check_outcome(spec: Path, work: Path, sentinel: Path, package: str) -> int:
    """Generate ``spec``; assert the contract whatever the outcome. Returns the exit code."""
    out = work / "out"
    run = run_cli(["generate", spec, "-o", out, "--package", package])
    for text in (run.stdout, run.stderr):
        assert "Traceback" not in text, text
    if run.code == 0:
        sources = sorted((out / package).rglob("*.py"))
        assert sources, "generation succeeded but wrote no Python"
        for path in sources:
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        assert list(_import_all(out, package))
        assert not sentinel.exists(), "importing the generated SDK ran spec text"
    else:
        problems = problems_in(run, multiline=True)
        for problem in problems:
            assert Path(problem.file).resolve().is_relative_to(work), problem
        assert not out.exists(), "a refused spec left output behind"
    leftovers = [p.name for p in work.iterdir() if p.name.startswith(".out")]
    assert not leftovers, leftovers
    checked = run_cli(["validate", spec])
    assert checked.code == run.code, (run.stderr, checked.stderr)
    return run.code


_counter = iter(range(10**9))


def _check_document(name: str, doc: Any, suffix: str, work: Path) -> None:
    """Write ``doc`` (and the files the seed refers to) into ``work`` and check the outcome."""
    path, extra = SEEDS[name]
    for rel in extra:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path.parent / rel, work / rel)
    spec = work / f"spec.{suffix}"
    spec.write_text(_dump(doc, suffix), encoding="utf-8")
    check_outcome(spec, work, work / "pwned", f"fuzz_sdk_{next(_counter)}")


def fuzz_one(data: st.DataObject, name: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="jobgen-fuzz-"))
    mutate = swagger2_mutated if name == "azure-2.0" else mutated
    try:
        steps, doc = data.draw(mutate(_seed(name), str(work / "pwned")), label="mutations")
        note("\n".join(steps))
        suffix = data.draw(st.sampled_from(["yaml", "json"]), label="format")
        _check_document(name, doc, suffix, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@FUZZ
@given(data=st.data())
def test_mutated_sume(data: st.DataObject) -> None:
    fuzz_one(data, "sume")


@FUZZ
@given(data=st.data())
def test_mutated_features(data: st.DataObject) -> None:
    fuzz_one(data, "features")


@FUZZ
@given(data=st.data())
def test_mutated_swagger_2(data: st.DataObject) -> None:
    """Structure-aware changes of a Swagger 2.0 document (tests/fuzz/mutate.py's
    SWAGGER2_SLOTS: ``paths: [..]``, ``consumes: 5``, ``host: 443``, an oauth2 ``flow`` list,
    ``x-ms-parameterized-host`` parts), mixed with the generic ones."""
    fuzz_one(data, "azure-2.0")


@pytest.mark.exhaustive
def test_every_swagger_2_slot_with_every_wrong_value() -> None:
    """Each slot of SWAGGER2_SLOTS in the Swagger 2.0 seed, set to each of its wrong values
    in turn: the random draws above can miss the one that matters."""
    seed = _seed("azure-2.0")
    failures = []
    for path, values in swagger2_slots(seed):
        for value in values:
            doc = copy.deepcopy(seed)
            if len(path) > 1:
                value_at(doc, path[:-1])[path[-1]] = copy.deepcopy(value)
            else:
                doc[path[0]] = copy.deepcopy(value)
            work = Path(tempfile.mkdtemp(prefix="jobgen-sweep-"))
            try:
                _check_document("azure-2.0", doc, "json", work)
            except AssertionError as exc:
                failures.append(f"{path} = {value!r}: {str(exc)[:300]}")
            finally:
                shutil.rmtree(work, ignore_errors=True)
    assert not failures, "\n".join(failures)


#: The deletion sweep of each seed is split in this many interleaved parts, so that each
#: part stays well within the per-test timeout and the parts run on every core.
SWEEP_PARTS = 4


@pytest.mark.exhaustive
@pytest.mark.parametrize("part", range(SWEEP_PARTS))
@pytest.mark.parametrize("name", SEEDS)
def test_every_single_deletion(name: str, part: int) -> None:
    """Each node of the seed deleted in turn (a few minutes in all): the random draws
    above can miss one key whose absence matters. Every `SWEEP_PARTS`-th node, from
    `part`: together the parts delete every node once."""
    seed = _seed(name)
    failures = []
    for path in node_paths(seed)[1:][part::SWEEP_PARTS]:
        doc = copy.deepcopy(seed)
        del value_at(doc, path[:-1])[path[-1]]
        work = Path(tempfile.mkdtemp(prefix="jobgen-sweep-"))
        try:
            _check_document(name, doc, "json", work)
        except AssertionError as exc:
            failures.append(f"delete {path}: {str(exc)[:300]}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    assert not failures, "\n".join(failures)
