"""How close ``jobgen jobs init`` comes to the hand-written job declarations.

    .venv/bin/python -m tests.draft_measure

prints the tables of docs/job-extension.md ("Drafting a side file"): the example specs
of specs/ (their ``x-jobgen`` left out before drafting, as ``jobs init`` does), the
published specs with a side file in specs/vendor/ (skipped when the published specs are
missing) and the held-out specs of tests/real/heldout/ (vendors' own specs, their side
files written from the vendors' documentation before drafting). The draft and the
hand-written declaration are compared as YAML data.

A drafted job is **right** when its create and status operations are those of a
hand-written job; **wrong** when it shares one of them with a hand-written job but not
the other; a hand-written job nothing matches is **missed**; a drafted job sharing neither
is **extra** (a job the hand-written file does not declare: often a real job, still counted
against precision). States are compared for the right jobs: a state in the same class
(success, failure, canceled, pending) is right, in another class or drafted but not
hand-written wrong, hand-written but not drafted missed; every state of a missed or
wrong job is missed. Precision is right / drafted, recall right / hand-written. A job a
dialect of the spec imports (``x-ms-long-running-operation``...) counts as drafted: ``jobs
init`` leaves it to the import, saying so.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import yaml

from jobgen.draft.command import draft_spec, without_jobs
from jobgen.model.build import build_sdk
from jobgen.spec.loader import load_spec
from tests.helpers import REAL_SPECS, ROOT, SPECS

VENDOR = ROOT / "specs" / "vendor"
HELDOUT = ROOT / "tests" / "real" / "heldout"
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


# Vendors' own published specs, none of them tuned on: side files written from each
# vendor's documentation before drafting (tests/real/heldout/README.md).
HELDOUT_CASES = tuple(
    Case(label, HELDOUT / spec, HELDOUT / f"{Path(spec).stem}.jobs.yaml")
    for label, spec in (
        ("twilio bulk exports", "twilio_bulkexports_v1.yaml"),
        ("twilio intelligence", "twilio_intelligence_v2.yaml"),
        ("together", "together.yaml"),
        ("mistral", "mistral.yaml"),
        ("cohere", "cohere.yaml"),
        ("elevenlabs", "elevenlabs.yaml"),
        ("box", "box.yaml"),
        ("netlify", "netlify.yml"),
        ("vonage reports", "vonage_reports.yml"),
        ("deepl", "deepl.yaml"),
    )
)
# The keys compared job by job, beside the jobs and their states: the operations and
# the flags of a declaration.
OPERATIONS = ("create", "status", "result", "cancel")
FLAGS = ("result_once", "final_from", "carry")


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


def _pairs(
    hand_jobs: dict[str, dict[str, Any]], draft_jobs: dict[str, dict[str, Any]]
) -> tuple[list[tuple[dict[str, Any], str]], list[tuple[dict[str, Any], str]], list[str]]:
    """``(right, wrong, extra)``: each hand-written job paired with the drafted job of
    its create and status (right) or of one of them (wrong); drafted jobs left over."""
    used: set[str] = set()
    right: list[tuple[dict[str, Any], str]] = []
    wrong: list[tuple[dict[str, Any], str]] = []
    for h in hand_jobs.values():
        pair = (h.get("create"), h.get("status"))
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
            right.append((h, exact))
            continue
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
            wrong.append((h, near))
    return right, wrong, sorted(set(draft_jobs) - used)


def compare(label: str, hand: dict[str, Any], drafted: dict[str, Any], guesses: int) -> Row:
    """One row: the hand-written jobs against the drafted ones (both as YAML data)."""
    hand_jobs, draft_jobs = _jobs(hand), _jobs(drafted)
    right, wrong, extra = _pairs(hand_jobs, draft_jobs)
    s_right = s_wrong = s_missed = s_drafted = 0
    s_declared = sum(len(_classes(h)) for h in hand_jobs.values())
    for h, name in right:
        h_states, d_states = _classes(h), _classes(draft_jobs[name])
        s_drafted += len(d_states)
        for state, kind in h_states.items():
            if state not in d_states:
                s_missed += 1
            elif d_states[state] == kind:
                s_right += 1
            else:
                s_wrong += 1
        s_wrong += len(set(d_states) - set(h_states))
    s_missed += s_declared - sum(len(_classes(h)) for h, _ in right)
    return Row(
        label=label,
        declared=len(hand_jobs),
        drafted=len(draft_jobs),
        right=len(right),
        wrong=len(wrong),
        missed=len(hand_jobs) - len(right) - len(wrong),
        extra=tuple(extra),
        states_declared=s_declared,
        states_drafted=s_drafted,
        states_right=s_right,
        states_wrong=s_wrong,
        states_missed=s_missed,
        guesses=guesses,
    )


@attrs.frozen
class Count:
    """One key over many jobs: how often the hand-written files and the drafts set it,
    and how often the draft set it as the hand-written file does."""

    declared: int = 0
    drafted: int = 0
    right: int = 0

    def __add__(self, other: Count) -> Count:
        return Count(
            self.declared + other.declared,
            self.drafted + other.drafted,
            self.right + other.right,
        )


def _carry(job: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    carry = job.get("carry") or {}
    return {
        str(name): (entry.get("from"), entry.get("to"), entry.get("failure_from"))
        for name, entry in carry.items()
        if isinstance(entry, dict)
    }


def key_counts(hand: dict[str, Any], drafted: dict[str, Any]) -> dict[str, Count]:
    """Per key, over jobs paired as in ``compare`` (a drafted job paired with none and a
    hand-written job nothing drafted count on their side alone): jobs, states, each
    operation, ``result_once`` (set true), ``final_from`` (set, same value) and each
    ``carry`` entry (same name, ``from``, ``to`` and ``failure_from``)."""
    hand_jobs, draft_jobs = _jobs(hand), _jobs(drafted)
    right, wrong, extra = _pairs(hand_jobs, draft_jobs)
    paired = {id(h) for h, _ in right + wrong}
    pairs: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = [
        (h, draft_jobs[n]) for h, n in right + wrong
    ]
    pairs += [(h, None) for h in hand_jobs.values() if id(h) not in paired]
    pairs += [(None, draft_jobs[n]) for n in extra]
    counts = {"jobs": Count(len(hand_jobs), len(draft_jobs), len(right))}
    states = Count()
    for h, name in right:
        h_states, d_states = _classes(h), _classes(draft_jobs[name])
        same = sum(1 for s, kind in h_states.items() if d_states.get(s) == kind)
        states += Count(len(h_states), len(d_states), same)
    matched = {id(h) for h, _ in right}
    for h in hand_jobs.values():
        if id(h) not in matched:
            states += Count(len(_classes(h)), 0, 0)
    counts["states"] = states
    for key in OPERATIONS + FLAGS:
        count = Count()
        for h, d in pairs:
            if key == "carry":
                hc, dc = _carry(h or {}), _carry(d or {})
                same = sum(1 for n, v in hc.items() if dc.get(n) == v)
                count += Count(len(hc), len(dc), same)
                continue
            hv = (h or {}).get(key) or None
            dv = (d or {}).get(key) or None
            count += Count(hv is not None, dv is not None, hv is not None and hv == dv)
        counts[key] = count
    return counts


def with_imported(spec: Path, drafted: dict[str, Any]) -> dict[str, Any]:
    """The draft with the jobs a dialect of the spec imports (``jobs init`` leaves them
    to the import, naming them): each counts as drafted, as jobgen declares it."""
    jobs = dict(_jobs(drafted))
    for job in build_sdk(without_jobs(load_spec(spec))).jobs:
        jobs[f"imported {job.name}"] = {
            "create": job.create.operation_id if job.create is not None else None,
            "status": job.status.operation_id,
            "result": job.result.operation_id if job.result is not None else None,
            "cancel": job.cancel.operation_id if job.cancel is not None else None,
            "final_from": job.final_from,
            "state": {kind: list(getattr(job, kind)) for kind in CLASSES},
        }
    return {"jobs": jobs}


def measure(case: Case) -> Row:
    rendered = draft_spec(case.spec).rendered
    drafted = with_imported(case.spec, yaml.safe_load(rendered.text))
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


def _drafted(case: Case) -> tuple[dict[str, Any], dict[str, Any], int]:
    rendered = draft_spec(case.spec).rendered
    assert case.side is not None
    hand = yaml.safe_load(case.side.read_text(encoding="utf-8"))
    return hand, with_imported(case.spec, yaml.safe_load(rendered.text)), rendered.guesses


def heldout_table() -> str:
    """The jobs and states per spec, then every key's precision and recall over all."""
    rows = []
    totals: dict[str, Count] = {}
    for case in HELDOUT_CASES:
        hand, drafted, guesses = _drafted(case)
        rows.append(compare(case.label, hand, drafted, guesses))
        for key, count in key_counts(hand, drafted).items():
            totals[key] = totals.get(key, Count()) + count
    lines = [
        "| key | declared | drafted | right | precision | recall |",
        "|---|---|---|---|---|---|",
    ]
    totals["operations"] = sum((totals[key] for key in OPERATIONS), Count())
    order = ["jobs", "states", *OPERATIONS, "operations", *FLAGS]
    for key, c in ((key, totals[key]) for key in order):
        label = key if key in ("jobs", "states", "operations") else f"`{key}`"
        label = "all four operations" if key == "operations" else label
        lines.append(
            f"| {label} | {c.declared} | {c.drafted} | {c.right} "
            f"| {_ratio(c.right, c.drafted)} | {_ratio(c.right, c.declared)} |"
        )
    return table(rows) + "\n" + "\n".join(lines) + "\n"


def main() -> int:
    print("Example specs (specs/*.yaml, x-jobgen left out):\n")
    print(examples_table())
    if REAL_SPECS.is_dir():
        print("Published specs (side files in specs/vendor/):\n")
        print(published_table())
    else:
        print(f"Published specs skipped: {REAL_SPECS} is missing.")
    print("Held-out specs (tests/real/heldout/):\n")
    print(heldout_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
