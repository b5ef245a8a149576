"""Fixtures of the fleet tests: a real `redis-server` on a free loopback port, the
simulated Sume API over HTTP, and Celery worker processes started from `tests.fleet.app`."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jobgen.server import RunningServer, run_server
from tests.e2e.support import APIS, ROOT

SUME = APIS["sume"]
#: A queue that only the workers a test starts with `queues=f"celery,{HELD}"` consume.
HELD = "held"
#: Bound of every wait on the fleet (worker start, reports): a hang fails, it never blocks.
PATIENCE = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of the OS packages on a free port, no persistence, for the session."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed (apt-get install -y redis-server)")
    port = _free_port()
    log = tmp_path_factory.mktemp("redis") / "redis.log"
    command = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"redis-server did not start: {log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def sume_server() -> Iterator[RunningServer]:
    with run_server(SUME.spec, max_log=None) as server:
        yield server


@pytest.fixture(scope="session")
def fleet_app(redis_url: str, sume_server: RunningServer) -> Iterator[Any]:
    """`tests.fleet.app`, imported here as the process that follows jobs imports it."""
    os.environ["FLEET_REDIS"] = redis_url
    os.environ["FLEET_API"] = sume_server.base_url
    sys.path.insert(0, str(SUME.output))
    try:
        from tests.fleet import app

        yield app
    finally:
        sys.path.remove(str(SUME.output))


class Fleet:
    """Worker processes on one Redis, the server's log, and the reports the callback got."""

    def __init__(self, app: Any, server: RunningServer, logs: Path) -> None:
        self.app = app
        self.server = server
        self.logs = logs
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.client = app.client()

    def start(
        self,
        *names: str,
        rate: float | None = None,
        concurrency: int = 2,
        visibility: float | None = None,
        grace: float | None = None,
        resend: float | None = None,
        pool: str = "threads",
        kill_at: str | None = None,
        kill_whom: str = "self",
        queues: str = "celery",
        sweeper: bool = True,
        skew: float | None = None,
    ) -> None:
        """Start one worker per name, and return once every one of them consumes.

        `skew` runs them under libfaketime (Debian's `faketime`), their wall clock
        that many seconds off (their monotonic clock left alone).

        `kill_at` names a point (`POINTS`, or "callback"): the first of these workers
        to reach it SIGKILLs `kill_whom` ("self": the process at the point; "main":
        the prefork worker's main process and that child)."""
        for name in names:
            env = dict(
                os.environ,
                FLEET_NAME=name,
                PYTHONPATH=f"{ROOT}{os.pathsep}{SUME.output}",
            )
            for key, value in {
                "FLEET_RATE": rate,
                "FLEET_VISIBILITY": visibility,
                "FLEET_GRACE": grace,
                "FLEET_RESEND": resend,
                "FLEET_KILL_AT": kill_at,
                "FLEET_KILL_WHOM": kill_whom,
                "FLEET_SWEEPER": None if sweeper else "off",
            }.items():
                env.pop(key, None)
                if value is not None:
                    env[key] = str(value)
            command = [
                sys.executable, "-m", "celery", "-A", "tests.fleet.app", "worker",
                f"--pool={pool}", f"--concurrency={concurrency}", f"--hostname={name}@fleet",
                "--without-gossip", "--without-mingle", "--without-heartbeat",
                "--loglevel=WARNING", f"--queues={queues}",
            ]  # fmt: skip
            if skew is not None:
                if shutil.which("faketime") is None:
                    pytest.fail("faketime is not installed (apt-get install -y faketime)")
                command = ["faketime", "-f", f"{skew:+g}s", *command]
                env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
                faked = Path(__file__).parent / "faked"  # its sitecustomize: time.sleep
                env["PYTHONPATH"] = f"{faked}{os.pathsep}{env['PYTHONPATH']}"
            with (self.logs / f"{name}.log").open("ab") as out:
                self.workers[name] = subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        self.until(
            lambda: {n.decode() for n in self.app.redis.smembers(self.app.READY)} >= set(names),
            f"workers {names} to start",
        )

    def kill(self, name: str) -> None:
        """SIGKILL: the worker dies at once, with whatever steps it holds, and so do its
        pool's children (a prefork worker's, or those orphaned when its main process was
        killed at a point)."""
        worker = self.workers.pop(name)
        try:
            os.killpg(worker.pid, signal.SIGKILL)  # each worker leads its own group
        except ProcessLookupError:  # the group is gone already
            pass
        worker.wait()

    def died(self, name: str) -> bool:
        """Whether the worker's main process has exited (it was killed at a point)."""
        return self.workers[name].poll() is not None

    def stop(self) -> None:
        """Kill every worker: the next test starts from an empty Redis anyway."""
        for name in list(self.workers):
            self.kill(name)

    def job(self, **scenario: Any) -> str:
        return self.server.create_job(SUME.scenario(**scenario), credential="key-1")

    def follow(
        self, job_id: str, label: str, deadline: float = 30.0, queue: str | None = None
    ) -> Any:
        """Hand the job to the fleet (its report to `queue`, if given); returns the handle
        it was followed with."""
        handle = self.client.jobs.handle(job_id, deadline=deadline)
        callback = self.app.record.s(label)
        if queue is not None:
            callback = callback.set(queue=queue)
        self.app.waits.follow(handle, on_done=callback)
        return handle

    def reads(self, job_id: str | None = None) -> list[Any]:
        return [r for r in self.server.requests(job_id) if r.operation == "status"]

    def settled(self) -> bool:
        """Nothing queued, scheduled or running, no wait open, no report unacknowledged:
        no report can come any more."""
        redis = self.app.redis
        name = self.app.waits.name
        queued = redis.llen("celery") or redis.llen(HELD)
        if queued or redis.hlen("unacked") or redis.zcard(f"{name}:outbox"):
            return False
        return not any(redis.scan_iter(f"{name}:wait:*", count=1000))

    def deliveries(self) -> list[dict[str, Any]]:
        """Every call of the callback, in order: report id, label, when (monotonic)."""
        return [json.loads(item) for item in self.app.redis.lrange(self.app.DELIVERIES, 0, -1)]

    def reached(self, point: str) -> dict[str, float]:
        """When each wait first passed `point` (monotonic), by wait id."""
        raw = self.app.redis.hgetall(self.app.POINT_TIMES + point)
        return {key.decode(): float(value) for key, value in raw.items()}

    def reports(self, count: int) -> list[dict[str, Any]]:
        """Every report the callback got, once `count` came and the fleet settled."""
        redis = self.app.redis
        for _ in range(2):  # twice, apart: a message between queue and worker shows in neither
            self.until(
                lambda: redis.llen(self.app.REPORTS) >= count and self.settled(),
                "reports",
            )
            time.sleep(0.5)
        return [json.loads(item) for item in redis.lrange(self.app.REPORTS, 0, -1)]

    def held(self) -> list[dict[str, Any]]:
        """The reports waiting in the `HELD` queue (the first argument of each message)."""
        found = []
        for raw in self.app.redis.lrange(HELD, 0, -1):
            body = json.loads(base64.b64decode(json.loads(raw)["body"]))
            found.append(body[0][0])
        return found

    def until(self, condition: Any, what: str) -> None:
        deadline = time.monotonic() + PATIENCE
        while not condition():
            if time.monotonic() > deadline:
                redis = self.app.redis
                state = {
                    "queued": redis.llen("celery"),
                    "unacked": redis.hlen("unacked"),
                    "unacked mutex": redis.get("unacked_mutex"),
                    "reports": [
                        json.loads(r)["label"] for r in redis.lrange(self.app.REPORTS, 0, -1)
                    ],
                }
                logs = {p.name: p.read_text(errors="replace")[-1500:] for p in self.logs.iterdir()}
                pytest.fail(f"gave up waiting for {what}: {state}; worker logs: {logs}")
            time.sleep(0.05)


@pytest.fixture
def fleet(fleet_app: Any, sume_server: RunningServer, tmp_path: Path) -> Iterator[Fleet]:
    """A clean Redis and server log; the workers a test starts are stopped after it."""
    fleet_app.redis.flushdb()
    sume_server.reset()
    fleet = Fleet(fleet_app, sume_server, tmp_path)
    try:
        yield fleet
    finally:
        fleet.stop()
        fleet.client.close()
