"""Retry-After and custom delay header parsing."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from jobgen.runtime.http.retry_after import parse_delay, parse_retry_after

NOW = 1_767_225_600.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("5", 5.0),
        ("  120 ", 120.0),
        ("0", 0.0),
        ("1.5", 1.5),
        (formatdate(NOW + 30, usegmt=True), 30.0),
        ("Thu, 01 Jan 2026 00:01:00 GMT", 60.0),
        ("Thursday, 01-Jan-26 00:00:10 GMT", 10.0),  # RFC 850, obsolete but legal
        ("Thu Jan  1 00:00:20 2026", 20.0),  # asctime: no zone, taken as UTC
        (formatdate(NOW - 3600, usegmt=True), 0.0),  # in the past: now
        ("Wed, 31 Dec 2025 23:00:00 +0000", 0.0),
        (None, None),
        ("", None),
        ("   ", None),
        ("soon", None),
        ("-5", None),
        ("5s", None),
        ("1e3", None),
        ("nan", None),
        ("inf", None),
        ("١٢", None),  # non-ASCII digits
        ("Thu, 32 Jan 2026 00:00:00 GMT", None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, NOW) == expected


@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [
        ("2500", "milliseconds", 2.5),
        ("0", "milliseconds", 0.0),
        ("3", "seconds", 3.0),
        ("0.25", "seconds", 0.25),
        (" 7 ", "retry-after", 7.0),
        ("-1", "seconds", None),
        ("abc", "milliseconds", None),
        (None, "seconds", None),
        (formatdate(NOW + 9, usegmt=True), "retry-after", 9.0),
        (formatdate(NOW + 9, usegmt=True), "seconds", None),
    ],
)
def test_parse_delay(value: str | None, fmt: str, expected: float | None) -> None:
    assert parse_delay(value, fmt, NOW) == expected


def test_parse_delay_rejects_unknown_format() -> None:
    with pytest.raises(ValueError, match="minutes"):
        parse_delay("1", "minutes", NOW)
