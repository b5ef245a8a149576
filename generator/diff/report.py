"""Render a diff report as text for people or as JSON for CI."""

from __future__ import annotations

import json
from typing import Any

from .compare import Change, Report

__all__ = ["render_json", "render_text", "to_dict"]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_text(report: Report) -> str:
    """Grouped, breaking changes first; one line per change."""
    lines = [f"{report.old} -> {report.new}"]
    if not report.changes:
        lines.append("no changes for SDK callers; suggested version bump: none")
        return "\n".join(lines) + "\n"
    lines.append(
        f"{_plural(len(report.changes), 'change')}: {len(report.breaking)} breaking, "
        f"{_plural(len(report.additions), 'addition')}, {len(report.others)} other; "
        f"suggested version bump: {report.bump}"
    )
    for title, group in (
        ("Breaking changes", report.breaking),
        ("Additions", report.additions),
        ("Other changes", report.others),
    ):
        if group:
            lines.extend(["", f"{title} ({len(group)}):"])
            lines.extend(f"  {c.location}: {c.message} [{c.kind}]" for c in group)
    return "\n".join(lines) + "\n"


def _change(change: Change) -> dict[str, Any]:
    return {
        "breaking": change.breaking,
        "kind": change.kind,
        "location": change.location,
        "message": change.message,
    }


def to_dict(report: Report) -> dict[str, Any]:
    return {
        "old": report.old,
        "new": report.new,
        "summary": {
            "total": len(report.changes),
            "breaking": len(report.breaking),
            "additions": len(report.additions),
            "other": len(report.others),
            "bump": report.bump,
        },
        "changes": [_change(c) for c in report.changes],
    }


def render_json(report: Report) -> str:
    """Stable JSON: sorted keys, changes in the report's order."""
    return json.dumps(to_dict(report), indent=2, sort_keys=True) + "\n"
