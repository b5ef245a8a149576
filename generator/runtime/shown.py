"""How messages, logs and reprs show URLs and job ids: never with a query string.

A job polled at its operation URL has that URL, query included, as its id, so every
call taking a job id accepts it back; the query may hold a secret (a signature,
`sig=...`), so what the SDK prints drops it, with the fragment and any userinfo.
"""

from __future__ import annotations

import httpx

__all__ = ["display_id", "display_url"]


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
