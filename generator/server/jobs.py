"""The simulated jobs themselves: their kinds, the store, the clocks, and who owns what.

This is the layer under the HTTP routing (:mod:`.app`), the control endpoints
(:mod:`.control`) and the webhook deliveries (:mod:`.webhooks`): each of them works on a
:class:`Jobs`, which knows none of them. Code that must act when a job is made (the webhook
sender watching it) registers an observer with :meth:`Jobs.on_new_job`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..model import ir
from .auth import read_credential
from .keys import issue
from .kinds import JobKind, sent_json
from .scenario import MAX_TIME_SCALE, Scenario, ScenarioError, parse_scenario
from .store import Limits, SimJob, Store
from .timeline import View, start
from .wire import Request

__all__ = ["Jobs", "NewJobObserver", "canceled_view", "record_of"]

#: Called with a new job, its create request's body (None for a control job) and the time.
NewJobObserver = Callable[[SimJob, bytes | None, float], None]


class Jobs:
    """The simulated jobs of one SDK, behind the store's lock."""

    def __init__(
        self,
        sdk: ir.Sdk,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        limits: Limits | None = None,
        time_scale: float = 1.0,
    ) -> None:
        if not (0 < time_scale <= MAX_TIME_SCALE):
            raise ValueError(f"time_scale must be above 0 and at most {MAX_TIME_SCALE:g}")
        self.sdk = sdk
        #: How many times faster than written scenarios run, unless they say otherwise.
        self.time_scale = time_scale
        self.clock = clock
        self.wall = wall
        self.kinds = {job.name: JobKind(job, sdk.schemas) for job in sdk.jobs}
        self.store = Store(limits or Limits())
        self._fingerprint_key = secrets.token_bytes(32)
        self._observers: list[NewJobObserver] = []

    def on_new_job(self, observer: NewJobObserver) -> None:
        """Call ``observer`` for every job made from now on (with the store lock held)."""
        self._observers.append(observer)

    # -- callers ------------------------------------------------------------------------

    def fingerprint(self, credential: str | None) -> str | None:
        """Who owns what a credential made: a keyed hash of it (None for no credential)."""
        if credential is None:
            return None
        digest = hmac.new(self._fingerprint_key, credential.encode(), hashlib.sha256)
        return digest.hexdigest()[:32]

    def caller_of(self, request: Request) -> str | None:
        """The fingerprint of the credential ``request`` carries, in any of the spec's schemes."""
        schemes = [auth.scheme for auth in self.sdk.auths]
        found = read_credential(self.sdk.auths, schemes, request.headers, request.params)
        return self.fingerprint(found.value)

    # -- jobs ---------------------------------------------------------------------------

    def job_for(self, job_name: str | None) -> ir.Job:
        """The declared job called ``job_name`` (optional when the spec declares one)."""
        if job_name is None:
            if len(self.kinds) > 1:
                names = ", ".join(self.kinds)
                raise ScenarioError(
                    "job_name", f"the spec declares several jobs; name one of {names}"
                )
            return next(iter(self.kinds.values())).job
        if job_name not in self.kinds:
            raise ScenarioError(
                "job_name", f"no job {job_name!r}; declared: {', '.join(self.kinds)}"
            )
        return self.kinds[job_name].job

    def create_job(
        self,
        scenario: Mapping[str, Any] | None = None,
        *,
        job_name: str | None = None,
        credential: str | None = None,
    ) -> str:
        """Create a job directly; it answers to ``credential`` only (any credential if None)."""
        job = self.job_for(job_name)
        return self.add_job(job, self.scenario(scenario, job), credential)

    def scenario(self, raw: object, job: ir.Job) -> Scenario:
        """``raw`` (decoded JSON, None for the defaults) parsed for ``job``, at the server's
        time scale unless it gives its own; raises ScenarioError."""
        scenario = parse_scenario(raw, job, time_scale=self.time_scale)
        self.kinds[job.name].check_scenario(scenario, self.wall())
        return scenario

    def add_job(self, job: ir.Job, scenario: Scenario, owner: str | None) -> str:
        """Create a job of kind ``job`` with an already parsed scenario; returns its id."""
        with self.store.lock:
            now = self.clock()
            self.store.expire(now)
            return self.new_job(self.kinds[job.name], scenario, owner, now, None).id

    def new_job(
        self,
        kind: JobKind,
        scenario: Scenario,
        owner: str | None,
        now: float,
        raw: bytes | None,
        chosen: str | None = None,
    ) -> SimJob:
        """Make and keep a job (store lock held); ``raw`` is its create request's body.

        ``chosen`` is the id the caller named (a create at ``PUT /jobs/{id}``): the job
        takes it, replacing a job of that id."""
        if chosen:
            job_id = chosen
            if job_id in self.store.jobs:
                self.store.forget(self.store.jobs[job_id])
        else:
            job_id = kind.new_id()
            while job_id in self.store.jobs:
                job_id = kind.new_id()
        wall = self.wall()
        sent = sent_json(raw)
        sim = SimJob(
            job_id,
            kind.job.name,
            scenario,
            owner,
            start(now),
            wall,
            kind.echo(kind.base_record(wall), sent),
            created=now,
            caller=self.fingerprint(owner),
            carried=issue(kind.job),
            sent=sent,
        )
        self.store.add(sim)
        for observer in self._observers:
            observer(sim, raw, now)
        return sim


def record_of(job: ir.Job, body: Any) -> Any:
    """The job's record in its status body ``body`` (None where the path is missing)."""
    for key in job.record_path:
        body = body.get(key) if isinstance(body, dict) else None
    return body


def canceled_view(job: ir.Job, sim: SimJob, view: View) -> View:
    """What a job whose cancel was accepted reports instead of ``view``."""
    if not sim.canceled or (view.terminal and view.kind == "canceled"):
        return view
    state = job.canceled[0] if job.canceled else view.state
    return View(state, "canceled", terminal=True, ready=False, percent=view.percent)
