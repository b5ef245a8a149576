"""The request log: one record per request to the simulated API, with secrets masked."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import unquote_plus

import attrs

__all__ = ["MASK", "RequestRecord", "mask_headers", "mask_query"]

MASK = "***"

# Parameter and header names that carry secrets, whatever the spec calls its own scheme:
# API keys, tokens, passwords, signatures (AWS ``X-Amz-Signature``, Azure SAS ``sig``).
_SECRET = re.compile(
    r"key|token|secret|passw|signature|credential|auth|session|cookie|\A(?:sig|code|pwd)\Z",
    re.IGNORECASE,
)


def _secret(name: str, secrets: Collection[str], keep: Collection[str]) -> bool:
    lowered = name.lower()
    return lowered not in keep and (lowered in secrets or _SECRET.search(lowered) is not None)


def mask_query(query: str, secrets: Collection[str] = (), keep: Collection[str] = ()) -> str:
    """``query`` as received, with the value of every secret parameter replaced by ``***``.

    ``secrets`` and ``keep`` are lowercase names always or never masked.
    """
    if not query:
        return query
    parts = []
    for part in query.split("&"):
        name, equals, value = part.partition("=")
        if equals and value and _secret(unquote_plus(name), secrets, keep):
            value = MASK
        parts.append(f"{name}{equals}{value}")
    return "&".join(parts)


def mask_headers(
    headers: Mapping[str, str], secrets: Collection[str] = (), keep: Collection[str] = ()
) -> dict[str, str]:
    """``headers`` with secret values masked; ``Authorization`` keeps its scheme."""
    masked: dict[str, str] = {}
    for name, value in headers.items():
        if name in ("authorization", "proxy-authorization"):
            scheme, _, rest = value.strip().partition(" ")
            masked[name] = f"{scheme} {MASK}" if rest else MASK
        elif _secret(name, secrets, keep):
            masked[name] = MASK
        else:
            masked[name] = value
    return masked


@attrs.frozen(kw_only=True)
class RequestRecord:
    """One request, as the server saw and answered it.

    ``query`` and ``headers`` are as received, with secret values masked (``***``).
    ``status`` is None when the connection was dropped on purpose (no complete answer).
    ``operation`` is ``create``, ``status``, ``result``, ``cancel``, ``list`` or ``events``
    (None for unknown routes);
    ``poll`` is the job's poll number for status requests that reached the job;
    ``fault`` names what the scenario injected, or the implicit ``missing_credentials``
    / ``wrong_credentials`` 401s; ``replayed`` marks a create answered from an earlier
    one with the same idempotency key. ``caller`` is the fingerprint of the credential
    the request carried (None without one); it decides who sees the record over HTTP
    and is not part of :meth:`to_json`.
    """

    seq: int
    time: float
    method: str
    path: str
    query: str
    status: int | None
    headers: dict[str, str] = attrs.field(factory=dict, hash=False)
    operation: str | None = None
    job_name: str | None = None
    job_id: str | None = None
    poll: int | None = None
    idempotency_key: str | None = None
    fault: str | None = None
    replayed: bool = False
    violations: tuple[str, ...] = ()
    caller: str | None = attrs.field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["violations"] = list(self.violations)
        del data["caller"]
        return data
