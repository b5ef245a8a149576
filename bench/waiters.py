"""Waiter efficiency in virtual time: status requests and detection lag per strategy.

A scripted server answers status reads from a timeline (the job turns terminal at T;
it may send Retry-After, a body hint, or a run of 503s). T is drawn per run within
+-10 % of the timeline's nominal end (seeded, the same draws for every strategy), so a
fixed interval does not land on T by construction. Every strategy sleeps on one
virtual clock, so a 10-minute job takes milliseconds and nothing depends on machine
load. Detection lag is the virtual time from T to the waiter returning. Jittered
strategies run with several seeds; the tables give medians (and the worst lag).

Strategies:
- jobgen: generator/runtime SyncJobWaiter with the default schedule (first 1 s, cap
  30 s, equal jitter) and default status retries, clock and sleep injected;
- fixed 1 s: poll, sleep 1 s, repeat (a non-2xx answer is skipped, not raised);
- tenacity: @retry(wait=wait_exponential_jitter(initial=1, max=30)), retrying on a
  non-terminal record and on 5xx, the usual hand-written recipe;
- botocore: botocore.waiter.Waiter built from a WaiterModel (delay 5 s and 15 s),
  driven with a fake operation method that, like a botocore client in its default
  ("legacy") retry mode, retries a 5xx up to 4 times with rand() * 2**(n-1) s delays
  and then returns the error response;
- lower bound: an oracle that knows T and obeys every hint: without a hint it polls
  next at T; with one it polls as soon as the hint allows.
"""

from __future__ import annotations

import math
import random
import types
from collections.abc import Callable
from typing import Any

import botocore.waiter
import httpx
import tenacity
from common import median

from jobgen.runtime.shared.errors import SDKError
from jobgen.runtime.waiting.spec import JobSpec, WaitConfig
from jobgen.runtime.waiting.waiter import SyncJobWaiter

EPOCH = 1_750_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class Timeline:
    """A job that is `running` until `done_at`, then `succeeded`."""

    def __init__(
        self,
        name: str,
        done_at: float,
        *,
        retry_after: float | None = None,
        body_hint: Callable[[float], float] | None = None,
        errors_from: float | None = None,
        errors: int = 0,
        note: str = "",
    ) -> None:
        self.name, self.done_at, self.note = name, done_at, note
        self.retry_after, self.body_hint = retry_after, body_hint
        self.errors_from, self.errors = errors_from, errors

    def server(self, clock: Clock) -> Server:
        return Server(self, clock)

    def drawn(self, seed: int) -> Timeline:
        """This timeline with T drawn within +-10 % of its nominal end."""
        u = random.Random(f"T{seed}").random()
        copy = Timeline(self.name, self.done_at * (0.9 + 0.2 * u))
        copy.__dict__.update({k: v for k, v in self.__dict__.items() if k != "done_at"})
        return copy


class Server:
    def __init__(self, timeline: Timeline, clock: Clock) -> None:
        self.t, self.clock = timeline, clock
        self.requests = 0
        self.early = 0  # requests sent before the previous answer's hint allowed
        self.not_before = 0.0
        self.errors_left = timeline.errors

    def answer(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        now = self.clock.now
        self.requests += 1
        if now + 1e-9 < self.not_before:
            self.early += 1
        t = self.t
        if t.errors_from is not None and now >= t.errors_from and self.errors_left > 0:
            self.errors_left -= 1
            self.not_before = now
            return 503, {"error": "unavailable"}, {}
        done = now >= t.done_at
        body: dict[str, Any] = {"id": "job-1", "status": "succeeded" if done else "running"}
        headers: dict[str, str] = {}
        hint = 0.0
        if not done and t.body_hint is not None:
            hint = body["next_poll_after_seconds"] = t.body_hint(t.done_at - now)
        if not done and t.retry_after is not None:
            headers["Retry-After"] = str(int(t.retry_after))
            hint = max(hint, t.retry_after)
        self.not_before = now + hint
        return 200, body, headers

    def httpx_response(self) -> httpx.Response:
        status, body, headers = self.answer()
        request = httpx.Request("GET", "https://api.example/jobs/job-1")
        return httpx.Response(status, json=body, headers=headers, request=request)


TIMELINES = [
    Timeline("short job (T ~ 5 s), no hints", 5.0),
    Timeline("long job (T ~ 10 min), no hints", 600.0),
    Timeline("Retry-After: 5 on every answer (T ~ 62 s)", 62.0, retry_after=5.0),
    Timeline(
        "body hint = ETA clamped to 1..10 s (T ~ 45 s)",
        45.0,
        body_hint=lambda left: float(min(10, max(1, math.ceil(left)))),
    ),
    Timeline("three 503s from 20 s (T ~ 60 s)", 60.0, errors_from=20.0, errors=3),
]

SPEC = JobSpec(
    name="job",
    state_path=("status",),
    success={"succeeded"},
    failure={"failed"},
    pending={"running"},
    hint_path=("next_poll_after_seconds",),
)


def _jobgen(server: Server, clock: Clock, rng: random.Random) -> str:
    config = WaitConfig(
        clock=lambda: clock.now,
        wall_clock=lambda: EPOCH + clock.now,
        sleep=clock.sleep,
        rng=rng.random,
    )
    waiter: SyncJobWaiter[Any, Any] = SyncJobWaiter(
        SPEC,
        read_status=lambda job_id, timeout: server.httpx_response(),
        decode_record=lambda raw: raw,
        config=config,
    )
    try:
        record = waiter.wait_for_job("job-1", deadline=3600.0)
    except SDKError as error:
        return type(error).__name__
    return record["status"]


def _fixed(server: Server, clock: Clock, rng: random.Random) -> str:
    while True:
        status, body, _ = server.answer()
        if status == 200 and body["status"] == "succeeded":
            return "succeeded"
        clock.sleep(1.0)


def _tenacity(server: Server, clock: Clock, rng: random.Random) -> str:
    random.seed(rng.random())  # wait_exponential_jitter draws from the random module

    def is_5xx(error: BaseException) -> bool:
        return isinstance(error, httpx.HTTPStatusError) and error.response.status_code >= 500

    @tenacity.retry(
        wait=tenacity.wait_exponential_jitter(initial=1, max=30),
        retry=tenacity.retry_if_result(lambda body: body["status"] != "succeeded")
        | tenacity.retry_if_exception(is_5xx),
        stop=tenacity.stop_after_attempt(10_000),
        sleep=clock.sleep,
        reraise=True,
    )
    def poll() -> dict[str, Any]:
        response = server.httpx_response()
        response.raise_for_status()
        return response.json()

    try:
        return poll()["status"]
    except httpx.HTTPError as error:
        return type(error).__name__


def _botocore(delay: float) -> Callable[[Server, Clock, random.Random], str]:
    model = botocore.waiter.WaiterModel(
        {
            "version": 2,
            "waiters": {
                "JobSucceeded": {
                    "operation": "DescribeJob",
                    "delay": delay,
                    "maxAttempts": 10_000,
                    "acceptors": [
                        {
                            "state": "success",
                            "matcher": "path",
                            "argument": "status",
                            "expected": "succeeded",
                        },
                        {
                            "state": "failure",
                            "matcher": "path",
                            "argument": "status",
                            "expected": "failed",
                        },
                    ],
                }
            },
        }
    )

    def run(server: Server, clock: Clock, rng: random.Random) -> str:
        def describe_job(**kwargs: Any) -> dict[str, Any]:
            for attempt in range(1, 6):  # legacy retry mode: 5 attempts in all
                status, body, _ = server.answer()
                if status < 500:
                    return body
                if attempt < 5:
                    clock.sleep(rng.random() * 2 ** (attempt - 1))
            return {
                "Error": {"Code": "ServiceUnavailable", "Message": "503"},
                "ResponseMetadata": {"HTTPStatusCode": 503},
            }

        waiter = botocore.waiter.Waiter(
            "JobSucceeded", model.get_waiter("JobSucceeded"), describe_job
        )
        saved = botocore.waiter.time
        botocore.waiter.time = types.SimpleNamespace(sleep=clock.sleep)  # type: ignore[assignment]
        try:
            waiter.wait(JobId="job-1")
        except botocore.waiter.WaiterError as error:
            return f"WaiterError: {error.kwargs.get('reason', '')}"[:60]
        finally:
            botocore.waiter.time = saved
        return "succeeded"

    return run


def _oracle(timeline: Timeline) -> tuple[int, float]:
    """Fewest requests and least lag while obeying every hint, knowing T."""
    clock = Clock()
    server = timeline.server(clock)
    while True:
        status, body, _ = server.answer()
        if status == 200 and body["status"] == "succeeded":
            return server.requests, clock.now - timeline.done_at
        hint = server.not_before - clock.now
        clock.now = clock.now + hint if hint > 0 else max(clock.now, timeline.done_at)


STRATEGIES: dict[str, Callable[[Server, Clock, random.Random], str]] = {
    "jobgen": _jobgen,
    "fixed 1 s loop": _fixed,
    "tenacity wait_exponential_jitter(1, max=30)": _tenacity,
    "botocore Waiter, delay 5 s": _botocore(5.0),
    "botocore Waiter, delay 15 s": _botocore(15.0),
}


def run_waiters(quick: bool) -> dict[str, Any]:
    seeds = range(11 if quick else 51)
    results: dict[str, Any] = {}
    for timeline in TIMELINES:
        rows: dict[str, Any] = {}
        for name, strategy in STRATEGIES.items():
            requests, lags, early, outcomes = [], [], [], {}
            for seed in seeds:
                drawn = timeline.drawn(seed)
                clock = Clock()
                server = drawn.server(clock)
                outcome = strategy(server, clock, random.Random(seed))
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
                requests.append(server.requests)
                early.append(server.early)
                if outcome == "succeeded":
                    lags.append(clock.now - drawn.done_at)
            rows[name] = {
                "requests": median(requests),
                "lag_s": median(lags),
                "max_lag_s": max(lags) if lags else None,
                "early_requests": median(early),
                "outcomes": outcomes,
                "runs": len(seeds),
            }
        bounds = [_oracle(timeline.drawn(seed)) for seed in seeds]
        rows["lower bound (hints obeyed, T known)"] = {
            "requests": median([b[0] for b in bounds]),
            "lag_s": median([b[1] for b in bounds]),
            "max_lag_s": max(b[1] for b in bounds),
            "early_requests": 0,
            "outcomes": {"succeeded": len(bounds)},
            "runs": len(bounds),
        }
        results[timeline.name] = {"nominal_end_s": timeline.done_at, "rows": rows}
    return results
