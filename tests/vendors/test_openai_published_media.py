"""A result whose body is not its declared media type (W15): OpenAI's published spec
declares `downloadFile` as `application/json` `{type: string}`, and the API sends the
`.jsonl` file (application/octet-stream). The SDK generated from that declaration returns
the file as its text, reports the drift once, and strict decoding still refuses it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.helpers import imported_sdk
from tests.vendors.openai import KEY, OpenAIBatches, Plan, jsonl, output_line
from tests.vendors.server import SPECS, Sleeps, VendorServer, drive

DONE = Plan(("validating", "in_progress", "completed"), outputs=("a", "b"))
CREATE = {
    "input_file_id": "file-in-1",
    "endpoint": "/v1/chat/completions",
    "completion_window": "24h",
}


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The test spec with `downloadFile` answering as the published spec declares it."""
    out = tmp_path_factory.mktemp("openai_published")
    spec = yaml.safe_load((SPECS / "openai_batches.yaml").read_text(encoding="utf-8"))
    answer = spec["paths"]["/v1/files/{file_id}/content"]["get"]["responses"]["200"]
    answer["content"] = {"application/json": {"schema": {"type": "string"}}}
    published = Path(out / "openai_batches.yaml")
    published.write_text(yaml.safe_dump(spec), encoding="utf-8")
    # The side file as it would be without its correction of the result's media type.
    side = yaml.safe_load((SPECS / "openai_batches.jobs.yaml").read_text(encoding="utf-8"))
    for job in side["jobs"].values():
        job.pop("result_media_type", None)
    jobs = Path(out / "openai_batches.jobs.yaml")
    jobs.write_text(yaml.safe_dump(side), encoding="utf-8")
    with imported_sdk(published, out, "openai_published_sdk", jobs=jobs) as module:
        yield module


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _run(mode: str, sdk: ModuleType, **settings: Any) -> Any:
    server = VendorServer(OpenAIBatches(plans=[DONE]))
    config = Sleeps().config(sdk, **settings)
    client = sdk.AsyncClient if mode == "async" else sdk.Client
    body = sdk.models.CreateBatchRequest.from_dict(CREATE)

    async def steps(c: Any, done: Any) -> Any:
        return await done(c.batches.create_and_wait(body=body))

    with server.running():
        return drive(
            mode, lambda: client(token=KEY, base_url=server.url, wait_config=config), steps
        )


def test_a_string_result_sent_as_another_media_type_is_its_text(
    mode: str, sdk: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)

    output = _run(mode, sdk)

    assert output == jsonl([output_line("a"), output_line("b")]).decode()
    drift = [m for m in caplog.messages if "beside the spec" in m]
    assert len(drift) == 1
    assert "expected a JSON string, got application/octet-stream; read as text" in drift[0]


def test_strict_decoding_refuses_it(mode: str, sdk: ModuleType) -> None:
    with pytest.raises(sdk.errors.DecodeError, match="expected a JSON body"):
        _run(mode, sdk, decoding="strict")
