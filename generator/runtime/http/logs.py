"""Request logging through :mod:`logging`, one line per response or transport failure.

Each line names the method, the URL path (no query string: it may carry a key), the
status, the elapsed time and the server's request id. The SDK's ``<API>_LOG``
environment variable (``SUME_LOG`` for ``sume_sdk``) set to ``debug`` or ``info``
turns it on with a handler on stderr; without it the lines go to the package's
logger (``sume_sdk``) for the application's own logging setup.
"""

from __future__ import annotations

import logging
from os import environ

import httpx

from .bounded import where
from .response import request_id_of

__all__ = ["configure", "log_failure", "log_response"]

PACKAGE = __name__.split(".")[0]
VARIABLE = (PACKAGE.upper().removesuffix("_SDK")) + "_LOG"
logger = logging.getLogger(PACKAGE + ".http")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO}


def configure() -> None:
    """Honour ``<API>_LOG``: a stderr handler at that level, added once."""
    level = _LEVELS.get(environ.get(VARIABLE, "").strip().lower())
    if level is None:
        return
    root = logging.getLogger(PACKAGE)
    root.setLevel(level)
    if not any(getattr(h, "jobgen_sdk", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s")
        )
        handler.jobgen_sdk = True  # type: ignore[attr-defined]
        root.addHandler(handler)


def log_response(response: httpx.Response) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    try:
        elapsed = f"{response.elapsed.total_seconds():.3f}s"
    except RuntimeError:  # a streamed body not read yet; a mock transport's answer
        elapsed = "?"
    logger.info(
        "%s -> %d in %s (request id %s)",
        where(response.request),
        response.status_code,
        elapsed,
        request_id_of(response.headers),
    )


def log_failure(request: httpx.Request, error: BaseException) -> None:
    logger.info("%s -> %s", where(request), type(error).__name__)
