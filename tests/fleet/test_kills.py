"""Workers SIGKILLed at each named point of a step and of a report (`POINTS`, and inside
the callback's effect): every job is still reported, every report is delivered and
acknowledged, its effect happens once, and no status is read after a wait finished.

The workers of `tests.fleet.app` kill themselves at the point FLEET_KILL_AT names (the
first time any of them reaches it); the server's request log is counted against the
moment each wait finished (its "finished" point) and its first delivery."""

from __future__ import annotations

import collections
from typing import Any

import pytest

from tests.fleet.conftest import Fleet

POINTS = [
    "claimed",
    "read",
    "next booked",
    "step sent",
    "finished",
    "report sent",
    "acknowledged",
    "callback",
]
KILLS = [("threads", "self", point) for point in POINTS] + [
    ("prefork", "self", "read"),
    ("prefork", "self", "finished"),
    ("prefork", "self", "report sent"),
    ("prefork", "self", "callback"),
    ("prefork", "main", "read"),
    ("prefork", "main", "finished"),
    ("prefork", "main", "callback"),
]


def check(fleet: Fleet, jobs: dict[str, str]) -> dict[str, Any]:
    """Every job reported once, each report delivered under one id, none read after."""
    reports = fleet.reports(len(jobs))
    effects = collections.Counter(report["label"] for report in reports)
    assert effects == collections.Counter(set(jobs))  # each effect once, every job
    by_label = {report["label"]: report for report in reports}
    deliveries = fleet.deliveries()
    finished = fleet.reached("finished")
    first: dict[str, float] = {}
    for delivery in deliveries:
        first.setdefault(delivery["report_id"], delivery["at"])
    reads_after = {}
    for label, job_id in jobs.items():
        report = by_label[label]
        assert report["job_id"] == job_id
        ids = {d["report_id"] for d in deliveries if d["label"] == label}
        assert ids == {report["report_id"]}  # every delivery of a job: one report id
        done = min(finished.get(report["wait_id"], first[report["report_id"]]),
                   first[report["report_id"]])  # fmt: skip
        reads_after[label] = sum(1 for read in fleet.reads(job_id) if read.time > done)
    assert reads_after == dict.fromkeys(jobs, 0)
    return {"deliveries": deliveries, "reports": by_label}


#: One kill per pool and side of the report the fast suite runs; the exhaustive run takes
#: every point (each kill is a few seconds of real time: workers, a broker and a grace period).
REPRESENTATIVE = {
    ("threads", "self", "read"),
    ("threads", "self", "report sent"),
    ("prefork", "self", "finished"),
    ("prefork", "main", "callback"),
}


@pytest.mark.parametrize(
    ("pool", "whom", "point"),
    [
        pytest.param(*kill, marks=[] if kill in REPRESENTATIVE else [pytest.mark.exhaustive])
        for kill in KILLS
    ],
    ids=lambda v: str(v).replace(" ", "-"),
)
def test_a_worker_killed_at_a_point_loses_no_report_and_repeats_no_effect(
    fleet: Fleet, pool: str, whom: str, point: str
) -> None:
    # Worker a alone takes the work until it reaches the point (another worker could
    # take every callback first, and a would never get there); b starts after the kill.
    fleet.start("a", pool=pool, kill_at=point, kill_whom=whom, grace=2)
    jobs = {f"job-{n}": fleet.job(states=[{"state": "processing", "polls": 2}]) for n in range(5)}
    jobs["failure"] = fleet.job(final="failure")
    for label, job_id in jobs.items():
        fleet.follow(job_id, label)

    fleet.until(lambda: fleet.app.redis.get(fleet.app.KILLED) == point.encode(), "the kill")
    fleet.start("b", pool=pool, grace=2)
    if pool == "threads" or whom == "main":
        fleet.until(lambda: fleet.died("a"), "worker a to die")
        fleet.start("c", pool=pool, grace=2)  # its replacement
    found = check(fleet, jobs)

    outcomes = {label: r["outcome"] for label, r in found["reports"].items()}
    assert outcomes == {label: "failure" if label == "failure" else "success" for label in jobs}
    if point in ("report sent", "callback"):
        # the callback ran (or was sent) before the kill: delivered again, same id
        assert len(found["deliveries"]) >= len(jobs)
