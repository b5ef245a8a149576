"""The simulated API over real HTTP on loopback, against each of the four example specs."""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime

import httpx
import pytest

from jobgen.server.scenario import JobStates
from tests.server.conftest import CLOCK, Session


def scenario(**fields: object) -> str:
    return json.dumps(fields)


def kinds(s: Session) -> JobStates:
    return JobStates.of(s.job)


def test_create_then_poll_to_success(session: Session) -> None:
    created = session.create()
    assert created.status_code == int(session.job.create.response.status)  # type: ignore[union-attr]
    job_id = session.id_of(created)
    pending = kinds(session).first("pending")
    success = kinds(session).first("success")
    assert session.state(created) == pending

    polls = [session.status(job_id) for _ in range(4)]
    assert [p.status_code for p in polls] == [200] * 4
    assert [session.state(p) for p in polls] == [pending, pending, success, success]
    record = session.record(polls[-1])
    if session.job.terminal_path:
        assert record["terminal"] is True
    if session.job.ready_path:
        assert record["result_ready"] is True
    assert session.id_of(polls[-1]) == job_id
    if session.job.result is not None:
        assert session.result(job_id).status_code == 200


def test_custom_states_then_failure_carries_the_error(session: Session) -> None:
    states = kinds(session).named("pending")
    stages = [{"state": state, "polls": 1} for state in states]
    job_id = session.id_of(session.create(scenario(states=stages, final="failure")))
    seen = [session.state(session.status(job_id)) for _ in range(len(states) + 1)]
    assert seen == [*states, kinds(session).first("failure")]
    record = session.record(session.status(job_id))
    error = record
    for key in session.job.error_path or ():
        error = error[key]
    assert error, record
    if session.job.result is not None:
        failed = session.result(job_id)
        assert failed.status_code == 409


def test_canceled(session: Session) -> None:
    if not session.job.canceled:
        refused = session.create(scenario(states=[], final="canceled"))
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["field"] == "final"
        return
    job_id = session.id_of(session.create(scenario(states=[], final="canceled")))
    assert session.state(session.status(job_id)) == session.job.canceled[0]


def test_never_finishing_job_stays_in_progress(session: Session) -> None:
    job_id = session.id_of(session.create(scenario(final="never")))
    pending = kinds(session).first("pending")
    assert {session.state(session.status(job_id)) for _ in range(8)} == {pending}


def test_undocumented_state_is_reported(session: Session) -> None:
    job_id = session.id_of(session.create(scenario(states=[], undocumented_state="Exploded")))
    assert session.state(session.status(job_id)) == "Exploded"


def test_seconds_timeline(session: Session) -> None:
    pending = kinds(session).named("pending")[-1]
    with CLOCK.stopped() as clock:
        states = [{"state": pending, "seconds": 0.05}]
        job_id = session.id_of(session.create(scenario(states=states)))
        assert session.state(session.status(job_id)) == pending
        clock.advance(0.06)
        assert session.state(session.status(job_id)) == kinds(session).first("success")


def test_503_run_with_retry_after(session: Session) -> None:
    fault = {"at_poll": 2, "status": 503, "count": 3, "retry_after": 1}
    job_id = session.id_of(session.create(scenario(status_errors=[fault])))
    answers = [session.status(job_id) for _ in range(6)]
    assert [a.status_code for a in answers] == [200, 503, 503, 503, 200, 200]
    assert [a.headers.get("retry-after") for a in answers[1:4]] == ["1", "1", "1"]
    assert answers[1].headers["content-type"] == "application/json"
    assert "service_unavailable" in answers[1].text
    # The error answers did not use up the pending reads.
    pending, success = kinds(session).first("pending"), kinds(session).first("success")
    assert [session.state(answers[i]) for i in (0, 4, 5)] == [pending, pending, success]
    log = session.server.requests(job_id)
    assert [r.poll for r in log if r.operation == "status"] == [1, 2, 3, 4, 5, 6]
    assert [r.fault for r in log if r.operation == "status"] == [None] + ["status_error"] * 3 + [
        None,
        None,
    ]


@pytest.mark.parametrize("status", [429, 500, 502, 504])
def test_other_error_statuses(sume: Session, status: int) -> None:
    job_id = sume.id_of(sume.create(scenario(status_errors=[{"at_poll": 1, "status": status}])))
    answer = sume.status(job_id)
    assert answer.status_code == status
    assert "retry-after" not in answer.headers
    assert set(answer.json()) == {"code", "message", "request_id"}


def test_429_with_an_http_date(sume: Session) -> None:
    fault = {"at_poll": 1, "status": 429, "retry_after": "date:+30"}
    job_id = sume.id_of(sume.create(scenario(status_errors=[fault])))
    answer = sume.status(job_id)
    assert answer.status_code == 429 and answer.json()["code"] == "rate_limited"
    ahead = parsedate_to_datetime(answer.headers["retry-after"]).timestamp() - time.time()
    assert 25 < ahead <= 31


def test_dropped_connection_is_a_transport_error(session: Session) -> None:
    job_id = session.id_of(session.create(scenario(drop_connection_at_polls=[1])))
    with pytest.raises(httpx.TransportError):
        session.status(job_id)
    # The next poll is fine, and still reads the first pending state.
    after = session.status(job_id)
    assert after.status_code == 200 and session.state(after) == kinds(session).first("pending")
    dropped = session.server.requests(job_id)[1]
    assert (dropped.status, dropped.fault, dropped.poll) == (None, "drop_connection", 1)


def test_malformed_body(session: Session) -> None:
    job_id = session.id_of(session.create(scenario(malformed_at_polls=[1])))
    answer = session.status(job_id)
    assert answer.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        answer.json()
    assert session.server.requests(job_id)[-1].fault == "malformed"


def test_result_409_until_ready_then_200(sume: Session) -> None:
    # Two status answers report completed with result_ready false; the result is
    # refused until those two have been served, and the third answer says ready.
    job_id = sume.id_of(sume.create(scenario(states=[], result_delay_polls=2)))
    refused = sume.result(job_id)
    assert refused.status_code == 409
    assert refused.json()["code"] == "job_not_completed"
    record = sume.record(sume.status(job_id))
    assert (record["status"], record["terminal"], record["result_ready"]) == (
        "completed",
        True,
        False,
    )
    assert sume.result(job_id).status_code == 409
    assert sume.record(sume.status(job_id))["result_ready"] is False
    assert sume.record(sume.status(job_id))["result_ready"] is True
    result = sume.result(job_id)
    assert result.status_code == 200
    assert result.json()["data"]["job_id"] == job_id


def test_result_delay_in_seconds_without_a_ready_field(salesforce: Session) -> None:
    with CLOCK.stopped() as clock:
        created = salesforce.create(scenario(states=[], result_delay_seconds=0.05))
        job_id = salesforce.id_of(created)
        assert salesforce.state(salesforce.status(job_id)) == "JobComplete"
        assert salesforce.result(job_id).status_code == 409
        clock.advance(0.06)
        assert salesforce.result(job_id).status_code == 200


def test_csv_result(salesforce: Session) -> None:
    job_id = salesforce.id_of(salesforce.create(scenario(states=[])))
    pending = salesforce.result(job_id)
    assert pending.status_code == 200
    assert pending.headers["content-type"].startswith("text/csv")
    assert job_id in pending.text and pending.text.startswith("job_id,")


def test_missing_and_wrong_credentials_are_401(session: Session) -> None:
    job_id = session.id_of(session.create())
    bare = httpx.get(
        session.server.base_url + session.url(session.job.status, job_id), params=session.api.params
    )
    assert bare.status_code == 401
    assert "missing credentials" in bare.text
    bare.json()
    other = session.status(job_id, **session.api.other_auth)
    assert other.status_code == 401
    assert "different credential" in other.text
    no_create = httpx.post(
        session.server.base_url + session.job.create.path,  # type: ignore[union-attr]
        params=session.api.params,
        json={},
    )
    assert no_create.status_code == 401
    # 401s are not polls: the next read is poll 1, in the first pending state.
    assert session.state(session.status(job_id)) == kinds(session).first("pending")
    log = session.server.requests(job_id)
    assert [(r.status, r.fault, r.poll) for r in log[1:]] == [
        (401, "missing_credentials", None),
        (401, "wrong_credentials", None),
        (200, None, 1),
    ]


def test_idempotent_create_returns_the_same_job(session: Session) -> None:
    header = session.job.idempotency_header
    if header is None:
        first, second = session.create(), session.create()
        assert session.id_of(first) != session.id_of(second)
        return
    # UUIDs: Azure's Repeatability-Request-ID must be one, and the server checks it.
    key_a, key_b = "0b6e2f1c-8f0a-4c1e-9a77-3d2f5c1b9e01", "5d8c3a2e-1b4f-4e6a-8c9d-7f0e1a2b3c4d"
    first = session.create(**{header: key_a})
    again = session.create(**{header: key_a})
    other = session.create(**{header: key_b})
    assert session.id_of(first) == session.id_of(again) != session.id_of(other)
    assert again.content == first.content
    creates = [r for r in session.server.requests() if r.operation == "create"]
    assert [(r.idempotency_key, r.replayed) for r in creates] == [
        (key_a, False),
        (key_a, True),
        (key_b, False),
    ]
    assert len(session.server.app.store.jobs) == 2


def test_create_error_then_retry_with_the_same_key(sume: Session) -> None:
    plan = scenario(create_errors=[{"attempt": 1, "status": 503, "retry_after": 1}])
    refused = sume.create(plan, **{"Idempotency-Key": "k1"})
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert sume.server.app.store.jobs == {}
    accepted = sume.create(plan, **{"Idempotency-Key": "k1"})
    assert accepted.status_code == 202
    assert len(sume.server.app.store.jobs) == 1


def test_create_dropped_after_the_job_exists(azure: Session) -> None:
    plan = scenario(create_errors=[{"attempt": 1, "drop_connection": True, "after_create": True}])
    key = {"Repeatability-Request-ID": "4f6d3c2a-0000-4000-8000-000000000001"}
    with pytest.raises(httpx.TransportError):
        azure.create(plan, **key)
    retried = azure.create(plan, **key)
    assert retried.status_code == 202
    (job_id,) = azure.server.app.store.jobs
    assert azure.id_of(retried) == job_id
    creates = azure.server.requests()
    assert [(r.status, r.fault, r.job_id, r.replayed) for r in creates] == [
        (None, "drop_connection", job_id, False),
        (202, None, job_id, True),
    ]


def test_create_attempts_without_a_key_are_matched_by_scenario(salesforce: Session) -> None:
    plan = scenario(create_errors=[{"attempt": 1, "status": 500}])
    assert salesforce.create(plan).status_code == 500
    assert salesforce.create(plan).status_code == 200


def test_body_hint_and_retry_after_while_not_terminal(sume: Session) -> None:
    job_id = sume.id_of(sume.create(scenario(hint=5, retry_after=2)))
    running = sume.status(job_id)
    assert sume.record(running)["next_poll_after_seconds"] == 5
    assert running.headers["retry-after"] == "2"
    sume.status(job_id)
    done = sume.status(job_id)
    assert sume.record(done)["next_poll_after_seconds"] is None
    assert "retry-after" not in done.headers


def test_default_body_hint_is_the_spec_floor(sume: Session) -> None:
    job_id = sume.id_of(sume.create())
    assert sume.record(sume.status(job_id))["next_poll_after_seconds"] == 2


@pytest.mark.parametrize(("value", "header"), [(0, "0"), (0.05, "0.05"), ("raw:soon", "soon")])
def test_retry_after_forms_on_azure(azure: Session, value: object, header: str) -> None:
    job_id = azure.id_of(azure.create(scenario(retry_after=value)))
    assert azure.status(job_id).headers["retry-after"] == header


def test_required_query_parameter(azure: Session) -> None:
    job_id = azure.id_of(azure.create())
    answer = httpx.get(
        azure.server.base_url + azure.url(azure.job.status, job_id), headers=azure.api.auth
    )
    assert answer.status_code == 400
    assert "api-version" in answer.json()["error"]["message"]


def test_unknown_job_route_and_method(sume: Session) -> None:
    assert sume.status("job_missing").status_code == 404
    assert sume.status("job_missing").json()["code"] == "not_found"
    assert sume.client.get("/v2/nothing").status_code == 404
    wrong = sume.client.delete("/v1/jobs/job_x")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET"


def test_bad_scenario_header_is_a_400_naming_the_field(sume: Session) -> None:
    answer = sume.create(scenario(states=[{"state": "queued", "polls": 0}]))
    assert answer.status_code == 400
    assert answer.json()["error"]["field"] == "states[0].polls"
    not_json = sume.create("{nope")
    assert not_json.status_code == 400
    assert not_json.json()["error"]["field"] == "x-jobgen-scenario"
    assert sume.server.app.store.jobs == {}


def test_invalid_json_create_body(sume: Session) -> None:
    answer = sume.client.post(
        "/v1/jobs", content=b"{", headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_request"


def test_json_nested_too_deeply_is_a_400_not_a_500(sume: Session) -> None:
    """A create body, a control body or a scenario header of JSON nested beyond what a
    parser recurses through is refused with a clear 400 (never a 500 and a traceback)."""
    deep = "[" * 100_000 + "]" * 100_000
    create = sume.job.create
    assert create is not None
    sent = {"content-type": "application/json"}
    answer = sume.client.post(create.path, content=deep, headers=sent)
    assert answer.status_code == 400 and "nested too deeply" in answer.text
    control = sume.client.post("/_jobgen/jobs", content=deep, headers=sent)
    assert control.status_code == 400
    assert control.json()["error"]["message"].startswith("the body is not JSON: nested too deeply")
    header = "[" * 5_000 + "]" * 5_000
    scenario_answer = sume.create(None, **{"x-jobgen-scenario": header})
    assert scenario_answer.status_code == 400 and "nested too deeply" in scenario_answer.text
