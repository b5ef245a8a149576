"""Problems found in user input, each tied to a file and a JSON pointer."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

__all__ = [
    "Location",
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
    return token.replace("~", "~0").replace("/", "~1")


def counted(n: int, noun: str) -> str:
    """``1 job``, ``2 jobs``, ``0 files``: a count and its noun, pluralised."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` a misspelt ``value`` most likely meant, or None."""
    import difflib  # only a misspelt value needs it

    close = difflib.get_close_matches(value, sorted(choices), n=1, cutoff=0.6)
    return close[0] if close else None


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
    return pointer + "".join("/" + _escape(str(token)) for token in tokens)


@attrs.frozen
class Location:
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


@attrs.frozen
class Problem:
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
