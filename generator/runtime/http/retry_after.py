"""Parsing of server wait hints: `Retry-After` and custom delay headers.

`Retry-After` (RFC 9110, section 10.2.3) is either delta-seconds or an HTTP-date. A value
that cannot be read is ignored (None), never fatal; a date in the past means "now" (0.0).
"""

from __future__ import annotations

import math
import re
from datetime import timedelta, timezone
from email.utils import parsedate_to_datetime

__all__ = ["DELAY_FORMATS", "parse_delay", "parse_retry_after"]

#: The header formats a `HeaderHint` may declare.
DELAY_FORMATS = frozenset({"retry-after", "seconds", "milliseconds"})

_UTC = timezone(timedelta(0))
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _number(text: str) -> float | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait according to a `Retry-After` value, or None when unreadable.

    `now` is the wall-clock time (epoch seconds) an HTTP-date is measured against.
    Delta-seconds may carry surrounding whitespace and, leniently, a decimal part.
    A date without a zone is taken as UTC; a past date gives 0.0.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text[0].isdigit():
        seconds = _number(text)
        if seconds is not None:
            return seconds
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_UTC)
    try:
        delta = when.timestamp() - now
    except (OverflowError, OSError, ValueError):
        return None
    return max(0.0, delta)


def parse_delay(value: str | None, fmt: str, now: float) -> float | None:
    """Seconds to wait according to a header in format `fmt`, or None when unreadable.

    `fmt` is one of `retry-after` (delta-seconds or HTTP-date), `seconds` or
    `milliseconds` (a non-negative number).
    """
    if fmt == "retry-after":
        return parse_retry_after(value, now)
    if fmt not in DELAY_FORMATS:
        raise ValueError(
            f"unknown delay format {fmt!r}; expected one of {sorted(DELAY_FORMATS)}"
        )
    if value is None:
        return None
    amount = _number(value.strip())
    if amount is None:
        return None
    return amount / 1000.0 if fmt == "milliseconds" else amount
