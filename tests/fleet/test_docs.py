"""docs/fleet.md's Celery example runs as written: its `tasks.py`, started with its own
worker commands (a threads and a prefork worker), follows jobs against the simulated
API and applies each report's effect once; every name it imports is public."""

from __future__ import annotations

import importlib
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from jobgen.server import RunningServer
from tests.fleet.conftest import PATIENCE
from tests.fleet.docapp import (
    DOC,
    SUME,
    DocFleet,
    app_source,
    beat_source,
    redis_command,
    worker_commands,
)


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
        web = _web_app(tasks)
    jobs = {}
    for invoice, scenario in scenarios.items():
        jobs[invoice] = sume_server.create_job(scenario, credential="key-1")
        handle = client.jobs.handle(jobs[invoice], deadline=120)
        tasks.waits.follow(handle, on_done=tasks.summary_done.s(invoice))
    # the page's request handler: a job created through the API (the server's default
    # timeline: two reads "processing" with Sume's 2 s hint), then followed
    pending: dict[str, Any] = {}
    web["start_summary"](5, {"input": {"type": "text", "text": "an invoice"}}, pending)
    (job_id_5,) = [job for _, job in pending.values()]
    jobs[5], outcomes[5] = job_id_5, "success"

    deadline = time.monotonic() + PATIENCE
    while int(tasks.redis.get("invoices:summarised") or 0) < len(jobs):
        assert time.monotonic() < deadline, "the documented app did not report every job"
        time.sleep(0.1)

    for invoice, job_id in jobs.items():
        summary = tasks.redis.hgetall(f"invoice:{invoice}")
        assert summary == {b"job": job_id.encode(), b"outcome": outcomes[invoice].encode()}
    assert int(tasks.redis.get("invoices:summarised")) == len(jobs)


def _web_app(tasks: Any) -> dict[str, Any]:
    """The page's `app.py`, run as a module of the web app (its imports of `tasks` find
    the page's `tasks.py`); its names."""
    namespace: dict[str, Any] = {"__name__": "app"}
    exec(app_source(), namespace)  # noqa: S102 - the page's own snippet
    assert namespace["waits"] is tasks.waits
    return namespace


def test_after_redis_lost_its_data_the_documented_app_follows_the_lost_waits_again(
    doc_fleet: tuple[DocFleet, Any],
) -> None:
    fleet, tasks = doc_fleet
    with fleet.environment():
        web = _web_app(tasks)
    pending: dict[str, Any] = {}
    for invoice in (1, 2, 3):
        web["start_summary"](invoice, {"input": {"type": "text", "text": "x"}}, pending)
    before = set(pending)
    # Redis loses its data (a restart without persistence): waits, broker, everything
    tasks.redis.flushdb()
    tasks.Redis.from_url(fleet.env["BROKER_URL"]).flushdb()

    followed = web["follow_lost"](pending)

    assert len(followed) == 3 and not set(followed) & before and set(pending) == set(followed)
    assert web["follow_lost"](pending) == []  # Redis knows the new waits
    fleet.start(worker_commands()[0], "doc-lost")
    deadline = time.monotonic() + PATIENCE
    while int(tasks.redis.get("invoices:summarised") or 0) < 3:
        assert time.monotonic() < deadline, "the waits followed again were not reported"
        time.sleep(0.1)
    jobs = {job_id for _, job_id in pending.values()}
    assert {tasks.redis.hget(f"invoice:{n}", "job").decode() for n in (1, 2, 3)} == jobs


def test_the_documented_redis_command_runs_with_its_settings(tmp_path: Any) -> None:
    command = redis_command()
    assert command[0] == "redis-server"
    binary = shutil.which("redis-server")
    assert binary is not None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    extra = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path)]
    process = subprocess.Popen([binary, *command[1:], *extra], stdout=subprocess.DEVNULL)
    try:
        redis = Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.ping()
                break
            except RedisConnectionError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        settings = {}
        for name in ("appendonly", "appendfsync", "maxmemory-policy"):
            settings.update(redis.config_get(name))
        assert settings == {
            "appendonly": "yes",
            "appendfsync": "everysec",
            "maxmemory-policy": "noeviction",
        }
        redis.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_documented_beat_schedule_names_the_sweep_task(
    doc_fleet: tuple[DocFleet, Any],
) -> None:
    _, tasks = doc_fleet
    namespace = vars(tasks)
    exec(beat_source(), namespace)  # noqa: S102 - the page's own snippet
    task = tasks.app.conf.beat_schedule["fleet-sweep"]["task"]
    assert task == f"{tasks.waits.name}.sweep" and task in tasks.app.tasks


def test_every_name_the_page_imports_from_the_sdk_is_public() -> None:
    # in code blocks and in the prose (`from sume_sdk.fleet import ReportBusy`)
    text = DOC.read_text(encoding="utf-8")
    imported = re.findall(r"from sume_sdk(\.\w+)?\s+import\s+(\w+(?:,[ \t]*\w+)*)", text)
    assert len(imported) >= 5
    assert any("ReportBusy" in names for _, names in imported)
    sys.path.insert(0, str(SUME.output))
    try:
        for submodule, names in imported:
            module = importlib.import_module("sume_sdk" + submodule)
            for name in (n.strip() for n in names.split(",")):
                assert name in module.__all__ and getattr(module, name), name
    finally:
        sys.path.remove(str(SUME.output))
