"""The one rule for secret-looking names, tested against the list docs/security.md gives:
every name it lists as masked, and a name made of each of its words and stems, is masked
wherever a request shows itself (reprs, errors, httpx's own log line), as a query parameter
and as a header, by both clients; the names it lists as shown stay in clear."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from types import ModuleType

import httpx
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
SECRET = "s3cr3t-value-planted"


def documented() -> dict[str, list[str]]:
    """The rows of the table "secret-looking names" of docs/security.md, by first cell."""
    rows: dict[str, list[str]] = {}
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| secret-looking names |") :].split("\n\n")[0]
    for line in table.splitlines()[2:]:
        first, cells = line.strip("|").split("|", 1)
        rows[first.strip()] = re.findall(r"`([^`]+)`", cells)
    return rows


ROWS = documented()
MASKED = [
    *ROWS["masked, for instance"],
    *(f"x-{word}-id" for word in ROWS["words"]),
    *(f"my{stem}v2" for stem in ROWS["stems"]),
]
SHOWN = ROWS["shown, for instance"]


def test_the_documented_list_is_the_one_the_issue_names() -> None:
    """The 21 names found in clear or masked by the fourth hardening pass are listed."""
    assert len(ROWS["masked, for instance"]) == 21
    assert {"Key-Pair-Id", "AWSAccessKeyId", "X-Amz-Security-Token"} <= set(MASKED)
    assert ROWS["words"] and ROWS["stems"] and SHOWN


def _shown_by(
    features: ModuleType,
    is_async: bool,
    caplog: pytest.LogCaptureFixture,
    query: dict[str, str],
    headers: dict[str, str],
) -> tuple[httpx.Request, dict[str, str]]:
    sent: list[httpx.Request] = []

    def deny(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(401, json={"error": "unknown key"})

    async def adeny(request: httpx.Request) -> httpx.Response:
        return deny(request)

    errors = features.errors
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        if is_async:

            async def main() -> BaseException:
                async with features.AsyncClient(
                    key_header_api_key="k",
                    transport=httpx.MockTransport(adeny),
                    max_retries=0,
                ) as client:
                    try:
                        await client.things.get("t1", extra_query=query, extra_headers=headers)
                    except errors.AuthenticationError as error:
                        return error
                raise AssertionError("no error")

            error = asyncio.run(main())
        else:
            with (
                features.Client(
                    key_header_api_key="k", transport=httpx.MockTransport(deny), max_retries=0
                ) as client,
                pytest.raises(errors.AuthenticationError) as caught,
            ):
                client.things.get("t1", extra_query=query, extra_headers=headers)
            error = caught.value
    assert isinstance(error, errors.AuthenticationError)
    assert "HTTP Request: GET" in caplog.text  # httpx's own line was logged
    request = error.response.request
    shown = {
        "log": caplog.text,
        "message": str(error),
        "error": repr(error),
        "request": repr(request),
        "headers": repr(request.headers),
        "url": str(request.url),
        "url repr": repr(request.url),
        "response url": str(error.response.url),
    }
    return sent[0], shown


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_every_documented_secret_name_is_masked_wherever_a_request_shows(
    features: ModuleType, is_async: bool, caplog: pytest.LogCaptureFixture
) -> None:
    query = {name: f"{SECRET}-{i}" for i, name in enumerate(MASKED)}
    headers = {name: f"{SECRET}-h{i}" for i, name in enumerate(MASKED)}
    request, shown = _shown_by(features, is_async, caplog, query, headers)

    # Sent unchanged ...
    for name, value in query.items():
        assert request.url.params[name] == value
    for name, value in headers.items():
        assert request.headers[name] == value
    # ... and shown nowhere.
    leaks = {where: text for where, text in shown.items() if SECRET in text}
    assert leaks == {}
    assert "[secure]" in shown["log"] and "[secure]" in shown["headers"]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_the_documented_plain_names_stay_in_clear(
    features: ModuleType, is_async: bool, caplog: pytest.LogCaptureFixture
) -> None:
    query = {name: f"plain{i}" for i, name in enumerate(SHOWN)}
    headers = {f"x-{name}": f"plainh{i}" for i, name in enumerate(SHOWN)}
    _, shown = _shown_by(features, is_async, caplog, query, headers)

    for name, value in query.items():
        assert f"{name}={value}" in shown["log"]
        assert f"{name}={value}" in shown["request"]
    for value in headers.values():
        assert value in shown["headers"]
