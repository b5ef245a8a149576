"""Carried values of simulated jobs: issued at create, checked on every later call.

A job that declares ``carry`` (say DeepL's ``document_key``) gets fresh values when it
is created; create's answer holds them where the spec says, and every status, result
and cancel request must present the same values where the job's ``to`` says. A
missing or wrong value is answered like an unknown job (404): the values are secret.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from typing import Any

from ..model import ir
from .samples import put
from .wire import Request, parse_json

__all__ = ["issue", "matches", "place", "secret_wires"]


def issue(job: ir.Job) -> dict[str, Any]:
    """Fresh values for a new job, one per carried value, of its kind."""
    values: dict[str, Any] = {}
    for c in job.carry:
        if c.kind == "int":
            values[c.name] = secrets.randbelow(10**9) + 10**8
        elif c.kind == "float":
            values[c.name] = secrets.randbelow(10**6) / 1000
        elif c.kind == "bool":
            values[c.name] = True
        else:
            values[c.name] = secrets.token_hex(32).upper()
    return values


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def place(
    job: ir.Job, values: Mapping[str, Any], body: Any, headers: tuple[tuple[str, str], ...]
) -> tuple[Any, tuple[tuple[str, str], ...]]:
    """Create's answer body and headers with the job's carried values written in."""
    for c in job.carry:
        if c.header is not None:
            headers = (*headers, (c.header.lower(), _text(values[c.name])))
        elif c.source is not None and isinstance(body, dict):
            put(body, c.source, values[c.name])
    return body, headers


def _presented(c: ir.Carry, request: Request, path_params: Mapping[str, str]) -> Any:
    if c.target == "body":
        try:
            body = parse_json(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            return None
        return body.get(c.wire) if isinstance(body, dict) else None
    if c.target == "query":
        found = request.params.get(c.wire)
        return found[-1] if found else None
    if c.target == "header":
        return request.headers.get(c.wire.lower())
    return path_params.get(c.wire)


def matches(
    job: ir.Job, values: Mapping[str, Any], request: Request, path_params: Mapping[str, str]
) -> bool:
    """Whether ``request`` presents every carried value of the job, unchanged (a value
    of the terminal record goes to the result call alone, which it names)."""
    for c in job.carry:
        if c.record:
            continue
        given = _presented(c, request, path_params)
        if given is None or isinstance(given, (dict, list)):
            return False
        expected = values.get(c.name)
        if not hmac.compare_digest(_text(given).encode(), _text(expected).encode()):
            return False
    return True


def secret_wires(jobs: tuple[ir.Job, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """Query parameters and headers (lower-case) that carry values: kept out of the log."""
    query = frozenset(c.wire for j in jobs for c in j.carry if c.target == "query")
    headers = frozenset(c.wire.lower() for j in jobs for c in j.carry if c.target == "header")
    return query, headers
