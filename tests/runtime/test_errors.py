"""The error hierarchy and status-to-class mapping."""

from __future__ import annotations

import httpx
import pytest

from jobgen.runtime.http.statuses import status_error_for
from jobgen.runtime.shared import errors
from jobgen.runtime.shared.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DecodeError,
    InternalServerError,
    JobCanceled,
    JobFailed,
    JobTimeout,
    MissingJobId,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SDKError,
    StatusUnavailable,
    UnknownJobState,
    UnprocessableEntityError,
    WaitError,
    attach_job_id,
)

SECRET = "sk-live-0123456789abcdef"


def answer(code: int, **kwargs: object) -> httpx.Response:
    request = httpx.Request(
        "GET",
        f"https://api.example.com/v1/jobs/j_1?api_key={SECRET}",
        headers={"Authorization": f"Bearer {SECRET}", "x-api-key": SECRET},
    )
    return httpx.Response(code, request=request, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, InternalServerError),
        (503, InternalServerError),
        (599, InternalServerError),
        (402, APIStatusError),
        (418, APIStatusError),
        (302, APIStatusError),
    ],
)
def test_status_error_for(code: int, cls: type) -> None:
    error = status_error_for(answer(code, json={"error": {"message": "nope"}}))
    assert type(error) is cls and isinstance(error, SDKError)
    assert error.status_code == code and error.body == {"error": {"message": "nope"}}
    assert f"HTTP {code}" in str(error) and "nope" in str(error)


def test_a_redirect_names_its_location_without_its_query() -> None:
    error = status_error_for(answer(303, headers={"Location": f"/v1/exports/e_1?sig={SECRET}"}))
    message = str(error)
    assert message.startswith("HTTP 303 See Other from GET /v1/jobs/j_1: ")
    assert "Location: https://api.example.com/v1/exports/e_1" in message
    assert SECRET not in message
    assert "Location" not in str(status_error_for(answer(300)))
    assert "Location" not in str(status_error_for(answer(404, headers={"Location": "/x"})))
    unparsable = status_error_for(answer(302, headers={"Location": "http://\x00/"}))
    assert "Location: http://" in str(unparsable)  # shown as far as it parses, never raised


def test_body_text_and_empty_and_request_id() -> None:
    text = status_error_for(
        answer(502, text="<html>bad gateway</html>", headers={"x-request-id": "r1"})
    )
    assert text.body == "<html>bad gateway</html>" and text.request_id == "r1"
    empty = status_error_for(answer(500, headers={"request-id": "r2"}))
    assert empty.body is None and empty.request_id == "r2"
    assert status_error_for(answer(500)).request_id is None


def test_reading_the_body_never_raises() -> None:
    def stream() -> object:
        yield b"{}"

    streaming = httpx.Response(500, content=stream(), request=httpx.Request("GET", "http://x"))
    assert status_error_for(streaming).body is None  # not read: left alone
    no_request = httpx.Response(500, content=b"\xff\xfe not utf-8")
    assert isinstance(status_error_for(no_request).body, str)
    long = status_error_for(answer(500, text="x" * 5000))
    assert len(str(long)) < 400


def test_401_points_at_credentials_without_revealing_them() -> None:
    error = status_error_for(answer(401, json={"error": "unauthorized"}))
    message = str(error)
    assert "API key" in message and "key that created it" in message
    assert SECRET not in message and SECRET not in repr(error)
    assert "api_key" not in message and "/v1/jobs/j_1" in message


def test_connection_errors() -> None:
    request = httpx.Request("GET", "http://x")
    assert APITimeoutError(request=request).request is request
    assert isinstance(APITimeoutError(), APIConnectionError)
    assert str(APIConnectionError()) == "Connection error."


def test_decode_error_names_the_path() -> None:
    error = DecodeError("expected a string, got 3", path="$.data.items[3].status")
    assert isinstance(error, ValueError) and error.path == "$.data.items[3].status"
    assert "$.data.items[3].status" in str(error)


def test_attach_job_id_shows_in_the_message_once() -> None:
    error = attach_job_id(status_error_for(answer(404)), "j_42")
    assert error.job_id == "j_42" and str(error).endswith("(job j_42)")
    assert attach_job_id(error, "other").job_id == "j_42"
    plain = ValueError("x")
    assert attach_job_id(plain, "j") is plain


def test_wait_errors_name_the_job() -> None:
    cause = status_error_for(answer(503))
    cases: list[WaitError] = [
        JobTimeout("j1", elapsed=45.0, deadline=60.0, resume_token="{}", last_state="running"),
        UnknownJobState("j1", state="paused", documented=frozenset({"running", "done"})),
        UnknownJobState("j1", state=None, detail="nothing at $.status"),
        JobFailed("j1", state="failed", error={"message": "boom"}),
        JobCanceled("j1", state="canceled"),
        StatusUnavailable("j1", last_error=cause, attempts=5),
    ]
    for error in cases:
        assert error.job_id == "j1" and "j1" in str(error) and isinstance(error, SDKError)
    assert str(cases[0]).startswith("job j1 still running after 45s (deadline 60s)")
    assert "documented states: done, running" in str(cases[1])
    assert "boom" in str(cases[3])
    assert "status endpoint unavailable" in str(cases[5]) and "failed" not in str(cases[5])
    assert isinstance(MissingJobId("x"), ValueError)


def test_public_names() -> None:
    for name in errors.__all__:
        assert hasattr(errors, name)
