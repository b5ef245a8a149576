"""The FastAPI example of docs/webhooks.md, run as written against `jobgen serve`: it
creates a job and answers at once, receives the webhook, and falls back to polling when
the delivery is dropped."""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from jobgen.server.listen import base_url, bind, make_server
from tests.e2e.support import APIS, KEY, ROOT
from tests.helpers import CommittedSdks

SECRET = "whsec_" + base64.b64encode(b"fastapi example secret, 32 bytes").decode()
PATIENCE = 10.0


def example_source() -> str:
    text = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- fastapi-example -->\n```python\n(.*?)```", text, re.DOTALL)
    assert found, "docs/webhooks.md lost its FastAPI example"
    return found.group(1)


@pytest.fixture(scope="module")
def sume_server() -> Iterator[RunningServer]:
    with run_server(APIS["sume"].spec, webhook_secret=SECRET) as server:
        yield server


@pytest.fixture(scope="module")
def example(
    sume_server: RunningServer,
    committed_sdks: CommittedSdks,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ModuleType, str]]:
    """The example app, imported from the docs and served on a free port."""
    sock = bind("127.0.0.1", 0)
    url = base_url(sock)
    env = {
        "PUBLIC_URL": url,
        "SUME_BASE_URL": sume_server.base_url,
        "SUME_API_KEY": KEY,
        "SUME_WEBHOOK_SECRET": SECRET,
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        path = Path(tmp_path_factory.mktemp("docs")) / "fastapi_example.py"
        path.write_text(example_source(), encoding="utf-8")
        spec = importlib.util.spec_from_file_location("fastapi_example", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        with committed_sdks.active():  # the app imports the committed sume_sdk
            spec.loader.exec_module(module)
        server = make_server(module.app)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        until(lambda: server.started)
        try:
            yield module, url
        finally:
            server.should_exit = True
            thread.join()
            sock.close()
            sys.modules.pop("fastapi_example", None)


def until(condition: Callable[[], Any]) -> Any:
    end = time.monotonic() + PATIENCE
    while not (found := condition()):
        assert time.monotonic() < end, "gave up waiting"
        time.sleep(0.01)
    return found


def run_one(module: ModuleType, url: str) -> tuple[str, dict[str, Any]]:
    with httpx.Client(base_url=url, timeout=PATIENCE) as app:
        answer = app.post("/summaries", params={"text": "hello"})
        assert answer.status_code == 202
        job_id = answer.json()["job_id"]
        assert app.get(f"/summaries/{job_id}").json()["status"] is None  # answered at once
        done = until(lambda: app.get(f"/summaries/{job_id}").json()["status"])
    return job_id, done


def test_the_example_receives_the_webhook(
    example: tuple[ModuleType, str], sume_server: RunningServer, e2e_sdks: dict[str, ModuleType]
) -> None:
    module, url = example
    sdk = e2e_sdks["sume"]
    module.client = sdk.AsyncClient(
        api_key=KEY,
        base_url=sume_server.base_url,
        headers={
            "x-jobgen-scenario": json.dumps({"states": [{"state": "processing", "seconds": 0.5}]})
        },
    )
    job_id, status = run_one(module, url)
    assert status == "completed"
    reads = [r for r in sume_server.requests(job_id) if r.operation == "status"]
    assert len(reads) <= 1
    assert [d.outcome for d in until(lambda: sume_server.deliveries(job_id))] == ["delivered"]


def test_the_example_falls_back_to_polling_when_the_delivery_is_dropped(
    example: tuple[ModuleType, str], sume_server: RunningServer, e2e_sdks: dict[str, ModuleType]
) -> None:
    module, url = example
    sdk = e2e_sdks["sume"]
    scenario = {"states": [{"state": "processing", "seconds": 0.3}], "hint": 0.02}
    scenario["webhook"] = {"drop": True}
    module.client = sdk.AsyncClient(
        api_key=KEY,
        base_url=sume_server.base_url,
        headers={"x-jobgen-scenario": json.dumps(scenario)},
        wait_config=sdk.WaitConfig(first=0.02, floor=0.02, cap=0.05, decoding="strict"),
    )
    job_id, status = run_one(module, url)
    assert status == "completed"
    assert [d.outcome for d in until(lambda: sume_server.deliveries(job_id))] == ["dropped"]
    assert any(r.operation == "status" for r in sume_server.requests(job_id))
