"""W6: status reads are retried on transient failures with their own budget, apart from
the job schedule; running out says the endpoint is unavailable; other 4xx are final."""

from __future__ import annotations

from email.utils import formatdate

import httpx
import pytest

from tests.waiters.support import AZURE, STRIPE, SUME, WALL_START, Reply, ScriptedAPI, http

#: W6: 408, 429 and every status from 500 up (529 "overloaded", a proxy's 520-527).
RETRIED = [408, 429, 500, 501, 502, 503, 504, *range(520, 530), 599]
FINAL = [400, 401, 403, 404, 409, 422]


def test_three_503s_mid_job_neither_fail_nor_advance_the_schedule(twin) -> None:
    api = ScriptedAPI(STRIPE).script(
        "frr_01", "pending", "pending", http(503), http(503), http(503), "pending", "succeeded"
    )
    s = twin.connect(api)
    events = []

    record = s.run(
        lambda c: c.reporting.wait_for_job("frr_01", deadline=600, on_poll=events.append)
    )

    assert record.status == "succeeded"
    # polls wait 1.5, 3.0, 6.0 (polls 1, 2, 3); the retries wait 0.375, 0.75, 1.5
    assert s.time.sleeps == [1.5, 3.0, 0.375, 0.75, 1.5, 6.0]
    assert [(e.attempt, e.delay) for e in events] == [(1, 1.5), (2, 3.0), (3, 6.0), (4, None)]
    assert len(api.requests) == 7


@pytest.mark.parametrize("status", RETRIED)
def test_transient_status_is_retried(twin, status: int) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", http(status), "succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=600))

    assert record.status == "succeeded"
    assert s.time.sleeps == [1.5, 0.375]
    assert len(api.requests) == 3


@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("eof")],
    ids=["connect", "read-timeout", "protocol"],
)
def test_transport_errors_are_retried(twin, failure: Exception) -> None:
    api = ScriptedAPI(SUME).script("job_01", failure, failure, "completed")
    s = twin.connect(api)

    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert record.id == "job_01"
    assert s.time.sleeps == [0.375, 0.75]


def test_endpoint_down_past_the_budget_raises_status_unavailable(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", http(503))
    s = twin.connect(api)

    with pytest.raises(s.errors.StatusUnavailable) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=600))

    error = caught.value
    assert not isinstance(error, (s.errors.JobFailed, s.errors.JobTimeout))
    assert error.job_id == "frr_01"
    assert "frr_01" in str(error) and "unavailable" in str(error)
    assert error.last_state == "pending"
    assert isinstance(error.last_error, s.errors.InternalServerError)
    assert error.attempts == 5
    assert len(api.requests) == 1 + 5
    assert s.time.sleeps == [1.5, 0.375, 0.75, 1.5, 3.0]


def test_connection_down_past_the_budget_raises_status_unavailable(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", httpx.ConnectError("refused"))
    s = twin.connect(api)

    with pytest.raises(s.errors.StatusUnavailable) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=600))

    assert caught.value.job_id == "job_01"
    assert isinstance(caught.value.last_error, s.errors.APIConnectionError)


def test_401_is_not_retried_and_names_the_job_and_the_key(twin) -> None:
    body = {"code": "unauthorized", "message": "Invalid API key."}
    api = ScriptedAPI(SUME).script("job_01", http(401, body=body))
    s = twin.connect(api)

    with pytest.raises(s.errors.AuthenticationError) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    error = caught.value
    assert len(api.requests) == 1
    assert s.time.sleeps == []
    assert error.job_id == "job_01"
    assert error.status_code == 401
    assert "job_01" in str(error)
    assert "API key" in str(error)
    assert "sk-sume-secret" not in str(error) and "sk-sume-secret" not in repr(error)


@pytest.mark.parametrize("status", FINAL)
def test_other_4xx_are_final(twin, status: int) -> None:
    api = ScriptedAPI(AZURE)
    op = AZURE.make_id(1)
    api.script(op, http(status), "Succeeded")
    s = twin.connect(api)

    with pytest.raises(s.errors.APIStatusError) as caught:
        s.run(lambda c: c.analysis.wait_for_job(op, deadline=60))

    assert caught.value.status_code == status
    assert caught.value.job_id == op
    assert not isinstance(caught.value, s.errors.WaitError)
    assert len(api.requests) == 1


def test_429_retry_after_is_honoured(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "queued", http(429, {"Retry-After": "7"}), "completed")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert s.time.sleeps == [3.0, 7.0]
    assert [r.at for r in api.requests] == [0.0, 3.0, 10.0]


def test_503_retry_after_http_date_is_honoured(twin) -> None:
    date = formatdate(WALL_START + 12, usegmt=True)
    api = ScriptedAPI(STRIPE).script("frr_01", http(503, {"Retry-After": date}), "succeeded")
    s = twin.connect(api)

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert s.time.sleeps == [12.0]


@pytest.mark.parametrize(
    "bad",
    [
        Reply(text="<html><body>502 Bad Gateway</body></html>"),
        Reply(text='{"data": {"id": "job_01", "sta'),
        Reply(body={"message": "no record here"}),
    ],
    ids=["proxy-html", "truncated-json", "no-record"],
)
def test_an_unreadable_200_is_retried_and_the_job_still_succeeds(twin, bad: Reply) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", bad, bad, "completed")
    s = twin.connect(api)

    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert record.status == "completed"
    assert s.time.sleeps == [3.0, 0.375, 0.75]  # one poll delay, then the status retries
    assert len(api.requests) == 4


def test_an_unreadable_200_past_the_budget_is_status_unavailable(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", Reply(text="<html>oops</html>"))
    s = twin.connect(api)

    with pytest.raises(s.errors.StatusUnavailable) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=600))

    error = caught.value
    assert error.job_id == "job_01" and "job_01" in str(error)
    assert isinstance(error.last_error, s.errors.UnreadableStatus)
    assert error.last_state == "processing"
    assert len(api.requests) == 1 + 5
