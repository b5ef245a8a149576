"""The draft tables of docs/job-extension.md, as written there."""

from __future__ import annotations

from tests.helpers import ROOT

DOC = ROOT / "docs" / "job-extension.md"


def documented(name: str) -> str:
    """The text between ``<!-- draft-table:NAME -->`` and its closing marker."""
    text = DOC.read_text(encoding="utf-8")
    start = f"<!-- draft-table:{name} -->\n"
    end = f"<!-- /draft-table:{name} -->"
    assert start in text and end in text, f"{DOC.name} has no {name} table"
    return text.split(start, 1)[1].split(end, 1)[0]
