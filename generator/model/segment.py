"""English words run together (``createanapikey``) told apart with word counts.

The counts are wordsegment 1.3.1's (``ngrams/NOTICE``): how often each of 333,213 words
and 249,528 word pairs occurs in a trillion words of web text. They ship sorted by word,
one ``key<TAB>count`` line each, and are searched in place (memory-mapped, binary search
over the bytes), so nothing is parsed or loaded to look a word up.

``segment`` gives the same words as ``wordsegment.segment``: the split that is most
probable by the same scores (a pair's count after a known word, else the word's own count,
else a penalty for its length), found by the same search, chunks and tie-breaking included.
It differs in how much it computes: a word that no counted pair starts with scores every
next word alike, so the best split of the rest of the text after it is computed once, not
once per such word.
"""

from __future__ import annotations

import functools
import math
import mmap
from pathlib import Path

__all__ = ["count", "counted_words", "segment"]

_NGRAMS = Path(__file__).resolve().parent / "ngrams"
# wordsegment's constants: the words of the corpus the counts come from, the longest word
# tried, and the length of text searched at once.
_TOTAL = 1024908267229.0
_LIMIT = 24
_CHUNK = 250


class _Counts:
    """``key<TAB>count`` lines sorted by key, searched where they lie."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as file:
            self._data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)

    def _first(self, key: bytes, lo: int, hi: int) -> int:
        """The start of the first line in ``lo:hi`` (line starts) whose key is >= ``key``.

        A line is compared by its first bytes with ``key<TAB>``: a tab sorts before every
        letter and the space, so they order as the keys do."""
        data = self._data
        line = key + b"\t"
        size = len(line)
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", lo, mid) + 1 or lo
            if data[start : start + size] < line:
                lo = data.find(b"\n", start) + 1
            else:
                hi = start
        return lo

    def _count_at(self, at: int, key: bytes) -> int | None:
        """The count on the line at ``at`` if its key is ``key``."""
        data = self._data
        end = at + len(key) + 1
        if data[at:end] != key + b"\t":
            return None
        return int(data[end : data.find(b"\n", end)])

    def get(self, key: bytes) -> int:
        """The count of ``key``; 0 when it is not counted."""
        return self._count_at(self._first(key, 0, len(self._data)), key) or 0

    def extensions(self, base: bytes, text: bytes) -> tuple[tuple[int, int], ...]:
        """``(n, count)`` for every counted key ``base + text[:n]``, n from 1 up: a search
        per letter while some key starts so, each from where the last one ended."""
        data = self._data
        lo, hi = 0, len(data)
        if base:
            lo = self._first(base, lo, hi)
            hi = self._first(base[:-1] + bytes([base[-1] + 1]), lo, hi)
        found = []
        for n in range(1, len(text) + 1):
            key = base + text[:n]
            lo = self._first(key, lo, hi)
            if data[lo : lo + len(key)] != key:
                break
            number = self._count_at(lo, key)
            if number is not None:
                found.append((n, number))
        return tuple(found)


@functools.cache
def _unigrams() -> _Counts:
    return _Counts(_NGRAMS / "unigrams.tsv")


@functools.cache
def _bigrams() -> _Counts:
    return _Counts(_NGRAMS / "bigrams.tsv")


@functools.lru_cache(maxsize=65536)
def _words_from(window: bytes) -> tuple[tuple[int, int], ...]:
    """The counted words that ``window`` starts with, as ``(length, count)``."""
    return _unigrams().extensions(b"", window)


@functools.lru_cache(maxsize=65536)
def _pairs_from(word: bytes, window: bytes) -> tuple[tuple[int, int], ...]:
    """The counted pairs ``word x`` where ``window`` starts with ``x``."""
    return _bigrams().extensions(word + b" ", window)


@functools.lru_cache(maxsize=65536)
def count(word: str) -> int:
    """How often a lower-case word occurs in the corpus (0: not one of its words)."""
    if not word.isascii():
        return 0
    return _unigrams().get(word.encode("ascii"))


def counted_words(text: str) -> list[list[tuple[int, int]]]:
    """For each position of a run of lower-case ASCII letters, the counted words that start
    there (``_LIMIT`` letters at most, as ``segment`` tries them): ``(end, count)``."""
    raw = text.encode("ascii")
    return [[(i + n, c) for n, c in _words_from(raw[i : i + _LIMIT])] for i in range(len(raw))]


def segment(text: str) -> list[str]:
    """The words of a run of lower-case ASCII letters: ``thisisatest`` -> ``this is a
    test``, as ``wordsegment.segment`` splits it."""
    if text and not (text.isascii() and text.isalpha() and text.islower()):
        raise ValueError(f"not a run of lower-case ASCII letters: {text!r}")
    # wordsegment's chunks: each chunk is searched after the last five words of the
    # one before, and those five words are searched again on their own at the end.
    found: list[str] = []
    carried = ""
    for offset in range(0, len(text), _CHUNK):
        words = _search(carried + text[offset : offset + _CHUNK])
        carried = "".join(words[-5:])
        found += words[:-5]
    return found + _search(carried)


@functools.lru_cache(maxsize=4096)
def _search_cached(text: str) -> tuple[str, ...]:
    return tuple(_best_split(text))


def _search(text: str) -> list[str]:
    return list(_search_cached(text)) if text else []


def _best_split(text: str) -> list[str]:
    """The most probable words of ``text``, as wordsegment's memoised search finds them.

    wordsegment scores a split ``w1 .. wk`` as ``log(P(w1)) + (log(P(w2 | w1)) + (...))``,
    where ``P(w | p)`` is the pair's count over ``p``'s when the pair is counted and ``P(w)``
    otherwise, and takes the maximum of ``(score, words)``. The best split of the text from
    position ``i`` on depends on the word before ``i`` only through the pairs that word
    starts: for every word that starts none here it is one and the same, kept under ``None``.
    """
    raw = text.encode("ascii")
    size = len(text)
    # The counted words at each position (end -> count) and those ending at each one.
    starting: list[dict[int, int]] = []
    ending: list[list[tuple[int, int]]] = [[] for _ in range(size + 1)]
    for i in range(size):
        starting.append({i + n: number for n, number in _words_from(raw[i : i + _LIMIT])})
        for end, number in starting[i].items():
            ending[end].append((i, number))
    # best[i][word before i, or None] = (score, words) of the rest of the text.
    best: list[dict[str | None, tuple[float, list[str]]]] = [{} for _ in range(size + 1)]
    best[size][None] = (0.0, [])
    for i in range(size - 1, -1, -1):
        # Each candidate word: its score on its own and the best split after it.
        candidates = []
        for end in range(i + 1, min(size, i + _LIMIT) + 1):
            word = text[i:end]
            known = starting[i].get(end)
            probability = known / _TOTAL if known else 10.0 / (_TOTAL * 10 ** (end - i))
            after = best[end].get(word) or best[end][None]
            candidates.append((word, math.log10(probability), after))
        best[i][None] = _best(candidates)
        # After a word that starts counted pairs here, those pairs score instead.
        for start, number in ending[i]:
            pairs = _pairs_from(raw[start:i], raw[i : i + _LIMIT])
            if not pairs:
                continue
            given = number / _TOTAL
            scored = list(candidates)
            for n, pair_number in pairs:
                word, _, after = scored[n - 1]
                scored[n - 1] = (word, math.log10(pair_number / _TOTAL / given), after)
            best[i][text[start:i]] = _best(scored)
    return best[0][None][1]


def _best(candidates: list[tuple[str, float, tuple[float, list[str]]]]) -> tuple[float, list[str]]:
    """``max`` of ``(score + score after, [word, *words after])``, lists built only on a tie."""
    top_score = -math.inf
    top: tuple[str, tuple[float, list[str]]] | None = None
    top_words: list[str] | None = None
    for word, score, after in candidates:
        total = score + after[0]
        if total > top_score:
            top_score, top, top_words = total, (word, after), None
        elif total == top_score and top is not None:
            if top_words is None:
                top_words = [top[0], *top[1][1]]
            words = [word, *after[1]]
            if words > top_words:
                top, top_words = (word, after), words
    assert top is not None
    return top_score, top_words if top_words is not None else [top[0], *top[1][1]]
