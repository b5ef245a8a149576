"""``<API>_LOG=debug|info`` logs one line per request: method, URL without its query
string, status, elapsed time and request id; never a credential."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

THING = {
    "id": "6f1c5e0a-8a5b-4a57-9d5e-0c8f1f2f9b11",
    "created_at": "2026-11-29T08:00:00Z",
    "color": "red",
    "tags": [],
}


@pytest.fixture
def sdk_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("features_sdk")
    handlers, level = list(logger.handlers), logger.level
    yield logger
    logger.handlers[:] = handlers
    logger.setLevel(level)


def answer(request: httpx.Request) -> httpx.Response:
    if request.url.path.endswith("query-key"):
        return httpx.Response(204)
    return httpx.Response(200, json=THING, headers={"x-request-id": "req_7"})


def test_the_environment_variable_turns_request_lines_on(
    features: ModuleType,
    sdk_logger: logging.Logger,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("FEATURES_LOG", "debug")
    client = features.Client(
        key_query_api_key="query-secret",
        key_header_api_key="header-secret",
        transport=httpx.MockTransport(answer),
    )
    assert sdk_logger.level == logging.DEBUG
    assert [h for h in sdk_logger.handlers if isinstance(h, logging.StreamHandler)]
    features.Client(key_header_api_key="k")  # a second client adds no second handler
    ours = [h for h in sdk_logger.handlers if getattr(h, "jobgen_sdk", False)]
    assert len(ours) == 1

    with caplog.at_level(logging.INFO, logger="features_sdk"):
        client.things.get("t1")
        client.auth.ping_query()
    lines = [r.getMessage() for r in caplog.records if r.name == "features_sdk.http"]
    assert re.fullmatch(
        r"GET https://features\.example/api/things/t1 -> 200 in (\d+\.\d{3}s|\?) "
        r"\(request id req_7\)",
        lines[0],
    )
    assert lines[1].startswith("GET https://features.example/api/query-key -> 204")
    assert all("secret" not in line for line in lines)


def test_without_the_variable_nothing_is_configured(
    features: ModuleType, sdk_logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FEATURES_LOG", raising=False)
    sdk_logger.handlers.clear()
    features.Client(key_header_api_key="k")
    assert sdk_logger.handlers == []


def test_a_transport_failure_is_logged(
    features: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    client = features.Client(
        key_header_api_key="k", transport=httpx.MockTransport(refuse), max_retries=0
    )
    with (
        caplog.at_level(logging.INFO, logger="features_sdk"),
        pytest.raises(features.errors.APIConnectionError),
    ):
        client.things.get("t1")
    assert "GET https://features.example/api/things/t1 -> ConnectError" in caplog.text


def test_a_query_string_key_is_masked_wherever_the_url_is_shown(
    features: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """The key is sent in the query string as declared, but httpx's request repr, its
    own log line and the SDK's errors show `[secure]` in its place."""
    sent: list[httpx.Request] = []

    def deny(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(401, json={"error": "unknown key"})

    client = features.Client(
        key_query_api_key="query-secret", transport=httpx.MockTransport(deny), max_retries=0
    )
    with (
        caplog.at_level(logging.DEBUG),
        pytest.raises(features.errors.AuthenticationError) as caught,
    ):
        client.auth.ping_query()

    error = caught.value
    assert sent[0].url.params["key"] == "query-secret"  # sent unchanged
    assert "HTTP Request: GET" in caplog.text  # httpx's own line was logged
    shown = {
        "log": caplog.text,
        "message": str(error),
        "request": repr(error.response.request),
        "url": str(error.response.request.url),
        "response url": str(error.response.url),
    }
    assert {name: text for name, text in shown.items() if "query-secret" in text} == {}
    assert "key=[secure]" in shown["request"] and "key=[secure]" in shown["log"]
