"""Properties of the waiter over random timelines of states, hints and faults."""

from __future__ import annotations

from email.utils import formatdate
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from jobgen.runtime.http.retry import RetryPolicy
from jobgen.runtime.shared.errors import SDKError
from jobgen.runtime.waiting.waiter import HeaderHint, JobSpec, PollEvent

from .fakes import START, WALL_START, FakeClock, Harness, conn_error, response

STATES = ["queued", "running", "running", "running", "done", "failed", "canceled", "weird"]

retry_after = st.one_of(
    st.none(),
    st.integers(0, 40).map(str),
    st.sampled_from(["", "soon", "-3", "1.5", "  7 "]),
    st.integers(-30, 40).map(lambda s: formatdate(WALL_START + s, usegmt=True)),
)

status_step = st.builds(
    lambda state, ra, hint, ms: response(
        200,
        {"state": state, "hint": hint},
        {k: v for k, v in (("Retry-After", ra), ("x-wait-ms", ms)) if v is not None},
    ),
    st.sampled_from(STATES),
    retry_after,
    st.one_of(st.none(), st.floats(0, 50), st.just(-1)),
    st.one_of(st.none(), st.integers(0, 20000).map(str)),
)
fault_step = st.one_of(
    st.builds(
        lambda code, ra: response(code, {"error": "x"}, {"Retry-After": ra} if ra else {}),
        st.sampled_from([429, 500, 502, 503, 504]),
        retry_after,
    ),
    st.just(conn_error),
)
timeline = st.lists(st.one_of(status_step, status_step, fault_step), min_size=1, max_size=30)


def spec(floor: float, first: float) -> JobSpec:
    return JobSpec(
        name="p",
        state_path=("state",),
        success={"done"},
        failure={"failed"},
        canceled={"canceled"},
        pending={"queued", "running"},
        hint_path=("hint",),
        header_hints=(HeaderHint("Retry-After"), HeaderHint("x-wait-ms", "milliseconds")),
        floor=floor,
        first=max(first, floor),
        cap=30.0,
    )


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    steps=timeline,
    mode=st.sampled_from(["sync", "async"]),
    floor=st.sampled_from([0.0, 0.5, 2.0]),
    first=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    deadline=st.floats(0.5, 300),
    rng=st.floats(0, 1),
    attempts=st.integers(1, 6),
)
def test_schedule_invariants(
    steps: list[Any], mode: str, floor: float, first: float, deadline: float, rng: float,
    attempts: int,
) -> None:  # fmt: skip
    clock = FakeClock()
    events: list[PollEvent] = []
    reads: list[float] = []

    def read(job_id: str, timeout: float) -> Any:
        assert 0 <= timeout <= deadline
        step = steps[min(len(reads), len(steps) - 1)]
        reads.append(clock.now)
        if callable(step) and not hasattr(step, "status_code"):
            raise step()
        return step

    config = clock.config(
        rng=lambda: rng, on_poll=events.append,
        status_retry=RetryPolicy(attempts=attempts, budget=20.0),
    )  # fmt: skip
    harness = Harness(mode, spec(floor, first), read, config)
    try:
        record = harness.wait_for_job("job_p", deadline=deadline)
    except SDKError as error:
        event(type(error).__name__)
        assert "job_p" in str(error)
        assert getattr(error, "job_id", None) == "job_p"
    else:
        assert record["state"] in ("done", "failed", "canceled")

    end = START + deadline
    for at, seconds in clock.moments:
        assert at + seconds <= end + 1e-9  # no sleep passes the deadline
    assert clock.now <= end + 1e-9  # total time within the deadline
    assert all(read_at <= end + 1e-9 for read_at in reads)
    for poll in events:
        assert poll.job_id == "job_p"
        if poll.delay is not None:
            assert poll.delay >= floor and poll.delay > 0  # never below the floor
    poll_delays = [e.delay for e in events if e.delay is not None]
    assert all(d in clock.sleeps for d in poll_delays)
    assert [e.attempt for e in events] == list(range(1, len(events) + 1))  # retries don't count
