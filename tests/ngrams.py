"""Build the word counts that ``generator/model/ngrams/`` ships, from ``wordsegment``'s.

    .venv/bin/python -m tests.ngrams          # rewrite generator/model/ngrams/*.tsv

wordsegment 1.3.1 (Apache-2.0, see generator/model/ngrams/NOTICE) keeps its counts in the
order of frequency; the generator searches them in place, so they are written sorted by
word (bytes), one ``key<TAB>count`` line each. Every unigram is kept (all are lower-case
letters, 24 at most). A bigram is kept when both its words are lower-case letters: the
generator segments runs of letters only, and a bigram counts only after a word of the
unigrams, which ``<s>`` and words with digits are not. A bigram listed twice keeps its last
count, as ``wordsegment.Segmenter.load`` does. tests/generator/test_word_split.py checks that
the shipped files are what this builds.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import wordsegment  # type: ignore[import-untyped]

NGRAMS = Path(__file__).resolve().parent.parent / "generator" / "model" / "ngrams"
_LETTERS = re.compile(r"[a-z]+")


def _counts(path: str) -> dict[str, str]:
    """``key -> count`` of a wordsegment file, the last line of a key winning."""
    counts: dict[str, str] = {}
    with open(path, encoding="utf-8") as reader:
        for line in reader:
            key, count = line.rstrip("\n").split("\t")
            counts[key] = count
    return counts


def _lines(counts: dict[str, str]) -> bytes:
    keys = sorted(counts, key=lambda key: key.encode("ascii"))
    return "".join(f"{key}\t{int(counts[key])}\n" for key in keys).encode("ascii")


def build() -> dict[str, bytes]:
    """The shipped files' contents, by file name."""
    unigrams = _counts(wordsegment.Segmenter.UNIGRAMS_FILENAME)
    assert all(_LETTERS.fullmatch(word) and len(word) <= 24 for word in unigrams)
    bigrams = {
        pair: count
        for pair, count in _counts(wordsegment.Segmenter.BIGRAMS_FILENAME).items()
        if all(_LETTERS.fullmatch(word) for word in pair.split(" "))
    }
    return {"unigrams.tsv": _lines(unigrams), "bigrams.tsv": _lines(bigrams)}


def main() -> None:
    for name, data in build().items():
        (NGRAMS / name).write_bytes(data)
        lines = data.count(b"\n")
        print(f"{NGRAMS / name}: {lines} lines, {len(data)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
