"""Requests as the spec routes and bounds them: paths matched without backtracking, bodies
of every declared media type accepted, hostile bodies refused with bounded work, and every
refusal naming its violations by JSON pointer in the spec's error shape, as a generated
SDK's exception shows it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from tests.helpers import imported_sdk

SPEC = Path(__file__).parent / "specs" / "requests.yaml"
KEY = {"x-api-key": "key-1"}
PATTERN = r"^(\w+\s?)*(?=[A-Z])\w*$"
UNDECIDABLE = "a" * 40 + "!"


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with run_server(SPEC) as running:
        yield running


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    server.reset()
    with httpx.Client(base_url=server.base_url, headers=KEY) as http:
        yield http


def _error(answer: httpx.Response) -> str:
    """The text of an error in the spec's shape, AssemblyAI's ``{"error", "status"}``."""
    body: Any = answer.json()
    assert set(body) == {"error", "status"} and body["status"] == "error", body
    assert isinstance(body["error"], str)
    return body["error"]


def _violations(answer: httpx.Response) -> list[str]:
    text = _error(answer)
    assert text.startswith("the request does not match the spec: "), text
    return text.removeprefix("the request does not match the spec: ").split("; ")


def _multipart(*parts: bytes) -> tuple[bytes, dict[str, str]]:
    body = b"".join(b"--b\r\n" + part + b"\r\n" for part in parts) + b"--b--\r\n"
    return body, {"content-type": "multipart/form-data; boundary=b"}


TITLE_PART = b'Content-Disposition: form-data; name="title"\r\n'


# -- routing ---------------------------------------------------------------------------


def test_a_parameter_before_a_literal_ends_at_its_last_occurrence(client: httpx.Client) -> None:
    assert client.post("/files/report.v2.gz").status_code == 202
    refused = client.post("/files/report.v2.tar")
    assert refused.status_code == 400
    assert _violations(refused) == ['/path/ext: "tar" is not one of "gz" or "zip"']


@pytest.mark.timeout(30)
def test_adjacent_parameters_match_any_path_long_enough_without_backtracking(
    client: httpx.Client, server: RunningServer
) -> None:
    for path in ["/" + "a" * 30 + "!/jobs", "/" + "a" * 8000 + "/jobs", "/abcdefghij/jobs"]:
        assert client.post(path).status_code == 202, path
    assert [r.job_name for r in server.requests()] == ["adjacent"] * 3
    # Ten parameters need ten characters at least. A backtracking regex tries every split
    # of the 40 characters before it gives up on the last path (C(39, 9), some 2e8 of
    # them: minutes); the matcher reads each path once.
    assert client.post("/abcdefghi/jobs").status_code == 404
    assert client.post("/" + "a" * 40 + "/jobx").status_code == 404


def test_a_create_accepts_each_media_type_it_declares(
    client: httpx.Client, server: RunningServer
) -> None:
    form = client.post("/notes", data={"title": "minutes", "pages": "2"})
    parts = client.post("/notes", files={"title": (None, "minutes"), "pages": (None, "2")})
    as_json = client.post("/notes", json={"title": "minutes", "pages": 2})
    assert [a.status_code for a in (form, parts, as_json)] == [202, 202, 202]
    assert [r.violations for r in server.requests()] == [(), (), ()]
    refused = client.post("/notes", data={"pages": "0"})
    assert _violations(refused) == [
        "/body/title: is required",
        "/body/pages: 0 is less than the minimum of 1",
    ]


def test_the_lenient_server_accepts_a_form_where_json_is_declared_too() -> None:
    with (
        run_server(SPEC, strict=False) as lenient,
        httpx.Client(base_url=lenient.base_url, headers=KEY) as client,
    ):
        assert client.post("/notes", data={"title": "minutes"}).status_code == 202
        assert client.post("/notes", files={"title": (None, "minutes")}).status_code == 202
        broken = client.post("/notes", content=b"{", headers={"content-type": "application/json"})
        assert broken.status_code == 400


# -- bounded work ------------------------------------------------------------------------


def test_a_header_folded_200000_times_is_refused_at_the_header_bound(
    client: httpx.Client,
) -> None:
    body, headers = _multipart(TITLE_PART + b"X-Long: a" + b"\r\n a" * 200_000 + b"\r\n\r\nx")
    assert len(body) < 1 << 20
    refused = client.post("/notes", content=body, headers=headers)
    assert refused.status_code == 400
    assert _violations(refused) == [
        "/body: is not a multipart body: Maximum segment header length exceeded"
    ]


def test_a_part_of_more_header_lines_than_the_bound_is_refused(client: httpx.Client) -> None:
    lines = b"".join(f"X-Line-{i}: a\r\n".encode() for i in range(16))
    body, headers = _multipart(TITLE_PART + lines + b"\r\nx")
    refused = client.post("/notes", content=body, headers=headers)
    assert _violations(refused) == [
        "/body: is not a multipart body: Maximum segment header count exceeded"
    ]
    fifteen = b"".join(f"X-Line-{i}: a\r\n".encode() for i in range(15))
    body, headers = _multipart(TITLE_PART + fifteen + b"\r\nx")
    assert client.post("/notes", content=body, headers=headers).status_code == 202


def test_ten_thousand_parts_are_refused_at_the_part_bound(client: httpx.Client) -> None:
    body, headers = _multipart(*[TITLE_PART + b"\r\nx"] * 10_000)
    refused = client.post("/notes", content=body, headers=headers)
    assert _violations(refused) == [
        "/body: is not a multipart body: Maximum segment count exceeded"
    ]


def test_parts_nested_a_thousand_deep_are_read_as_the_outer_part_s_text(
    client: httpx.Client, server: RunningServer
) -> None:
    inner = b"x"
    for depth in range(1000):
        b = f"n{depth}".encode()
        inner = b"Content-Type: multipart/mixed; boundary=" + b + b"\r\n\r\n--" + b + b"\r\n"
        inner += b"x\r\n--" + b + b"--"
    body, headers = _multipart(TITLE_PART + b"\r\n" + inner)
    assert client.post("/notes", content=body, headers=headers).status_code == 202


def test_a_form_of_more_fields_than_the_bound_is_refused(
    client: httpx.Client, server: RunningServer
) -> None:
    fields = "&".join(f"f{i}=x" for i in range(100_000))
    refused = client.post(
        "/notes", content=fields, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert _violations(refused) == ["/body: has more than 1000 fields"]
    (record,) = server.requests()
    assert record.body is not None and record.body.endswith(f"({len(fields):,} bytes in all)")


def test_a_lone_surrogate_is_a_400_and_the_log_stays_readable(
    client: httpx.Client, server: RunningServer
) -> None:
    refused = client.post(
        "/notes",
        content=b'{"title": "\\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert refused.status_code == 400
    (violation,) = _violations(refused)
    assert violation.startswith("/body: is not JSON: a string holds a lone surrogate")
    # The same in a scenario (a state the spec does not document may be any string), and a
    # valid pair of surrogates is fine.
    scenario = '{"undocumented_state": "\\udfff"}'
    header = client.post("/notes", json={"title": "t"}, headers={"x-jobgen-scenario": scenario})
    assert header.json()["error"] == {
        "field": "x-jobgen-scenario",
        "message": "is not JSON: a string holds a lone surrogate, which is not Unicode text",
    }
    control = client.post("/_jobgen/jobs", params={"job_name": "note"}, content=scenario)
    assert control.status_code == 400
    pair = client.post(
        "/notes",
        content=b'{"title": "\\ud83d\\ude00"}',
        headers={"content-type": "application/json"},
    )
    assert pair.status_code == 202
    for headers in (KEY, {}):
        log = httpx.get(f"{server.base_url}/_jobgen/requests", headers=headers)
        assert log.status_code == 200
    mine = httpx.get(f"{server.base_url}/_jobgen/requests", headers=KEY).json()["requests"]
    assert [r["status"] for r in mine] == [400, 400, 202]


def test_a_value_the_pattern_engine_gives_up_on_is_refused_naming_the_pattern(
    client: httpx.Client,
) -> None:
    assert client.post("/labels", json={"label": "some Label"}).status_code == 202
    refused = client.post("/labels", json={"label": UNDECIDABLE})
    assert refused.status_code == 400
    assert _violations(refused) == [
        (
            f"/body/label: cannot be checked against the spec's pattern {json.dumps(PATTERN)}: the "
            "regular expression engine gave up after 20,000 backtracking steps (a pattern with "
            "look-around or back-references, nested quantifiers and a long value)"
        )
    ]


# -- errors through a generated SDK -----------------------------------------------------


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(SPEC, tmp_path_factory.mktemp("sdk"), "requests_errors_sdk") as module:
        yield module


def test_the_sdk_s_exception_names_each_violation(sdk: ModuleType, server: RunningServer) -> None:
    note = sdk.models.NoteRequest(title="minutes")
    with sdk.Client(base_url=server.base_url, api_key="key-1") as client:
        with pytest.raises(sdk.errors.BadRequestError) as refused:
            client.notes.create(body=note, extra_body={"pages": 0})
        with pytest.raises(sdk.errors.BadRequestError) as undecided:
            client.labels.create(body=sdk.models.CreateLabelBody(label=UNDECIDABLE))
    assert str(refused.value).endswith(
        "the request does not match the spec: /body/pages: 0 is less than the minimum of 1"
    )
    assert "/body/label: cannot be checked against the spec's pattern" in str(undecided.value)


def test_the_async_sdk_s_exception_names_each_violation(
    sdk: ModuleType, server: RunningServer
) -> None:
    async def refuse() -> str:
        note = sdk.models.NoteRequest(title="minutes")
        async with sdk.AsyncClient(base_url=server.base_url, api_key="key-1") as client:
            with pytest.raises(sdk.errors.BadRequestError) as refused:
                await client.notes.create(body=note, extra_body={"pages": 0})
        return str(refused.value)

    assert asyncio.run(refuse()).endswith(
        "the request does not match the spec: /body/pages: 0 is less than the minimum of 1"
    )


def test_a_large_json_body_is_logged_masked_as_far_as_the_log_keeps_it(
    client: httpx.Client, server: RunningServer
) -> None:
    body = {"api_token": "tok-1", "title": "t", "notes": ["x" * 100] * 9000}
    raw = json.dumps(body).encode()
    sent = client.post("/notes", content=raw, headers={"content-type": "application/json"})
    assert sent.status_code == 202
    (record,) = server.requests()
    assert record.body is not None
    assert record.body.startswith('{"api_token": "***", "title": "t", "notes": ["xxx')
    assert record.body.endswith(f"... ({len(raw):,} bytes in all)")
    assert "tok-1" not in record.body
