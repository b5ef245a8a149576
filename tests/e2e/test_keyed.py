"""A job keyed by more than its id, over real HTTP: DeepL-style document translation.

Create answers with a `document_id` and a `document_key`; every status read and the
result download must send the key in their body, and the translated document (bytes,
not text) can be downloaded once. The SDK takes the key as a typed keyword, keeps it
in handles and resume tokens, and `jobgen serve` answers a wrong or missing key, and a
second download, with 404.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer, run_server
from tests.e2e.support import E2E, KEY, Api, scenario_header

DEEPL = Api(
    name="deepl_documents",
    package="deepl_documents_sdk",
    resource="documents",
    auth="api_key",
    pending="translating",
    success="done",
    failure="error",
    canceled=None,
    has_ready_field=False,
    has_body_hint=True,
    idempotency_header=None,
    state_attr="status",
    error_attr="error_message",
    error_key="error_message",
    body_model="DocumentUpload",
    body={"target_lang": "DE"},
    result_type="bytes",
)
DOCUMENT = b"Das ist ein Dokument.\n"


@pytest.fixture(scope="module")
def deepl_sdk() -> Iterator[ModuleType]:
    """The committed SDK, imported from generated/; unimported afterwards."""
    path = str(DEEPL.output)
    sys.path.insert(0, path)
    try:
        module = importlib.import_module(DEEPL.package)
        importlib.import_module(f"{DEEPL.package}.models")
        assert module.__file__ is not None and module.__file__.startswith(path)
        yield module
    finally:
        sys.path.remove(path)
        for name in [n for n in sys.modules if n.split(".")[0] == DEEPL.package]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def deepl_server() -> Iterator[RunningServer]:
    server = run_server(DEEPL.spec).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def keyed(mode: str, deepl_sdk: ModuleType, deepl_server: RunningServer) -> E2E:
    deepl_server.reset()
    return E2E(DEEPL, deepl_sdk, deepl_server, mode)


async def _value(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _drive(e2e: E2E, scenario: Callable[[Any], Awaitable[Any]], **config: Any) -> Any:
    """Run `scenario(resource)`, whose SDK calls go through `_value`, sync or async."""
    if e2e.is_async:
        return e2e.run(scenario, **config)
    return e2e.run(lambda documents: asyncio.run(scenario(documents)), **config)


def _upload(e2e: E2E, polls: int = 2, **scenario: Any) -> dict[str, Any]:
    """Create's keyword arguments: a document, and the server's timeline for it."""
    body = e2e.sdk.models.DocumentUpload(file=("report.txt", DOCUMENT), target_lang="DE")
    timeline = DEEPL.scenario(states=DEEPL.stages(polls), **scenario)
    return {"body": body, "extra_headers": scenario_header(timeline)}


def _create(e2e: E2E, polls: int = 2, **scenario: Any) -> Any:
    """A new document job, created through the SDK: its id and key."""
    return _drive(
        e2e, lambda documents: _value(documents.translate(**_upload(e2e, polls, **scenario)))
    )


def _is_document(result: object, job_id: str) -> bool:
    """The simulated translation: bytes that are not UTF-8 text, naming the job."""
    assert isinstance(result, bytes)
    with pytest.raises(UnicodeDecodeError):
        result.decode()
    return job_id.encode() in result


def test_wait_for_result_sends_the_key_with_every_call_and_downloads_bytes_once(
    keyed: E2E,
) -> None:
    created = _create(keyed)
    job_id, key = created.document_id, created.document_key

    document = _drive(
        keyed,
        lambda documents: _value(documents.wait_for_result(job_id, document_key=key, deadline=30)),
    )

    assert _is_document(document, job_id)
    reads = keyed.reads(job_id)
    assert [r.method for r in reads] == ["POST"] * 3 and len(keyed.polls(job_id)) == 3
    assert [(r.status, r.fault) for r in keyed.results(job_id)] == [(200, None)]
    # Downloaded once, then gone: a second download is a 404, sent once, never retried.
    with pytest.raises(keyed.sdk.NotFoundError) as caught:
        _drive(
            keyed,
            lambda documents: _value(documents.wait_for_result(job_id, document_key=key)),
        )
    assert caught.value.job_id == job_id
    assert [r.status for r in keyed.results(job_id)] == [200, 404]


def test_wait_for_result_streams_the_document_to_a_file_whole_or_not_at_all(
    keyed: E2E, tmp_path: Path
) -> None:
    created = _create(keyed)
    job_id, key = created.document_id, created.document_key
    target, again = tmp_path / "translated.bin", tmp_path / "again.bin"

    def wait(to_file: Path) -> Any:
        return _drive(
            keyed,
            lambda documents: _value(
                documents.wait_for_result(job_id, document_key=key, deadline=30, to_file=to_file)
            ),
        )

    document = wait(target)

    assert _is_document(document, job_id) and target.read_bytes() == document
    # Gone after one download: the 404 leaves no file (and no temporary one) behind.
    with pytest.raises(keyed.sdk.NotFoundError):
        wait(again)
    assert [p.name for p in tmp_path.iterdir()] == ["translated.bin"]
    assert [r.status for r in keyed.results(job_id)] == [200, 404]


def test_a_wrong_key_is_a_404_naming_the_job(keyed: E2E) -> None:
    created = _create(keyed)
    job_id = created.document_id

    with pytest.raises(keyed.sdk.NotFoundError) as caught:
        _drive(
            keyed,
            lambda documents: _value(
                documents.wait_for_job(job_id, document_key="0" * 64, deadline=30)
            ),
        )

    assert caught.value.job_id == job_id and caught.value.status_code == 404
    assert [(r.status, r.fault) for r in keyed.polls(job_id)] == [(404, "wrong_key")]
    assert created.document_key not in str(caught.value)


def test_a_missing_key_is_refused_before_any_request(keyed: E2E) -> None:
    job_id = _create(keyed).document_id

    with pytest.raises(ValueError, match="document_key is required"):
        _drive(keyed, lambda documents: _value(documents.wait_for_job(job_id, deadline=30)))

    assert keyed.polls(job_id) == []


def test_create_and_wait_returns_the_document(keyed: E2E) -> None:
    upload = _upload(keyed)

    document = _drive(
        keyed, lambda documents: _value(documents.create_and_wait(deadline=30, **upload))
    )

    (create,) = keyed.creates()
    assert create.job_id is not None and _is_document(document, create.job_id)
    assert len(keyed.reads(create.job_id)) == 3
    assert len(keyed.results(create.job_id)) == 1


def test_start_poll_then_resume_from_the_token_and_download_to_a_file(
    keyed: E2E, tmp_path: Path
) -> None:
    upload = _upload(keyed, polls=3)

    async def begin(documents: Any) -> tuple[str, str]:
        handle = await _value(documents.start(deadline=60, **upload))
        decision = await _value(handle.poll())
        assert not decision.done and decision.state == "translating"
        assert decision.resume_token == handle.resume_token
        assert "resume_token" not in repr(decision)
        return handle.job_id, handle.resume_token

    job_id, token = _drive(keyed, begin)
    assert json.loads(token)["carried"]["document_key"]  # the key travels in the token
    target = tmp_path / "translated.txt"

    async def finish(documents: Any) -> Any:
        handle = documents.handle(resume=token)  # no key given: the token holds it
        while not (await _value(handle.poll())).done:
            pass
        return await _value(handle.result(deadline=30, to_file=target))

    document = _drive(keyed, finish)

    assert _is_document(document, job_id) and target.read_bytes() == document
    assert len(keyed.reads(job_id)) == 4 and len(keyed.results(job_id)) == 1
    assert all(r.status == 200 for r in keyed.log(job_id))


def test_wait_for_job_resumes_from_a_handle_token(keyed: E2E) -> None:
    upload = _upload(keyed, polls=2)

    async def scenario(documents: Any) -> Any:
        handle = await _value(documents.start(**upload))
        await _value(handle.poll())
        return await _value(documents.wait_for_job(resume=handle.resume_token, deadline=30))

    record = _drive(keyed, scenario)

    assert keyed.state(record) == "done"
    (create,) = keyed.creates()
    assert len(keyed.reads(create.job_id)) == 3


def test_wait_for_jobs_takes_ids_with_their_keys(keyed: E2E) -> None:
    jobs = [_create(keyed, polls=n) for n in (1, 2)]
    pairs = [(j.document_id, {"document_key": j.document_key}) for j in jobs]

    outcomes = keyed.collect(lambda documents: documents.wait_for_jobs(pairs, deadline=30))

    assert sorted(o.job_id for o in outcomes) == sorted(j.document_id for j in jobs)
    assert all(o.error is None and keyed.state(o.record) == "done" for o in outcomes)


def test_a_failed_translation_raises_job_failed_with_its_message(keyed: E2E) -> None:
    created = _create(keyed, final="failure")

    with pytest.raises(keyed.sdk.JobFailed) as caught:
        _drive(
            keyed,
            lambda documents: _value(
                documents.wait_for_result(
                    created.document_id, document_key=created.document_key, deadline=30
                )
            ),
        )

    assert caught.value.job_id == created.document_id
    assert keyed.results(created.document_id) == []


def test_the_key_is_never_in_the_request_log(keyed: E2E) -> None:
    created = _create(keyed)
    _drive(
        keyed,
        lambda documents: _value(
            documents.wait_for_job(created.document_id, document_key=created.document_key)
        ),
    )
    assert created.document_key not in repr(keyed.log())
    assert KEY not in repr(keyed.log())


def test_keyed_status_reads_are_retried_on_503_with_the_key(keyed: E2E) -> None:
    created = _create(keyed, status_errors=[{"at_poll": 1, "status": 503, "count": 2}])

    document = _drive(
        keyed,
        lambda documents: _value(
            documents.wait_for_result(
                created.document_id, document_key=created.document_key, deadline=30
            )
        ),
    )

    assert _is_document(document, created.document_id)
    polls = keyed.polls(created.document_id)
    assert [(r.status, r.fault) for r in polls[:3]] == [
        (503, "status_error"),
        (503, "status_error"),
        (200, None),
    ]
    assert "wrong_key" not in {r.fault for r in polls}
