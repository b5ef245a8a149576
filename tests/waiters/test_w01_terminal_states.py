"""W1: every terminal state the spec declares stops the wait, not success alone."""

from __future__ import annotations

import pytest

from tests.waiters.support import AZURE, SALESFORCE, STRIPE, SUME, Flavour, ScriptedAPI, resource

CASES = [
    (SUME, "completed"),
    (SUME, "failed"),
    (SUME, "canceled"),
    (STRIPE, "succeeded"),
    (STRIPE, "failed"),
    (AZURE, "Succeeded"),
    (AZURE, "Failed"),
    (AZURE, "Canceled"),
    (SALESFORCE, "JobComplete"),
    (SALESFORCE, "Failed"),
    (SALESFORCE, "Aborted"),
]


@pytest.mark.parametrize(("flavour", "terminal"), CASES, ids=[f"{f.package}-{s}" for f, s in CASES])
def test_terminal_state_stops_the_wait(twin, flavour: Flavour, terminal: str) -> None:
    job = flavour.make_id(1)
    first, last = flavour.pending[0], flavour.pending[-1]
    # what follows the terminal answer must never be read
    api = ScriptedAPI(flavour).script(job, first, last, terminal, first, first)
    s = twin.connect(api)

    record = s.run(lambda c: resource(c, flavour).wait_for_job(job, deadline=600))

    assert api.kinds == ["status"] * 3
    assert [r.job_id for r in api.requests] == [job] * 3
    assert len(s.time.sleeps) == 2
    assert isinstance(record, getattr(s.models, flavour.record_model))


@pytest.mark.parametrize("terminal", ["completed", "failed", "canceled"])
def test_sume_terminal_on_the_first_read_sends_one_request(twin, terminal: str) -> None:
    api = ScriptedAPI(SUME).script("job_01", terminal, "processing")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert len(api.requests) == 1
    assert s.time.sleeps == []


def test_stripe_has_no_canceled_state_but_failed_still_stops(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "failed", "succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert record.status == "failed"
    assert len(api.requests) == 2
