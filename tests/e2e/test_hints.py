"""Poll hints over the wire: the body hint and Retry-After as seconds, as an HTTP-date
(future, past), 0 and unreadable text. The server's log shows the spacing of status reads
is at least the chosen delay and never under the floor: no hot loop, whatever the hint."""

from __future__ import annotations

import concurrent.futures
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer
from jobgen.server.scenario import ScenarioError
from tests.e2e.support import APIS, BY_ID, E2E, EPSILON, FLOOR, gaps


def _wait(e2e: E2E, scenario: dict[str, Any], **config: Any) -> tuple[list[Any], list[Any]]:
    """Wait for a job of ``scenario``; its poll events and its status reads."""
    job_id = e2e.job(scenario)
    events: list[Any] = []
    record = e2e.run(
        lambda jobs: jobs.wait_for_job(job_id, deadline=10, on_poll=events.append), **config
    )
    assert e2e.state(record) == e2e.api.success
    reads = e2e.reads(job_id)
    assert len(events) == len(reads)
    return events, reads


def _spaced(events: list[Any], reads: list[Any]) -> None:
    """Each read follows the one before by at least the delay that read chose."""
    for event, gap in zip(events, gaps(reads)):
        assert gap >= event.delay - EPSILON, (event, gap)


def test_a_body_hint_spaces_the_reads(e2e: E2E) -> None:
    if not e2e.api.has_body_hint:
        with pytest.raises(ScenarioError) as refused:
            e2e.job({"hint": 0.05})
        assert refused.value.field == "hint"
        return

    events, reads = _wait(e2e, {"states": e2e.api.stages(3), "hint": 0.05})

    assert [(e.delay, e.source) for e in events[:-1]] == [(0.05, "hint")] * 3
    _spaced(events, reads)
    assert all(gap >= 0.05 - EPSILON for gap in gaps(reads))


def test_retry_after_in_seconds_spaces_the_reads(e2e: E2E) -> None:
    events, reads = _wait(e2e, {"states": e2e.api.stages(3), "retry_after": 0.05})

    assert [(e.delay, e.source) for e in events[:-1]] == [(0.05, "retry-after")] * 3
    assert all(gap >= 0.05 - EPSILON for gap in gaps(reads))


@pytest.mark.parametrize("spec_name", BY_ID)
def test_retry_after_as_a_future_http_date_is_honoured(
    spec_name: str,
    e2e_sdks: dict[str, ModuleType],
    e2e_servers: dict[str, RunningServer],
) -> None:
    # HTTP-dates have whole seconds: "+1" is up to a second away when it arrives, so
    # the two twins wait side by side.
    server = e2e_servers[spec_name]
    server.reset()
    twins = [E2E(APIS[spec_name], e2e_sdks[spec_name], server, m) for m in ("sync", "async")]
    with concurrent.futures.ThreadPoolExecutor(len(twins)) as pool:
        for done in [pool.submit(_waits_for_an_http_date, twin) for twin in twins]:
            done.result()


def _waits_for_an_http_date(e2e: E2E) -> None:
    events, reads = _wait(e2e, {"states": e2e.api.stages(1), "retry_after": "date:+1"})

    (first, _) = events
    assert 0 < first.delay <= 1.0 + EPSILON
    assert first.source == ("retry-after" if first.delay > FLOOR else "floor")
    _spaced(events, reads)
    assert gaps(reads)[0] >= max(first.delay, FLOOR) - EPSILON


@pytest.mark.parametrize(
    "retry_after", ["0", 0, "date:-30"], ids=["zero-text", "zero", "past-date"]
)
def test_retry_after_zero_or_past_is_floored(e2e: E2E, retry_after: object) -> None:
    events, reads = _wait(e2e, {"states": e2e.api.stages(3), "retry_after": retry_after})

    assert [(e.delay, e.source) for e in events[:-1]] == [(FLOOR, "floor")] * 3
    assert all(gap >= FLOOR - EPSILON for gap in gaps(reads))


def test_retry_after_zero_with_no_floor_is_still_not_a_hot_loop(e2e: E2E) -> None:
    events, reads = _wait(
        e2e, {"states": e2e.api.stages(4), "retry_after": 0}, floor=0.0, first=0.02
    )

    assert [(e.delay, e.source) for e in events[:-1]] == [(0.02, "backoff")] * 4
    assert all(gap >= 0.02 - EPSILON for gap in gaps(reads))


def test_an_unreadable_retry_after_is_ignored(e2e: E2E) -> None:
    events, reads = _wait(e2e, {"states": e2e.api.stages(2), "retry_after": "raw:soon-ish"})

    assert all(e.source in ("backoff", "floor") for e in events[:-1])
    _spaced(events, reads)
    assert all(gap >= FLOOR - EPSILON for gap in gaps(reads))
