"""Voiceover dubs, end to end: a generated SDK (sync and async) against a server
written from the API's documentation (`tests/vendors/voiceover.py`).

Three shapes of the declaration meet here: the result path takes an element of an
array in the record (`carry: {from: record:/target_languages/0}`), the cancel sends a
constant argument (`constants: {cancel: {query:force: true}}`; without it the API
answers 423 Locked), and the credential is an optional `xi-api-key` header parameter
of every operation (no security scheme), given once and sent with every request.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.vendors.server import Sleeps, VendorServer, assert_backoff, drive, vendor_sdk
from tests.vendors.voiceover import KEY, Plan, Voiceover, audio

DUB = "/v1/dubs/dub_1"
DONE = Plan(("queued", "dubbing", "dubbed"))


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("voiceover")
    with vendor_sdk(out, "voiceover", "voiceover_sdk") as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def body(sdk: ModuleType, *languages: str) -> Any:
    return sdk.models.CreateDub(
        source_url="https://media.example/talk.mp4", target_languages=list(languages)
    )


def run(
    mode: str,
    sdk: ModuleType,
    plans: list[Plan],
    steps: Any,
    headers: dict[str, str] | None = None,
    **options: Any,
) -> tuple[Any, VendorServer, Sleeps]:
    """`steps(client, done)` against a fresh API whose dubs follow `plans`; `options`
    go to the client."""
    server = VendorServer(Voiceover(plans=plans))
    sleeps = Sleeps()
    config = sleeps.config(sdk)
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    with server.running():
        made = drive(
            mode,
            lambda: client(base_url=server.url, wait_config=config, headers=headers, **options),
            steps,
        )
    return made, server, sleeps


def assert_keyed(server: VendorServer) -> None:
    """Every request carried the key: none was refused."""
    assert server.seen
    assert all(seen.headers.get("xi-api-key") == KEY for seen in server.seen)


def test_a_key_given_to_create_and_wait_goes_with_every_request(mode: str, sdk: ModuleType) -> None:
    """The audio is read for the first target language, from the dubbed record."""

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.dubs.create_and_wait(body=body(sdk, "fr", "de"), xi_api_key=KEY))

    output, server, sleeps = run(mode, sdk, [DONE], steps)
    assert output == audio("dub_1", "fr")
    assert server.lines() == [
        ("POST", "/v1/dubs"),
        ("GET", DUB),
        ("GET", DUB),
        ("GET", DUB),
        ("GET", DUB + "/audio/fr"),
    ]
    assert_keyed(server)
    assert_backoff(sleeps.delays, reads=3, first=1.0, cap=30.0)  # the default schedule


def test_a_key_given_to_a_wait_goes_with_its_status_reads_and_download(
    mode: str, sdk: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        started = await done(client.dubs.create(body=body(sdk, "es"), xi_api_key=KEY))
        record = await done(client.dubs.wait_for_job(started.dub_id, xi_api_key=KEY))
        output = await done(client.dubs.wait_for_result(started.dub_id, xi_api_key=KEY))
        return record, output

    (record, output), server, _ = run(mode, sdk, [DONE], steps)
    assert record.status == "dubbed" and record.target_languages == ["es"]
    assert output == audio("dub_1", "es")
    assert server.lines()[-1] == ("GET", DUB + "/audio/es")
    assert_keyed(server)


def test_a_key_given_to_the_client_goes_with_every_request(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.dubs.create_and_wait(body=body(sdk, "it")))

    output, server, _ = run(mode, sdk, [DONE], steps, headers={"xi-api-key": KEY})
    assert output == audio("dub_1", "it")
    assert len(server.seen) == 5
    assert_keyed(server)


def test_the_client_takes_the_key_as_a_credential(mode: str, sdk: ModuleType) -> None:
    """The spec declares no security scheme but the key on every operation: the client
    takes it (`xi_api_key=`, or VOICEOVER_XI_API_KEY) and sends it with every request."""

    async def steps(client: Any, done: Any) -> Any:
        assert KEY not in repr(client)
        return await done(client.dubs.create_and_wait(body=body(sdk, "it")))

    output, server, _ = run(mode, sdk, [DONE], steps, xi_api_key=KEY)
    assert output == audio("dub_1", "it")
    assert len(server.seen) == 5
    assert_keyed(server)


def test_the_client_reads_the_key_from_the_environment(
    sdk: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOICEOVER_XI_API_KEY", KEY)

    async def steps(client: Any, done: Any) -> Any:
        return await done(client.dubs.create_and_wait(body=body(sdk, "sv")))

    output, server, _ = run("sync", sdk, [DONE], steps)
    assert output == audio("dub_1", "sv")
    assert_keyed(server)


def test_a_key_given_to_a_call_wins_over_the_clients(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.dubs.create_and_wait(body=body(sdk, "nl"), xi_api_key=KEY))

    output, server, _ = run(mode, sdk, [DONE], steps, xi_api_key="xi-other-account")
    assert output == audio("dub_1", "nl")
    assert_keyed(server)


def test_without_the_key_the_status_read_is_refused(mode: str, sdk: ModuleType) -> None:
    """What the API does to a wait given no key (401, naming the job), and a wrong
    key shows nowhere in the error."""

    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.AuthenticationError) as unkeyed:
            await done(client.dubs.wait_for_job("dub_1"))
        with pytest.raises(sdk.AuthenticationError) as wrong:
            await done(client.dubs.wait_for_job("dub_1", xi_api_key="xi-wrong-key-987"))
        return unkeyed.value, wrong.value

    (unkeyed, wrong), server, _ = run(mode, sdk, [DONE], steps)
    assert unkeyed.status_code == 401 and unkeyed.job_id == "dub_1"
    assert "xi-api-key" not in server.seen[0].headers
    assert server.seen[1].headers["xi-api-key"] == "xi-wrong-key-987"
    shown = str(wrong) + repr(wrong) + repr(wrong.response.request.headers)
    assert "xi-wrong-key-987" not in shown
    assert server.lines() == [("GET", DUB), ("GET", DUB)]


def test_a_handle_keeps_the_key_and_its_cancel_sends_force(mode: str, sdk: ModuleType) -> None:
    """handle.cancel() stops the running dub: the declaration's force=true goes with
    the DELETE (without it the API answers 423 Locked); the wait ends canceled."""

    async def steps(client: Any, done: Any) -> Any:
        handle = await done(client.dubs.start(body=body(sdk, "fr"), xi_api_key=KEY))
        await done(handle.poll())
        await done(handle.cancel())
        with pytest.raises(sdk.DubCanceled) as caught:
            await done(handle.result())
        return caught.value

    error, server, _ = run(mode, sdk, [Plan(("dubbing",))], steps)
    assert error.job_id == "dub_1" and error.last_state == "canceled"
    assert server.lines() == [
        ("POST", "/v1/dubs"),
        ("GET", DUB),
        ("DELETE", DUB + "?force=true"),
        ("GET", DUB),
    ]
    assert_keyed(server)


def test_the_cancel_method_sends_force(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        started = await done(client.dubs.create(body=body(sdk, "fr"), xi_api_key=KEY))
        return await done(client.dubs.cancel(started.dub_id, xi_api_key=KEY))

    record, server, _ = run(mode, sdk, [Plan(("dubbing",))], steps)
    assert record.status == "canceled"
    assert server.lines()[-1] == ("DELETE", DUB + "?force=true")
    assert_keyed(server)


def test_a_handle_given_the_key_keeps_it_out_of_its_resume_token(
    mode: str, sdk: ModuleType
) -> None:
    async def steps(client: Any, done: Any) -> Any:
        started = await done(client.dubs.create(body=body(sdk, "pt"), xi_api_key=KEY))
        handle = client.dubs.handle(started.dub_id, xi_api_key=KEY)
        output = await done(handle.result())
        resumed = client.dubs.handle(resume=handle.resume_token, xi_api_key=KEY)
        return output, handle.resume_token, await done(resumed.status())

    (output, token, record), server, _ = run(mode, sdk, [DONE], steps)
    assert output == audio("dub_1", "pt")
    assert KEY not in token
    assert record.status == "dubbed"
    assert_keyed(server)


def test_cancel_on_timeout_stops_the_dub(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.JobTimeout) as caught:
            await done(
                client.dubs.create_and_wait(
                    body=body(sdk, "fr"), xi_api_key=KEY, deadline=5.0, cancel_on_timeout=True
                )
            )
        return caught.value

    error, server, _ = run(mode, sdk, [Plan(("dubbing",))], steps)
    assert error.job_id == "dub_1" and error.canceled is True
    assert error.last_state == "dubbing"
    assert server.lines()[-1] == ("DELETE", DUB + "?force=true")
    assert server.app.dubs["dub_1"].status == "canceled"
    assert_keyed(server)


def test_the_example_of_the_docs_is_this_declaration() -> None:
    """docs/job-extension.md shows the side file these tests run."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "job-extension.md").read_text()
    block = doc.split("<!-- example:voiceover -->\n```yaml\n", 1)[1].split("```", 1)[0]
    jobs = (Path(__file__).resolve().parent / "specs" / "voiceover.jobs.yaml").read_text()
    assert yaml.safe_load(block) == yaml.safe_load(jobs)


def test_a_dub_with_no_target_language_names_the_empty_array(mode: str, sdk: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        with pytest.raises(sdk.MissingJobId) as caught:
            await done(client.dubs.create_and_wait(body=body(sdk), xi_api_key=KEY))
        return caught.value

    error, server, _ = run(mode, sdk, [DONE], steps)
    assert error.job_id == "dub_1"
    assert str(error) == (
        "job dub_1 succeeded, but its record has no language_code (nothing usable at"
        " /target_languages/0: /target_languages is an empty array), which its result"
        " fetch needs"
    )
    assert [line for line in server.lines() if "/audio/" in line[1]] == []


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The SDK of the spec with two more optional inputs (a header of the status read,
    a query parameter of the audio), each given a constant by the declaration."""
    from tests.helpers import imported_sdk, write
    from tests.vendors.server import SPECS

    out = tmp_path_factory.mktemp("voiceover_tuned")
    spec = yaml.safe_load((SPECS / "voiceover.yaml").read_text())
    paths = spec["paths"]
    paths["/v1/dubs/{dub_id}"]["get"]["parameters"].append(
        {"name": "x-client", "in": "header", "schema": {"type": "string"}}
    )
    paths["/v1/dubs/{dub_id}/audio/{language_code}"]["get"]["parameters"].append(
        {"name": "bitrate", "in": "query", "schema": {"type": "integer"}}
    )
    jobs = yaml.safe_load((SPECS / "voiceover.jobs.yaml").read_text())
    jobs["jobs"]["dub"]["constants"].update(
        {"status": {"header:x-client": "jobgen"}, "result": {"query:bitrate": 128}}
    )
    spec_path = write(out / "voiceover.yaml", yaml.safe_dump(spec))
    jobs_path = write(out / "voiceover.jobs.yaml", yaml.safe_dump(jobs))
    with imported_sdk(spec_path, out, "voiceover_tuned_sdk", jobs=jobs_path) as module:
        yield module


def test_status_and_result_calls_send_their_constants(mode: str, tuned: ModuleType) -> None:
    async def steps(client: Any, done: Any) -> Any:
        return await done(client.dubs.create_and_wait(body=body(tuned, "fr"), xi_api_key=KEY))

    output, server, _ = run(mode, tuned, [DONE], steps)
    assert output == audio("dub_1", "fr")
    reads = [seen for seen in server.seen if seen.method == "GET" and "/audio/" not in seen.path]
    assert len(reads) == 3
    assert all(seen.headers.get("x-client") == "jobgen" for seen in reads)
    assert "x-client" not in server.seen[0].headers  # the create has no such constant
    assert server.lines()[-1] == ("GET", DUB + "/audio/fr?bitrate=128")


def test_jobgen_serve_plays_the_declaration(sdk: ModuleType) -> None:
    """`jobgen serve` with the side file: status reads need no value of the terminal
    record (it goes to the audio alone), and the cancel's force=true is accepted."""
    from jobgen.server.runner import run_server
    from tests.vendors.server import SPECS

    spec, jobs = SPECS / "voiceover.yaml", SPECS / "voiceover.jobs.yaml"
    config = sdk.WaitConfig(sleep=lambda seconds: None)
    with (
        run_server(spec, jobs=jobs) as server,
        sdk.Client(base_url=server.base_url, wait_config=config) as client,
    ):
        output = client.dubs.create_and_wait(body=body(sdk, "fr"), xi_api_key=KEY, deadline=60)
        handle = client.dubs.start(body=body(sdk, "de"), xi_api_key=KEY)
        handle.cancel()
        log = [(r.operation, r.query) for r in server.requests()]
    assert isinstance(output, bytes) and output
    assert ("cancel", "force=true") in log
    assert [op for op, _ in log].count("result") == 1
