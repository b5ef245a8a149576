"""Anthropic Message Batches, end to end: a generated SDK (sync and async) against a
server written from Anthropic's documentation (`tests/vendors/anthropic.py`).

The job declares a cancel operation and no canceled state: a canceled batch goes
`canceling`, then the ordinary `ended`, and its results report each request that was
not processed as `canceled`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.vendors.anthropic import KEY, VERSION, AnthropicBatches
from tests.vendors.server import Seen, Sleeps, VendorServer, assert_backoff, drive, vendor_sdk

REQUESTS = [
    {
        "custom_id": "first",
        "params": {
            "model": "claude-3-5-sonnet-20240620",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "Hello, world"}],
        },
    },
    {
        "custom_id": "second",
        "params": {
            "model": "claude-3-5-sonnet-20240620",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "Hi again"}],
        },
    },
]


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("anthropic")
    with vendor_sdk(out, "anthropic_batches", "anthropic_batches_sdk") as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def body(sdk: ModuleType) -> Any:
    return sdk.models.CreateMessageBatchParams.from_dict({"requests": REQUESTS})


def run(
    mode: str, sdk: ModuleType, scripts: list[list[str]], steps: Any, **settings: Any
) -> tuple[Any, VendorServer, Sleeps]:
    """`steps(client, done)` against a fresh API whose batches follow `scripts`."""
    api = AnthropicBatches(scripts=scripts)
    server = VendorServer(api)
    api.base_url = server.url
    sleeps = Sleeps()
    config = sleeps.config(sdk, **settings)
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    with server.running():
        made = drive(
            mode,
            lambda: client(api_key=KEY, base_url=server.url, wait_config=config),
            steps,
        )
    return made, server, sleeps


def expected_results(*custom_ids: str, canceled: bool = False) -> bytes:
    lines = []
    for custom_id in custom_ids:
        if canceled:
            lines.append({"custom_id": custom_id, "result": {"type": "canceled"}})
            continue
        message = {
            "id": f"msg_{custom_id}",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-sonnet-20240620",
            "content": [{"type": "text", "text": f"Hello from {custom_id}"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        lines.append({"custom_id": custom_id, "result": {"type": "succeeded", "message": message}})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


#: Headers of the transport itself, left out of the comparisons.
TRANSPORT = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length"})


def assert_headers(
    seen: Seen, accept: str = "application/json", *, json_body: bool = False
) -> None:
    """Anthropic's two headers on every request, and no other credential."""
    headers = {k: v for k, v in seen.headers.items() if k not in TRANSPORT}
    expected = {"accept": accept, "anthropic-version": VERSION, "x-api-key": KEY}
    if json_body:
        expected["content-type"] = "application/json"
    assert headers == expected
    if not json_body:
        assert seen.body == b""


def assert_create(seen: Seen) -> None:
    assert (seen.method, seen.path, seen.query) == ("POST", "/v1/messages/batches", ())
    assert_headers(seen, json_body=True)
    assert seen.body == json.dumps({"requests": REQUESTS}, separators=(",", ":")).encode()


def assert_reads(server: VendorServer, start: int = 1) -> None:
    """Every request after the create: no body, and the results read as JSON Lines."""
    for seen in server.seen[start:]:
        accept = "application/x-jsonl" if seen.path.endswith("/results") else "application/json"
        assert seen.query == ()
        assert_headers(seen, accept)


BATCH = "/v1/messages/batches/msgbatch_01"


def test_create_and_wait_returns_the_jsonl_results(mode: str, sdk: ModuleType) -> None:
    events: list[Any] = []

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.messages.create_and_wait(body=body(sdk), on_poll=events.append))

    results, server, sleeps = run(mode, sdk, [["in_progress", "in_progress", "ended"]], steps)
    assert results == expected_results("first", "second")
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
    ]
    # The results come from the ended batch's results_url.
    ended = events[-1].record
    assert ended.processing_status == "ended"
    assert ended.results_url == server.url + BATCH + "/results"
    assert_create(server.seen[0])
    assert_reads(server)
    # The declared backoff (first 1 s, doubling), no jitter injected.
    assert_backoff(sleeps.delays, reads=3, first=1.0)
    assert [(e.state, e.delay, e.source) for e in events][-3:] == [
        ("in_progress", sleeps.delays[-2], "backoff"),
        ("in_progress", sleeps.delays[-1], "backoff"),
        ("ended", None, None),
    ]


def test_wait_for_result_by_the_batch_id(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.messages.create_batch(body=body(sdk)))
        assert batch.processing_status == "in_progress"
        assert batch.request_counts.processing == 2
        return await done(client.messages.wait_for_result(batch.id))

    results, server, sleeps = run(mode, sdk, [["in_progress", "ended"]], steps)
    assert results == expected_results("first", "second")
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
    ]
    assert_create(server.seen[0])
    assert_reads(server)
    assert sleeps.delays == [1.0]


def test_a_handle_polls_then_fetches_the_results(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.messages.create_batch(body=body(sdk)))
        handle = client.messages.handle(batch.id)
        assert handle.job_id == "msgbatch_01"
        first = await done(handle.poll())
        assert (first.state, first.done, first.delay) == ("in_progress", False, 1.0)
        return await done(handle.result())

    results, server, sleeps = run(mode, sdk, [["in_progress", "in_progress", "ended"]], steps)
    assert results == expected_results("first", "second")
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
    ]
    assert_create(server.seen[0])
    assert_reads(server)
    # poll() leaves the sleeping to its caller; result() reads at once, then backs off.
    assert sleeps.delays == [2.0]


def test_a_canceled_batch_ends_and_its_results_say_canceled(mode: str, sdk: ModuleType) -> None:
    """handle.cancel(): `canceling`, then the ordinary `ended`; the wait returns the
    results, each request not processed reported `canceled`, and the record says the
    batch was canceled (`cancel_initiated_at`, `request_counts.canceled`)."""

    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.messages.create_batch(body=body(sdk)))
        handle = client.messages.handle(batch.id)
        await done(handle.poll())
        await done(handle.cancel())
        results = await done(handle.result())
        record = await done(handle.status())
        return results, record

    (results, record), server, sleeps = run(mode, sdk, [["in_progress"]], steps)
    assert sleeps.delays == [2.0]
    assert results == expected_results("first", "second", canceled=True)
    assert record.processing_status == "ended"
    assert record.cancel_initiated_at is not None
    assert record.request_counts.canceled == 2
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("POST", BATCH + "/cancel"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
        ("GET", BATCH),
    ]
    assert_create(server.seen[0])
    assert_reads(server)


def test_cancel_on_timeout_sends_the_cancel(mode: str, sdk: ModuleType) -> None:
    """A wait that runs out of time cancels the batch (cancel_on_timeout) and says so."""

    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.JobTimeout) as caught:
            await done(client.messages.create_and_wait(body=body(sdk), deadline=5.0))
        return caught.value

    error, server, _ = run(mode, sdk, [["in_progress"]], steps, cancel_on_timeout=True)
    assert error.job_id == "msgbatch_01" and "msgbatch_01" in str(error)
    assert error.canceled is True
    assert error.last_state == "in_progress"
    assert server.lines()[0] == ("POST", "/v1/messages/batches")
    assert set(server.lines()[1:-1]) == {("GET", BATCH)}
    assert server.lines()[-1] == ("POST", BATCH + "/cancel")
    assert_create(server.seen[0])
    assert_reads(server)


def test_an_unknown_batch_raises_naming_it(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.NotFoundError) as caught:
            await done(client.messages.wait_for_result("msgbatch_99"))
        return caught.value

    error, server, sleeps = run(mode, sdk, [], steps)
    assert error.job_id == "msgbatch_99" and "msgbatch_99" in str(error)
    assert error.status_code == 404
    assert server.lines() == [("GET", "/v1/messages/batches/msgbatch_99")]
    assert_reads(server, start=0)
    assert sleeps.delays == []


def test_overloaded_answers_are_retried(mode: str, sdk: ModuleType) -> None:
    """529 overloaded_error on a status read is retried apart from the poll schedule
    (W6: 408, 429 and every status from 500 up); the wait goes on."""

    async def steps(client: Any, done: Any) -> Any:
        events: list[Any] = []
        batch = await done(client.messages.create_batch(body=body(sdk)))
        results = await done(client.messages.wait_for_result(batch.id, on_poll=events.append))
        return results, [event.delay for event in events]

    (results, polls), server, _ = run(
        mode, sdk, [["in_progress", "overloaded", "overloaded", "ended"]], steps
    )
    assert results == expected_results("first", "second")
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
    ]
    assert [seen.path for seen in server.seen] == [p for _, p in server.lines()]
    assert polls == [1.0, None]  # the retries did not advance the poll schedule
    assert_create(server.seen[0])
    assert_reads(server)


def test_the_readme_says_how_a_canceled_batch_reads(sdk: ModuleType) -> None:
    readme = (Path(sdk.__file__).parents[1] / "README.md").read_text()
    assert (
        "`cancel(job_id)` asks the server to cancel the job; the job has no canceled state,"
        " so a canceled job ends in a state the server reports (`ended`: a success, whose"
        " result holds what was done before the cancel)."
    ) in readme.replace("\n", " ")


def test_start_returns_a_handle_on_the_new_batch(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        handle = await done(client.messages.start(body=body(sdk)))
        assert handle.job_id == "msgbatch_01"
        return await done(handle.result())

    results, server, sleeps = run(mode, sdk, [["in_progress", "ended"]], steps)
    assert results == expected_results("first", "second")
    assert server.lines() == [
        ("POST", "/v1/messages/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH + "/results"),
    ]
    assert_create(server.seen[0])
    assert_reads(server)
    assert_backoff(sleeps.delays, reads=2, first=1.0)
