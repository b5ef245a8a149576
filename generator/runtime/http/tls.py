"""The verifying TLS context of the clients an SDK creates, built once per process.

An ``httpx.Client`` created without ``verify=`` builds an ``ssl.SSLContext`` of its
own and loads the whole CA bundle into it: about 20 ms of CPU per client, paid again
by every client an application makes per task or per request. httpx's advice is to
build the context once and pass it as ``verify=``; `default_context` does that for
the clients the SDK creates itself (never for an ``http_client`` or a ``transport``
of the caller's). The context is httpx's own default (``httpx.create_ssl_context()``:
certifi's bundle, or the file or folder ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` name), so
it verifies exactly as a client of the installed httpx would; it is built anew when
one of the variables it reads (``SSLKEYLOGFILE`` too) has changed since.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    import ssl

__all__ = ["default_context", "transport_settings"]

#: What httpx's default context reads from the environment (a client trusts it).
_ENVIRONMENT = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")

_lock = threading.Lock()
_built: tuple[tuple[str | None, ...], ssl.SSLContext] | None = None


def default_context() -> ssl.SSLContext:
    """httpx's default verifying context, shared while the environment it reads holds.

    Safe from any thread: the first caller builds it, the others wait for it. An
    ``ssl.SSLContext`` is meant to be shared; each connection gets its own TLS state.
    """
    global _built
    key = tuple(os.environ.get(name) for name in _ENVIRONMENT)
    with _lock:
        if _built is None or _built[0] != key:
            _built = (key, httpx.create_ssl_context(verify=True, trust_env=True))
        return _built[1]


def transport_settings(transport: object | None) -> dict[str, Any]:
    """The settings of an httpx client the SDK creates: the caller's ``transport``, which
    keeps its own TLS settings, or else the shared `default_context`."""
    if transport is not None:
        return {"transport": transport}
    return {"verify": default_context()}
