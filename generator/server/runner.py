"""The simulated API in a background thread, for tests: ``with run_server(spec) as server:``."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from ..model import ir
from ..model.build import load_and_build
from .answers import SelfCheck
from .app import JobApp
from .listen import base_url, bind, make_server
from .log import RequestRecord
from .store import DEFAULT_JOB_TTL, DEFAULT_MAX_JOBS, DEFAULT_MAX_LOG, Limits
from .webhooks import Delivery

__all__ = ["RunningServer", "SelfCheckError", "run_server"]

STARTUP_TIMEOUT = 10.0


class SelfCheckError(AssertionError):
    """Raised on leaving a strict server that sent answers the spec forbids."""


# Not typing.Self: a test typed for an older Python than jobgen's own reads these too.
_Server = TypeVar("_Server", bound="RunningServer")


class RunningServer:
    """A simulated job API on 127.0.0.1; a context manager, sync (``with``) or async (``async with``).

    Entering starts uvicorn on a free port in a background thread; leaving stops it and
    waits for the thread, so no thread or socket outlives the block.
    """

    def __init__(
        self,
        spec: Path | str | ir.Sdk,
        *,
        jobs: Path | None = None,
        host: str = "127.0.0.1",
        clock: Callable[[], float] = time.monotonic,
        limits: Limits | None = None,
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        strict: bool = True,
        time_scale: float = 1.0,
        self_check: str | None = None,
    ) -> None:
        path = None if isinstance(spec, ir.Sdk) else Path(spec)
        sdk = spec if isinstance(spec, ir.Sdk) else load_and_build(Path(spec), jobs_file=jobs)
        self.app = JobApp(
            sdk,
            spec_path=path,
            clock=clock,
            limits=limits,
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
            strict=strict,
            time_scale=time_scale,
            self_check=self_check,
        )
        self._host = host
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self.base_url = ""

    # -- lifecycle --------------------------------------------------------------------

    def start(self: _Server) -> _Server:  # noqa: PYI019
        if self._thread is not None:
            raise RuntimeError("the server is already running")
        sock = bind(self._host, 0)
        self.base_url = base_url(sock)
        server = make_server(self.app)
        failure: list[BaseException] = []

        def run() -> None:
            try:
                server.run(sockets=[sock])
            except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
                failure.append(exc)
            finally:
                sock.close()

        thread = threading.Thread(target=run, name=f"jobgen-serve-{self.base_url}", daemon=True)
        thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                server.should_exit = True
                thread.join(STARTUP_TIMEOUT)
                sock.close()
                raise RuntimeError(
                    f"the simulated server did not start: {failure[0] if failure else 'timeout'}"
                )
            time.sleep(0.005)
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop the server and wait for its thread (idempotent)."""
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join()
        self._thread = None
        self._server = None
        self.app.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self: _Server) -> _Server:  # noqa: PYI019
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        if kind is None:
            self._raise_violations()

    async def __aenter__(self: _Server) -> _Server:  # noqa: PYI019
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.stop)
        if kind is None:
            self._raise_violations()

    def _raise_violations(self) -> None:
        check = self.app.self_check
        if check.strict and check.count:
            shown = "\n  ".join(str(v) for v in check.violations()[:10])
            raise SelfCheckError(
                f"{check.count} answer(s) of the simulated API broke the spec:\n  {shown}"
            )

    # -- the self-check -----------------------------------------------------------------

    @property
    def self_check(self) -> SelfCheck:
        """The check of every answer against the spec: ``count``, ``violations()``, ``mode``."""
        return self.app.self_check

    # -- jobs and the log -----------------------------------------------------------------

    def create_job(
        self,
        scenario: Mapping[str, Any] | None = None,
        *,
        job_name: str | None = None,
        credential: str | None = None,
    ) -> str:
        """Create a job with ``scenario``; raises ScenarioError (a ValueError) on bad input.

        The job answers only to ``credential`` (an API key, a bearer token, or
        ``user:password`` for basic auth); with None, to any credential.
        """
        return self.app.create_job(scenario, job_name=job_name, credential=credential)

    def requests(self, job_id: str | None = None) -> list[RequestRecord]:
        """The request log of every caller, oldest first; only ``job_id``'s requests when given."""
        return self.app.requests(job_id)

    def reset(self) -> None:
        """Forget every caller's jobs, idempotency keys and logged requests."""
        self.app.reset()

    def deliveries(self, job_id: str | None = None) -> list[Delivery]:
        """The webhook delivery attempts made so far, oldest first (``job_id``'s only)."""
        return self.app.deliveries(job_id)


def run_server(
    spec: Path | str | ir.Sdk,
    jobs: Path | str | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    job_ttl: float | None = DEFAULT_JOB_TTL,
    max_jobs: int | None = DEFAULT_MAX_JOBS,
    max_log: int | None = DEFAULT_MAX_LOG,
    webhook_url: str | None = None,
    webhook_secret: str | None = None,
    strict: bool = True,
    time_scale: float = 1.0,
    self_check: str | None = None,
) -> RunningServer:
    """A simulated job API for ``spec`` (a spec path or a built SDK model), to use with ``with``.

    A job is forgotten ``job_ttl`` seconds (on ``clock``) after it was created, the oldest
    job once ``max_jobs`` are kept; the log keeps the newest ``max_log`` requests. None
    lifts a limit; a limit that is not positive raises ValueError. Every request is
    checked against its operation in the spec, and refused when it breaks it, unless
    ``strict`` is False. Every duration and hint of a scenario runs ``time_scale`` times
    faster than written (docs/serve.md#fast-simulated-time). Every answer is checked
    against the spec before it is sent: ``self_check="strict"`` turns an answer that
    breaks it into a 500 and makes leaving the block raise SelfCheckError; ``"log"``
    logs and counts it (None: the ``JOBGEN_SERVE_SELF_CHECK`` environment variable,
    else ``"log"``).
    """
    limits = Limits(job_ttl=job_ttl, max_jobs=max_jobs, max_log=max_log)
    return RunningServer(
        spec,
        jobs=Path(jobs) if isinstance(jobs, str) else jobs,
        clock=clock,
        limits=limits,
        webhook_url=webhook_url,
        webhook_secret=webhook_secret,
        strict=strict,
        time_scale=time_scale,
        self_check=self_check,
    )
