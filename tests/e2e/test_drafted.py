"""A side file drafted by ``jobgen jobs init``, used as written, over real HTTP.

The spec has the shape of an OCR API whose create answers ``202`` with a ``Location``
and the job's id, beside ``GET /{job_id}``, ``GET /{job_id}/result`` and ``POST
/{job_id}/cancel``, and whose 404 says "No such job (or expired after 7 days)". The SDK
generated with the draft fetches the result, cancels, and raises ``NotFoundError`` for
an id the server does not know: the 404's prose is no failed job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from jobgen.cli import main
from jobgen.server import RunningServer, run_server
from tests.generator.test_draft_cases import OCR, OCR_RESULT_AND_CANCEL
from tests.helpers import imported_sdk, write

pytestmark = pytest.mark.slow


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.fixture(scope="module")
def drafted(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ModuleType, RunningServer]]:
    tmp = tmp_path_factory.mktemp("drafted")
    spec = write(tmp / "ocr.yaml", OCR.replace("RESULT_AND_CANCEL\n", OCR_RESULT_AND_CANCEL))
    draft = tmp / "ocr.jobs.yaml"
    assert main(["jobs", "init", str(spec), "-o", str(draft)]) == 0
    with (
        imported_sdk(spec, tmp, "ocr_drafted_sdk", jobs=draft) as sdk,
        run_server(spec, draft) as server,
    ):
        yield sdk, server


def _client(sdk: ModuleType, server: RunningServer, asynchronous: bool) -> Any:
    config = sdk.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep)
    cls = sdk.AsyncClient if asynchronous else sdk.Client
    return cls(base_url=server.base_url, wait_config=config)


def test_the_drafted_job_fetches_its_result_and_a_mistyped_id_is_not_found(
    drafted: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = drafted
    job_id = server.create_job({"states": [{"state": "running", "polls": 1}]})
    with _client(sdk, server, asynchronous=False) as client:
        assert client.ocr_jobs.wait_for_result(job_id, deadline=10).text == "example"
        with pytest.raises(sdk.errors.NotFoundError) as raised:
            client.ocr_jobs.wait_for_job("no-such-job", deadline=10)
    assert not isinstance(raised.value, sdk.errors.JobFailed)
    assert [r.operation for r in server.requests(job_id)][-1] == "result"


def test_the_drafted_job_fetches_its_result_and_a_mistyped_id_is_not_found_async(
    drafted: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = drafted
    job_id = server.create_job({"states": [{"state": "running", "polls": 1}]})

    async def waits() -> None:
        async with _client(sdk, server, asynchronous=True) as client:
            assert (await client.ocr_jobs.wait_for_result(job_id, deadline=10)).text == "example"
            with pytest.raises(sdk.errors.NotFoundError) as raised:
                await client.ocr_jobs.wait_for_job("no-such-job", deadline=10)
        assert not isinstance(raised.value, sdk.errors.JobFailed)

    asyncio.run(waits())
    assert [r.operation for r in server.requests(job_id)][-1] == "result"


def test_the_drafted_cancel_ends_the_job_canceled(
    drafted: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = drafted
    job_id = server.create_job({"states": [{"state": "running", "polls": 50}]})
    with _client(sdk, server, asynchronous=False) as client:
        client.ocr_jobs.cancel(job_id)
        with pytest.raises(sdk.errors.JobCanceled) as raised:
            client.ocr_jobs.wait_for_result(job_id, deadline=10)
    assert raised.value.job_id == job_id
    assert "cancel" in [r.operation for r in server.requests(job_id)]


def test_the_drafted_cancel_ends_the_job_canceled_async(
    drafted: tuple[ModuleType, RunningServer],
) -> None:
    sdk, server = drafted
    job_id = server.create_job({"states": [{"state": "running", "polls": 50}]})

    async def waits() -> None:
        async with _client(sdk, server, asynchronous=True) as client:
            await client.ocr_jobs.cancel(job_id)
            with pytest.raises(sdk.errors.JobCanceled) as raised:
                await client.ocr_jobs.wait_for_result(job_id, deadline=10)
        assert raised.value.job_id == job_id

    asyncio.run(waits())
    assert "cancel" in [r.operation for r in server.requests(job_id)]
