"""docs/fleet.md's Celery app, taken from the page as written: its `tasks.py`, its worker
commands and its beat schedule, run in worker processes against a real Redis.

`tasks_source(scale)` can shorten the page's timeouts (`visibility_timeout`, kombu's
restore interval, `lease`, `resend`, `sweep_every`, `grace`) by a factor, for runs that kill workers every
few seconds; each of those settings must be on the page exactly once, so a setting the
page drops fails the run that needs it."""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.e2e.support import APIS, ROOT

DOC = ROOT / "docs" / "fleet.md"
SUME = APIS["sume"]
#: The page's timeouts that a run may shorten: the literal on the page, and its format.
TIMEOUTS = {
    '"visibility_timeout": 300': '"visibility_timeout": {}',
    '"unacked_restore_interval": 10': '"unacked_restore_interval": {}',
    "lease=5,": "lease={},",
    "resend=5,": "resend={},",
    "sweep_every=1,": "sweep_every={},",
    "grace=60,": "grace={},",
}
#: What a worker of the soak imports: the page's `tasks.py`, plus a note of every call of
#: its callback (report id, invoice, when) and of the workers that are ready.
OBSERVER = """
import json, os, time
from celery.signals import task_prerun, worker_ready
from tasks import app, redis, summary_done, waits

DELIVERIES = "doc:deliveries"
READY = "doc:ready"


@task_prerun.connect
def _delivered(sender=None, args=None, **_):
    if sender.name == summary_done.name:
        entry = {"report_id": args[0]["report_id"], "invoice": args[1], "at": time.monotonic()}
        redis.rpush(DELIVERIES, json.dumps(entry))


@worker_ready.connect
def _ready(**_):
    redis.sadd(READY, os.environ["DOC_WORKER"])
"""


def _blocks(kind: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return re.findall(rf"^```{kind}\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


def tasks_source(scale: float = 1.0) -> str:
    """The page's `tasks.py`; its timeouts divided by `scale`."""
    (source,) = [block for block in _blocks("python") if block.startswith("# tasks.py")]
    if scale == 1.0:
        return source
    for literal, form in TIMEOUTS.items():
        assert source.count(literal) == 1, f"docs/fleet.md's tasks.py lost {literal}"
        value = float(literal.rstrip(",").rsplit(" ", 1)[-1].rsplit("=", 1)[-1]) / scale
        source = source.replace(literal, form.format(value))
    return source


def app_source() -> str:
    """The page's `app.py`: the web app's request handler and `follow_lost`."""
    (source,) = [block for block in _blocks("python") if block.startswith("# app.py")]
    return source


def redis_command() -> list[str]:
    """The page's `redis-server` command line, as an argument list."""
    (line,) = [
        line
        for block in _blocks("console")
        for line in block.splitlines()
        if line.startswith("$ redis-server")
    ]
    return shlex.split(line[2:])


def beat_source() -> str:
    """The page's beat schedule (a block run in the namespace of `tasks.py`)."""
    (source,) = [block for block in _blocks("python") if "beat_schedule" in block]
    return source


def worker_commands() -> list[list[str]]:
    """The page's worker commands (`celery -A tasks worker ...`), as argument lists."""
    commands = []
    for block in _blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ celery -A tasks worker"):
                commands.append(shlex.split(line[2:]))
    return commands


class DocFleet:
    """Workers of the page's app in `folder`, on Redis databases `broker` and `book`."""

    def __init__(self, folder: Path, redis_url: str, api: str, scale: float = 1.0) -> None:
        self.folder = folder
        (folder / "tasks.py").write_text(tasks_source(scale), encoding="utf-8")
        (folder / "observed.py").write_text(OBSERVER, encoding="utf-8")
        base = redis_url.rsplit("/", 1)[0]
        self.env = dict(
            os.environ,
            BROKER_URL=f"{base}/2",
            FLEET_REDIS_URL=f"{base}/3",
            SUME_BASE_URL=api,
            SUME_API_KEY="key-1",
            PYTHONPATH=os.pathsep.join([str(folder), str(SUME.output), str(ROOT)]),
        )
        self.workers: dict[str, subprocess.Popen[bytes]] = {}

    def load(self) -> Any:
        """The page's `tasks` module in this process (as the web app imports it)."""
        for path in (str(self.folder), str(SUME.output)):
            if path not in sys.path:
                sys.path.insert(0, path)
        loaded = sys.modules.get("tasks")
        if loaded is not None and Path(loaded.__file__ or "").parent == self.folder:
            return loaded
        sys.modules.pop("tasks", None)
        with self.environment():
            return importlib.import_module("tasks")

    @contextlib.contextmanager
    def environment(self) -> Iterator[None]:
        """The page's settings in this process's environment, only while it reads them
        (importing `tasks`, calling its `client()`): the Celery command line reads
        BROKER_URL too, and other tests' workers inherit this process's environment."""
        names = ("BROKER_URL", "FLEET_REDIS_URL", "SUME_BASE_URL", "SUME_API_KEY")
        saved = {name: os.environ.get(name) for name in names}
        os.environ.update({name: self.env[name] for name in names})
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def start(self, command: list[str], name: str, app: str = "tasks", **env: str) -> None:
        """Start a worker with one of the page's commands, named `name` (`-n name@%h`),
        importing `app` (the page's `tasks`, or `observed` that wraps it)."""
        argv = list(command)
        argv[argv.index("-n") + 1] = f"{name}@%h"
        argv[argv.index("-A") + 1] = app
        argv = [sys.executable, "-m", *argv, "--without-gossip", "--without-mingle"]
        argv += ["--without-heartbeat", "--loglevel=WARNING"]
        with (self.folder / f"{name}.log").open("ab") as out:
            self.workers[name] = subprocess.Popen(
                argv,
                cwd=self.folder,
                env=dict(self.env, DOC_WORKER=name, **env),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self, name: str) -> None:
        """SIGKILL the worker and its pool's children."""
        worker = self.workers.pop(name)
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker.wait()

    def stop(self) -> None:
        for name in list(self.workers):
            self.kill(name)
