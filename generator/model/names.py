"""Turn spec text into safe, readable Python identifiers.

Spec text never becomes code: every name in the output passes through here and
comes out as an ASCII identifier that is not a keyword. Collisions are resolved
deterministically by numbering, in the order names are claimed.
"""

from __future__ import annotations

import hashlib
import keyword
import re
import unicodedata

__all__ = ["NameSet", "constant", "file_stem", "pascal", "snake", "words"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+[a-z]*")
_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"None", "True", "False"}


def words(text: str) -> list[str]:
    """Split camelCase, snake_case, kebab-case, dotted and spaced text into words."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _WORD.findall(ascii_text)


def _fix(name: str, fallback: str, digit_prefix: str) -> str:
    if not name:
        name = fallback
    if name[0].isdigit():
        name = digit_prefix + name
    if name in _RESERVED or keyword.iskeyword(name):
        name += "_"
    return name


def snake(text: str, fallback: str = "value") -> str:
    """``createJob`` -> ``create_job``; ``1_clicks`` -> ``n1_clicks``; ``class`` -> ``class_``."""
    return _fix("_".join(w.lower() for w in words(text)), fallback, "n")


def pascal(text: str, fallback: str = "Model") -> str:
    """``reporting.report_run`` -> ``ReportingReportRun``."""
    return _fix("".join(w[:1].upper() + w[1:] for w in words(text)), fallback, "N")


def constant(text: str, fallback: str = "VALUE") -> str:
    """An enum member name: ``anthropic/claude-3`` -> ``ANTHROPIC_CLAUDE_3``."""
    return _fix("_".join(w.upper() for w in words(text)), fallback, "V")


MAX_STEM = 80


def file_stem(name: str) -> str:
    """A module or package name short enough for any file system (names derived from
    long titles, tags or deeply nested schemas): a readable head and a hash of the whole."""
    if len(name) <= MAX_STEM:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_STEM - 9].rstrip('_')}_{digest}"


class NameSet:
    """Claims names in one namespace, numbering later claimants of a taken name."""

    def __init__(self, reserved: frozenset[str] | set[str] = frozenset()) -> None:
        self._taken: set[str] = {name.lower() for name in reserved}

    def claim(self, name: str) -> str:
        candidate, n = name, 1
        while candidate.lower() in self._taken:
            n += 1
            candidate = f"{name}_{n}"
        self._taken.add(candidate.lower())
        return candidate

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._taken
