"""The report's way to the callback: sent again until the callback returns, one report id
in every delivery, `CeleryWaits.once` running an effect once per id; a finished wait is
gone for good; the sweep can run from beat instead of the workers."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

from tests.fleet.conftest import HELD, Fleet


def test_a_report_the_broker_lost_is_sent_again_until_the_callback_returns(fleet: Fleet) -> None:
    job_id = fleet.job(final="failure")
    fleet.start("a", grace=1)  # no worker takes the HELD queue yet
    fleet.follow(job_id, "lost", queue=HELD)
    fleet.until(lambda: fleet.app.redis.llen(HELD) >= 1, "the report to be sent")
    (sent,) = fleet.held()[:1]
    reads = len(fleet.reads(job_id))
    assert fleet.app.redis.delete(HELD) == 1  # the broker loses the report

    fleet.start("b", grace=1, queues=f"celery,{HELD}")
    (report,) = fleet.reports(1)

    assert report["label"] == "lost" and report["outcome"] == "failure"
    assert report["report_id"] == sent["report_id"] == report["wait_id"]
    deliveries = fleet.deliveries()
    assert deliveries and {d["report_id"] for d in deliveries} == {sent["report_id"]}
    assert len(fleet.reads(job_id)) == reads  # none after the report


def test_a_callback_that_returns_acknowledges_its_report_and_one_that_raises_gets_it_again(
    fleet: Fleet,
) -> None:
    fleet.start("a", grace=2)
    jobs = {label: fleet.job(states=[]) for label in ("returns", "raises")}
    for label, job_id in jobs.items():
        handle = fleet.client.jobs.handle(job_id, deadline=30.0)
        fleet.app.waits.follow(handle, on_done=fleet.app.plain.s(label))

    def delivered() -> list[str]:
        return [d["label"] for d in fleet.deliveries()]

    fleet.until(lambda: delivered().count("raises") >= 2 and fleet.settled(), "deliveries")
    time.sleep(2.5)  # past a grace: an unacknowledged report would be sent again

    deliveries = fleet.deliveries()
    assert sorted(d["label"] for d in deliveries) == ["raises", "raises", "returns"]
    assert len({d["report_id"] for d in deliveries if d["label"] == "raises"}) == 1
    assert fleet.app.redis.zcard(f"{fleet.app.waits.name}:outbox") == 0


def test_a_copy_of_the_final_step_after_the_report_reads_nothing_and_reports_nothing(
    fleet: Fleet,
) -> None:
    job_id = fleet.job(states=[])  # completed at the first read: that step is the final one
    fleet.follow(job_id, "once")
    (step,) = fleet.app.redis.lrange("celery", 0, -1)
    fleet.start("a", grace=1)
    fleet.reports(1)
    assert len(fleet.reads(job_id)) == 1

    fleet.app.redis.lpush("celery", step)  # the broker redelivers the step, late
    fleet.until(lambda: fleet.settled(), "the copy to run")
    time.sleep(3)  # three graces: a wait the copy re-armed would be swept and read again

    assert len(fleet.reads(job_id)) == 1
    assert [r["label"] for r in fleet.reports(1)] == ["once"]
    assert len(fleet.deliveries()) == 1
    assert fleet.app.redis.zcard(f"{fleet.app.waits.name}:due") == 0


def test_once_runs_an_effect_once_per_report_until_it_is_acknowledged(fleet: Fleet) -> None:
    waits, redis = fleet.app.waits, fleet.app.redis
    fleet.start("a", resend=60)  # its callbacks wait in HELD: no worker takes them
    for label in ("first", "second"):
        fleet.follow(fleet.job(final="failure"), label, queue=HELD)
    fleet.until(lambda: redis.llen(HELD) == 2, "both reports to be sent")
    first, second = sorted(fleet.held(), key=lambda report: report["job_id"])
    effects = "fleet-tests:effects"

    def effect(report: dict[str, Any]) -> Any:
        return lambda pipe: pipe.rpush(effects, report["report_id"])

    assert waits.once(first, effect(first)) is True
    assert waits.once(first, effect(first)) is False  # a second delivery
    assert waits.once(dict(first), effect(first)) is False

    # while one delivery runs the effect, another is refused, and the effect did not
    # happen: the first delivery fails too, and the next one runs it
    def nested(pipe: Any) -> None:
        waits.once(second, effect(second))

    with pytest.raises(fleet.app.ReportBusy):
        waits.once(second, nested)
    assert redis.lrange(effects, 0, -1) == [first["report_id"].encode()]
    assert waits.once(second, effect(second)) is True
    assert sorted(redis.lrange(effects, 0, -1)) == sorted(
        r["report_id"].encode() for r in (first, second)
    )

    # running the effect acknowledged each report: the outbox is empty, nothing is kept
    assert redis.zcard(f"{waits.name}:outbox") == 0
    assert not list(redis.scan_iter(f"{waits.name}:report:*"))
    waits.ack_task(first["report_id"])  # the acknowledgement of the callback's return
    assert waits.once(first, effect(first)) is False
    assert redis.llen(effects) == 2


def test_once_applies_only_the_report_that_happened(
    fleet: Fleet, caplog: pytest.LogCaptureFixture
) -> None:
    """A delivery carrying a genuine pending report id but another job or outcome (forged
    in the broker) raises, is logged and changes nothing; the genuine delivery then runs
    the effect (it was dropped as a duplicate before)."""
    waits, redis = fleet.app.waits, fleet.app.redis
    fleet.start("a")  # its callbacks wait in HELD: no worker takes them
    fleet.follow(fleet.job(final="failure"), "invoice", queue=HELD)
    fleet.until(lambda: redis.llen(HELD) == 1, "the report to be sent")
    (genuine,) = fleet.held()
    invoices = "fleet-tests:invoices"

    def effect(report: dict[str, Any]) -> Any:
        return lambda pipe: pipe.hset(
            invoices, "invoice:7", json.dumps([report["job_id"], report["outcome"]])
        )

    forgeries = [
        dict(genuine, job_id="job_999", outcome="success"),
        dict(genuine, outcome="success"),
        dict(genuine, job_id="job_999"),
        dict(genuine, record={"id": genuine["job_id"], "status": "completed"}),
    ]
    for forged in forgeries:
        with caplog.at_level(logging.WARNING), pytest.raises(fleet.app.ReportMismatch) as caught:
            waits.once(forged, effect(forged))
        assert caught.value.report_id == genuine["report_id"]
        assert f"report {genuine['report_id']}" in caplog.text
    assert caught.value.fields == ["record"]
    assert "job_id, outcome" in caplog.text
    warned = {r.name.partition("._runtime.")[2] for r in caplog.records if r.levelno >= 30}
    assert warned == {"fleet.waits"}
    assert redis.hgetall(invoices) == {}

    assert waits.once(genuine, effect(genuine)) is True
    assert json.loads(redis.hget(invoices, "invoice:7")) == [genuine["job_id"], "failure"]
    assert waits.once(genuine, effect(genuine)) is False  # and once only


def test_with_the_workers_sweepers_off_a_sweep_from_beat_sends_a_lost_step(fleet: Fleet) -> None:
    job_id = fleet.job(states=[])
    handle = fleet.client.jobs.handle(job_id, deadline=30.0)
    wait = fleet.app.waits.follow(handle, on_done=fleet.app.record.s("swept"))
    assert fleet.app.redis.delete("celery") == 1  # the broker loses the first step
    due = f"{fleet.app.waits.name}:due"
    clock = fleet.app.redis.time  # the schedule is on Redis's clock
    fleet.until(lambda: fleet.app.redis.zscore(due, wait) < clock()[0], "the step to be due")
    fleet.start("a", grace=1, sweeper=False)
    time.sleep(2.5)  # five sweeps' worth: no worker sweeps
    assert fleet.reads(job_id) == [] and fleet.app.redis.llen(fleet.app.REPORTS) == 0

    fleet.app.waits.sweep_task.apply_async()  # what a beat schedule sends
    (report,) = fleet.reports(1)

    assert report["label"] == "swept" and len(fleet.reads(job_id)) == 1
    assert json.loads(report["resume_token"])["job_id"] == job_id
