"""Stoplight Prism, the validating proxy the project did not write, run between a client
and ``jobgen serve``: ``prism proxy SPEC UPSTREAM --errors``.

Prism (npm ``@stoplight/prism-cli``, pinned in ``tests/oracle/package.json`` and its lock
file; ``make oracle`` installs it, as ``make test`` does)
checks each request against the spec before it forwards it, and refuses one that breaks
it with a 422 of its own; it checks each answer of the upstream against the spec, names
every violation, request or answer, in an ``sl-violations`` header and in its log, and,
with ``--errors``, turns an answer that breaks the spec into a 500 ``VIOLATIONS``
problem. Prism rewrites ``Host`` and sends no ``X-Forwarded-Host``: a client behind it
sends ``X-Forwarded-Host`` itself (:attr:`Prism.forwarded`), so the absolute URLs the
simulator hands out point at Prism.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Self

ORACLE = Path(__file__).resolve().parent
PRISM = ORACLE / "node_modules" / ".bin" / "prism"
INSTALL = "make oracle"
#: What Prism's log says where it found a problem: a violation (any severity) or a
#: request it ended with an error of its own.
_PROBLEM = re.compile(r"Violation:|[✖⚠]\s+(?:error|warn|warning|fatal)\b")
_LISTENING = "Prism is listening on"


class PrismMissing(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Prism:
    """``prism proxy spec upstream --errors`` on a free loopback port, for a ``with`` block."""

    def __init__(self, spec: Path, upstream: str, *, start_timeout: float = 60.0) -> None:
        self.spec = spec
        self.upstream = upstream
        self.start_timeout = start_timeout
        self.port = 0
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def forwarded(self) -> dict[str, str]:
        """The header a client sends so that the simulator's absolute URLs name Prism."""
        return {"X-Forwarded-Host": f"127.0.0.1:{self.port}"}

    def __enter__(self) -> Self:
        if not PRISM.is_file():
            raise PrismMissing(f"{PRISM} is missing: run `{INSTALL}` (make test does)")
        self.port = _free_port()
        env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "SCARF_ANALYTICS": "false"}
        self._process = subprocess.Popen(
            [str(PRISM), "proxy", str(self.spec.resolve()), self.upstream, "--errors"]
            + ["--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            cwd=ORACLE,
        )
        self._reader = threading.Thread(target=self._read, name="prism-log", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(_LISTENING in line for line in self.lines):
                    return self
            if self._process.poll() is not None:
                break
            time.sleep(0.05)
        output = "\n".join(self.output())
        self._stop()
        raise RuntimeError(f"Prism did not start on {self.spec.name}:\n{output[-4000:]}")

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop()

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def _stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        if self._reader is not None:
            self._reader.join(10)
        if process.stdout is not None:
            process.stdout.close()
        self._process = None

    def output(self) -> list[str]:
        with self._lock:
            return list(self.lines)

    def mark(self) -> int:
        """The log's length now: pass it to :meth:`problems` to read only what follows."""
        with self._lock:
            return len(self.lines)

    def settle(self, quiet: float = 0.3, most: float = 5.0) -> None:
        """Wait until Prism's log has been still for ``quiet`` seconds (at most ``most``):
        it writes a line after the answer it is about has been sent."""
        last, still_since, deadline = -1, time.monotonic(), time.monotonic() + most
        while time.monotonic() < deadline:
            now = self.mark()
            if now != last:
                last, still_since = now, time.monotonic()
            elif time.monotonic() - still_since >= quiet:
                return
            time.sleep(0.03)

    def problems(self, since: int = 0) -> list[str]:
        """The log lines since ``since`` that report a violation or an error (once the
        log has settled)."""
        self.settle()
        with self._lock:
            lines = self.lines[since:]
        return [line for line in lines if _PROBLEM.search(line)]
