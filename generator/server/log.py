"""The request log: one record per request to the simulated API, with secrets masked."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any
from urllib.parse import unquote_plus

import attrs

from .wire import parse_json

__all__ = ["MASK", "MAX_LOGGED_BODY", "RequestRecord", "mask_body", "mask_headers", "mask_query"]

MASK = "***"
#: The characters of a request body the log keeps; the rest are counted.
MAX_LOGGED_BODY = 4096

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


def _masked_chunks(value: Any, secrets: Collection[str]) -> Iterator[str]:
    """``value`` as ``json.dumps`` writes it, piece by piece, secret fields masked."""
    if isinstance(value, dict):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield f"{', ' if i else ''}{json.dumps(key, ensure_ascii=False)}: "
            if isinstance(key, str) and _secret(key, secrets, ()) and item not in (None, ""):
                yield json.dumps(MASK)
            else:
                yield from _masked_chunks(item, secrets)
        yield "}"
    elif isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ", "
            yield from _masked_chunks(item, secrets)
        yield "]"
    else:
        yield json.dumps(value, ensure_ascii=False)


def _masked_json(value: Any, secrets: Collection[str]) -> str:
    """``value`` as JSON, secret fields masked, written only as far as the log keeps it
    (a body of a megabyte costs no more to log than a short one)."""
    parts: list[str] = []
    size = 0
    for chunk in _masked_chunks(value, secrets):
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_LOGGED_BODY:
            break
    return "".join(parts)


def mask_body(raw: bytes, content_type: str | None, secrets: Collection[str] = ()) -> str | None:
    """A request body as the log keeps it: text, secret fields of JSON and forms masked,
    cut at :data:`MAX_LOGGED_BODY` characters; bytes that are not UTF-8 only counted."""
    if not raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(raw):,} bytes>"
    media = (content_type or "").split(";")[0].strip().lower()
    if media == "application/x-www-form-urlencoded":
        if len(text) > MAX_LOGGED_BODY:
            # Only the kept fields are masked: a form of many fields costs no more than a
            # short one, and no field past the cut is shown.
            cut = text.rfind("&", 0, MAX_LOGGED_BODY)
            kept = mask_query(text[: cut if cut > 0 else MAX_LOGGED_BODY], secrets)
            return f"{kept[:MAX_LOGGED_BODY]}... ({len(raw):,} bytes in all)"
        text = mask_query(text, secrets)
    elif media == "application/json" or media.endswith("+json"):
        try:
            text = _masked_json(parse_json(text), secrets)
        except ValueError:
            pass
        except RecursionError:
            return f"<{len(raw):,} bytes of JSON nested too deeply to show>"
    if len(text) > MAX_LOGGED_BODY:
        text = f"{text[:MAX_LOGGED_BODY]}... ({len(raw):,} bytes in all)"
    return text


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
    and is not part of :meth:`to_json`. ``body`` is the request body as text (secret
    fields masked, cut at 4,096 characters), or ``<N bytes>`` for bytes that are not
    UTF-8; None for no body. ``violations`` lists how a refused request broke the spec.
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
    body: str | None = None
    caller: str | None = attrs.field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["violations"] = list(self.violations)
        del data["caller"]
        return data
