"""``jobgen jobs init`` on the published specs: each draft validates, and the table of
docs/job-extension.md measuring them against specs/vendor/*.jobs.yaml is current.

Regenerate the table with ``.venv/bin/python -m tests.draft_measure``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jobgen.cli import main
from tests.draft_docs import documented
from tests.draft_measure import COMMAND, PUBLISHED, Case, published_table
from tests.helpers import REAL_SPECS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_the_published_table_matches_the_drafts() -> None:
    assert documented("published") == published_table(), f"run {COMMAND} and update the docs"


@pytest.mark.parametrize("case", PUBLISHED, ids=lambda c: c.label)
def test_the_draft_of_each_published_spec_validates(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.jobs.yaml"
    assert main(["jobs", "init", str(case.spec), "-o", str(draft)]) == 0
    out, err = capsys.readouterr()
    if not draft.exists():
        # Key Vault's jobs are all imported from x-ms-long-running-operation.
        assert "no other job found" in out
        assert "imported from x-ms-long-running-operation" in err
        return
    assert "drafted" in out
    code = main(["validate", str(case.spec), "--jobs", str(draft)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "valid" in out


def test_nothing_is_drafted_again_for_document_intelligences_imported_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        REAL_SPECS
        / "azure/ai/data-plane/DocumentIntelligence/stable/2024-11-30/DocumentIntelligence.json"
    )
    draft = tmp_path / "di.jobs.yaml"
    assert main(["jobs", "init", str(spec), "-o", str(draft)]) == 0
    out, err = capsys.readouterr()
    assert not draft.exists()
    assert "no other job found" in out
    assert "not drafted: 10 jobs the spec declares in its own extensions" in err
    assert "analyze_document (imported from x-ms-long-running-operation)" in err
