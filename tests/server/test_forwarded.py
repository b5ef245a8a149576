"""Absolute URLs the server hands out follow the origin the client used, over real HTTP:
``Forwarded`` (RFC 7239), else ``X-Forwarded-Host`` / ``X-Forwarded-Proto``, else
``Host``; so the simulator works behind a proxy that rewrites ``Host``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from tests.helpers import ROOT

SPEC = ROOT / "specs" / "async_request_reply.yaml"  # 202 + Location, then 303 + Location


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with run_server(SPEC) as running:
        yield running


def _location(server: RunningServer, headers: dict[str, str], scenario: str = "{}") -> str:
    with httpx.Client(base_url=server.base_url) as client:
        answer = client.post(
            "/exports",
            json={"report": "sales"},
            headers={"authorization": "Bearer t", "x-jobgen-scenario": scenario, **headers},
        )
    assert answer.status_code == 202, answer.text
    return answer.headers["location"]


@pytest.mark.parametrize(
    ("headers", "origin"),
    [
        ({}, None),  # the Host header: the server's own address
        ({"host": "api.test:8443"}, "http://api.test:8443"),
        ({"x-forwarded-host": "proxy.test:9000"}, "http://proxy.test:9000"),
        (
            {"x-forwarded-host": "proxy.test, inner.test", "x-forwarded-proto": "https"},
            "https://proxy.test",
        ),
        (
            {"forwarded": 'for=10.0.0.1;host="edge.test:7000";proto=https, host=inner.test'},
            "https://edge.test:7000",
        ),
        # Forwarded wins over X-Forwarded-*; X-Forwarded-Host over Host.
        (
            {"forwarded": "host=edge.test", "x-forwarded-host": "proxy.test", "host": "h.test"},
            "http://edge.test",
        ),
        ({"x-forwarded-host": "[::1]:4000"}, "http://[::1]:4000"),
        # Not a host: ignored, the Host header is used. An unknown scheme is http.
        ({"x-forwarded-host": "evil.test/path@x", "host": "h.test"}, "http://h.test"),
        ({"forwarded": "host=h2.test;proto=gopher"}, "http://h2.test"),
    ],
)
def test_location_follows_the_origin_the_client_used(
    server: RunningServer, headers: dict[str, str], origin: str | None
) -> None:
    location = _location(server, headers)
    expected = origin or server.base_url
    assert location.startswith(expected + "/exports/")
    assert location.endswith("/status")


def test_a_see_other_location_follows_the_origin_too(server: RunningServer) -> None:
    scenario = '{"states": [{"state": "Running", "polls": 1}]}'  # then 303 See Other
    forwarded = {"x-forwarded-host": "proxy.test:9000"}
    monitor = httpx.URL(_location(server, forwarded, scenario))
    headers = {"authorization": "Bearer t", "forwarded": "host=edge.test"}
    with httpx.Client(base_url=server.base_url) as client:
        assert client.get(monitor.path, headers=headers).status_code == 202
        answer = client.get(monitor.path, headers=headers)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("http://edge.test/exports/")
