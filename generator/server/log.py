"""The request log: one record per request to the simulated API."""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["RequestRecord"]


@attrs.frozen(kw_only=True)
class RequestRecord:
    """One request, as the server saw and answered it.

    ``status`` is None when the connection was dropped on purpose (no complete answer).
    ``operation`` is ``create``, ``status`` or ``result`` (None for unknown routes);
    ``poll`` is the job's poll number for status requests that reached the job;
    ``fault`` names what the scenario injected, or the implicit ``missing_credentials``
    / ``wrong_credentials`` 401s; ``replayed`` marks a create answered from an earlier
    one with the same idempotency key.
    """

    seq: int
    time: float
    method: str
    path: str
    query: str
    status: int | None
    operation: str | None = None
    job_name: str | None = None
    job_id: str | None = None
    poll: int | None = None
    idempotency_key: str | None = None
    fault: str | None = None
    replayed: bool = False

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)
