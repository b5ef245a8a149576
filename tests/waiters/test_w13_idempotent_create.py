"""W13: create_and_wait sends one idempotency key, reused when the create is retried, so a
job is never created twice; a plain create gets a key where the API takes one, and a POST
without a key is never retried."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.waiters.support import AZURE, CSV, SALESFORCE, STRIPE, SUME, ScriptedAPI, http

FIRST = {f.package: f.make_id(1) for f in (SUME, STRIPE, SALESFORCE, AZURE)}


def _api(flavour, *states: str) -> ScriptedAPI:
    return ScriptedAPI(flavour).script(FIRST[flavour.package], *states)


def _create_and_wait(s, flavour, **options):
    body = flavour.create_body(s.sdk)
    return s.run(
        lambda c: getattr(c, flavour.resource).create_and_wait(body=body, deadline=600, **options)
    )


def test_sume_create_and_wait_sends_one_idempotency_key(twin) -> None:
    api = _api(SUME, "queued", "processing", "completed")
    s = twin.connect(api)

    result = _create_and_wait(s, SUME)

    assert type(result) is s.models.JobResultEnvelope
    assert result.data.job_id == "job_01"
    (create,) = api.of("create")
    key = create.headers["idempotency-key"]
    assert str(uuid.UUID(key)) == key
    assert api.kinds == ["create", "status", "status", "status", "result"]
    assert [r.job_id for r in api.of("status")] == ["job_01"] * 3
    assert api.jobs_created == ["job_01"]


@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectError("connection refused"), "lost", http(503), http(520), http(529)],
    ids=["connect-error", "reset-after-create", "503", "520", "529"],
)
def test_sume_retried_create_reuses_the_key_and_makes_one_job(twin, failure) -> None:
    api = _api(SUME, "processing", "completed").on_create(failure)
    s = twin.connect(api)

    result = _create_and_wait(s, SUME)

    creates = api.of("create")
    assert len(creates) == 2
    keys = {c.headers["idempotency-key"] for c in creates}
    assert len(keys) == 1
    assert api.jobs_created == ["job_01"]
    assert result.data.job_id == "job_01"
    assert s.time.sleeps[0] == 0.375  # the create's retry backoff, then the polls


def test_each_create_and_wait_has_its_own_key(twin) -> None:
    api = _api(SUME, "completed").script("job_02", "completed")
    s = twin.connect(api)

    _create_and_wait(s, SUME)
    _create_and_wait(s, SUME)

    keys = [c.headers["idempotency-key"] for c in api.of("create")]
    assert len(set(keys)) == 2
    assert api.jobs_created == ["job_01", "job_02"]


def test_azure_uses_repeatability_request_id(twin) -> None:
    op = FIRST[AZURE.package]
    api = _api(AZURE, "Running", "Succeeded").on_create(httpx.ConnectError("refused"))
    s = twin.connect(api)

    result = _create_and_wait(s, AZURE)

    assert type(result) is s.models.OperationStatus  # the succeeded operation
    creates = api.of("create")
    assert len(creates) == 2
    ids = {c.headers["repeatability-request-id"] for c in creates}
    assert len(ids) == 1
    assert str(uuid.UUID(ids.pop())) is not None
    assert "idempotency-key" not in creates[0].headers
    assert api.jobs_created == [op]
    assert [r.job_id for r in api.of("status")] == [op, op]


def test_stripe_create_and_wait_returns_the_record(twin) -> None:
    api = _api(STRIPE, "pending", "succeeded").on_create(httpx.ConnectError("refused"))
    s = twin.connect(api)

    record = _create_and_wait(s, STRIPE)

    assert type(record) is s.models.ReportingReportRun
    assert record.status == "succeeded"
    creates = api.of("create")
    assert len({c.headers["idempotency-key"] for c in creates}) == 1
    assert creates[0].headers["content-type"] == "application/x-www-form-urlencoded"
    assert creates[0].body == b"report_type=balance.summary.1"
    assert api.jobs_created == ["frr_01"]


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (httpx.ConnectError("connection refused"), "APIConnectionError"),
        ("lost", "APIConnectionError"),
        (http(503), "InternalServerError"),
        (http(529), "InternalServerError"),
        (http(429, {"Retry-After": "1"}), "RateLimitError"),
    ],
    ids=["connect-error", "reset-after-create", "503", "529", "429"],
)
def test_salesforce_create_without_a_key_is_never_retried(twin, failure, error: str) -> None:
    api = _api(SALESFORCE, "JobComplete").on_create(failure)
    s = twin.connect(api)

    with pytest.raises(s.errors.SDKError) as caught:
        _create_and_wait(s, SALESFORCE)

    assert type(caught.value).__name__ == error
    assert len(api.requests) == 1
    assert api.kinds == ["create"]
    assert "idempotency-key" not in api.requests[0].headers
    assert s.time.sleeps == []


def test_salesforce_create_and_wait_returns_the_csv(twin) -> None:
    api = _api(SALESFORCE, "UploadComplete", "InProgress", "JobComplete")
    s = twin.connect(api)

    assert _create_and_wait(s, SALESFORCE) == CSV
    assert api.kinds == ["create", "status", "status", "status", "result"]


KEYED_CREATE = [(SUME, "create"), (STRIPE, "post_report_runs"), (AZURE, "start")]
FAILURES = [httpx.ConnectError("refused"), "lost"]


@pytest.mark.parametrize(
    ("flavour", "method"), KEYED_CREATE, ids=[f.package for f, _ in KEYED_CREATE]
)
@pytest.mark.parametrize("failure", FAILURES, ids=["connect-error", "reset-after-create"])
def test_plain_create_gets_one_key_and_is_retried_with_it(twin, flavour, method, failure) -> None:
    """Where the API takes an idempotency key, a create without one gets one from the
    client, reused on the retry: the retry cannot make a second job."""
    api = ScriptedAPI(flavour).on_create(failure)
    s = twin.connect(api)
    body = flavour.create_body(s.sdk)

    s.run(lambda c: getattr(getattr(c, flavour.resource), method)(body=body))

    first, second = api.of("create")
    header = flavour.idempotency_header.lower()
    assert first.headers[header] and second.headers[header] == first.headers[header]


@pytest.mark.parametrize("failure", FAILURES, ids=["connect-error", "reset-after-create"])
def test_plain_create_without_an_idempotency_header_is_not_retried(twin, failure) -> None:
    api = ScriptedAPI(SALESFORCE).on_create(failure)
    s = twin.connect(api)
    body = SALESFORCE.create_body(s.sdk)

    with pytest.raises(s.errors.APIConnectionError):
        s.run(lambda c: c.ingest.create_job(body=body))

    assert len(api.of("create")) == 1
    assert len(api.jobs_created) <= 1


def test_plain_create_with_a_key_is_retried_with_it(twin) -> None:
    api = ScriptedAPI(SUME).on_create(httpx.ConnectError("refused"))
    s = twin.connect(api)
    body = SUME.create_body(s.sdk)

    envelope = s.run(lambda c: c.jobs.create(body=body, idempotency_key="order-42"))

    assert envelope.data.id == "job_01"
    assert [c.headers["idempotency-key"] for c in api.of("create")] == ["order-42"] * 2


def test_create_and_wait_errors_name_the_new_job(twin) -> None:
    api = _api(SUME, "processing", "failed")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        _create_and_wait(s, SUME)

    assert caught.value.job_id == "job_01"
    assert len(api.of("create")) == 1


def test_create_answer_without_an_id_raises_missing_job_id(twin) -> None:
    api = ScriptedAPI(SUME).on_create(http(202, body={"data": {"status": "queued"}}))
    s = twin.connect(api)

    with pytest.raises(s.errors.MissingJobId):
        _create_and_wait(s, SUME)

    assert api.kinds == ["create"]


def test_retried_create_honours_retry_after(twin) -> None:
    api = _api(SUME, "completed").on_create(http(429, {"Retry-After": "3"}))
    s = twin.connect(api)

    _create_and_wait(s, SUME)

    first, second = api.of("create")
    assert second.at - first.at == 3.0
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert api.jobs_created == ["job_01"]
