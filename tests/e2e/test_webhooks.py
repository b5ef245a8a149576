"""Webhooks over real HTTP: `jobgen serve` signs and delivers them to a receiver of the
committed Sume SDK, and waits given that receiver end on the delivery, or fall back to
polling when none comes."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer, run_server
from jobgen.server.listen import base_url, bind, make_server
from tests.e2e.support import APIS, KEY

SECRET = "whsec_" + base64.b64encode(b"e2e webhook secret of 32 bytes!!").decode()
#: A fallback schedule in hundredths of a second, for the waits whose delivery never comes.
FAST_FALLBACK = {"first": 0.02, "floor": 0.02, "cap": 0.05}
#: How long a test waits for something the server does in the background.
PATIENCE = 10.0


class Listener:
    """An HTTP endpoint on 127.0.0.1 that hands each POST to the current receiver.

    Every test posts to its own path, so late retries of another test's deliveries never
    mix with its own. A path answers 500 to its first `fail_first[path]` deliveries (to
    make the server retry), and records what happened to each: "routed", "failed on
    purpose", or the class name of the receiver's `WebhookError`.
    """

    def __init__(self) -> None:
        self.receiver: Any = None
        self.fail_first: dict[str, int] = {}
        self.outcomes: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self.url = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"]]
        path = scope["path"]
        with self._lock:
            failing = self.fail_first.get(path, 0) > 0
            if failing:
                self.fail_first[path] -= 1
        status = 500
        if failing:
            outcome = "failed on purpose"
        else:
            try:
                self.receiver.handle(headers, body)
                status, outcome = 200, "routed"
            except Exception as error:  # noqa: BLE001 - every refusal is recorded
                status, outcome = getattr(error, "status", 500), type(error).__name__
        with self._lock:
            self.outcomes.setdefault(path, []).append(outcome)
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    app = Listener()
    sock = bind("127.0.0.1", 0)
    app.url = base_url(sock)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + PATIENCE
    while not server.started and time.monotonic() < end:
        time.sleep(0.01)
    try:
        yield app
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


@pytest.fixture(scope="module")
def hooks_server() -> Iterator[RunningServer]:
    with run_server(APIS["sume"].spec, webhook_secret=SECRET) as server:
        yield server


@pytest.fixture
def sdk(e2e_sdks: dict[str, ModuleType]) -> ModuleType:
    return e2e_sdks["sume"]


class Harness:
    """One wait, with `Client` or `AsyncClient`, against the webhook server."""

    def __init__(
        self, mode: str, sdk: ModuleType, server: RunningServer, listener: Listener
    ) -> None:
        self.mode, self.sdk, self.server, self.listener = mode, sdk, server, listener
        self.receiver = sdk.Client(api_key=KEY, base_url=server.base_url).jobs.webhook_receiver(
            secret=SECRET
        )
        listener.receiver = self.receiver
        self.path = f"/hooks/{uuid.uuid4().hex}"
        self.url = listener.url + self.path

    @property
    def outcomes(self) -> list[str]:
        return self.listener.outcomes.get(self.path, [])

    def body(self, url: str | None = None) -> Any:
        models = self.sdk.models
        return models.CreateJobRequest(
            input=models.TextInput(type="text", text="hello"),
            mode="webhook",
            webhook_url=self.url if url is None else url,
        )

    def run(self, call: Callable[[Any], Any], **wait_config: float) -> Any:
        config = self.sdk.WaitConfig(decoding="strict", **wait_config)
        options = {"api_key": KEY, "base_url": self.server.base_url, "wait_config": config}
        if self.mode == "sync":
            with self.sdk.Client(**options) as client:
                return call(client.jobs)

        async def main() -> Any:
            async with self.sdk.AsyncClient(**options) as client:
                return await call(client.jobs)

        return asyncio.run(main())

    def create(self, scenario: dict[str, Any]) -> str:
        header = {"x-jobgen-scenario": json.dumps(scenario)}
        with self.sdk.Client(api_key=KEY, base_url=self.server.base_url) as client:
            return str(client.jobs.create(body=self.body(), extra_headers=header).data.id)

    def reads(self, job_id: str) -> int:
        return sum(1 for r in self.server.requests(job_id) if r.operation == "status")

    def deliveries_until(self, job_id: str, done: Callable[[list[Any]], bool]) -> list[Any]:
        end = time.monotonic() + PATIENCE
        while True:
            found = self.server.deliveries(job_id)
            if done(found) or time.monotonic() > end:
                return found
            time.sleep(0.01)


@pytest.fixture
def hooks(mode: str, sdk: ModuleType, hooks_server: RunningServer, listener: Listener) -> Harness:
    return Harness(mode, sdk, hooks_server, listener)


def running(seconds: float = 0.3) -> list[dict[str, Any]]:
    return [{"state": "processing", "seconds": seconds}]


def test_a_delivery_ends_the_wait_with_at_most_one_status_read(hooks: Harness) -> None:
    job_id = hooks.create({"states": running()})
    record = hooks.run(
        lambda jobs: jobs.wait_for_job(job_id, events=hooks.receiver, deadline=PATIENCE)
    )
    assert record.status.value == "completed"
    assert hooks.reads(job_id) <= 1  # the default fallback would wait 30 s before a second
    found = hooks.deliveries_until(job_id, lambda found: len(found) >= 1)
    assert [d.outcome for d in found] == ["delivered"]


def test_create_and_wait_sends_its_url_and_gets_the_result(hooks: Harness) -> None:
    header = {"x-jobgen-scenario": json.dumps({"states": running()})}
    result = hooks.run(
        lambda jobs: jobs.create_and_wait(
            body=hooks.body(), events=hooks.receiver, deadline=PATIENCE, extra_headers=header
        )
    )
    job_id = result.data.job_id
    assert hooks.reads(job_id) <= 1
    (delivery,) = hooks.deliveries_until(job_id, lambda found: len(found) >= 1)
    assert (delivery.url, delivery.state) == (hooks.url, "completed")


def test_dropped_deliveries_fall_back_to_polling(hooks: Harness) -> None:
    job_id = hooks.create({"states": running(0.5), "hint": 0.02, "webhook": {"drop": True}})
    record = hooks.run(
        lambda jobs: jobs.wait_for_job(job_id, events=hooks.receiver, deadline=PATIENCE),
        **FAST_FALLBACK,
    )
    assert record.status.value == "completed"
    assert hooks.reads(job_id) >= 2
    # The server records the dropped attempt on its delivery thread, which may come
    # after the poll that saw the job complete.
    attempts = hooks.deliveries_until(job_id, lambda found: len(found) >= 1)
    assert [d.outcome for d in attempts] == ["dropped"]
    assert hooks.outcomes == []


def test_a_wrongly_signed_delivery_is_refused_and_polling_finishes(hooks: Harness) -> None:
    scenario = {
        "states": running(0.05),
        "hint": 0.02,
        "webhook": {"bad_signature": True, "retry_scale": 0.01},
    }
    job_id = hooks.create(scenario)
    attempts = hooks.deliveries_until(job_id, lambda found: len(found) >= 2)
    assert [(d.outcome, d.status) for d in attempts[:2]] == [("failed", 401)] * 2
    assert set(hooks.outcomes) == {"InvalidSignature"}
    record = hooks.run(
        lambda jobs: jobs.wait_for_job(job_id, events=hooks.receiver, deadline=PATIENCE),
        **FAST_FALLBACK,
    )
    assert record.status.value == "completed" and hooks.reads(job_id) >= 1


def test_a_refused_delivery_raises_an_error_the_sdk_exports(hooks: Harness) -> None:
    """A web app catches it by the SDK's public name, and tracebacks show that name."""
    with pytest.raises(hooks.sdk.WebhookError) as caught:
        hooks.receiver.handle({}, b"{}")
    assert type(caught.value) is hooks.sdk.InvalidSignature
    assert caught.value.status == 401
    assert type(caught.value).__module__ == hooks.sdk.__name__
    assert hooks.sdk.MalformedWebhook.__module__ == hooks.sdk.__name__


def test_a_duplicated_delivery_is_routed_once(hooks: Harness) -> None:
    job_id = hooks.create({"states": [], "webhook": {"duplicate": 2}})
    found = hooks.deliveries_until(job_id, lambda found: len(found) >= 3)
    assert len({d.delivery_id for d in found}) == 1
    assert [d.outcome for d in found] == ["delivered"] * 3
    assert sorted(hooks.outcomes) == ["DuplicateWebhook"] * 2 + ["routed"]
    record = hooks.run(
        lambda jobs: jobs.wait_for_job(job_id, events=hooks.receiver, deadline=PATIENCE)
    )
    assert record.status.value == "completed" and hooks.reads(job_id) == 0


def test_failed_deliveries_are_retried_until_acknowledged(hooks: Harness) -> None:
    hooks.listener.fail_first[hooks.path] = 2
    job_id = hooks.create({"states": [], "webhook": {"retry_scale": 0.01}})
    found = hooks.deliveries_until(job_id, lambda found: len(found) >= 3)
    assert [(d.attempt, d.outcome, d.status) for d in found] == [
        (1, "failed", 500),
        (2, "failed", 500),
        (3, "delivered", 200),
    ]


def test_a_stale_delivery_after_the_terminal_one_changes_nothing(hooks: Harness) -> None:
    job_id = hooks.create({"states": running(0.1), "webhook": {"reorder": True}})
    record = hooks.run(
        lambda jobs: jobs.wait_for_job(job_id, events=hooks.receiver, deadline=PATIENCE)
    )
    assert record.status.value == "completed"
    found = hooks.deliveries_until(job_id, lambda found: len(found) >= 2)
    assert [d.state for d in found] == ["completed", "processing"]
