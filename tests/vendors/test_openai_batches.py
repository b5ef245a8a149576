"""OpenAI Batches, end to end: a generated SDK (sync and async) against a server
written from OpenAI's documentation (`tests/vendors/openai.py`).

The result is the file the finished batch names: `output_file_id` is carried from the
terminal record into `GET /v1/files/{file_id}/content` (`from: record:/output_file_id`).
A batch that fails with an `error_file_id` (an expired one) has that file downloaded
the same way, and it goes with `BatchFailed` as `failure_result`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.vendors.openai import KEY, OpenAIBatches, Plan, error_line, jsonl, output_line
from tests.vendors.server import Sleeps, VendorServer, assert_backoff, drive, vendor_sdk

CREATE = {
    "input_file_id": "file-in-1",
    "endpoint": "/v1/chat/completions",
    "completion_window": "24h",
}
#: Headers of the transport itself, left out of the comparisons.
TRANSPORT = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length"})


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("openai")
    with vendor_sdk(out, "openai_batches", "openai_batches_sdk") as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def body(sdk: ModuleType) -> Any:
    return sdk.models.CreateBatchRequest.from_dict(CREATE)


def run(
    mode: str, sdk: ModuleType, plans: list[Plan], steps: Any
) -> tuple[Any, VendorServer, Sleeps]:
    """`steps(client, done)` against a fresh API whose batches follow `plans`."""
    server = VendorServer(OpenAIBatches(plans=plans))
    sleeps = Sleeps()
    config = sleeps.config(sdk)
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    with server.running():
        made = drive(
            mode, lambda: client(token=KEY, base_url=server.url, wait_config=config), steps
        )
    return made, server, sleeps


def assert_wire(server: VendorServer) -> None:
    """The create's JSON body, byte for byte; every request authenticated as the docs
    say, with no query and (but the create) no body."""
    create = server.seen[0]
    assert create.body == json.dumps(CREATE, separators=(",", ":")).encode()
    for seen in server.seen:
        headers = {k: v for k, v in seen.headers.items() if k not in TRANSPORT}
        expected = {"authorization": f"Bearer {KEY}"}
        if seen.path.startswith("/v1/files/"):
            expected["accept"] = "application/jsonl"
        else:
            expected["accept"] = "application/json"
        if seen is create:
            expected["content-type"] = "application/json"
        else:
            assert seen.body == b""
        assert headers == expected
        assert seen.query == ()


DONE = Plan(("validating", "in_progress", "finalizing", "completed"), outputs=("a", "b"))
BATCH = "/v1/batches/batch_001"


def test_create_and_wait_downloads_the_output_file(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.batches.create_and_wait(body=body(sdk)))

    output, server, sleeps = run(mode, sdk, [DONE], steps)
    assert output == jsonl([output_line("a"), output_line("b")])
    assert server.lines() == [
        ("POST", "/v1/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", "/v1/files/file-out-batch_001/content"),
    ]
    assert_wire(server)
    assert_backoff(sleeps.delays, reads=4, first=5.0)  # first 5 s, doubling, no jitter


def test_wait_for_result_by_the_batch_id(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.batches.create_batch(body=body(sdk)))
        assert (batch.id, batch.status, batch.output_file_id) == ("batch_001", "validating", None)
        return await done(client.batches.wait_for_result(batch.id))

    output, server, sleeps = run(mode, sdk, [DONE], steps)
    assert output == jsonl([output_line("a"), output_line("b")])
    assert server.lines()[-1] == ("GET", "/v1/files/file-out-batch_001/content")
    assert len(server.lines()) == 6
    assert_wire(server)
    assert sleeps.delays == [5.0, 10.0, 20.0]


def test_a_handle_downloads_the_output_file_once(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.batches.create_batch(body=body(sdk)))
        handle = client.batches.handle(batch.id)
        first = await done(handle.poll())
        assert (first.state, first.done, first.delay) == ("validating", False, 5.0)
        return await done(handle.result()), await done(handle.result())

    (output, again), server, sleeps = run(mode, sdk, [DONE], steps)
    assert output == again == jsonl([output_line("a"), output_line("b")])
    assert [line for line in server.lines() if "/files/" in line[1]] == [
        ("GET", "/v1/files/file-out-batch_001/content")
    ]
    assert_wire(server)
    assert sleeps.delays == [10.0, 20.0]


def test_an_expired_batch_raises_with_its_error_file(mode: str, sdk: ModuleType) -> None:
    """`expired` is a failure: BatchFailed names the batch and carries the error file
    (the requests not executed), downloaded with the failed record's error_file_id."""

    async def steps(client: Any, done: Any) -> Any:
        batch = await done(client.batches.create_batch(body=body(sdk)))
        with pytest.raises(sdk.BatchFailed) as caught:
            await done(client.batches.wait_for_result(batch.id))
        return caught.value

    plan = Plan(("in_progress", "expired"), outputs=("a",), errors=("b", "c"))
    error, server, sleeps = run(mode, sdk, [plan], steps)
    assert error.job_id == "batch_001" and "batch_001" in str(error)
    assert error.last_state == "expired"
    assert error.failure_result == jsonl([error_line("b"), error_line("c")])
    assert error.record.output_file_id == "file-out-batch_001"  # the outputs done
    assert server.lines() == [
        ("POST", "/v1/batches"),
        ("GET", BATCH),
        ("GET", BATCH),
        ("GET", "/v1/files/file-err-batch_001/content"),
    ]
    assert_wire(server)
    assert sleeps.delays == [5.0]


def test_a_batch_that_failed_validation_has_no_file_to_download(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.BatchFailed) as caught:
            await done(client.batches.create_and_wait(body=body(sdk)))
        return caught.value

    error, server, _ = run(mode, sdk, [Plan(("validating", "failed"))], steps)
    assert error.job_id == "batch_001" and "batch_001" in str(error)
    assert error.failure_result is None
    assert error.error.data[0].code == "invalid_json_line"  # typed by error_field
    assert server.lines() == [("POST", "/v1/batches"), ("GET", BATCH), ("GET", BATCH)]
    assert_wire(server)


def test_an_error_file_that_cannot_be_downloaded_leaves_the_failure(
    mode: str, sdk: ModuleType
) -> None:
    """The download's error is the cause of BatchFailed, which is still raised."""

    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.BatchFailed) as caught:
            await done(
                client.batches.wait_for_result(
                    (await done(client.batches.create_batch(body=body(sdk)))).id
                )
            )
        return caught.value

    plan = Plan(("expired",), errors=("a",), error_file_kept=False)
    error, server, _ = run(mode, sdk, [plan], steps)
    assert error.job_id == "batch_001"
    assert error.failure_result is None
    assert isinstance(error.__cause__, sdk.NotFoundError)
    assert error.__cause__.job_id == "batch_001"
    assert server.lines()[-1] == ("GET", "/v1/files/file-err-batch_001/content")


def test_a_finished_batch_without_an_output_file_names_what_is_missing(
    mode: str, sdk: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.MissingJobId) as caught:
            await done(client.batches.create_and_wait(body=body(sdk)))
        return caught.value

    plan = Plan(("completed",), outputs=("a",), output_file=False)
    error, server, _ = run(mode, sdk, [plan], steps)
    assert error.job_id == "batch_001"
    assert "batch_001 succeeded, but its record has no output_file_id" in str(error)
    assert server.lines() == [("POST", "/v1/batches"), ("GET", BATCH)]


def test_a_cancelled_batch_raises_batch_canceled(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        handle = await done(client.batches.start(body=body(sdk)))
        await done(handle.cancel())
        with pytest.raises(sdk.BatchCanceled) as caught:
            await done(handle.result())
        return caught.value

    plan = Plan(("in_progress",), outputs=("a",), errors=("b",))
    error, server, _ = run(mode, sdk, [plan], steps)
    assert error.job_id == "batch_001" and error.last_state == "cancelled"
    # A canceled batch downloads nothing, though it names an error file.
    assert error.record.error_file_id == "file-err-batch_001"
    assert server.lines() == [
        ("POST", "/v1/batches"),
        ("POST", BATCH + "/cancel"),
        ("GET", BATCH),
        ("GET", BATCH),
    ]
    assert_wire(server)


def test_the_failure_download_is_typed_as_the_result(sdk: ModuleType) -> None:
    import typing

    hints = typing.get_type_hints(sdk.BatchFailed)
    assert hints["failure_result"] == typing.Optional[bytes]  # noqa: UP045 (what get_type_hints gives)


def test_the_declared_media_type_corrects_the_published_one(mode: str, sdk: ModuleType) -> None:
    """The published spec says `downloadFile` answers JSON (a string); the side file's
    `result_media_type: application/jsonl` makes it the bytes the API sends, for the
    job's result and for the operation's own method alike, asked for as JSONL."""

    async def steps(client: Any, done: Any) -> Any:
        output = await done(client.batches.create_and_wait(body=body(sdk)))
        again = await done(client.files.download("file-out-batch_001"))
        return output, again

    (output, again), server, _ = run(mode, sdk, [DONE], steps)
    assert output == again == jsonl([output_line("a"), output_line("b")])
    assert isinstance(output, bytes)
    downloads = [seen for seen in server.seen if seen.path.startswith("/v1/files/")]
    assert [seen.headers["accept"] for seen in downloads] == ["application/jsonl"] * 2


def test_the_example_of_the_docs_is_this_declaration() -> None:
    """docs/job-extension.md ("A result's media type") shows the side file these tests run."""
    import yaml

    from tests.vendors.server import SPECS

    doc = (SPECS.parents[2] / "docs" / "job-extension.md").read_text()
    block = doc.split("<!-- example:openai -->\n```yaml\n", 1)[1].split("```", 1)[0]
    side = (SPECS / "openai_batches.jobs.yaml").read_text()
    assert yaml.safe_load(block) == yaml.safe_load(side)
