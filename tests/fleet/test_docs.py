"""docs/fleet.md's Celery example runs as written: its `tasks.py`, started with its own
worker commands (a threads and a prefork worker), follows jobs against the simulated
API and applies each report's effect once; every name it imports is public."""

from __future__ import annotations

import importlib
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from jobgen.server import RunningServer
from tests.fleet.conftest import PATIENCE
from tests.fleet.docapp import DOC, SUME, DocFleet, beat_source, worker_commands


@pytest.fixture(scope="module")
def doc_app(
    redis_url: str, sume_server: RunningServer, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    """The page's `tasks.py` in a folder of its own, imported here as a web app does."""
    return DocFleet(tmp_path_factory.mktemp("doc"), redis_url, sume_server.base_url)


@pytest.fixture
def doc_fleet(doc_app: DocFleet) -> Iterator[tuple[DocFleet, Any]]:
    """Empty Redis databases; the workers a test starts are stopped after it."""
    tasks = doc_app.load()
    tasks.redis.flushdb()
    tasks.Redis.from_url(doc_app.env["BROKER_URL"]).flushdb()
    try:
        yield doc_app, tasks
    finally:
        doc_app.stop()


def test_the_documented_app_reports_each_job_once_from_threads_and_prefork_workers(
    doc_fleet: tuple[DocFleet, Any], sume_server: RunningServer
) -> None:
    fleet, tasks = doc_fleet
    commands = worker_commands()
    pools = sorted(arg for command in commands for arg in command if arg.startswith("--pool="))
    assert pools == ["--pool=prefork", "--pool=threads"]
    names = [command[command.index("-n") + 1] for command in commands]
    assert len(set(names)) == len(names)  # distinct names, as the page says
    for n, command in enumerate(commands):
        fleet.start(command, f"doc{n}")
    outcomes = {1: "success", 2: "failure", 3: "canceled", 4: "success"}
    scenarios = {
        1: {"states": [{"state": "processing", "polls": 1}]},
        2: {"final": "failure"},
        3: {"final": "canceled"},
        4: {},
    }
    with fleet.environment():
        client = tasks.client()
    jobs = {}
    for invoice, scenario in scenarios.items():
        jobs[invoice] = sume_server.create_job(scenario, credential="key-1")
        handle = client.jobs.handle(jobs[invoice], deadline=120)
        tasks.waits.follow(handle, on_done=tasks.summary_done.s(invoice))

    deadline = time.monotonic() + PATIENCE
    while int(tasks.redis.get("invoices:summarised") or 0) < len(jobs):
        assert time.monotonic() < deadline, "the documented app did not report every job"
        time.sleep(0.1)

    for invoice, job_id in jobs.items():
        summary = tasks.redis.hgetall(f"invoice:{invoice}")
        assert summary == {b"job": job_id.encode(), b"outcome": outcomes[invoice].encode()}
    assert int(tasks.redis.get("invoices:summarised")) == len(jobs)


def test_the_documented_beat_schedule_names_the_sweep_task(
    doc_fleet: tuple[DocFleet, Any],
) -> None:
    _, tasks = doc_fleet
    namespace = vars(tasks)
    exec(beat_source(), namespace)  # noqa: S102 - the page's own snippet
    task = tasks.app.conf.beat_schedule["fleet-sweep"]["task"]
    assert task == f"{tasks.waits.name}.sweep" and task in tasks.app.tasks


def test_every_name_the_page_imports_from_the_sdk_is_public() -> None:
    text = DOC.read_text(encoding="utf-8")
    imported = re.findall(r"^from sume_sdk(\.fleet)? import (.+)$", text, flags=re.MULTILINE)
    assert len(imported) >= 3
    sys.path.insert(0, str(SUME.output))
    try:
        for fleet, names in imported:
            module = importlib.import_module("sume_sdk" + fleet)
            for name in (n.strip() for n in names.split(",")):
                assert name in module.__all__ and getattr(module, name), name
    finally:
        sys.path.remove(str(SUME.output))
