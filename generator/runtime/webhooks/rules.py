"""What webhook configuration may be: rules shared by generation and the receiver.

Configuration cannot weaken verification: a signing key is at least
`MIN_KEY_BYTES` long, `tolerance` lies in `TOLERANCE_RANGE`, and `secret_env`
names a webhook secret (`secret_env_problem`), so a spec cannot make a receiver
verify with `HOME` or `PATH`.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "MIN_KEY_BYTES",
    "TOLERANCE_RANGE",
    "secret_env_problem",
    "tolerance_problem",
]

#: The shortest signing key accepted, in bytes (128 bits; a `whsec_` secret's key
#: is the bytes its base64 decodes to).
MIN_KEY_BYTES = 16
#: The tolerance (seconds a delivery's timestamp may be off) lies in this range.
TOLERANCE_RANGE = (1.0, 3600.0)
_SECRET_ENV = re.compile(r"(?:[A-Z][A-Z0-9_]*_)?WEBHOOK_SECRET")
_SECRET_ENV_LENGTH = 64


def secret_env_problem(name: object) -> str | None:
    """Why `name` may not name the variable holding a webhook secret, or None.

    The rule: upper-case ASCII letters, digits and underscores, starting with a
    letter, at most 64 characters, ending in `WEBHOOK_SECRET` (`SUME_WEBHOOK_SECRET`).
    A spec thus cannot point a receiver at a variable whose value others know.
    """
    if (
        not isinstance(name, str)
        or len(name) > _SECRET_ENV_LENGTH
        or not _SECRET_ENV.fullmatch(name)
    ):
        return (
            f"must name a webhook secret: upper-case letters, digits and _, starting"
            f" with a letter, ending in WEBHOOK_SECRET (such as SUME_WEBHOOK_SECRET),"
            f" at most {_SECRET_ENV_LENGTH} characters, not {name!r}"
        )
    return None


def tolerance_problem(value: object) -> str | None:
    """Why `value` may not be a webhook tolerance, or None (see `TOLERANCE_RANGE`)."""
    low, high = TOLERANCE_RANGE
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or math.isnan(value)
        or not low <= value <= high
    ):
        return f"must be a number of seconds from {low:g} to {high:g}, not {value!r}"
    return None
