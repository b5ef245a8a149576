"""How messages, logs and reprs show URLs and job ids (never with a query string),
server payloads and durations.

A job polled at its operation URL has that URL, query included, as its id, so every
call taking a job id accepts it back; the query may hold a secret (a signature,
`sig=...`), so what the SDK prints drops it, with the fragment and any userinfo.
"""

from __future__ import annotations

import json
from typing import cast

import httpx

__all__ = ["display_id", "display_url", "seconds", "summary"]


def display_url(url: str) -> str:
    """`url` as messages show it: without its query string, fragment or userinfo."""
    try:
        parsed = httpx.URL(url)
        return str(parsed.copy_with(query=None, fragment=None, userinfo=b""))
    except (httpx.InvalidURL, TypeError):
        return url.split("?", 1)[0].split("#", 1)[0]


def display_id(job_id: str) -> str:
    """A job id as messages, logs and reprs show it: an operation URL as
    `display_url` shows it, any other id as it is."""
    return display_url(job_id) if "://" in job_id else job_id


_SUMMARY_LIMIT = 200


def summary(value: object) -> str:
    """A short, single-line rendering of a server payload for messages."""
    if value is None or value == "":
        return ""
    if isinstance(value, dict):
        payload = cast("dict[str, object]", value)
        for key in ("message", "detail", "error_description"):
            inner = payload.get(key)
            if isinstance(inner, str) and inner:
                value = inner
                break
        else:
            inner = payload.get("error")
            if isinstance(inner, (dict, str)) and inner:
                return summary(cast(object, inner))
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    if len(text) > _SUMMARY_LIMIT:
        text = text[: _SUMMARY_LIMIT - 3] + "..."
    return text


def seconds(value: float) -> str:
    """A duration as messages show it: `1.5s`, `12s`."""
    return f"{round(value, 2):g}s"
