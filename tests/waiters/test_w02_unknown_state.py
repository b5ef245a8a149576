"""W2: a state the spec does not document raises UnknownJobState, never "still running"."""

from __future__ import annotations

import pytest

from tests.waiters.support import (
    AZURE,
    SALESFORCE,
    STRIPE,
    SUME,
    Flavour,
    ScriptedAPI,
    answer,
    resource,
)

FLAVOURS = [SUME, STRIPE, SALESFORCE, AZURE]


@pytest.mark.parametrize("flavour", FLAVOURS, ids=lambda f: f.package)
def test_undocumented_state_raises_with_job_id_and_record(twin, flavour: Flavour) -> None:
    job = flavour.make_id(7)
    api = ScriptedAPI(flavour).script(job, flavour.pending[0], "Paused", flavour.success)
    s = twin.connect(api)

    with pytest.raises(s.errors.UnknownJobState) as caught:
        s.run(lambda c: resource(c, flavour).wait_for_job(job, deadline=600))

    error = caught.value
    assert error.job_id == job
    assert error.state == "Paused"
    body = api.last_record[job]
    assert error.last_record == (body["data"] if flavour is SUME else body)
    assert job in str(error) and "Paused" in str(error)
    assert len(api.requests) == 2  # raised on the spot, no further poll
    assert len(s.time.sleeps) == 1


def test_sume_record_carries_the_exact_record(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("paused", terminal=False))
    s = twin.connect(api)

    with pytest.raises(s.errors.UnknownJobState) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert caught.value.last_record == api.last_record["job_01"]["data"]
    assert caught.value.last_state == "paused"


def test_undocumented_state_also_raises_from_wait_for_result(twin) -> None:
    api = ScriptedAPI(AZURE)
    job = AZURE.make_id(1)
    api.script(job, "Running", "Cancelling")
    s = twin.connect(api)

    with pytest.raises(s.errors.UnknownJobState) as caught:
        s.run(lambda c: c.analysis.wait_for_result(job, deadline=60))

    assert caught.value.job_id == job
    assert api.of("result") == []


def test_terminal_flag_does_not_hide_an_undocumented_state(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("archived", terminal=True))
    s = twin.connect(api)

    with pytest.raises(s.errors.UnknownJobState):
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))


def test_missing_state_is_unknown_not_running(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", answer("pending", status=None))
    s = twin.connect(api)

    with pytest.raises(s.errors.UnknownJobState) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert caught.value.state is None
    assert caught.value.job_id == "frr_01"
    assert len(api.requests) == 1
