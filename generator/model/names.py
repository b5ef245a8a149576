"""Turn spec text into safe, readable Python identifiers.

Spec text never becomes code: every name in the output passes through here and
comes out as an ASCII identifier that is not a keyword. Collisions are resolved
deterministically by numbering, in the order names are claimed.

Words come from camelCase, snake_case and punctuation; signs and comparison operators
are spelled (``+1`` -> ``plus 1``, ``DateCreated<`` -> ``date created before``), and a
run of letters that reads as three or more English words with no case change between
them (``CreateanAPIkeyforaserviceaccount``) is split with the ``wordsegment`` corpus.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import re
import unicodedata
from typing import Any

__all__ = ["NameSet", "constant", "file_stem", "pascal", "snake", "words"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+[a-z]*")
_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"None", "True", "False"}


_OPERATOR = re.compile(r"<=|>=|<|>")
_TEMPORAL = re.compile(r"(date|time|at|created|updated|modified|since|until|start|end)$")
_SPELLED_OPERATOR = {
    True: {"<": "before", ">": "after", "<=": "on or before", ">=": "on or after"},
    False: {"<": "lt", ">": "gt", "<=": "lte", ">=": "gte"},
}
_PLUS = re.compile(r"\+(?=[0-9])")
_LEADING_MINUS = re.compile(r"(?:^|(?<=[^A-Za-z0-9]))-(?=[0-9])")
_ANY_MINUS = re.compile(r"(?<![0-9])-(?=[0-9])")
_LETTERS = re.compile(r"[A-Za-z]+")

# Segmentation: a letter run is split only when one of its camel words is long, no word
# of the corpus, and reads as three words or more (``Modstamp`` is left alone), and the
# run splits into words that are all common (short words must be very common): brand
# names such as ``afterpay``, ``disfluencies`` or ``kubernetes`` stay as the spec spells them.
_SEGMENT_FROM = 6
# The corpus takes about half a second to load, so it is loaded only for a camel word
# this long (three run-together words) that is no word of it: most specs have none.
_SEGMENT_SUSPECT = 12
_SEGMENT_MIN_WORDS = 3
_FUNCTION_WORDS = frozenset(
    ["a", "an", "as", "at", "by", "if", "in", "is", "of", "on", "or", "to", "up"]
)
_COMMON_SHORT = 5_000
_COMMON = 50_000


@functools.cache
def _corpus() -> tuple[Any, float, float]:
    """The word-segmentation corpus (loaded once, on first need) and the counts a
    three-letter and a longer word must reach to count as common."""
    import wordsegment  # type: ignore[import-untyped]

    segmenter = wordsegment.Segmenter()
    # The counts as Segmenter.load() reads them, read in bulk (a third faster); its word
    # list is not needed to segment.
    segmenter.unigrams = _counts(segmenter.UNIGRAMS_FILENAME)
    segmenter.bigrams = _counts(segmenter.BIGRAMS_FILENAME)
    segmenter.total = segmenter.TOTAL
    segmenter.limit = segmenter.LIMIT
    counts = sorted(segmenter.unigrams.values(), reverse=True)
    return segmenter, counts[_COMMON_SHORT], counts[_COMMON]


def _counts(path: str) -> dict[str, float]:
    """A corpus file of ``word<TAB>count`` lines (a bigram's two words are spaced)."""
    with open(path, encoding="utf-8") as reader:
        fields = reader.read().replace("\t", "\n").split("\n")
    if fields and not fields[-1]:
        fields.pop()
    return dict(zip(fields[0::2], map(float, fields[1::2])))


# Until the corpus is needed to segment, whether a word is in it is answered by searching
# the text of its word list (a millisecond at most): a spec whose long words are all
# English words never loads it. Past this many searches, loading it is cheaper.
_SEARCHES = 200
_searched = [0]


@functools.cache
def _unigram_text() -> bytes:
    import wordsegment

    with open(wordsegment.Segmenter.UNIGRAMS_FILENAME, "rb") as reader:
        return b"\n" + reader.read()


def _in_corpus(word: str) -> bool:
    """Whether a lower-case ASCII word is one of the corpus's words."""
    if _corpus.cache_info().currsize or _searched[0] >= _SEARCHES:
        return word in _corpus()[0].unigrams
    _searched[0] += 1
    return b"\n" + word.encode("ascii") + b"\t" in _unigram_text()


def _segmented(run: str) -> list[str] | None:
    pieces = [p for p in _WORD.findall(run) if len(p) >= _SEGMENT_FROM and not p.isupper()]
    if not any(len(p) >= _SEGMENT_SUSPECT for p in pieces):
        return None
    unknown = [p for p in pieces if not _in_corpus(p.lower())]
    if not unknown:
        return None
    segmenter, common_short, common = _corpus()
    if not any(len(_segment(p)) >= _SEGMENT_MIN_WORDS for p in unknown):
        return None
    split = _segment(run)
    if len(split) < _SEGMENT_MIN_WORDS:
        return None
    for word in split:
        count = segmenter.unigrams.get(word, 0.0)
        if word in _FUNCTION_WORDS:
            continue
        if len(word) < 3 or count < (common_short if len(word) == 3 else common):
            return None
    return list(split)


@functools.lru_cache(maxsize=4096)
def _segment(text: str) -> tuple[str, ...]:
    """The corpus's words of ``text`` (the same pieces recur in many names)."""
    return tuple(_corpus()[0].segment(text))


def _spell(text: str, signed: bool) -> str:
    def operator(match: re.Match[str]) -> str:
        before = _WORD.findall(text[: match.start()])
        temporal = bool(before) and bool(_TEMPORAL.search(before[-1].lower()))
        return f" {_SPELLED_OPERATOR[temporal][match.group()]} "

    text = _OPERATOR.sub(operator, text)
    text = _PLUS.sub(" plus ", text)
    return (_ANY_MINUS if signed else _LEADING_MINUS).sub(" minus ", text)


def words(text: str, signed: bool = False) -> list[str]:
    """Split camelCase, snake_case, kebab-case, dotted and spaced text into words.

    ``signed``: a ``-`` before a digit is a minus sign even after a letter (``GMT-1``);
    otherwise only at the start or after punctuation (``-1``), ``claude-3`` being a name.
    """
    return list(_words(text, signed))


@functools.lru_cache(maxsize=65536)
def _words(text: str, signed: bool) -> tuple[str, ...]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = _spell(ascii_text, signed)

    def split(match: re.Match[str]) -> str:
        found = _segmented(match.group())
        return " ".join(found) if found else match.group()

    return tuple(_WORD.findall(_LETTERS.sub(split, ascii_text)))


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


def constant(text: str, fallback: str = "VALUE", signed: bool = False) -> str:
    """An enum member name: ``anthropic/claude-3`` -> ``ANTHROPIC_CLAUDE_3``; ``+1`` ->
    ``PLUS_1``; with ``signed``, ``Etc/GMT-1`` -> ``ETC_GMT_MINUS_1``."""
    return _fix("_".join(w.upper() for w in words(text, signed)), fallback, "V")


MAX_STEM = 80


def file_stem(name: str) -> str:
    """A module or package name short enough for any file system (names derived from
    long titles, tags or deeply nested schemas): a readable head and a hash of the whole."""
    if len(name) <= MAX_STEM:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_STEM - 9].rstrip('_')}_{digest}"


class NameSet:
    """Claims names in one namespace, numbering later claimants of a taken name.

    A name that only a reserved name (one the generated code uses itself) takes gets a
    trailing underscore, as ``class_`` does: ``uuid`` -> ``uuid_``, not ``uuid_2``.
    """

    def __init__(self, reserved: frozenset[str] | set[str] = frozenset()) -> None:
        self._reserved = {name.lower() for name in reserved}
        self._taken: set[str] = set(self._reserved)

    def claim(self, name: str) -> str:
        if name.lower() in self._reserved and f"{name}_".lower() not in self._taken:
            name += "_"
        candidate, n = name, 1
        while candidate.lower() in self._taken:
            n += 1
            candidate = f"{name}_{n}"
        self._taken.add(candidate.lower())
        return candidate

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._taken
