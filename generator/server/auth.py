"""Credentials from a request, per the spec's security schemes.

Any non-empty credential of a scheme the operation accepts is valid; a job remembers
the credential that created it and answers only to that one.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from http.cookies import CookieError, SimpleCookie

import attrs

from ..model import ir

__all__ = ["Credentials", "read_credential"]


@attrs.frozen
class Credentials:
    """What a request carried: ``value`` (the secret) or why there is none."""

    required: bool
    value: str | None = None
    problem: str = ""
    challenge: str | None = None


def _describe(auth: ir.Auth) -> str:
    if isinstance(auth, ir.ApiKeyAuth):
        return (
            f"the {auth.wire} {auth.where}"
            if auth.where != "query"
            else f"the {auth.wire} query parameter"
        )
    if isinstance(auth, ir.BearerAuth):
        return "an Authorization: Bearer header"
    return "an Authorization: Basic header"


def _authorization(headers: Mapping[str, str], scheme: str) -> str | None:
    raw = headers.get("authorization", "")
    name, _, value = raw.strip().partition(" ")
    if name.lower() != scheme or not value.strip():
        return None
    return value.strip()


def _cookie(headers: Mapping[str, str], name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except CookieError:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def _value(auth: ir.Auth, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
    if isinstance(auth, ir.ApiKeyAuth):
        if auth.where == "header":
            return headers.get(auth.wire.lower()) or None
        if auth.where == "query":
            values = query.get(auth.wire)
            return values[0] if values and values[0] else None
        return _cookie(headers, auth.wire) or None
    if isinstance(auth, ir.BearerAuth):
        return _authorization(headers, "bearer")
    encoded = _authorization(headers, "basic")
    if encoded is None:
        return None
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded if ":" in decoded else None


def read_credential(
    auths: Sequence[ir.Auth],
    security: Sequence[str],
    headers: Mapping[str, str],
    query: Mapping[str, list[str]],
) -> Credentials:
    """The credential a request carries for an operation with ``security`` requirements."""
    accepted = [a for a in auths if a.scheme in security]
    if not accepted:
        return Credentials(required=False)
    for auth in accepted:
        value = _value(auth, headers, query)
        if value is not None:
            return Credentials(required=True, value=value)
    wanted = " or ".join(_describe(a) for a in accepted)
    challenge = next(
        (
            "Bearer" if isinstance(a, ir.BearerAuth) else "Basic"
            for a in accepted
            if not isinstance(a, ir.ApiKeyAuth)
        ),
        None,
    )
    return Credentials(
        required=True, problem=f"missing credentials: send {wanted}", challenge=challenge
    )
