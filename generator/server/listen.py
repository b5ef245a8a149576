"""Running an ASGI app with uvicorn on a socket we bind ourselves (so port 0 works)."""

from __future__ import annotations

import logging
import socket
from typing import Any

import uvicorn

from .wire import ConnectionDropped

__all__ = ["base_url", "bind", "make_server"]


class _QuietDrops(logging.Filter):
    """Hide uvicorn's error report for connections the simulation drops on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


_FILTER = _QuietDrops()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def make_server(app: Any) -> uvicorn.Server:
    """A quiet uvicorn server for ``app``: no access log, warnings only, no lifespan."""
    error_logger = logging.getLogger("uvicorn.error")
    if _FILTER not in error_logger.filters:
        error_logger.addFilter(_FILTER)
    config = uvicorn.Config(
        app,
        http="h11",
        lifespan="off",
        access_log=False,
        log_config=None,
        log_level="warning",
        server_header=False,
        timeout_graceful_shutdown=2,
    )
    return uvicorn.Server(config)
