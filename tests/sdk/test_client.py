"""The generated Client/AsyncClient: auth on the wire, errors, retries, headers, secrets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import httpx
import pytest

THING = {
    "id": "6f1c5e0a-8a5b-4a57-9d5e-0c8f1f2f9b11",
    "created_at": "2026-11-29T08:00:00Z",
    "color": "red",
    "tags": [],
}
SECRETS = {
    "key_header_api_key": "header-secret-1",
    "key_query_api_key": "query-secret-2",
    "key_cookie_api_key": "cookie-secret-3",
    "token": "bearer-secret-4",
    "username": "ada",
    "password": "basic-secret-5",
}

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport handler that records requests and answers from a script."""

    def __init__(self, *responses: httpx.Response) -> None:
        self.requests: list[httpx.Request] = []
        self.responses = list(responses)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if len(self.responses) > 1:
            return self.responses.pop(0)
        return self.responses[0]


def client(sdk: ModuleType, handler: Handler, **kwargs: Any) -> Any:
    sleeps: list[float] = []
    timing = sdk.Timing(sleep=sleeps.append, rng=lambda: 0.5)
    return sdk.Client(**SECRETS, transport=httpx.MockTransport(handler), timing=timing, **kwargs)


def ok(body: Any = None, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=THING if body is None else body, headers=headers)


def test_api_key_header(features: ModuleType) -> None:
    rec = Recorder(ok())
    client(features, rec).things.get("t1")
    assert rec.requests[0].headers["X-Key"] == "header-secret-1"
    assert "authorization" not in rec.requests[0].headers


def test_api_key_query(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(204))
    assert client(features, rec).auth.ping_query() is None
    assert rec.requests[0].url.params["key"] == "query-secret-2"


def test_api_key_cookie(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(200, text="pong"))
    assert client(features, rec).auth.ping_cookie() == "pong"
    assert rec.requests[0].headers["Cookie"] == "session=cookie-secret-3"


def test_bearer(features: ModuleType) -> None:
    rec = Recorder(ok({"kind": "cat", "name": "Tom"}, 201))
    animal = client(features, rec).animals.create(body=features.models.Cat(kind="cat", name="Tom"))
    assert rec.requests[0].headers["Authorization"] == "Bearer bearer-secret-4"
    assert json.loads(rec.requests[0].content) == {"kind": "cat", "name": "Tom"}
    assert isinstance(animal, features.models.Cat)


def test_basic(features: ModuleType) -> None:
    rec = Recorder(ok({"value": 1}))
    client(features, rec).trees.get()
    assert rec.requests[0].headers["Authorization"] == "Basic YWRhOmJhc2ljLXNlY3JldC01"


def test_missing_credential_is_not_sent(features: ModuleType) -> None:
    rec = Recorder(ok())
    features.Client(token="t", transport=httpx.MockTransport(rec)).things.get("t1")
    assert "X-Key" not in rec.requests[0].headers
    assert "Authorization" not in rec.requests[0].headers  # getThing takes the key only


def test_path_query_and_default_parameters(features: ModuleType) -> None:
    rec = Recorder(ok())
    client(features, rec).things.get("a/b c", expand=["x", "y"])
    url = rec.requests[0].url
    assert url.raw_path.startswith(b"/api/things/a%2Fb%20c?")
    assert url.params.get_list("expand") == ["x", "y"]
    assert url.params["verbose"] == "false"


def test_user_agent_and_default_headers(features: ModuleType) -> None:
    rec = Recorder(ok())
    client(features, rec, headers={"X-Trace": "t-1"}).things.get("t1")
    assert rec.requests[0].headers["User-Agent"] == "features-sdk/1.2.3"
    assert rec.requests[0].headers["X-Trace"] == "t-1"


def test_injected_http_client_is_used_and_not_closed(features: ModuleType) -> None:
    rec = Recorder(ok())
    http = httpx.Client(transport=httpx.MockTransport(rec))
    with features.Client(
        key_header_api_key="k", base_url="https://other.example/v9", http_client=http
    ) as c:
        c.things.get("t1")
    assert str(rec.requests[0].url).startswith("https://other.example/v9/things/t1")
    assert not http.is_closed


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "BadRequestError"),
        (401, "AuthenticationError"),
        (403, "PermissionDeniedError"),
        (404, "NotFoundError"),
        (409, "ConflictError"),
        (422, "UnprocessableEntityError"),
        (429, "RateLimitError"),
        (500, "InternalServerError"),
        (503, "InternalServerError"),
        (418, "APIStatusError"),
    ],
)
def test_status_errors_map_to_one_class_each(features: ModuleType, status: int, name: str) -> None:
    body = {"error": {"code": "nope"}}
    rec = Recorder(httpx.Response(status, json=body, headers={"x-request-id": "req-7"}))
    with pytest.raises(features.errors.APIStatusError) as caught:
        client(features, rec, max_retries=0).things.get("t1")
    error = caught.value
    assert type(error).__name__ == name
    assert error.status_code == status
    assert error.body == body
    assert error.request_id == "req-7"
    assert isinstance(error, features.errors.SDKError)


def test_connection_and_timeout_errors(features: ModuleType) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(features.errors.APIConnectionError) as caught:
        client(features, refuse, max_retries=0).things.get("t1")
    assert not isinstance(caught.value, features.errors.APITimeoutError)
    with pytest.raises(features.errors.APITimeoutError):
        client(features, slow, max_retries=0).things.get("t1")


def test_idempotent_requests_are_retried(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(503), httpx.Response(502), ok())
    thing = client(features, rec, max_retries=2).things.get("t1")
    assert len(rec.requests) == 3
    assert thing.color == "red"


def test_posts_without_idempotency_key_are_not_retried(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(503), ok({"kind": "cat", "name": "Tom"}, 201))
    with pytest.raises(features.errors.InternalServerError):
        client(features, rec, max_retries=3).animals.create(
            body=features.models.Cat(kind="cat", name="Tom")
        )
    assert len(rec.requests) == 1


def test_secrets_never_appear_in_reprs_or_errors(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(401, json={"message": "bad key"}))
    c = client(features, rec, max_retries=0)
    with pytest.raises(features.errors.AuthenticationError) as caught:
        c.things.get("t1")
    texts = [
        repr(c),
        repr(c._http),
        str(caught.value),
        repr(caught.value),
        repr(c._http._credentials),
    ]
    for secret in SECRETS.values():
        if secret != "ada":
            assert all(secret not in text for text in texts), secret


def test_non_json_body_is_a_decode_error(features: ModuleType) -> None:
    rec = Recorder(httpx.Response(200, text="<html>"))
    with pytest.raises(features.errors.DecodeError):
        client(features, rec).things.get("t1")


def test_async_client_has_the_same_operations(features: ModuleType) -> None:
    rec = Recorder(ok())

    async def main() -> Any:
        async with features.AsyncClient(**SECRETS, transport=httpx.MockTransport(rec)) as c:
            return await c.things.get("t1", expand=["x"])

    thing = asyncio.run(main())
    assert thing.color == "red"
    assert rec.requests[0].headers["X-Key"] == "header-secret-1"


def test_sync_and_async_signatures_match(features: ModuleType) -> None:
    import inspect

    from features_sdk.resources import things

    for name, method in inspect.getmembers(things.Things, inspect.isfunction):
        if name.startswith("_"):
            continue
        twin = getattr(things.AsyncThings, name)
        assert inspect.signature(method) == inspect.signature(twin), name
