"""Operation URLs and status rules in the runtime: the origin check, the request of an
absolute URL, and waits (sync and async) whose answers a status rule classifies."""

from __future__ import annotations

import json
import logging
from typing import Any

import attrs
import httpx
import pytest

from jobgen.runtime.http.layer import SyncHTTP
from jobgen.runtime.shared.errors import (
    JobFailed,
    JobTimeout,
    NotFoundError,
    OperationUrlRefused,
)
from jobgen.runtime.waiting.opurl import StatusRule, check_origin, display_url, url_options
from jobgen.runtime.waiting.waiter import JobSpec
from tests.runtime.fakes import REQUEST, FakeClock, Harness, Script, response

BASE = "https://api.example.com/v1"

REPLY = JobSpec(
    name="export",
    state_path=("status",),
    success={"Completed"},
    failure={"Failed", "Expired"},
    pending={"Running"},
    error_path=("error",),
    operation_url=("Operation-Location", "Location"),
    status_rules=(
        StatusRule(state="Completed", status={303}),
        StatusRule(state="Expired", status={404}),
        StatusRule(state="Failed", path=("error", "code")),
    ),
    final_from="location",
)


# -- the origin check ---------------------------------------------------------------------


def test_the_clients_own_origin_is_followed_default_ports_included() -> None:
    url = "https://api.example.com:443/operations/1?api-version=2024-05-01"
    assert check_origin(url, BASE, ()).path == "/operations/1"
    assert check_origin("http://h/x", "http://h:80", ()).host == "h"


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://evil.example/operations/1?sig=secret", "https://evil.example:443"),
        ("https://api.example.com:8443/operations/1", "https://api.example.com:8443"),
        ("http://api.example.com/operations/1", "http://api.example.com:80"),
    ],
)
def test_another_scheme_host_or_port_is_refused_naming_url_and_option(
    url: str, origin: str
) -> None:
    with pytest.raises(OperationUrlRefused) as refused:
        check_origin(url, BASE, ())
    message = str(refused.value)
    assert url.split("?")[0] in message
    assert f"pass operation_hosts=['{origin}'] to the client" in message
    assert "secret" not in message  # the query is never shown


def test_an_allowed_origin_is_followed() -> None:
    url = "https://status.example.com/operations/1"
    assert check_origin(url, BASE, ["https://status.example.com"]).host == "status.example.com"


def test_a_relative_or_broken_url_is_refused() -> None:
    with pytest.raises(OperationUrlRefused, match="is not absolute"):
        check_origin("/operations/1", BASE, ())


def test_display_url_drops_query_fragment_and_userinfo() -> None:
    shown = display_url("https://u:p@h.example/ops/1?api-version=1#f")
    assert shown == "https://h.example/ops/1"


def test_url_options_keep_the_query_and_the_credentials_scheme() -> None:
    http = SyncHTTP(
        base_url=BASE,
        credentials=(),
        timeout=None,
        headers=None,
        user_agent="t",
        max_retries=0,
    )
    options = url_options(http, BASE + "/operations/1?api-version=2024&x=1&x=2", ("key",))
    request = http.build_request(httpx.Client(), options)
    assert httpx.URL(request.url) == httpx.URL(BASE + "/operations/1?api-version=2024&x=1&x=2")
    # shown with every parameter masked: the server's query may be a signature
    assert str(request.url) == BASE + "/operations/1?api-version=[secure]&x=[secure]&x=[secure]"
    assert options.security == ("key",)
    with pytest.raises(OperationUrlRefused):
        url_options(http, "https://other.example/operations/1", ("key",))


# -- waits whose answers status rules classify -------------------------------------------

URL = "http://x/exports/1/status"


def _see_other() -> httpx.Response:
    return httpx.Response(303, headers={"Location": "/exports/1"}, request=REQUEST)


def test_a_303_ends_the_wait_and_the_result_is_fetched_at_its_location(mode: str) -> None:
    clock = FakeClock()
    script = Script([response(202, {"status": "Running"}), _see_other()])
    fetched: list[str] = []

    def fetch(target: str, time_left: float) -> str:
        fetched.append(target)
        return "export"

    harness = Harness(mode, REPLY, script, clock.config(), result=fetch)
    assert harness.wait_for_result(URL, deadline=60) == "export"
    assert [c[0] for c in script.calls] == [URL, URL]
    assert fetched == ["http://x/exports/1"]  # made absolute against the status URL


def test_a_404_declared_expired_is_a_failure_not_a_transport_error(mode: str) -> None:
    clock = FakeClock()
    gone = response(404, {"error": {"code": "gone", "message": "expired"}})
    harness = Harness(
        mode,
        REPLY,
        Script([response(202, {"status": "Running"}), gone]),
        clock.config(),
        result=lambda t, s: "never",
    )
    with pytest.raises(JobFailed) as failed:
        harness.wait_for_result(URL, deadline=60)
    assert failed.value.last_state == "Expired"
    assert failed.value.error == {"code": "gone", "message": "expired"}
    record = Harness(mode, REPLY, Script([gone]), clock.config()).wait_for_job(URL, deadline=60)
    # The record says the state the rule gave it, where its body has none.
    assert record == {"error": {"code": "gone", "message": "expired"}, "status": "Expired"}


def test_an_undeclared_status_still_raises_its_error(mode: str) -> None:
    clock = FakeClock()
    spec = attrs.evolve(REPLY, status_rules=())
    harness = Harness(mode, spec, Script([response(404, {"error": "no"})]), clock.config())
    with pytest.raises(NotFoundError) as missing:
        harness.wait_for_job(URL, deadline=60)
    assert missing.value.job_id == URL


def test_an_error_body_without_a_state_matches_a_path_rule(mode: str) -> None:
    clock = FakeClock()
    script = Script([response(200, {"error": {"code": "quota"}})])
    with pytest.raises(JobFailed) as failed:
        Harness(mode, REPLY, script, clock.config(), result=lambda t, s: None).wait_for_result(
            URL, deadline=60
        )
    assert failed.value.last_state == "Failed"


def test_create_and_wait_follows_the_first_operation_header_present(mode: str) -> None:
    clock = FakeClock()
    script = Script([response(200, {"status": "Running"}), _see_other()])
    created = httpx.Response(
        202,
        headers={"Location": "/exports/1/status?api-version=1"},
        request=httpx.Request("POST", "http://x/exports"),
    )
    harness = Harness(mode, REPLY, script, clock.config(), result=lambda t, s: t)
    assert harness.create_and_wait(lambda key, left: created, deadline=60) == "http://x/exports/1"
    assert script.calls[0][0] == "http://x/exports/1/status?api-version=1"


def test_a_timeout_token_carries_the_url_and_resumes_there(mode: str) -> None:
    clock = FakeClock()
    running = response(202, {"status": "Running"}, {"Retry-After": "10"})
    script = Script([running])
    harness = Harness(mode, REPLY, script, clock.config())
    with pytest.raises(JobTimeout) as timed_out:
        harness.wait_for_job(URL + "?api-version=1", deadline=5)
    error: Any = timed_out.value
    assert error.job_id == URL + "?api-version=1"  # the id it was given, accepted back
    assert "api-version" not in str(error) and "api-version" not in repr(error)
    token = json.loads(error.resume_token)
    assert token["url"] == URL + "?api-version=1" and token["job_id"] == URL
    with pytest.raises(JobTimeout):
        harness.wait_for_job(resume=error.resume_token, deadline=5)
    assert {c[0] for c in script.calls} == {URL + "?api-version=1"}


def test_httpx_log_line_shows_no_userinfo_or_query_of_an_operation_url(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """httpx logs `HTTP Request: GET <url>` at INFO with the request's URL: an
    operation URL from the server shows there without its userinfo and query values."""
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"status": "Running"})

    http = SyncHTTP(
        base_url=BASE,
        credentials=(),
        timeout=None,
        headers=None,
        user_agent="t",
        max_retries=0,
        transport=httpx.MockTransport(answer),
    )
    url = "https://user:pass-secret@api.example.com/v1/operations/1?sig=sig-secret&se=2030"
    with caplog.at_level(logging.INFO, logger="httpx"):
        http.request(url_options(http, url, ()))
    assert sent[0].url.params["sig"] == "sig-secret"  # sent unchanged
    assert "HTTP Request: GET https://api.example.com/v1/operations/1?sig=[secure]" in caplog.text
    assert "sig-secret" not in caplog.text and "pass-secret" not in caplog.text


@pytest.mark.parametrize("bad", ["/exports/1\tstatus", "/exports/1\nstatus"])
def test_an_operation_url_that_is_not_a_url_is_an_sdk_error(mode: str, bad: str) -> None:
    created = httpx.Response(
        202, headers={"Location": bad}, request=httpx.Request("POST", "http://x/exports")
    )
    harness = Harness(mode, REPLY, Script([]), FakeClock().config())
    with pytest.raises(OperationUrlRefused, match="which it is not"):
        harness.create_and_wait(lambda key, left: created, deadline=60)
