"""A hostile HTTP/1.1 server on loopback, for the deadline tests.

Each request is answered by a `Behaviour` chosen from its path: a plain answer, a body
trickled one byte at a time, a whole response (headers included) trickled, or a long
silence before the answer. Trickled answers end in a *terminal* record, so a client
that waits them out returns a record where it should have raised `JobTimeout`.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self


@dataclass(frozen=True)
class Behaviour:
    """How to send one answer: `mode` is plain, trickle-body, trickle-all or silent."""

    body: Any
    mode: str = "plain"
    gap: float = 0.1  # seconds between trickled bytes, or the silence before answering
    status: int = 200
    content_type: str = "application/json"

    def payload(self) -> tuple[bytes, bytes]:
        body = self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()
        head = (
            f"HTTP/1.1 {self.status} X\r\ncontent-type: {self.content_type}\r\n"
            f"content-length: {len(body)}\r\nx-padding: {'p' * 40}\r\n\r\n"
        ).encode()
        return head, body


def plain(body: Any, **options: Any) -> Behaviour:
    return Behaviour(body, **options)


def trickle_body(body: Any, gap: float = 0.1) -> Behaviour:
    return Behaviour(body, mode="trickle-body", gap=gap)


def trickle_all(body: Any, gap: float = 0.1) -> Behaviour:
    return Behaviour(body, mode="trickle-all", gap=gap)


def silent(body: Any, seconds: float) -> Behaviour:
    return Behaviour(body, mode="silent", gap=seconds)


class HostileServer:
    """Serves `choose(path)` for every request; keeps connections alive."""

    def __init__(self, choose: Callable[[str], Behaviour]) -> None:
        self._choose = choose
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.paths: list[str] = []
        #: (method, path) of every request, in order.
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        host, port = self._listener.getsockname()[:2]
        self.url = f"http://{host}:{port}"

    def __enter__(self) -> Self:
        self._spawn(self._accept)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        self._listener.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._spawn(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.05)
        buffer = b""
        with conn:
            while not self._stop.is_set():
                while b"\r\n\r\n" not in buffer:
                    try:
                        chunk = conn.recv(65536)
                    except TimeoutError:
                        if self._stop.is_set():
                            return
                        continue
                    except OSError:
                        return
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                method, target = head.split(b" ")[:2]
                path = target.decode().split("?")[0]
                buffer = self._skip_body(conn, head, buffer)
                if buffer is None:
                    return
                with self._lock:
                    self.paths.append(path)
                    self.requests.append((method.decode(), path))
                if not self._send(conn, self._choose(path)):
                    return

    def _skip_body(self, conn: socket.socket, head: bytes, buffer: bytes) -> bytes | None:
        """`buffer` past the request's body (its content-length); None if it closed."""
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(buffer) < length:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                if self._stop.is_set():
                    return None
                continue
            except OSError:
                return None
            if not chunk:
                return None
            buffer += chunk
        return buffer[length:]

    def _send(self, conn: socket.socket, behaviour: Behaviour) -> bool:
        head, body = behaviour.payload()
        try:
            if behaviour.mode == "plain":
                conn.sendall(head + body)
            elif behaviour.mode == "silent":
                if self._stop.wait(behaviour.gap):
                    return False
                conn.sendall(head + body)
            else:
                slow = head + body if behaviour.mode == "trickle-all" else body
                if behaviour.mode == "trickle-body":
                    conn.sendall(head)
                for index in range(len(slow)):
                    conn.sendall(slow[index : index + 1])
                    if self._stop.wait(behaviour.gap):
                        return False
        except OSError:
            return False
        return True
