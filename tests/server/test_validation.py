"""The strict server refuses every request that breaks its operation's contract, naming
each violation by JSON pointer: one planted wrong request per rule (parameters of every
location, by required, type, format, enum, bounds, style and explode; the Content-Type;
JSON, form, multipart and binary bodies), next to the right request that passes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, run_server

SPEC = Path(__file__).parent / "specs" / "contract.yaml"
KEY = {"x-api-key": "key-1"}
REQUEST_ID = "9d1c8a4e-2b3f-4c5d-8e6f-7a8b9c0d1e2f"
RENDER = {"source_url": "https://example.com/in.mov", "preset": "fast"}
CREATE_QUERY = {"api-version": "2024-01-01"}
CREATE_HEADERS = {"x-request-id": REQUEST_ID}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = run_server(SPEC).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    server.reset()
    with httpx.Client(base_url=server.base_url, headers=KEY) as http:
        yield http


def _message(answer: httpx.Response) -> str:
    """The message of an error in the spec's shape, ``{"error": {"code", "message"}}``."""
    body: Any = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    message = body["error"]["message"]
    assert isinstance(message, str)
    return message


def _refused(answer: httpx.Response, status: int, *violations: str) -> None:
    assert answer.status_code == status, answer.text
    message = _message(answer)
    assert message.startswith("the request does not match the spec: ")
    named = message.removeprefix("the request does not match the spec: ").split("; ")
    assert named == list(violations)


def _render(client: httpx.Client, server: RunningServer) -> str:
    return server.create_job(job_name="render", credential="key-1")


def _status(client: httpx.Client, server: RunningServer, **kwargs: Any) -> httpx.Response:
    return client.get(f"/renders/{_render(client, server)}", **kwargs)


# -- the right requests ----------------------------------------------------------------


def test_requests_that_keep_the_contract_are_answered(
    client: httpx.Client, server: RunningServer
) -> None:
    created = client.post(
        "/renders", params=CREATE_QUERY, headers=CREATE_HEADERS, json={**RENDER, "count": None}
    )
    assert created.status_code == 202, created.text
    read = _status(
        client,
        server,
        params={
            "limit": "5",
            "verbose": "true",
            "fields": "status,progress",
            "ids": "1|2",
            "filter[since]": "2024-05-01",
            "filter[level]": "2",
        },
        headers={"x-trace": "1, 2", "cookie": "region=eu"},
    )
    assert read.status_code == 200, read.text
    form = client.post("/uploads", data={"name": "a", "size": "3", "labels": ["x", "y"]})
    assert form.status_code == 202, form.text
    scan = client.post(
        "/scans",
        files={
            "file": ("a.bin", b"\x00\xff"),
            "options": (None, '{"depth": 2}', "application/json"),
        },
        data={"lang": "de"},
    )
    assert scan.status_code == 202, scan.text
    image = client.post("/images", content=b"\x89PNG", headers={"content-type": "image/png"})
    assert image.status_code == 202, image.text
    assert all(r.fault is None for r in server.requests())


# -- parameters ------------------------------------------------------------------------


def test_a_path_parameter_of_the_wrong_format(client: httpx.Client) -> None:
    _refused(
        client.get("/renders/not-a-uuid"), 400, '/path/render_id: "not-a-uuid" is not a "uuid"'
    )


def test_a_required_query_parameter_missing(client: httpx.Client) -> None:
    answer = client.post("/renders", headers=CREATE_HEADERS, json=RENDER)
    # The create declares 422 and no 400: FastAPI's way, for parameters as for the body.
    _refused(answer, 422, "/query/api-version: is required")


def test_a_query_parameter_outside_its_enum(client: httpx.Client) -> None:
    answer = client.post(
        "/renders", params={"api-version": "2023"}, headers=CREATE_HEADERS, json=RENDER
    )
    _refused(answer, 422, '/query/api-version: "2023" is not one of "2024-01-01"')


def test_a_query_parameter_of_the_wrong_type(client: httpx.Client, server: RunningServer) -> None:
    answer = _status(client, server, params={"limit": "many"})
    _refused(answer, 400, '/query/limit: "many" is not of type "integer"')


def test_a_query_parameter_out_of_bounds(client: httpx.Client, server: RunningServer) -> None:
    answer = _status(client, server, params={"limit": "0"})
    _refused(answer, 400, "/query/limit: 0 is less than the minimum of 1")


def test_a_boolean_query_parameter(client: httpx.Client, server: RunningServer) -> None:
    answer = _status(client, server, params={"verbose": "yes"})
    _refused(answer, 400, '/query/verbose: "yes" is not of type "boolean"')


def test_a_form_array_without_explode_is_split_on_commas(
    client: httpx.Client, server: RunningServer
) -> None:
    answer = _status(client, server, params={"fields": "status,cost"})
    _refused(answer, 400, '/query/fields/1: "cost" is not one of "status" or "progress"')


def test_a_pipe_delimited_array_is_split_on_pipes(
    client: httpx.Client, server: RunningServer
) -> None:
    answer = _status(client, server, params={"ids": "1|x"})
    _refused(answer, 400, '/query/ids/1: "x" is not of type "integer"')


def test_a_deep_object_is_read_from_its_bracketed_keys(
    client: httpx.Client, server: RunningServer
) -> None:
    answer = _status(client, server, params={"filter[since]": "May", "filter[level]": "x"})
    _refused(
        answer,
        400,
        '/query/filter/since: "May" is not a "date"',
        '/query/filter/level: "x" is not of type "integer"',
    )


def test_label_and_matrix_path_parameters_are_read_by_their_style(
    client: httpx.Client,
) -> None:
    assert client.post("/tags/.1.2/;x=1;y=2").status_code == 202
    answer = client.post("/tags/.1.x/;x=1;y=z")
    _refused(
        answer,
        400,
        '/path/labels/1: "x" is not of type "integer"',
        '/path/point/y: "z" is not of type "integer"',
    )


def test_a_required_header_missing(client: httpx.Client) -> None:
    answer = client.post("/renders", params=CREATE_QUERY, json=RENDER)
    _refused(answer, 422, "/header/X-Request-Id: is required")


def test_a_header_of_the_wrong_format(client: httpx.Client) -> None:
    answer = client.post(
        "/renders", params=CREATE_QUERY, headers={"x-request-id": "7"}, json=RENDER
    )
    _refused(answer, 422, '/header/X-Request-Id: "7" is not a "uuid"')


def test_a_simple_header_array_is_split_on_commas(
    client: httpx.Client, server: RunningServer
) -> None:
    answer = _status(client, server, headers={"x-trace": "1,two"})
    _refused(answer, 400, '/header/X-Trace/1: "two" is not of type "integer"')


def test_a_cookie_outside_its_enum(client: httpx.Client, server: RunningServer) -> None:
    answer = _status(client, server, headers={"cookie": "region=mars; other=1"})
    _refused(answer, 400, '/cookie/region: "mars" is not one of "eu" or "us"')


# -- media types -----------------------------------------------------------------------


def test_a_body_of_an_undeclared_media_type_is_415(client: httpx.Client) -> None:
    answer = client.post(
        "/renders",
        params=CREATE_QUERY,
        headers={**CREATE_HEADERS, "content-type": "text/html"},
        content=json.dumps(RENDER),
    )
    _refused(answer, 415, "/header/Content-Type: text/html: the operation takes application/json")


def test_a_body_without_a_content_type_is_415(client: httpx.Client) -> None:
    answer = client.post("/images", content=b"\x89PNG")
    _refused(
        answer, 415, "/header/Content-Type: is missing: the operation takes image/png, image/jpeg"
    )


def test_a_binary_body_of_another_media_type_is_415(client: httpx.Client) -> None:
    answer = client.post("/images", content=b"<html>", headers={"content-type": "text/html"})
    _refused(
        answer, 415, "/header/Content-Type: text/html: the operation takes image/png, image/jpeg"
    )


def test_a_required_body_missing(client: httpx.Client) -> None:
    answer = client.post("/images")
    _refused(answer, 400, "/body: is required")


# -- JSON bodies -----------------------------------------------------------------------


def test_a_json_body_that_is_not_json(client: httpx.Client) -> None:
    answer = client.post(
        "/renders",
        params=CREATE_QUERY,
        headers={**CREATE_HEADERS, "content-type": "application/json"},
        content=b"{preset: fast}",
    )
    assert answer.status_code == 422
    assert _message(answer).startswith("the request does not match the spec: /body: is not JSON")


def test_a_json_body_breaking_its_schema_is_422_where_the_spec_declares_422(
    client: httpx.Client, server: RunningServer
) -> None:
    """Every violation is named, by pointer, in one answer; the readOnly ``id`` is not
    required of a request; ``nullable`` lets ``count`` be null but not a string."""
    answer = client.post(
        "/renders",
        params=CREATE_QUERY,
        headers=CREATE_HEADERS,
        json={"preset": "nope", "count": "3", "tags": ["a", "b", "c"]},
    )
    _refused(
        answer,
        422,
        "/body/source_url: is required",
        '/body/preset: "nope" is not one of "fast" or "slow"',
        '/body/count: "3" is not of types "null", "integer"',
        '/body/tags: ["a","b","c"] has more than 2 items',
    )
    [logged] = [r for r in server.requests() if r.operation == "create"]
    assert logged.fault == "invalid_request" and logged.status == 422
    assert logged.violations[0] == "/body/source_url: is required"
    assert server.app.store.jobs == {}


def test_a_json_body_of_the_wrong_format(client: httpx.Client) -> None:
    answer = client.post(
        "/renders",
        params=CREATE_QUERY,
        headers=CREATE_HEADERS,
        json={**RENDER, "source_url": "not a uri"},
    )
    _refused(answer, 422, '/body/source_url: "not a uri" is not a "uri"')


# -- forms and multipart bodies ----------------------------------------------------------


def test_a_form_body_is_typed_by_its_schema(client: httpx.Client) -> None:
    answer = client.post("/uploads", data={"size": "big", "labels": ["a", "b", "c"]})
    _refused(
        answer,
        400,
        "/body/name: is required",
        '/body/size: "big" is not of type "integer"',
        '/body/labels: ["a","b","c"] has more than 2 items',
    )


def test_multipart_parts_are_checked_by_their_schema_and_encoding(client: httpx.Client) -> None:
    answer = client.post(
        "/scans",
        files={"options": (None, '{"depth": 9}', "application/json")},
        data={"lang": "fr"},
    )
    _refused(
        answer,
        400,
        "/body/file: is required",
        '/body/lang: "fr" is not one of "en" or "de"',
        "/body/options/depth: 9 is greater than the maximum of 5",
    )


def test_a_multipart_body_without_its_boundary(client: httpx.Client) -> None:
    answer = client.post(
        "/scans", content=b"--x\r\n", headers={"content-type": "multipart/form-data"}
    )
    _refused(answer, 415, "/header/Content-Type: a multipart body needs a boundary")


# -- lenient ---------------------------------------------------------------------------


def test_the_lenient_server_answers_what_the_strict_one_refuses() -> None:
    with (
        run_server(SPEC, strict=False) as lenient,
        httpx.Client(base_url=lenient.base_url, headers=KEY) as client,
    ):
        created = client.post("/renders", params=CREATE_QUERY, json={"preset": "nope"})
        image = client.post("/images", content=b"<html>", headers={"content-type": "text/html"})
    assert (created.status_code, image.status_code) == (202, 202)
    assert [r.violations for r in lenient.requests()] == [(), ()]
