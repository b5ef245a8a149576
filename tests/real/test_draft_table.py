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
