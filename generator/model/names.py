"""Turn spec text into safe, readable Python identifiers.

Spec text never becomes code: every name in the output passes through here and
comes out as an ASCII identifier that is not a keyword. Collisions are resolved
deterministically by numbering, in the order names are claimed.

Words come from camelCase, snake_case and punctuation; signs and comparison operators
are spelled (``+1`` -> ``plus 1``, ``DateCreated<`` -> ``date created before``), and a
run of letters that reads as three or more English words with no case change between
them (``CreateanAPIkeyforaserviceaccount``) is split with the word counts of ``segment``.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import re
import unicodedata

from . import segment

__all__ = [
    "ACTION_VERBS",
    "NameSet",
    "constant",
    "file_stem",
    "is_action",
    "pascal",
    "plural",
    "snake",
    "words",
]

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
_SEGMENT_SUSPECT = 12
_SEGMENT_MIN_WORDS = 3
_FUNCTION_WORDS = frozenset(
    ["a", "an", "as", "at", "by", "if", "in", "is", "of", "on", "or", "to", "up"]
)
# The counts of the corpus's 5,001st and 50,001st most frequent words: a three-letter word
# must reach the first, a longer one the second (tests/generator/test_word_split.py
# checks them against the shipped counts).
_COMMON_SHORT = 13_262_019
_COMMON = 333_200


def _segmented(run: str) -> list[str] | None:
    pieces = [p for p in _WORD.findall(run) if len(p) >= _SEGMENT_FROM and not p.isupper()]
    if not any(len(p) >= _SEGMENT_SUSPECT for p in pieces):
        return None
    unknown = [p for p in pieces if not segment.count(p.lower())]
    if not any(len(segment.segment(p.lower())) >= _SEGMENT_MIN_WORDS for p in unknown):
        return None
    text = run.lower()
    if not _tiles(text):
        return None
    split = segment.segment(text)
    if len(split) < _SEGMENT_MIN_WORDS:
        return None
    for word in split:
        if not _is_common(word, segment.count(word)):
            return None
    return split


def _is_common(word: str, count: int) -> bool:
    if word in _FUNCTION_WORDS:
        return True
    return len(word) >= 3 and count >= (_COMMON_SHORT if len(word) == 3 else _COMMON)


def _tiles(text: str) -> bool:
    """Whether ``text`` is some sequence of common words. When it is not, its best split
    holds an uncommon word and would be rejected, so it is not searched for (Stripe's long
    runs around ``Konbini``: ``PostCustomersCustomerSubscriptions...Konbini``)."""
    reached = [True] + [False] * len(text)
    for start, words in enumerate(segment.counted_words(text)):
        if reached[start]:
            for end, count in words:
                reached[end] = reached[end] or _is_common(text[start:end], count)
    return reached[-1]


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


#: Verbs that open an operation's name (`CreateDevBox`, `StartDevBox`, `CopyClassifierTo`):
#: a job named after its operation reads as an action, not as a thing.
ACTION_VERBS = frozenset(
    """
    abort add analyze apply approve archive assign authorize backup begin build cancel
    classify clone compose convert copy create delay delete deploy detect disable enable
    execute export extract generate hibernate import index initiate install
    invoke launch list merge migrate move patch post process provision publish purge put
    rebuild recognize recover reimage remove rename repair replace request reset resize
    restart restore resume retrain rotate run scan schedule send set shutdown skip start
    stop submit summarize swap sync train transcribe transfer translate trigger undelete
    update upgrade upload upsert validate verify
    """.split()  # noqa: SIM905 (a word list, read as one)
)
_SIBILANT = re.compile(r"(s|x|z|ch|sh)$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")


#: Verbs that are no thing's name alone (`delete` is an action, `build` may be a build).
_ONLY_VERBS = frozenset(
    """
    analyze cancel classify compose create delete deploy provision purge remove replace
    reset restart start stop submit swap train translate trigger upgrade validate verify
    """.split()  # noqa: SIM905 (a word list, read as one)
)


def is_action(name: str) -> bool:
    """Whether ``name`` (a job's snake name) opens with a verb and its object:
    ``create_dev_box``, ``copy_classifier_to``; alone, a verb that names nothing
    (``delete``, not ``build`` or ``export``)."""
    found = [w.lower() for w in words(name)]
    if len(found) == 1:
        return found[0] in _ONLY_VERBS
    return bool(found) and found[0] in ACTION_VERBS


def plural(name: str) -> str:
    """The plural of a job's snake name, as a person writes it: ``batch`` -> ``batches``,
    ``dev_box`` -> ``dev_boxes``, ``query`` -> ``queries``, ``analysis`` -> ``analyses``.
    A name that is an action (``copy_classifier_to``), or whose last word has no plural
    in use (``health``: ``healths`` is rare in the corpus), is no countable noun: its
    ``_jobs``, as is a plural already (``results``)."""
    head, _, last = name.rpartition("_")
    if is_action(name) or not last.isalpha():
        return f"{name}_jobs"
    if last.endswith("sis"):
        many = last[:-2] + "es"
    elif last in ("status", "bus"):
        many = last + "es"
    elif last.endswith("s") and not last.endswith("ss"):
        return f"{name}_jobs"  # a plural already (`results`): wait_for_results is one job's
    elif _SIBILANT.search(last):
        many = last + "es"
    elif _CONSONANT_Y.search(last):
        many = last[:-1] + "ies"
    else:
        many = last + "s"
    # In use: at least one in a hundred of the word's uses (`boxes`, `dubs`, not `healths`).
    if segment.count(many.lower()) * 100 < segment.count(last.lower()):
        return f"{name}_jobs"
    return f"{head}_{many}" if head else many
