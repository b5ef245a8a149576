"""The error for an HTTP error status: the `APIStatusError` subclass, with the body read."""

from __future__ import annotations

import json

import httpx

from ..shared.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from ..shared.shown import display_url, summary

__all__ = ["status_error_for"]

_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def _read_body(response: httpx.Response) -> object:
    try:
        raw = response.content
    except httpx.ResponseNotRead:
        return None
    except Exception:  # noqa: BLE001 - reading an error body must never raise
        return None
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        pass
    try:
        return response.text
    except Exception:  # noqa: BLE001
        return raw.decode("utf-8", errors="replace")


def status_error_for(response: httpx.Response) -> APIStatusError:
    """The `APIStatusError` subclass for `response`, with its decoded body.

    The body is JSON when it parses, else text; reading it never raises.
    """
    code = response.status_code
    cls = _BY_STATUS.get(code)
    if cls is None:
        cls = InternalServerError if code >= 500 else APIStatusError
    body = _read_body(response)
    parts = [f"HTTP {code} {response.reason_phrase}".rstrip()]
    try:
        request: httpx.Request | None = response.request
    except RuntimeError:
        request = None
    if request is not None:
        parts[0] += f" from {request.method} {request.url.path}"
    location = response.headers.get("location")
    if location and response.is_redirect:
        # Where it pointed, without a query string that may be a signature.
        try:
            where = str(request.url.join(location.strip())) if request else location
        except httpx.InvalidURL:
            where = location
        parts.append(f"Location: {display_url(where)}")
    detail = summary(body)
    if detail:
        parts.append(detail)
    if cls.advice:
        parts.append(cls.advice)
    return cls(": ".join(parts), response=response, body=body)
