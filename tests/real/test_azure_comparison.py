"""The comparison of docs/real-specs.md between the jobs jobgen imports from the Azure corpus
(no side file) and the ``begin_*`` methods of Microsoft's Python SDKs is current: its tables
are rebuilt from jobgen's build of every spec and ``tests/real/azure_begin_methods.json``
(the azure-* packages are not needed), and every difference has its reason.

Regenerate the tables with ``.venv/bin/python -m tests.real.azure_compare``; regenerate the
JSON with ``bench/azure_begin_methods.py`` (its top says how).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType, SimpleNamespace

import pytest

from tests.helpers import ROOT
from tests.real.azure import AZURE, corpus
from tests.real.azure_compare import (
    BEGIN_METHODS,
    COMMAND,
    SIDES,
    Row,
    all_rows,
    begin_methods,
    documented,
    tables,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.parametrize("name", ["packages", "summary", "detail"])
def test_the_document_holds_the_comparison(name: str) -> None:
    assert documented(name) == tables()[name], f"run {COMMAND} and update docs/real-specs.md"


def test_every_difference_has_its_reason() -> None:
    rows = all_rows()
    assert {r.side for r in rows} <= set(SIDES)
    unexplained = [r for r in rows if r.side != "both" and not r.reason.strip()]
    assert unexplained == [], "give each difference a reason in tests/real/azure_compare.py"
    assert all(r.reason == "" for r in rows if r.side == "both")


def test_every_long_running_operation_of_the_corpus_has_a_row() -> None:
    rows = all_rows()
    for spec in corpus():
        published = [
            op["operationId"]
            for op in spec.operations()
            if op.get("x-ms-long-running-operation") is True
        ]
        listed = {r.operation for r in rows if r.spec == spec.path}
        assert set(published) <= listed, spec.path


def test_the_recorded_begin_methods_cover_the_corpus_and_name_real_operations() -> None:
    specs = begin_methods()["specs"]
    assert set(specs) == {s.path for s in corpus()}
    for path, entry in specs.items():
        assert bool(entry["clients"]) != bool(entry.get("no_package")), path
        raw = json.loads((AZURE / path).read_text(encoding="utf-8"))
        assert entry["api_version"] == raw["info"]["version"]
        ids = {
            op["operationId"]
            for section in ("paths", "x-ms-paths")
            for item in (raw.get(section) or {}).values()
            for op in item.values()
            if isinstance(op, dict) and "operationId" in op
        }
        for client in entry["clients"]:
            for method in client["begin_methods"]:
                assert method["method"].rsplit(".", 1)[-1].startswith("begin_")
                if method["operation_id"] is None:
                    assert method["reason"], (BEGIN_METHODS.name, client["client"], method)
                else:
                    assert method["operation_id"] in ids, (path, method)


def test_a_row_reads_its_side_from_what_each_found() -> None:
    assert Row("s", "op", "job", ("C.begin_x",), "").side == "both"
    assert Row("s", "op", "job", (), "why").side == "jobgen only"
    assert Row("s", "op", None, ("C.begin_x",), "why").side == "Microsoft only"
    assert Row("s", "op", None, (), "why").side == "neither"
    assert Row("s", None, None, ("C.begin_x",), "why").side == "outside the spec"


def _survey() -> ModuleType:
    """bench/azure_begin_methods.py (its azure imports are made only when it surveys)."""
    path = ROOT / "bench" / "azure_begin_methods.py"
    spec = importlib.util.spec_from_file_location("azure_begin_methods", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_survey_maps_a_request_by_method_host_template_path_and_content_type() -> None:
    survey = _survey()
    di = survey.operations(
        AZURE / "ai/data-plane/DocumentIntelligence/stable/2024-11-30/DocumentIntelligence.json"
    )

    def sent(method: str, path: str, content_type: str = "application/json") -> list[str]:
        request = SimpleNamespace(
            method=method,
            url=f"https://example.test{path}?api-version=2024-11-30",
            headers={"Content-Type": content_type},
        )
        return [op.operation_id for op in survey.match(request, di)]

    analyze = "/documentintelligence/documentModels/m1:analyze"
    assert sent("POST", analyze) == ["DocumentModels_AnalyzeDocument"]
    assert sent("POST", analyze, "application/octet-stream") == [
        "DocumentModels_AnalyzeDocumentFromStream"
    ]
    assert sent("GET", "/documentintelligence/documentModels/m1") == ["DocumentModels_GetModel"]
    assert sent("POST", "/documentModels/m1:analyze") == []  # the host template's path counts
    assert sent("PUT", analyze) == []

    ta = survey.operations(
        AZURE / "cognitiveservices/data-plane/TextAnalytics/stable/v3.1/TextAnalytics.json"
    )
    request = SimpleNamespace(
        method="POST", url="https://example.test/text/analytics/v3.1/analyze", headers={}
    )
    assert [op.operation_id for op in survey.match(request, ta)] == ["Analyze"]
