"""Waits on a Celery fleet with a real Redis broker: `sume_sdk.fleet.CeleryWaits` steps
through `poll()` in worker processes against the simulated API over HTTP."""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest

from tests.fleet.conftest import Fleet


def _by_label(reports: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    counts = collections.Counter(report["label"] for report in reports)
    assert [label for label, n in counts.items() if n > 1] == []  # each reported once
    return {report["label"]: report for report in reports}


def test_every_terminal_outcome_reaches_the_callback_once(fleet: Fleet) -> None:
    fleet.start("a", "b")
    unavailable = [{"at_poll": 2, "status": 503, "count": 5}]  # more than one step retries
    jobs = {
        "success": fleet.job(states=[{"state": "processing", "polls": 3}]),
        "failure": fleet.job(final="failure"),
        "canceled": fleet.job(final="canceled"),
        "timeout": fleet.job(final="never"),
        "error": fleet.job(undocumented_state="exploded"),
        "unavailable": fleet.job(
            states=[{"state": "processing", "polls": 1}], status_errors=unavailable
        ),
    }
    handles = {
        label: fleet.follow(job_id, label, deadline=3.0 if label == "timeout" else 30.0)
        for label, job_id in jobs.items()
    }

    reports = _by_label(fleet.reports(len(jobs)))

    assert set(reports) == set(jobs)
    for label, report in reports.items():
        assert report["job_id"] == jobs[label] and report["job"] == "job"
        assert report["outcome"] == ("success" if label == "unavailable" else label)
    success = reports["success"]
    assert success["state"] == "completed" and success["error"] is None
    assert success["record"]["id"] == jobs["success"]
    assert len(fleet.reads(jobs["success"])) == 4  # three times processing, then completed
    assert reports["failure"]["state"] == "failed"
    assert reports["failure"]["record"]["error"]["message"]
    assert reports["canceled"]["state"] == "canceled"
    assert reports["error"]["state"] == "exploded" and "exploded" in reports["error"]["error"]
    assert reports["error"]["record"]["id"] == jobs["error"]
    timeout = reports["timeout"]
    assert "deadline" in timeout["error"]
    # The report carries the last state read; on a loaded machine the worker may first
    # run after the deadline and read nothing, and then it says so.
    if timeout["state"] is None:
        assert timeout["record"] is None
    else:
        assert timeout["state"] == "queued" and timeout["record"]["status"] == "queued"
    followed = json.loads(handles["timeout"].resume_token)
    # the deadline set when it was followed, kept on Redis's clock: this machine's, up
    # to the round trip that measured the two apart
    reported = json.loads(timeout["resume_token"])["deadline_at"]
    assert reported == pytest.approx(followed["deadline_at"], abs=0.05)
    assert all(read.headers["x-fleet-worker"] in {"a", "b"} for read in fleet.reads())
    # three 503s exhaust one step's status retries: the next step, later, reads on
    assert [read.status for read in fleet.reads(jobs["unavailable"])] == [200] + [503] * 5 + [200]


def test_a_worker_killed_mid_wait_loses_nothing_and_reports_each_job_once(
    fleet: Fleet,
) -> None:
    fleet.start("a", "b")
    polls = 10
    jobs = {
        f"job-{n}": fleet.job(states=[{"state": "processing", "polls": polls}]) for n in range(16)
    }
    jobs["late"] = fleet.job(final="never")
    handles = {
        label: fleet.follow(job_id, label, deadline=5.0 if label == "late" else 60.0)
        for label, job_id in jobs.items()
    }

    def read_by(worker: str) -> set[str]:
        return {r.job_id for r in fleet.reads() if r.headers["x-fleet-worker"] == worker}

    fleet.until(lambda: len(read_by("a")) >= 5, "worker a to take jobs")
    fleet.kill("a")
    taken = read_by("a")
    reports = _by_label(fleet.reports(len(jobs)))

    assert set(reports) == set(jobs)
    redone = carried = lost_in_flight = 0
    for label, job_id in jobs.items():
        report = reports[label]
        assert report["job_id"] == job_id
        if label == "late":
            continue
        assert report["outcome"] == "success" and report["state"] == "completed"
        reads = [read.headers["x-fleet-worker"] for read in fleet.reads(job_id)]
        assert len(reads) >= polls + 1 and reads[-1] == "b"
        # the poll count in the token: every step that completed, on a or on b
        attempt = json.loads(report["resume_token"])["attempt"]
        redone += len(reads) - attempt
        if job_id in taken:
            carried += attempt - reads.count("b")
            lost_in_flight += reads.count("a")
    # a step a was running when it died is read again by b, from the same token (a has
    # two threads: at most two); every step a completed counts in the token b went on with
    assert 0 <= redone <= 2
    assert lost_in_flight - 2 <= carried <= lost_in_flight and carried > 0
    late = reports["late"]
    assert late["outcome"] == "timeout"  # the deadline set when it was followed, whoever polled
    followed = json.loads(handles["late"].resume_token)
    reported = json.loads(late["resume_token"])["deadline_at"]
    assert reported == pytest.approx(followed["deadline_at"], abs=0.05)


def test_a_step_the_broker_lost_is_sent_again_by_the_sweepers(fleet: Fleet) -> None:
    job_id = fleet.job(states=[{"state": "processing", "polls": 2}])
    fleet.follow(job_id, "lost")
    assert fleet.app.redis.delete("celery") == 1  # the broker loses the first step

    fleet.start("a", grace=1)
    (report,) = fleet.reports(1)

    assert report["label"] == "lost" and report["outcome"] == "success"
    assert len(fleet.reads(job_id)) == 3


def test_the_status_read_cap_holds_for_the_whole_fleet(fleet: Fleet) -> None:
    rate = 20.0
    # no worker is killed here: the broker may keep steps waiting for their turn
    fleet.start("a", "b", "c", rate=rate, concurrency=4, visibility=60, grace=60)
    jobs = {f"job-{n}": fleet.job(states=[{"state": "processing", "polls": 3}]) for n in range(16)}
    for label, job_id in jobs.items():
        fleet.follow(job_id, label)

    reports = _by_label(fleet.reports(len(jobs)))

    assert {report["outcome"] for report in reports.values()} == {"success"}
    reads = fleet.reads()
    assert len(reads) == 4 * len(jobs)
    assert {read.headers["x-fleet-worker"] for read in reads} == {"a", "b", "c"}
    # Slots are taken on Redis's clock, requests arrive later by a varying transit time
    # (up to `slack` seconds here): reads in any window of w seconds at the server
    # are at most one (the burst) plus rate * (w + slack). Without the cap, twelve
    # threads on a 0.1 s schedule read several times faster than that.
    slack = 1.0
    times = sorted(read.time for read in reads)
    for i in range(len(times)):
        for j in range(i + 1, len(times)):
            assert j - i + 1 <= 1 + rate * (times[j] - times[i] + slack), (i, j)
