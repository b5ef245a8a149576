"""The fleet's schedule is Redis's: steps are sent when due on Redis's clock, whatever a
worker's clock says; a step sent early is refused; sweeps never send one message twice;
a killed worker's waits go on within seconds; `lost()` names waits Redis knows nothing of.

Read times come from the simulated API's request log (this machine's monotonic clock);
each job's body hint is the shortest gap allowed between two of its reads."""

from __future__ import annotations

import collections
import itertools
import json
import threading
import time
from typing import Any

import pytest

from tests.fleet.conftest import HELD, Fleet

HINT = 1.0
#: Slack for a read after its hint: a sweep (0.2 s), the queue, the claim, the request,
#: on a loaded machine. A clock 25 s off would add 25 s.
SLACK = 2.0
#: Redis's clock and the server's monotonic clock may drift apart by a few ms at most.
TICK = 0.01


def _gaps(fleet: Fleet, job_id: str) -> list[float]:
    times = [read.time for read in fleet.reads(job_id)]
    return [later - earlier for earlier, later in itertools.pairwise(times)]


@pytest.mark.parametrize(
    "skew",
    [
        pytest.param(25.0, id="ahead"),
        pytest.param(-25.0, id="behind", marks=pytest.mark.exhaustive),
    ],
)
def test_a_worker_whose_clock_is_25_s_off_reads_no_sooner_than_a_hint_and_adds_no_lag(
    fleet: Fleet, skew: float
) -> None:
    fleet.start("a", visibility=60)
    fleet.start("b", visibility=60, skew=skew)
    processing = [{"state": "processing", "polls": 4}]
    jobs = {f"job-{n}": fleet.job(states=processing, hint=HINT) for n in range(6)}
    jobs["late"] = fleet.job(final="never", hint=HINT)
    followed = time.monotonic()
    for label, job_id in jobs.items():
        fleet.follow(job_id, label, deadline=4.0 if label == "late" else 60.0)

    reports = {r["label"]: r for r in fleet.reports(len(jobs))}

    assert {label: r["outcome"] for label, r in reports.items()} == {
        label: "timeout" if label == "late" else "success" for label in jobs
    }
    workers = collections.Counter(r.headers["x-fleet-worker"] for r in fleet.reads())
    assert workers["a"] and workers["b"]  # the skewed worker did its share
    for label, job_id in jobs.items():
        gaps = _gaps(fleet, job_id)
        seen = [(r.time, r.headers["x-fleet-worker"]) for r in fleet.reads(job_id)]
        assert min(gaps) >= HINT - TICK, (label, seen)  # none sooner than the hint
        assert max(gaps) <= HINT + SLACK, (label, gaps)  # and none 25 s late
    # The deadline is kept on Redis's clock too: the late job is read until it, neither
    # cut short by 25 s (no read at all) nor read 25 s past it (a last read may be in
    # flight as the deadline passes).
    late = [read.time - followed for read in fleet.reads(jobs["late"])]
    assert len(late) >= 3 and late[-1] <= 4.0 + 1.0, late


def test_a_copy_of_a_step_sent_before_it_is_due_reads_nothing(fleet: Fleet) -> None:
    hint = 3.0
    job_id = fleet.job(states=[{"state": "processing", "polls": 1}], hint=hint)
    wait = fleet.app.waits.follow(
        fleet.client.jobs.handle(job_id, deadline=30.0), on_done=fleet.app.record.s("early")
    )
    fleet.start("a")
    fleet.until(lambda: len(fleet.reads(job_id)) == 1, "the first read")
    booked = fleet.app.redis.hget(f"{fleet.app.waits.name}:wait:{wait}", "next")
    fleet.until(lambda: booked is not None or fleet.settled(), "the next step")
    # the booked next step, sent at once (as a sweep racing a late copy once did)
    fleet.app.waits.task.apply_async((json.loads(booked),))
    fleet.app.waits.task.apply_async((json.loads(booked),))

    (report,) = fleet.reports(1)

    assert report["outcome"] == "success"
    gaps = _gaps(fleet, job_id)
    assert len(gaps) == 1 and gaps[0] >= hint - TICK, gaps


def test_sweeps_running_at_once_send_each_due_step_once(fleet: Fleet) -> None:
    waits, redis = fleet.app.waits, fleet.app.redis
    for n in range(40):
        job_id = fleet.job(states=[])
        waits.follow(fleet.client.jobs.handle(job_id, deadline=60.0), on_done=None)
    assert redis.delete("celery") == 1  # the broker loses every first step
    due = f"{waits.name}:due"
    clock = redis.time  # the schedule is on Redis's clock
    fleet.until(
        lambda: len(redis.zrangebyscore(due, "-inf", clock()[0])) == 40, "the steps to be overdue"
    )
    sent: list[int] = []
    start = threading.Barrier(8)

    def sweep() -> None:
        start.wait()
        sent.append(waits.sweep())

    threads = [threading.Thread(target=sweep) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sum(sent) == 40 and redis.llen("celery") == 40
    assert waits.sweep() == 0  # each put off: nothing is due again yet


def test_the_waits_a_killed_worker_held_go_on_within_seconds(fleet: Fleet) -> None:
    # The broker would hand the dead worker's messages on only after 60 s: the waits go
    # on by their leases (2 s here) and the re-sends of steps no worker took (1 s).
    fleet.start("a", "b", visibility=60, concurrency=4)
    processing = [{"state": "processing", "polls": 6}]
    jobs = {f"job-{n}": fleet.job(states=processing, hint=HINT) for n in range(24)}
    for label, job_id in jobs.items():
        fleet.follow(job_id, label)

    fleet.until(lambda: len({r.job_id for r in fleet.reads()}) == len(jobs), "every job read")
    time.sleep(1.5)
    fleet.kill("a")
    killed = time.monotonic()
    fleet.reports(len(jobs))

    held = 0
    for job_id in jobs.values():
        reads = fleet.reads(job_id)
        before = [r for r in reads if r.time < killed]
        after = [r.time for r in reads if r.time >= killed]
        gaps = _gaps(fleet, job_id)
        assert min(gaps) >= HINT - TICK, gaps
        if before and before[-1].headers["x-fleet-worker"] == "a" and after:
            held += 1
            due = max(killed, before[-1].time + HINT)
            # a lease (2 s) or a re-send (1 s), a sweep (0.2 s), the queue: seconds,
            # not the 60 s
            assert after[0] - due <= 5.0, (job_id, after[0] - due)
    assert held > 0


def test_lost_names_the_waits_redis_knows_nothing_of(fleet: Fleet) -> None:
    waits, redis = fleet.app.waits, fleet.app.redis
    fleet.start("a", resend=60)  # its callbacks wait in HELD: no worker takes them
    reported = fleet.job(final="failure")
    reported_wait = waits.follow(
        fleet.client.jobs.handle(reported, deadline=60.0),
        on_done=fleet.app.record.s("reported").set(queue=HELD),
    )
    fleet.until(lambda: redis.llen(HELD) == 1, "its report to be sent")
    running = {
        label: fleet.job(states=[{"state": "processing", "polls": 3}], hint=HINT)
        for label in ("kept", "unscheduled", "gone")
    }
    ids = {
        label: waits.follow(
            fleet.client.jobs.handle(job_id, deadline=60.0), on_done=fleet.app.record.s(label)
        )
        for label, job_id in running.items()
    }
    fleet.until(lambda: all(fleet.reads(job_id) for job_id in running.values()), "reads")
    # a partial loss: one wait lost its schedule entry, another everything
    redis.zrem(f"{waits.name}:due", ids["unscheduled"])
    redis.delete(f"{waits.name}:wait:{ids['gone']}", f"{waits.name}:wait:{ids['gone']}:lease")
    redis.zrem(f"{waits.name}:due", ids["gone"])
    never = "0" * 32  # an id no follow() returned

    lost = waits.lost([reported_wait, ids["kept"], ids["unscheduled"], ids["gone"], never])

    assert lost == [ids["gone"], never]
    # the wait without its schedule entry was scheduled again: it is reported; the
    # lost one is followed again from its job, as an app does
    waits.follow(
        fleet.client.jobs.handle(running["gone"], deadline=60.0),
        on_done=fleet.app.record.s("refollowed"),
    )
    labels = sorted(r["label"] for r in applied(fleet, 3))
    assert labels == ["kept", "refollowed", "unscheduled"]


def applied(fleet: Fleet, count: int) -> list[dict[str, Any]]:
    """The reports the callback applied, once `count` came (the HELD one stays held)."""
    redis = fleet.app.redis
    fleet.until(lambda: redis.llen(fleet.app.REPORTS) >= count, "reports")
    return [json.loads(item) for item in redis.lrange(fleet.app.REPORTS, 0, -1)]
