"""Name quality over every real spec: how many names needed a numeric suffix, how many
are unreadable. Prints the table of ``docs/name-quality.md``.

    .venv/bin/python bench/names.py [SPECS_DIR]

Counted over every name the generator gives: models, model fields, enum members,
operations (as resource methods), parameters, resources.

- *numbered*: a name that ends in ``_2``, ``_3``, ... because an earlier name took the
  plain one (counted where names are claimed, so ``VALUE_2`` for the enum value 2 is not one);
- *unknown words*: a name holding a word of six letters or more, not all capitals, that
  is no word of the corpus (``generator/model/segment.py``): run-together words, and also brand names the
  generator keeps as the spec spells them (``klarna``, ``kubernetes``);
- *unreadable*: a name holding such a word that the corpus reads as three or more common
  words run together (``createan`` in ``createan_ap_ikeyforaserviceaccount``);
- *lost signs*: an enum member or field whose spec text has a sign or comparison operator
  (``+1``, ``Etc/GMT-1``, ``DateCreated<``) that the name does not spell.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jobgen.model import ir, names, segment
from jobgen.model.build import load_and_build
from tests.helpers import REAL_SPECS
from tests.real.realspecs import SPECS

_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# A sign: ``+`` before a digit, ``-`` before a digit at the start or after punctuation
# (``claude-3`` and ``2011-01-01`` hold none); a comparison operator.
_SIGNED = re.compile(r"\+[0-9]|(?:^|[^A-Za-z0-9])-[0-9]|[<>]")
_SPELLED = re.compile(r"PLUS|MINUS|BEFORE|AFTER|_LT|_GT|_LTE|_GTE", re.IGNORECASE)


def unknown_words(name: str) -> list[str]:
    return [
        piece.lower()
        for piece in _PIECE.findall(name)
        if len(piece) >= 6 and not piece.isupper() and not segment.count(piece.lower())
    ]


def run_together(word: str) -> bool:
    """Three or more common words (short ones very common), as the generator splits."""
    found = segment.segment(word)
    return len(found) >= 3 and all(
        w in _FUNCTION_WORDS
        or (
            len(w) >= 3
            and segment.count(w) >= (names._COMMON_SHORT if len(w) == 3 else names._COMMON)
        )
        for w in found
    )


_FUNCTION_WORDS = frozenset(
    ["a", "an", "as", "at", "by", "if", "in", "is", "of", "on", "or", "to", "up"]
)


class Counter:
    """Wraps ``NameSet.claim`` to count the names that came out numbered."""

    def __init__(self) -> None:
        self.numbered: list[str] = []
        self._claim = names.NameSet.claim

    def __enter__(self) -> Self:
        counter = self

        def claim(self: names.NameSet, name: str) -> str:
            got = counter._claim(self, name)
            if got != name and re.search(r"_[0-9]+$", got):
                counter.numbered.append(got)
            return got

        names.NameSet.claim = claim  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        names.NameSet.claim = self._claim  # type: ignore[method-assign]


def given_names(sdk: ir.Sdk) -> list[tuple[str, str]]:
    """Every (name, spec text) pair of the SDK; the text is empty where there is none."""
    out: list[tuple[str, str]] = []
    for schema in sdk.schemas.values():
        out.append((schema.name, ""))
        if isinstance(schema, ir.Model):
            out.extend((f.name, f.wire) for f in schema.fields)
        if isinstance(schema, ir.EnumSchema):
            out.extend((m.name, str(m.value)) for m in schema.members)
    for resource in sdk.resources:
        out.append((resource.name, ""))
        for op in resource.operations:
            out.append((op.name, op.operation_id))
            out.extend((p.name, p.wire) for p in op.parameters)
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "-v"]
    base = Path(args[0]) if args else REAL_SPECS
    print("| spec | names | numbered | unknown words | unreadable | lost signs |")
    print("|---|---:|---:|---:|---:|---:|")
    totals = [0, 0, 0, 0, 0]
    examples: list[str] = []
    numbered_all: list[str] = []
    for spec in SPECS:
        side = ROOT / "specs" / "vendor" / spec.jobs if spec.jobs else None
        with Counter() as counter:
            sdk = load_and_build(base / spec.path, package=spec.package, jobs_file=side)
        given = given_names(sdk)
        unknown = sorted({n for n, _ in given if unknown_words(n)})
        bad = sorted({n for n in unknown if any(run_together(w) for w in unknown_words(n))})
        lost = sorted(
            {f"{n} ({t})" for n, t in given if _SIGNED.search(t) and not _SPELLED.search(n)}
        )
        row = [len(given), len(counter.numbered), len(unknown), len(bad), len(lost)]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"| {spec.id} | " + " | ".join(str(v) for v in row) + " |")
        numbered_all.extend(f"{spec.id}: {n}" for n in counter.numbered)
        examples += [f"{spec.id}: {n}" for n in (bad[:3] + lost[:2] + counter.numbered[:2])]
    print("| **all** | " + " | ".join(f"**{v}**" for v in totals) + " |")
    print()
    print("Examples:", ", ".join(f"`{e}`" for e in examples))
    if "-v" in sys.argv:
        print(*numbered_all, sep="\n")


if __name__ == "__main__":
    main()
