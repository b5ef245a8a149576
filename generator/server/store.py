"""What the simulated API remembers: jobs, idempotency keys, create attempts and the log.

Everything is bounded, so a server under a long load keeps a steady size: a job (with its
idempotency key) is forgotten ``job_ttl`` seconds after it was created, and the oldest job
goes first once ``max_jobs`` are kept; create-attempt counters follow the same rules; the
log keeps the newest ``max_log`` requests. ``None`` lifts a limit.

Each job, idempotency key, attempt counter and logged request belongs to a *caller*: the
fingerprint of the credential its request carried (None when it carried none). The control
endpoints show and reset one caller's share only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterator
from typing import Any

import attrs

from .log import RequestRecord
from .scenario import Scenario
from .timeline import Progress
from .wire import Answer

__all__ = ["DEFAULT_JOB_TTL", "DEFAULT_MAX_JOBS", "DEFAULT_MAX_LOG", "Limits", "SimJob", "Store"]

DEFAULT_JOB_TTL = 3600.0
DEFAULT_MAX_JOBS = 10_000
DEFAULT_MAX_LOG = 10_000

# (caller, job name, idempotency key or scenario text)
CreateKey = tuple[str | None, str, str]


@attrs.frozen
class Limits:
    """How long jobs are kept and how many jobs and logged requests (None: no limit)."""

    job_ttl: float | None = DEFAULT_JOB_TTL
    max_jobs: int | None = DEFAULT_MAX_JOBS
    max_log: int | None = DEFAULT_MAX_LOG

    def __attrs_post_init__(self) -> None:
        if self.job_ttl is not None and not self.job_ttl > 0:
            raise ValueError(f"job_ttl must be a positive number of seconds, not {self.job_ttl}")
        for name in ("max_jobs", "max_log"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a positive integer, not {value}")


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
    created: float = 0.0  # the server's monotonic clock
    caller: str | None = None
    replay_key: CreateKey | None = None
    canceled: bool = False  # a cancel was accepted: the job reports a canceled state
    carried: dict[str, Any] = attrs.field(factory=dict)  # values later calls must present
    downloaded: bool = False  # a one-shot result was served: it is gone
    path: dict[str, str] = attrs.field(factory=dict)  # the create URL's path parameters
    sent: Any = None  # the create request's JSON body (None when it sent none)


@attrs.define
class Replay:
    """The first answer to a create with an idempotency key, kept to answer retries."""

    job_id: str
    answer: Answer


@attrs.define
class Attempts:
    count: int
    first: float


@attrs.define
class Store:
    """All mutable state, behind one lock (the server thread and tests both read it)."""

    limits: Limits = attrs.field(factory=Limits)
    lock: threading.Lock = attrs.field(factory=threading.Lock)
    jobs: dict[str, SimJob] = attrs.field(factory=dict)  # oldest first
    replays: dict[CreateKey, Replay] = attrs.field(factory=dict)
    attempts: OrderedDict[CreateKey, Attempts] = attrs.field(factory=OrderedDict)
    log: deque[RequestRecord] = attrs.field(init=False)
    seq: int = 0

    def __attrs_post_init__(self) -> None:
        self.log = deque(maxlen=self.limits.max_log)

    # -- bounds (call with the lock held) -------------------------------------------------

    def expire(self, now: float) -> None:
        """Forget the jobs and attempt counters older than the TTL."""
        ttl = self.limits.job_ttl
        if ttl is None:
            return
        while self.jobs:
            oldest = next(iter(self.jobs.values()))
            if now - oldest.created < ttl:
                break
            self.forget(oldest)
        while self.attempts:
            key, attempts = next(iter(self.attempts.items()))
            if now - attempts.first < ttl:
                break
            del self.attempts[key]

    def add(self, job: SimJob) -> None:
        """Keep ``job``, forgetting the oldest jobs past ``max_jobs``."""
        cap = self.limits.max_jobs
        while cap is not None and len(self.jobs) >= cap:
            self.forget(next(iter(self.jobs.values())))
        self.jobs[job.id] = job

    def forget(self, job: SimJob) -> None:
        del self.jobs[job.id]
        if job.replay_key is not None:
            self.replays.pop(job.replay_key, None)

    def attempt(self, key: CreateKey, now: float) -> int:
        """Count one more create attempt for ``key``; returns its number (1, 2, ...)."""
        found = self.attempts.get(key)
        if found is None:
            cap = self.limits.max_jobs
            while cap is not None and len(self.attempts) >= cap:
                self.attempts.popitem(last=False)
            found = self.attempts[key] = Attempts(0, now)
        found.count += 1
        return found.count

    def append(self, record: RequestRecord) -> None:
        self.log.append(record)

    # -- callers --------------------------------------------------------------------------

    def clear(self, caller: str | None = None, *, everyone: bool = False) -> None:
        """Forget ``caller``'s jobs, keys, counters and requests (or everyone's)."""
        if everyone:
            self.jobs.clear()
            self.replays.clear()
            self.attempts.clear()
            self.log.clear()
            self.seq = 0
            return
        for job in [j for j in self.jobs.values() if j.caller == caller]:
            self.forget(job)
        for key in [k for k in self.replays if k[0] == caller]:
            del self.replays[key]
        for key in [k for k in self.attempts if k[0] == caller]:
            del self.attempts[key]
        kept = [r for r in self.log if r.caller != caller]
        self.log.clear()
        self.log.extend(kept)
        if not kept:
            self.seq = 0

    def records(
        self, job_id: str | None = None, *, caller: str | None = None, everyone: bool = True
    ) -> list[RequestRecord]:
        """The log, oldest first: ``job_id``'s requests only, ``caller``'s only unless ``everyone``."""
        with self.lock:
            return list(self._select(job_id, caller, everyone))

    def _select(
        self, job_id: str | None, caller: str | None, everyone: bool
    ) -> Iterator[RequestRecord]:
        for record in self.log:
            if job_id is not None and record.job_id != job_id:
                continue
            if not everyone and record.caller != caller:
                continue
            yield record
