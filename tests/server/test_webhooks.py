"""`jobgen serve` as a webhook sender: scenarios, the delivery log, signing and the CLI."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from jobgen.runtime.webhooks.deliveries import WebhookReceiver, WebhookSpec
from jobgen.server import RunningServer, run_server
from jobgen.server.listen import base_url, bind, make_server
from jobgen.server.scenario import ScenarioError
from tests.helpers import SPECS
from tests.server.test_cli import JOBGEN, serving

SECRET = "whsec_c2VydmVyIHRlc3Qgc2VjcmV0IG9mIDMyIGJ5dGVzIQ=="
PATIENCE = 10.0


class Inbox:
    """Collects the POSTs it receives: (headers, body)."""

    def __init__(self) -> None:
        self.received: list[tuple[list[tuple[str, str]], bytes]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        message = await receive()
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"]]
        self.received.append((headers, message.get("body", b"")))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@pytest.fixture(scope="module")
def inbox() -> Iterator[tuple[Inbox, str]]:
    app = Inbox()
    sock = bind("127.0.0.1", 0)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield app, base_url(sock)
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


@pytest.fixture(scope="module")
def sender(inbox: tuple[Inbox, str]) -> Iterator[RunningServer]:
    with run_server(SPECS / "sume.yaml", webhook_url=inbox[1], webhook_secret=SECRET) as server:
        yield server


def settled(server: RunningServer, job_id: str, count: int) -> list[Any]:
    end = time.monotonic() + PATIENCE
    while len(found := server.deliveries(job_id)) < count and time.monotonic() < end:
        time.sleep(0.01)
    return found


def test_the_server_url_receives_a_verifiable_delivery(
    sender: RunningServer, inbox: tuple[Inbox, str]
) -> None:
    job_id = sender.create_job({"states": [{"state": "processing", "seconds": 0.05}]})
    (delivery,) = settled(sender, job_id, 1)
    assert (delivery.url, delivery.state, delivery.outcome, delivery.status) == (
        inbox[1],
        "completed",
        "delivered",
        204,
    )
    headers, body = next((h, b) for h, b in inbox[0].received if job_id.encode() in b)
    spec = WebhookSpec(record_path=("data",))
    verified = WebhookReceiver(spec, lambda raw: raw, secret=SECRET).handle(headers, body)
    assert verified.job_id == job_id and verified.delivery_id == delivery.delivery_id
    assert json.loads(body)["data"]["status"] == "completed"


def test_lost_attempts_are_retried_on_the_schedule(sender: RunningServer) -> None:
    scenario = {"states": [], "webhook": {"drop_attempts": 2, "retry_scale": 0.01}}
    job_id = sender.create_job(scenario)
    found = settled(sender, job_id, 3)
    assert [(d.attempt, d.outcome) for d in found] == [(1, "lost"), (2, "lost"), (3, "delivered")]


def test_an_unreachable_url_is_tried_up_to_the_attempt_limit(sender: RunningServer) -> None:
    dead = bind("127.0.0.1", 0)
    url = base_url(dead) + "/gone"
    dead.close()  # nothing listens there any more
    scenario = {"states": [], "webhook": {"url": url, "retry_scale": 0.0001}}
    job_id = sender.create_job(scenario)
    found = settled(sender, job_id, 10)
    time.sleep(0.05)  # an eleventh attempt would be due by now
    assert [d.attempt for d in sender.deliveries(job_id)] == list(range(1, 11))
    assert {d.outcome for d in found} == {"failed"}


def test_the_control_endpoint_lists_the_callers_deliveries(sender: RunningServer) -> None:
    job_id = sender.create_job({"states": []}, credential="key-1")
    settled(sender, job_id, 1)
    mine = httpx.get(f"{sender.base_url}/_jobgen/webhooks", headers={"x-api-key": "key-1"})
    theirs = httpx.get(f"{sender.base_url}/_jobgen/webhooks", headers={"x-api-key": "key-2"})
    assert [d["job_id"] for d in mine.json()["deliveries"]] == [job_id]
    assert theirs.json() == {"deliveries": []}


@pytest.mark.parametrize(
    ("webhook", "field"),
    [
        ({"drop": "yes"}, "webhook.drop"),
        ({"duplicate": -1}, "webhook.duplicate"),
        ({"url": "ftp://x"}, "webhook.url"),
        ({"retries": 3}, "webhook.retries"),
    ],
)
def test_bad_webhook_scenarios_name_the_field(
    sender: RunningServer, webhook: dict[str, Any], field: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        sender.create_job({"webhook": webhook})
    assert caught.value.field == field


def test_a_job_without_webhooks_refuses_webhook_faults() -> None:
    with (
        run_server(SPECS / "stripe_report_runs.yaml") as server,
        pytest.raises(ScenarioError, match="declares no webhooks"),
    ):
        server.create_job({"webhook": {"drop": True}})


def test_the_banner_shows_the_secret_and_a_bad_url_is_refused() -> None:
    with serving("specs/sume.yaml", "--port", "0", "--webhook-secret", SECRET) as (_, _, banner):
        assert any(SECRET in line for line in banner)
    refused = subprocess.run(
        [str(JOBGEN), "serve", "specs/sume.yaml", "--webhook-url", "example.com/hooks"],
        cwd=SPECS.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
    assert "--webhook-url must be an http:// or https:// URL" in refused.stderr
    assert "Traceback" not in refused.stderr
