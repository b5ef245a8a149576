"""Webhook deliveries: signature schemes, the receiver, and waits that end on a delivery."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from typing import Any

import attrs
import httpx
import pytest

from jobgen.runtime.shared.errors import DecodeError, JobTimeout, UnknownJobState
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter
from jobgen.runtime.webhooks.deliveries import (
    DuplicateWebhook,
    InvalidSignature,
    MalformedWebhook,
    StaleWebhook,
    WebhookReceiver,
    WebhookSpec,
    sign_webhook,
)
from jobgen.runtime.webhooks.hybrid import AsyncEventWaits, SyncEventWaits

from .fakes import SUME, WALL_START, FakeClock, Harness, Script, response, sume

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
STANDARD = WebhookSpec(
    record_path=("data",),
    job_id_path=("id",),
    secret_env="SUME_WEBHOOK_SECRET",
    fallback_floor=30.0,
    fallback_first=30.0,
    fallback_cap=120.0,
)
HMAC = WebhookSpec(
    scheme="hmac-sha256",
    timestamp_header="x-sume-timestamp",
    signature_header="x-sume-signature",
    record_path=("data",),
)


def body_of(job_id: str = "job_1", state: str = "completed", **fields: Any) -> bytes:
    terminal = state in ("completed", "failed", "canceled")
    record = {"id": job_id, "status": state, "terminal": terminal, "result_ready": terminal}
    record.update(fields)
    return json.dumps({"data": record}).encode()


def signed(
    body: bytes,
    *,
    spec: WebhookSpec = STANDARD,
    delivery_id: str = "msg_1",
    at: float = WALL_START,
    secret: str = SECRET,
) -> dict[str, str]:
    return sign_webhook(spec, secret, body, delivery_id=delivery_id, timestamp=int(at))


def receiver(spec: WebhookSpec = STANDARD, clock: FakeClock | None = None, **kw: Any):
    wall = clock.wall if clock is not None else (lambda: WALL_START)
    return WebhookReceiver(spec, lambda raw: raw, secret=SECRET, wall_clock=wall, **kw)


# -- signatures ----------------------------------------------------------------------


def test_standard_webhooks_known_answer() -> None:
    """The example of the Standard Webhooks specification verifies."""
    spec = WebhookSpec()
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    headers = sign_webhook(
        spec, secret, body, delivery_id="msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp=1614265330
    )
    assert headers["webhook-signature"] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    check = WebhookReceiver(
        WebhookSpec(job_id_path=("test",)), lambda raw: raw, secret=secret,
        wall_clock=lambda: 1614265330.0,
    )  # fmt: skip
    assert check.verify(headers, body) == ("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330)


@pytest.mark.parametrize("spec", [STANDARD, HMAC], ids=["standard", "hmac"])
def test_a_signed_delivery_is_verified_and_decoded(spec: WebhookSpec) -> None:
    body = body_of("job_9")
    delivery = receiver(spec).handle(signed(body, spec=spec), body)
    assert delivery.job_id == "job_9"
    assert delivery.event == json.loads(body)
    assert delivery.record == json.loads(body)["data"]


@pytest.mark.parametrize("spec", [STANDARD, HMAC], ids=["standard", "hmac"])
def test_tampered_or_foreign_deliveries_are_refused(spec: WebhookSpec) -> None:
    body = body_of()
    other = "whsec_" + base64.b64encode(b"another secret of 32 bytes......").decode()
    for headers, sent in [
        (signed(body, spec=spec), body.replace(b"completed", b"failed")),
        (signed(body, spec=spec, secret=other), body),
    ]:
        with pytest.raises(InvalidSignature, match="does not match"):
            receiver(spec).handle(headers, sent)


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_a_delivery_without_its_headers_is_refused(missing: str) -> None:
    body = body_of()
    headers = signed(body)
    del headers[missing]
    with pytest.raises(InvalidSignature, match=missing):
        receiver().handle(headers, body)


def test_one_matching_signature_of_several_is_enough() -> None:
    body = body_of()
    headers = signed(body)
    headers["webhook-signature"] = "v1,AAAA v2,zzz " + headers["webhook-signature"]
    assert receiver().handle(headers, body).job_id == "job_1"


@pytest.mark.parametrize("skew", [301.0, -301.0])
@pytest.mark.parametrize("spec", [STANDARD, HMAC], ids=["standard", "hmac"])
def test_stale_and_future_deliveries_are_refused(spec: WebhookSpec, skew: float) -> None:
    body = body_of()
    with pytest.raises(StaleWebhook, match="300s tolerance"):
        receiver(spec).handle(signed(body, spec=spec, at=WALL_START - skew), body)
    assert receiver(spec).handle(signed(body, spec=spec, at=WALL_START - 299), body)


def test_a_replayed_delivery_is_a_duplicate_and_not_routed_again() -> None:
    body = body_of()
    events = receiver()
    events.handle(signed(body), body)
    assert events.take("job_1") == [json.loads(body)["data"]]
    with pytest.raises(DuplicateWebhook):
        events.handle(signed(body), body)
    assert events.take("job_1") == []
    assert events.acknowledge(signed(body), body)[0] == 200


def test_malformed_deliveries_name_the_problem() -> None:
    events = receiver()
    with pytest.raises(MalformedWebhook, match="not JSON"):
        events.handle(signed(b"<html>"), b"<html>")
    body = json.dumps({"data": {"status": "completed"}}).encode()
    with pytest.raises(MalformedWebhook, match=r"\$\.data\.id"):
        events.handle(signed(body, delivery_id="msg_2"), body)


def test_the_secret_comes_from_the_declared_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SUME_WEBHOOK_SECRET", raising=False)
    with pytest.raises(ValueError, match="SUME_WEBHOOK_SECRET"):
        WebhookReceiver(STANDARD, lambda raw: raw)
    monkeypatch.setenv("SUME_WEBHOOK_SECRET", SECRET)
    events = WebhookReceiver(STANDARD, lambda raw: raw, wall_clock=lambda: WALL_START)
    body = body_of()
    assert events.handle(signed(body), body).job_id == "job_1"
    assert SECRET not in repr(events)


def test_acknowledge_maps_errors_to_statuses() -> None:
    body = body_of()
    events = receiver()
    assert events.acknowledge(signed(body), body)[0] == 200
    assert events.acknowledge(signed(body, delivery_id="m2"), body + b" ")[0] == 401
    assert events.acknowledge(signed(body, delivery_id="m3", at=0), body)[0] == 401
    assert events.acknowledge(signed(b"[", delivery_id="m4"), b"[")[0] == 400


def test_the_wsgi_and_asgi_apps_acknowledge_deliveries() -> None:
    body = body_of()
    events = receiver()
    environ = {
        "REQUEST_METHOD": "POST",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in signed(body).items()},
    }
    started: list[str] = []
    answer = events.wsgi_app()(environ, lambda status, headers: started.append(status))
    assert started == ["200 OK"] and b"job_1" in b"".join(answer)

    sent: list[dict[str, Any]] = []
    other = body_of("job_2")
    headers = [(k.encode(), v.encode()) for k, v in signed(other, delivery_id="m2").items()]

    async def asgi() -> None:
        messages = iter([{"body": other[:10], "more_body": True}, {"body": other[10:]}])

        async def receive() -> dict[str, Any]:
            return next(messages)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "headers": headers}
        await events.asgi_app()(scope, receive, send)

    asyncio.run(asgi())
    assert sent[0]["status"] == 200
    assert events.take("job_2") == [json.loads(other)["data"]]


def test_early_deliveries_are_kept_per_job_and_bounded() -> None:
    events = receiver(max_jobs=2, max_per_job=2)
    for n, (job_id, state) in enumerate(
        [("a", "queued"), ("b", "queued"), ("b", "processing"), ("b", "completed"), ("c", "failed")]
    ):
        body = body_of(job_id, state)
        events.handle(signed(body, delivery_id=f"m{n}"), body)
    assert events.take("a") == []  # the oldest job was dropped
    assert [r["status"] for r in events.take("b")] == ["processing", "completed"]  # type: ignore[index]
    assert [r["status"] for r in events.take("c")] == ["failed"]  # type: ignore[index]


# -- waits that listen for deliveries ----------------------------------------------


def hybrid(mode: str, steps: list[Any], clock: FakeClock, **kw: Any):
    script = Script(steps, clock)
    harness = Harness(mode, SUME, script, clock.config(), **kw)
    waits: Any = (SyncEventWaits if mode == "sync" else AsyncEventWaits)(harness.waiter)

    def call(name: str, *args: Any, **kwargs: Any) -> Any:
        result = getattr(waits, name)(*args, **kwargs)
        return result if mode == "sync" else asyncio.run(result)

    return script, call


def deliver(events: WebhookReceiver[Any], clock: FakeClock, state: str, n: int = 0) -> None:
    body = body_of("job_1", state)
    events.handle(signed(body, delivery_id=f"msg_{n}", at=clock.wall()), body)


def test_a_delivery_before_the_wait_ends_it_without_a_status_read(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    script, call = hybrid(mode, [sume("processing")], clock)
    deliver(events, clock, "completed")
    record = call("wait_for_job", "job_1", events=events, deadline=60)
    assert record["status"] == "completed"
    assert script.count == 0 and clock.sleeps == []


def test_a_delivery_during_the_fallback_sleep_ends_the_wait(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    plain_sleep = clock.sleep

    def sleep_then_deliver(seconds: float) -> None:
        plain_sleep(seconds)
        deliver(events, clock, "completed")

    clock.sleep = sleep_then_deliver  # type: ignore[method-assign]
    script, call = hybrid(mode, [sume("processing", next_poll_after_seconds=2)], clock)
    record = call("wait_for_job", "job_1", events=events, deadline=600)
    assert record["status"] == "completed"
    assert script.count == 0  # the wait listens before its first read
    assert clock.sleeps == [30.0]


def test_without_deliveries_the_fallback_schedule_finishes_the_wait(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    steps = [sume("processing", next_poll_after_seconds=2)] * 3 + [sume("completed")]
    script, call = hybrid(mode, steps, clock)
    record = call("wait_for_job", "job_1", events=events, deadline=600)
    assert record["status"] == "completed"
    assert script.count == 4
    assert clock.sleeps == [30.0, 30.0, 30.0, 30.0]  # listening first, then the fallback
    # floor beats Sume's 2 s hint


def test_a_delivered_undocumented_state_is_an_unknown_state(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    script, call = hybrid(mode, [sume("processing")], clock)
    deliver(events, clock, "exploded")
    with pytest.raises(UnknownJobState, match="exploded"):
        call("wait_for_job", "job_1", events=events, deadline=60)
    assert script.count == 0


def test_a_wait_listens_until_its_deadline_then_times_out(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    script, call = hybrid(mode, [sume("processing", next_poll_after_seconds=2)], clock)
    with pytest.raises(JobTimeout) as caught:
        call("wait_for_job", "job_1", events=events, deadline=45)
    # It listens half the time left, reads once, and the next poll (30 s later) would not
    # fit before 45 s: it listens until then.
    assert script.count == 1
    assert clock.sleeps == [22.5, 22.5]
    assert caught.value.job_id == "job_1" and caught.value.resume_token


def test_wait_for_result_fetches_once_a_ready_delivery_arrives(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    fetched: list[str] = []

    def result(job_id: str, time_left: float) -> str:
        fetched.append(job_id)
        return "summary"

    script, call = hybrid(mode, [sume("processing")], clock, result=result)
    deliver(events, clock, "completed")
    assert call("wait_for_result", "job_1", events=events, deadline=60) == "summary"
    assert fetched == ["job_1"] and script.count == 0


def test_a_delivery_after_the_first_read_ends_the_wait(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    plain_sleep = clock.sleep

    def sleep_then_deliver(seconds: float) -> None:
        plain_sleep(seconds)
        if len(clock.sleeps) == 2:
            deliver(events, clock, "completed")

    clock.sleep = sleep_then_deliver  # type: ignore[method-assign]
    script, call = hybrid(mode, [sume("processing", next_poll_after_seconds=2)], clock)
    assert call("wait_for_job", "job_1", events=events, deadline=600)["status"] == "completed"
    assert script.count == 1 and clock.sleeps == [30.0, 30.0]


def test_without_events_the_waits_are_the_waiters_own(mode: str) -> None:
    clock = FakeClock()
    _, call = hybrid(mode, [sume("processing"), sume("completed")], clock)
    assert call("wait_for_job", "job_1", deadline=60)["status"] == "completed"
    assert clock.sleeps == [2.0]  # the job's own floor, not the fallback


def test_create_and_wait_ends_on_the_new_jobs_delivery(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    keys: list[str | None] = []

    def create(key: str | None, time_left: float | None) -> httpx.Response:
        keys.append(key)
        deliver(events, clock, "completed")  # the job is done before its wait starts
        return response(201, {"data": {"id": "job_1", "status": "queued"}})

    async def acreate(key: str | None, time_left: float | None) -> httpx.Response:
        return create(key, time_left)

    fetch = lambda job_id, _left: f"result of {job_id}"
    script, call = hybrid(mode, [sume("processing")], clock, result=fetch)
    made = create if mode == "sync" else acreate
    assert call("create_and_wait", made, events=events, deadline=60) == "result of job_1"
    assert len(keys) == 1 and keys[0] is not None  # one create, with its idempotency key
    assert script.count == 0 and clock.sleeps == []


def _created(mode: str, answer: httpx.Response) -> Any:
    def create(key: str | None, time_left: float | None) -> httpx.Response:
        return answer

    async def acreate(key: str | None, time_left: float | None) -> httpx.Response:
        return answer

    return create if mode == "sync" else acreate


def test_a_listening_create_and_wait_reads_first_when_the_create_answer_says(
    mode: str,
) -> None:
    # W7: the create answer is the first status read, on the fallback schedule; its
    # Retry-After (45 s, over the fallback's 30) schedules the first status read
    clock = FakeClock()
    events = receiver(clock=clock)
    answer = sume("queued", headers={"Retry-After": "45"})
    answer.status_code = 202
    fetch = lambda job_id, _left: f"result of {job_id}"
    script, call = hybrid(mode, [sume("completed", result_ready=True)], clock, result=fetch)

    result = call("create_and_wait", _created(mode, answer), events=events, deadline=600)

    assert result == "result of job_1"
    assert script.count == 1
    assert clock.sleeps == [45.0]  # listening until the first read is due, then one read


def test_a_listening_create_and_wait_ends_on_a_terminal_create_answer(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    answer = sume("completed", result_ready=True)
    fetch = lambda job_id, _left: f"result of {job_id}"
    script, call = hybrid(mode, [sume("processing")], clock, result=fetch)

    result = call("create_and_wait", _created(mode, answer), events=events, deadline=600)

    assert result == "result of job_1"
    assert script.count == 0 and clock.sleeps == []  # no status read, no listening


def test_a_listening_wait_that_times_out_sends_the_cancel(mode: str) -> None:
    clock = FakeClock()
    events = receiver(clock=clock)
    script = Script([sume("processing", next_poll_after_seconds=2)], clock)
    sent: list[tuple[str, float]] = []

    def cancel(job_id: str, time_left: float) -> None:
        sent.append((job_id, time_left))

    async def acancel(job_id: str, time_left: float) -> None:
        cancel(job_id, time_left)

    async def aread(job_id: str, timeout: float) -> httpx.Response:
        return script(job_id, timeout)

    config = clock.config(cancel_on_timeout=True)
    if mode == "sync":
        sync = SyncJobWaiter(
            SUME, read_status=script, decode_record=lambda r: r, config=config, cancel=cancel
        )
        waits: Any = SyncEventWaits(sync)
    else:
        waiter = AsyncJobWaiter(
            SUME, read_status=aread, decode_record=lambda r: r, config=config, cancel=acancel
        )
        waits = AsyncEventWaits(waiter)
    with pytest.raises(JobTimeout) as caught:
        outcome = waits.wait_for_job("job_1", events=events, deadline=45)
        if mode == "async":
            asyncio.run(outcome)
    # Listened until the deadline (as above), then the cancel, within the deadline and 0.9 s.
    assert clock.sleeps == [22.5, 22.5] and script.count == 1
    assert sent == [("job_1", pytest.approx(0.9))]
    assert caught.value.canceled and caught.value.job_id == "job_1"


def test_an_async_wait_wakes_on_a_delivery_in_the_middle_of_its_sleep() -> None:
    """The sleep never ends by itself: only the delivery can end the wait."""
    clock = FakeClock()
    events = receiver(clock=clock)
    forever = asyncio.Event()

    async def endless_sleep(seconds: float) -> None:
        await forever.wait()

    script = Script([sume("processing")], clock)
    harness = Harness("async", SUME, script, clock.config(async_sleep=endless_sleep))
    waits = AsyncEventWaits(harness.waiter)

    async def scenario() -> Any:
        wait = asyncio.ensure_future(waits.wait_for_job("job_1", events=events, deadline=600))
        while not events._wakers.get("job_1"):  # until the wait listens
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        deliver(events, clock, "completed")
        return await wait

    assert asyncio.run(scenario())["status"] == "completed"
    assert script.count == 0


def test_an_event_that_does_not_decode_is_malformed() -> None:
    def decode(raw: object) -> object:
        raise DecodeError("expected an object", path="$.data")

    events = WebhookReceiver(STANDARD, decode, secret=SECRET, wall_clock=lambda: WALL_START)
    body = body_of()
    with pytest.raises(MalformedWebhook, match=r"does not decode: .*expected an object"):
        events.handle(signed(body), body)
    assert events.acknowledge(signed(body, delivery_id="m2"), body)[0] == 400


# -- hardening: replays, configuration, hostile requests ------------------------------


def test_an_hmac_replay_with_another_id_header_is_a_duplicate() -> None:
    """The id header is not signed under hmac-sha256: four deliveries of one signed body,
    each with its own id, reach the job once."""
    spec = attrs.evolve(HMAC, id_header="x-sume-delivery")
    events = receiver(spec)
    body = body_of()
    answers = [
        events.acknowledge({**signed(body, spec=spec), "x-sume-delivery": f"d{n}"}, body)
        for n in range(4)
    ]
    assert [status for status, _ in answers] == [200, 200, 200, 200]
    assert ["received" in text for _, text in answers] == [True, False, False, False]
    assert events.take("job_1") == [json.loads(body)["data"]]


def test_an_hmac_delivery_with_a_new_timestamp_is_new() -> None:
    events = receiver(HMAC)
    body = body_of()
    events.handle(signed(body, spec=HMAC), body)
    events.handle(signed(body, spec=HMAC, at=WALL_START - 1), body)
    assert len(events.take("job_1")) == 2


@pytest.mark.parametrize(
    "secret",
    ["whsec_", "whsec_" + base64.b64encode(b"15 bytes of key").decode(), "short", b"short"],
)
def test_empty_and_short_keys_are_refused(secret: str | bytes) -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        WebhookReceiver(HMAC, lambda raw: raw, secret=secret)
    with pytest.raises(ValueError, match="at least 16 bytes"):
        sign_webhook(HMAC, secret, b"{}", delivery_id="m", timestamp=1)


@pytest.mark.parametrize("name", ["HOME", "PATH", "1_WEBHOOK_SECRET", "sume_webhook_secret"])
def test_secret_env_must_name_a_webhook_secret(name: str) -> None:
    with pytest.raises(ValueError, match="secret_env must name a webhook secret"):
        WebhookSpec(secret_env=name)


@pytest.mark.parametrize("tolerance", [0, -1, 3601, 1e308, float("nan"), float("inf")])
def test_tolerance_outside_its_range_is_refused(tolerance: float) -> None:
    with pytest.raises(ValueError, match="tolerance must be a number of seconds from 1 to 3600"):
        WebhookSpec(tolerance=tolerance)


def test_a_non_ascii_header_is_refused_as_unsigned() -> None:
    body = body_of()
    headers = {**signed(body), "webhook-id": "msg_\xe9"}
    assert receiver().acknowledge(headers, body)[0] == 401
    # a non-ASCII header the receiver does not read is no problem
    assert receiver().acknowledge({**signed(body), "user-agent": "caf\xe9"}, body)[0] == 200


def test_a_signed_deeply_nested_body_is_malformed() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    status, text = receiver().acknowledge(signed(body), body)
    assert (status, text) == (400, "the delivery body nests too deeply")


def _environ(body: bytes, *, method: str = "POST", length: str | None = None) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": method,
        "CONTENT_LENGTH": str(len(body)) if length is None else length,
        "wsgi.input": io.BytesIO(body),
        **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in signed(body).items()},
    }


class Unreadable(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def read(self, size: int = -1) -> bytes:
        raise AssertionError("the body was read")


def wsgi(events: WebhookReceiver[Any], environ: dict[str, Any]) -> tuple[str, bytes]:
    started: list[str] = []
    answer = events.wsgi_app()(environ, lambda status, headers: started.append(status))
    return started[0], b"".join(answer)


@pytest.mark.parametrize("length", ["abc", "-1", "1e3", "\u0661"])
def test_wsgi_refuses_a_content_length_that_is_not_a_size(length: str) -> None:
    body = body_of()
    status, _ = wsgi(receiver(), {**_environ(body, length=length), "wsgi.input": Unreadable()})
    assert status == "400 Bad Request"


def test_wsgi_refuses_a_long_body_unread_and_checks_headers_first() -> None:
    body = body_of()
    events = receiver(max_body=len(body) - 1)
    status, text = wsgi(events, {**_environ(body), "wsgi.input": Unreadable()})
    assert status == "413 Content Too Large" and str(len(body) - 1).encode() in text
    unsigned = {"REQUEST_METHOD": "POST", "CONTENT_LENGTH": "400000000", "wsgi.input": Unreadable()}
    assert wsgi(events, unsigned)[0] == "401 Unauthorized"
    stale = {**_environ(body), "HTTP_WEBHOOK_TIMESTAMP": "1", "wsgi.input": Unreadable()}
    assert wsgi(events, stale)[0] == "401 Unauthorized"


def test_a_get_is_refused_before_verification() -> None:
    body = body_of()
    events = receiver()
    status, _ = wsgi(events, {**_environ(body, method="GET"), "wsgi.input": Unreadable()})
    assert status == "405 Method Not Allowed"
    # the delivery was neither verified nor remembered: its POST is handled
    assert wsgi(events, _environ(body))[0] == "200 OK"
    assert events.take("job_1") == [json.loads(body)["data"]]


def asgi(events: WebhookReceiver[Any], body: bytes, chunk: int, method: str = "POST") -> Any:
    headers = [(k.encode(), v.encode()) for k, v in signed(body).items()]
    parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    messages = [{"body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]
    received: list[int] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        received.append(1)
        return messages[len(received) - 1]

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "headers": headers}
    asyncio.run(events.asgi_app()(scope, receive, send))
    return sent[0]["status"], len(received)


def test_asgi_stops_reading_past_the_body_cap() -> None:
    body = body_of(padding="x" * 1000)
    status, reads = asgi(receiver(max_body=100), body, chunk=10)
    assert status == 413 and reads == 11
    assert asgi(receiver(), body, chunk=10, method="GET") == (405, 0)


def test_the_inbox_is_bounded_by_bytes() -> None:
    big = [body_of(f"job_{n}", padding="x" * 5000) for n in range(5)]
    events = receiver(max_inbox_bytes=3 * len(big[0]))
    for n, body in enumerate(big):
        events.handle(signed(body, delivery_id=f"m{n}"), body)
    assert [bool(events.take(f"job_{n}")) for n in range(5)] == [False, False, True, True, True]
