"""``jobgen jobs init`` on the held-out specs (tests/real/heldout/): each draft validates,
and the held-out table of docs/job-extension.md is current.

Regenerate the table with ``.venv/bin/python -m tests.draft_measure``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jobgen.cli import main
from tests.draft_docs import documented
from tests.draft_measure import COMMAND, HELDOUT_CASES, Case, heldout_table, key_counts

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_the_heldout_table_matches_the_drafts() -> None:
    assert documented("heldout") == heldout_table(), f"run {COMMAND} and update the docs"


@pytest.mark.parametrize("case", HELDOUT_CASES, ids=lambda c: c.label)
def test_the_draft_of_each_heldout_spec_validates(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.jobs.yaml"
    assert main(["jobs", "init", str(case.spec), "-o", str(draft)]) == 0
    out, _ = capsys.readouterr()
    if not draft.exists():
        assert "no job found" in out
        return
    code = main(["validate", str(case.spec), "--jobs", str(draft)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "valid" in out


def test_each_key_counts_what_both_sides_set_alike() -> None:
    hand = {
        "jobs": {
            "a": {
                "create": "c1",
                "status": "s1",
                "result": "r1",
                "result_once": True,
                "carry": {"k": {"from": "/k", "to": "body:/k"}},
                "state": {"success": ["ok"], "pending": ["p"]},
            },
            "b": {"create": "c2", "status": "s2", "cancel": "x2", "final_from": "record"},
        }
    }
    drafted = {
        "jobs": {
            "a1": {
                "create": "c1",
                "status": "s1",
                "result": "r9",
                "carry": {"k": {"from": "/k", "to": "body:/k"}},
                "state": {"success": ["ok"], "failure": ["p"]},
            },
            "z": {"create": "c7", "status": "s7", "cancel": "x7", "final_from": "record"},
        }
    }
    counts = key_counts(hand, drafted)
    as_tuple = {key: (c.declared, c.drafted, c.right) for key, c in counts.items()}
    assert as_tuple == {
        "jobs": (2, 2, 1),
        "states": (2, 2, 1),  # ok right, p in another class
        "create": (2, 2, 1),  # b missed, z extra
        "status": (2, 2, 1),
        "result": (1, 1, 0),  # another operation
        "cancel": (1, 1, 0),  # on two different jobs
        "result_once": (1, 0, 0),
        "final_from": (1, 1, 0),
        "carry": (1, 1, 1),
    }
