"""The table of docs/job-extension.md measuring the drafts of the example specs is current.

Regenerate it with ``.venv/bin/python -m tests.draft_measure``.
"""

from __future__ import annotations

from tests.draft_docs import documented
from tests.draft_measure import COMMAND, compare, examples_table


def test_the_example_table_matches_the_drafts() -> None:
    assert documented("examples") == examples_table(), f"run {COMMAND} and update the docs"


def test_the_comparison_counts_right_wrong_missed_and_extra() -> None:
    hand = {
        "jobs": {
            "a": {"create": "c1", "status": "s1", "state": {"success": ["ok"], "pending": ["p"]}},
            "b": {"create": "c2", "status": "s2", "state": {"success": ["done"]}},
            "c": {"create": "c3", "status": "s3", "state": {"failure": ["x"]}},
        }
    }
    drafted = {
        "jobs": {
            "a1": {
                "create": "c1",
                "status": "s1",
                "state": {"success": ["ok"], "failure": ["p"], "pending": ["q"]},
            },
            "b1": {"create": "c9", "status": "s2", "state": {"success": ["done"]}},
            "z": {"create": "c7", "status": "s7", "state": {"success": ["ok"]}},
        }
    }
    row = compare("t", hand, drafted, 2)
    assert (row.declared, row.drafted, row.right, row.wrong, row.missed) == (3, 3, 1, 1, 1)
    assert row.extra == ("z",)
    # a: ok right, p wrong (failure, not pending), q wrong (not hand-written);
    # b and c: their states missed.
    assert (row.states_right, row.states_wrong, row.states_missed) == (1, 2, 2)
    assert row.states_declared == 4
