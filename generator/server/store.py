"""What the simulated API remembers: jobs, idempotency keys, create attempts and the log."""

from __future__ import annotations

import threading
from typing import Any

import attrs

from .log import RequestRecord
from .scenario import Scenario
from .timeline import Progress
from .wire import Answer

__all__ = ["SimJob", "Store"]


@attrs.define
class SimJob:
    """One simulated job."""

    id: str
    name: str
    scenario: Scenario
    owner: str | None
    progress: Progress
    created_wall: float
    base: Any
    polls: int = 0


@attrs.define
class Replay:
    """The first answer to a create with an idempotency key, kept to answer retries."""

    job_id: str
    answer: Answer


@attrs.define
class Store:
    """All mutable state, behind one lock (the server thread and tests both read it)."""

    lock: threading.Lock = attrs.field(factory=threading.Lock)
    jobs: dict[str, SimJob] = attrs.field(factory=dict)
    replays: dict[tuple[str, str], Replay] = attrs.field(factory=dict)
    attempts: dict[tuple[str, str], int] = attrs.field(factory=dict)
    log: list[RequestRecord] = attrs.field(factory=list)
    seq: int = 0

    def clear(self) -> None:
        self.jobs.clear()
        self.replays.clear()
        self.attempts.clear()
        self.log.clear()
        self.seq = 0

    def records(self, job_id: str | None = None) -> list[RequestRecord]:
        with self.lock:
            return [r for r in self.log if job_id is None or r.job_id == job_id]
