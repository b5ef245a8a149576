"""Small spec pairs for the diff tests: the Sume spec, mutated with PyYAML."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from jobgen.diff import Change, Report, diff_sdks
from jobgen.model.build import load_and_build
from tests.helpers import SPECS, write

SUME: dict[str, Any] = yaml.safe_load((SPECS / "sume.yaml").read_text(encoding="utf-8"))
JOB_PATH = "/v1/jobs/{job_id}"
RESULT_PATH = "/v1/jobs/{job_id}/result"


def sume() -> dict[str, Any]:
    """Sume as these cases were written for: without its cancel and event stream
    operations, progress and webhooks."""
    spec = copy.deepcopy(SUME)
    del spec["paths"]["/v1/jobs/{job_id}/cancel"]
    del spec["paths"]["/v1/jobs/{job_id}/events"]
    for key in ("cancel", "progress", "webhooks"):
        del spec["x-jobgen"]["jobs"]["job"][key]
    return spec


def schemas(spec: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = spec["components"]["schemas"]
    return result


def props(spec: dict[str, Any], schema: str) -> dict[str, Any]:
    result: dict[str, Any] = schemas(spec)[schema]["properties"]
    return result


def job(spec: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = spec["x-jobgen"]["jobs"]["job"]
    return result


def op(spec: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    result: dict[str, Any] = spec["paths"][path][method]
    return result


def dump(path: Path, spec: dict[str, Any]) -> Path:
    return write(path, yaml.safe_dump(spec, sort_keys=False))


def diff(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> Report:
    """Write both specs to separate folders, build both SDK models and compare them."""
    a = dump(tmp_path / "old" / "spec.yaml", old)
    b = dump(tmp_path / "new" / "spec.yaml", new)
    return diff_sdks(load_and_build(a), load_and_build(b))


def kinds(report: Report) -> set[tuple[str, bool]]:
    return {(c.kind, c.breaking) for c in report.changes}


def only(report: Report, kind: str) -> Change:
    found = [c for c in report.changes if c.kind == kind]
    assert len(found) == 1, report.changes
    return found[0]
