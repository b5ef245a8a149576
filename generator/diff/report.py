"""Render a diff report as text for people or as JSON for CI."""

from __future__ import annotations

import json
from typing import Any

from .compare import Change, Report

__all__ = ["render_json", "render_text", "rollout_lines", "to_dict"]


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
    if report.breaks_deployed or report.breaks_regenerated:
        lines.append(
            f"rollout: {len(report.breaks_deployed)} break SDKs already deployed if the server "
            f"ships first, {len(report.breaks_regenerated)} break regenerated SDKs if they "
            "ship before the server"
        )
    for title, group in (
        ("Breaking changes", report.breaking),
        ("Additions", report.additions),
        ("Other changes", report.others),
    ):
        if group:
            lines.extend(["", f"{title} ({len(group)}):"])
            for change in group:
                lines.append(f"  {change.location}: {change.message} [{change.kind}]")
                lines.extend(f"    {line}" for line in rollout_lines(change))
    return "\n".join(lines) + "\n"


def rollout_lines(change: Change) -> list[str]:
    """Who a change to job semantics breaks during a rollout, one line each."""
    if change.rollout is None:
        return []
    lines = []
    if change.rollout.deployed:
        lines.append(f"server first: {change.rollout.deployed}")
    if change.rollout.regenerated:
        lines.append(f"clients first: {change.rollout.regenerated}")
    return lines


def _change(change: Change) -> dict[str, Any]:
    out: dict[str, Any] = {
        "breaking": change.breaking,
        "kind": change.kind,
        "location": change.location,
        "message": change.message,
    }
    if change.rollout is not None:
        out["rollout"] = {
            "deployed": change.rollout.deployed,
            "regenerated": change.rollout.regenerated,
        }
    return out


def to_dict(report: Report) -> dict[str, Any]:
    return {
        "old": report.old,
        "new": report.new,
        "summary": {
            "total": len(report.changes),
            "breaking": len(report.breaking),
            "additions": len(report.additions),
            "other": len(report.others),
            "breaks_deployed": len(report.breaks_deployed),
            "breaks_regenerated": len(report.breaks_regenerated),
            "bump": report.bump,
        },
        "changes": [_change(c) for c in report.changes],
    }


def render_json(report: Report) -> str:
    """Stable JSON: sorted keys, changes in the report's order."""
    return json.dumps(to_dict(report), indent=2, sort_keys=True) + "\n"
