"""How close ``jobgen jobs init`` comes to the hand-written job declarations.

    .venv/bin/python -m tests.draft_measure

prints the two tables of docs/job-extension.md ("Drafting a side file"): the example
specs of specs/ (their ``x-jobgen`` left out before drafting, as ``jobs init`` does) and
the published specs with a side file in specs/vendor/ (skipped when the published specs
are missing). The draft and the hand-written declaration are compared as YAML data.

A drafted job is **right** when its create and status operations are those of a
hand-written job; **wrong** when it shares one of them with a hand-written job but not
the other; a hand-written job nothing matches is **missed**; a drafted job sharing neither
is **extra** (a job the hand-written file does not declare: often a real job, still counted
against precision). States are compared for the right jobs: a state in the same class
(success, failure, canceled, pending) is right, in another class or drafted but not
hand-written wrong, hand-written but not drafted missed; every state of a missed or
wrong job is missed. Precision is right / drafted, recall right / hand-written.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import yaml

from jobgen.draft.command import draft_spec
from tests.helpers import REAL_SPECS, ROOT, SPECS

VENDOR = ROOT / "specs" / "vendor"
CLASSES = ("success", "failure", "canceled", "pending")
COMMAND = ".venv/bin/python -m tests.draft_measure"


@attrs.frozen
class Case:
    label: str
    spec: Path
    side: Path | None
    """The hand-written side file; None: the spec's own ``x-jobgen``."""


EXAMPLES = tuple(
    Case(f"specs/{name}.yaml", SPECS / f"{name}.yaml", None)
    for name in (
        "sume",
        "async_request_reply",
        "azure_operations",
        "deepl_documents",
        "salesforce_bulk",
        "stripe_report_runs",
    )
)
PUBLISHED = (
    Case("openai", REAL_SPECS / "openai-openapi.yaml", VENDOR / "openai.jobs.yaml"),
    Case("stripe", REAL_SPECS / "stripe-spec3-2022-03-23.yaml", VENDOR / "stripe.jobs.yaml"),
    Case("assemblyai", REAL_SPECS / "assemblyai-openapi.yml", VENDOR / "assemblyai.jobs.yaml"),
    Case(
        "digitalocean",
        REAL_SPECS / "digitalocean" / "DigitalOcean-public.v2.yaml",
        VENDOR / "digitalocean.jobs.yaml",
    ),
    Case(
        "azure-keyvault",
        REAL_SPECS / "azure-keyvault-7.4" / "backuprestore.json",
        VENDOR / "azure-keyvault.jobs.yaml",
    ),
)


@attrs.frozen
class Row:
    label: str
    declared: int
    drafted: int
    right: int
    wrong: int
    missed: int
    extra: tuple[str, ...]
    states_declared: int
    states_drafted: int
    states_right: int
    states_wrong: int
    states_missed: int
    guesses: int


def _jobs(data: Any) -> dict[str, dict[str, Any]]:
    jobs = data.get("jobs") if isinstance(data, dict) else None
    return jobs if isinstance(jobs, dict) else {}


def _classes(job: dict[str, Any]) -> dict[str, str]:
    state = job.get("state") or {}
    return {str(s): kind for kind in CLASSES for s in state.get(kind) or ()}


def compare(label: str, hand: dict[str, Any], drafted: dict[str, Any], guesses: int) -> Row:
    """One row: the hand-written jobs against the drafted ones (both as YAML data)."""
    hand_jobs, draft_jobs = _jobs(hand), _jobs(drafted)
    used: set[str] = set()
    right = wrong = missed = 0
    s_right = s_wrong = s_missed = s_drafted = 0
    for h in hand_jobs.values():
        pair = (h.get("create"), h.get("status"))
        h_states = _classes(h)
        exact = next(
            (
                n
                for n, d in draft_jobs.items()
                if n not in used and (d.get("create"), d.get("status")) == pair
            ),
            None,
        )
        if exact is not None:
            used.add(exact)
            right += 1
            d_states = _classes(draft_jobs[exact])
            s_drafted += len(d_states)
            for state, kind in h_states.items():
                if state not in d_states:
                    s_missed += 1
                elif d_states[state] == kind:
                    s_right += 1
                else:
                    s_wrong += 1
            s_wrong += len(set(d_states) - set(h_states))
            continue
        s_missed += len(h_states)
        near = next(
            (
                n
                for n, d in draft_jobs.items()
                if n not in used and (d.get("create") == pair[0] or d.get("status") == pair[1])
            ),
            None,
        )
        if near is not None:
            used.add(near)
            wrong += 1
        else:
            missed += 1
    return Row(
        label=label,
        declared=len(hand_jobs),
        drafted=len(draft_jobs),
        right=right,
        wrong=wrong,
        missed=missed,
        extra=tuple(sorted(set(draft_jobs) - used)),
        states_declared=sum(len(_classes(h)) for h in hand_jobs.values()),
        states_drafted=s_drafted,
        states_right=s_right,
        states_wrong=s_wrong,
        states_missed=s_missed,
        guesses=guesses,
    )


def measure(case: Case) -> Row:
    rendered = draft_spec(case.spec).rendered
    drafted = yaml.safe_load(rendered.text)
    source = case.side if case.side is not None else case.spec
    hand = yaml.safe_load(source.read_text(encoding="utf-8"))
    if case.side is None:
        hand = hand.get("x-jobgen")
    return compare(case.label, hand, drafted, rendered.guesses)


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f}" if whole else "-"


def table(rows: Iterable[Row]) -> str:
    rows = list(rows)
    lines = [
        (
            "| spec | jobs declared | drafted | right | wrong | missed | extra "
            "| states declared | right | wrong | missed | guesses to check |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.label} | {r.declared} | {r.drafted} | {r.right} | {r.wrong} | {r.missed} "
            f"| {len(r.extra)} | {r.states_declared} | {r.states_right} | {r.states_wrong} "
            f"| {r.states_missed} | {r.guesses} |"
        )
    total = Row(
        "total",
        *(
            sum(getattr(r, f) for r in rows)
            for f in ("declared", "drafted", "right", "wrong", "missed")
        ),
        tuple(e for r in rows for e in r.extra),
        *(
            sum(getattr(r, f) for r in rows)
            for f in (
                "states_declared",
                "states_drafted",
                "states_right",
                "states_wrong",
                "states_missed",
                "guesses",
            )
        ),
    )
    t = total
    lines.append(
        f"| **total** | {t.declared} | {t.drafted} | {t.right} | {t.wrong} | {t.missed} "
        f"| {len(t.extra)} | {t.states_declared} | {t.states_right} | {t.states_wrong} "
        f"| {t.states_missed} | {t.guesses} |"
    )
    lines.append("")
    lines.append(
        f"Jobs: precision {_ratio(t.right, t.drafted)}, recall {_ratio(t.right, t.declared)}. "
        f"States of the right jobs: precision {_ratio(t.states_right, t.states_right + t.states_wrong)}, "
        f"recall {_ratio(t.states_right, t.states_declared)}."
    )
    extras = [f"{r.label}: {', '.join(r.extra)}" for r in rows if r.extra]
    if extras:
        lines.append("")
        lines.append(
            "Extra jobs drafted (not in the hand-written file): " + "; ".join(extras) + "."
        )
    return "\n".join(lines) + "\n"


def examples_table() -> str:
    return table(measure(case) for case in EXAMPLES)


def published_table() -> str:
    return table(measure(case) for case in PUBLISHED)


def main() -> int:
    print("Example specs (specs/*.yaml, x-jobgen left out):\n")
    print(examples_table())
    if REAL_SPECS.is_dir():
        print("Published specs (side files in specs/vendor/):\n")
        print(published_table())
    else:
        print(f"Published specs skipped: {REAL_SPECS} is missing.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
