"""Secrets stay out of what errors show: credentials in the base URL and credential
headers are masked in reprs, messages and logs, for every request an error reaches."""

from __future__ import annotations

import base64
import logging

import httpx
import pytest

from tests.waiters.support import STRIPE, SUME, Twin

PASSWORD = "hunter2-url-secret"
API_KEY = "sk-sume-header-secret"
TOKEN = "tok-custom-header-secret"
SECRETS = (PASSWORD, API_KEY, TOKEN)


def _client(twin: Twin, flavour, handler, **options):
    sdk = twin.sdk(flavour)
    if twin.is_async:

        async def ahandler(request: httpx.Request) -> httpx.Response:
            return handler(request)

        cls, transport = sdk.AsyncClient, httpx.MockTransport(ahandler)
    else:
        cls, transport = sdk.Client, httpx.MockTransport(handler)
    config = sdk.WaitConfig(
        sleep=lambda s: None,
        async_sleep=_no_sleep,
        status_retry=sdk._runtime.RetryPolicy(attempts=2),
    )
    return cls(
        base_url=f"https://robot:{PASSWORD}@api.example.com",
        transport=transport,
        wait_config=config,
        headers={"X-Auth-Token": TOKEN},
        **options,
    )


async def _no_sleep(seconds: float) -> None:
    return None


def _shown(error: BaseException) -> list[str]:
    """Everything an error shows, down to the requests it reaches."""
    texts = [str(error), repr(error)]
    for inner in (error, getattr(error, "last_error", None), error.__cause__):
        if inner is None:
            continue
        texts += [str(inner), repr(inner)]
        requests = [getattr(inner, "request", None)]
        response = getattr(inner, "response", None)
        if response is not None:
            requests.append(response.request)
        for request in filter(None, requests):
            texts += [repr(request), repr(request.headers), repr(request.url), str(request.url)]
    return texts


def _assert_masked(texts: list[str]) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, text


def test_a_401_shows_no_credential(twin: Twin, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(401, json={"code": "unauthorized", "message": "bad key"})

    client = _client(twin, SUME, handler, api_key=API_KEY)
    errors = twin.sdk(SUME).errors
    caplog.set_level(logging.DEBUG)

    with pytest.raises(errors.AuthenticationError) as caught:
        twin_run(twin, client, lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    _assert_masked(_shown(caught.value) + [repr(client)] + caplog.messages)
    assert "[secure]" in repr(caught.value.response.request.headers)
    # The credentials are still sent: the URL's as basic auth, the key in its header.
    (request,) = seen
    basic = base64.b64encode(f"robot:{PASSWORD}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {basic}"
    assert request.headers["x-api-key"] == API_KEY
    assert request.headers["x-auth-token"] == TOKEN
    assert request.url.userinfo == b""


def test_an_unavailable_status_endpoint_shows_no_credential(
    twin: Twin, caplog: pytest.LogCaptureFixture
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"error": {"message": "down"}})

    client = _client(twin, STRIPE, handler, token=API_KEY)
    errors = twin.sdk(STRIPE).errors
    caplog.set_level(logging.DEBUG)

    with pytest.raises(errors.StatusUnavailable) as caught:
        twin_run(twin, client, lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    _assert_masked(_shown(caught.value) + caplog.messages)
    assert caplog.messages, "nothing was logged"


def test_a_connection_error_shows_no_credential(
    twin: Twin, caplog: pytest.LogCaptureFixture
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = _client(twin, SUME, handler, api_key=API_KEY)
    errors = twin.sdk(SUME).errors
    caplog.set_level(logging.DEBUG)

    with pytest.raises(errors.StatusUnavailable) as caught:
        twin_run(twin, client, lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert isinstance(caught.value.last_error, errors.APIConnectionError)
    assert "api.example.com" in str(caught.value.last_error)
    _assert_masked(_shown(caught.value) + caplog.messages)


def twin_run(twin: Twin, client, call):
    if not twin.is_async:
        with client:
            return call(client)

    import asyncio

    async def main():
        async with client:
            return await call(client)

    return asyncio.run(main())
