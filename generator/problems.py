"""Problems found in user input, each tied to a file and a JSON pointer."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from .fieldwise import Node

__all__ = [
    "NEAR_CANDIDATES",
    "Location",
    "Nearest",
    "NoJobs",
    "Problem",
    "SpecError",
    "closest",
    "counted",
    "did_you_mean",
    "pointer_join",
    "printable",
    "split_location",
]


def _escape(token: str) -> str:
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token  # most tokens: nothing to escape


def counted(n: int, noun: str) -> str:
    """``1 job``, ``2 jobs``, ``0 files``: a count and its noun, pluralised."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


#: The most choices "did you mean" compares a value with: the nearest to it in the
#: choices sorted by their case-folded text and by that text reversed (a typo late in a
#: name, or early), half each.
NEAR_CANDIDATES = 64


class Nearest:
    """The choices a misspelt value may have meant, indexed once: each lookup costs a
    bisection and at most `NEAR_CANDIDATES` comparisons, however many choices there are
    (a spec's 20,000 schema names), so explaining n misspellings is linear in n. Among
    more choices than that, a typo in the middle of a name that many others share both
    ends with may be matched with one of those rather than its best match."""

    __slots__ = ("_backward", "_choices", "_forward")

    def __init__(self, choices: Iterable[str]) -> None:
        self._choices = sorted(set(choices))
        many = len(self._choices) > NEAR_CANDIDATES
        self._forward = sorted((c.casefold(), c) for c in self._choices) if many else []
        self._backward = sorted((c.casefold()[::-1], c) for c in self._choices) if many else []

    def candidates(self, value: str) -> list[str]:
        """The choices compared with ``value``: all of them, up to the bound."""
        if not self._forward:
            return self._choices
        import bisect

        half = NEAR_CANDIDATES // 4
        near: set[str] = set()
        folded = value.casefold()
        for index, key in ((self._forward, folded), (self._backward, folded[::-1])):
            at = bisect.bisect_left(index, (key,))
            near.update(c for _, c in index[max(at - half, 0) : at + half])
        return sorted(near)

    def closest(self, value: str) -> str | None:
        """The one choice ``value`` most likely meant, or None."""
        import difflib  # only a misspelt value needs it

        close = difflib.get_close_matches(value, self.candidates(value), n=1, cutoff=0.6)
        return close[0] if close else None


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` a misspelt ``value`` most likely meant, or None (see
    `Nearest`, which a caller asking about many values keeps)."""
    return Nearest(choices).closest(value)


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when one of ``choices`` is close to ``value``, else ``""``."""
    close = closest(value, choices)
    return f" (did you mean '{printable(close)}'?)" if close is not None else ""


def printable(text: str) -> str:
    """Spec text as it may be shown on one terminal line: control characters escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def pointer_join(pointer: str, *tokens: str | int) -> str:
    """Extend a JSON pointer (RFC 6901) with more reference tokens."""
    if len(tokens) == 1:  # most calls: one token, joined without a generator
        token = tokens[0]
        return f"{pointer}/{_escape(token if type(token) is str else str(token))}"
    return "/".join([pointer, *[_escape(str(token)) for token in tokens]])


@attrs.frozen(eq=False, repr=False)
class Location(Node):
    """A place in an input document: its file and a JSON pointer inside it."""

    file: str
    pointer: str = ""

    def child(self, *tokens: str | int) -> Location:
        return Location(self.file, pointer_join(self.pointer, *tokens))

    def __str__(self) -> str:
        # As in a URI reference, the first '#' starts the pointer: one in the file name
        # (and '%', the escape itself) is percent-encoded.
        file = self.file.replace("%", "%25").replace("#", "%23")
        return printable(f"{file}#{self.pointer}")


def split_location(text: str) -> tuple[str, str]:
    """The file and the pointer of a ``str(Location)``."""
    file, _, pointer = text.partition("#")
    return file.replace("%23", "#").replace("%25", "%"), pointer


@attrs.frozen(eq=False, repr=False)
class Problem(Node):
    """One thing wrong with the input, and where."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {printable(self.message)}"


class SpecError(Exception):
    """The input cannot be turned into an SDK; carries every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, location: Location, message: str) -> SpecError:
        return cls([Problem(location, message)])


class NoJobs(SpecError):
    """The spec declares no job where one is needed (``jobgen serve``)."""
