"""W8, and what a caller may ask of one wait: a wait never cancels a job unless asked.
`cancel_on_timeout` per call (on the waits of a job that declares a cancel operation,
and on its handles' `wait()` and `result()`) overrides `WaitConfig.cancel_on_timeout`;
None follows the config."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from tests.waiters.support import STRIPE, SUME, ScriptedAPI

DEADLINE = 10.0

#: Every wait of the Sume job (which declares `cancel: cancelJob`): given the
#: session, its client and the per-call arguments.
CALLS: dict[str, Callable[[Any, Any, dict[str, Any]], Any]] = {
    "wait_for_job": lambda s, c, kw: c.jobs.wait_for_job("job_01", deadline=DEADLINE, **kw),
    "wait_for_result": lambda s, c, kw: c.jobs.wait_for_result("job_01", deadline=DEADLINE, **kw),
    "create_and_wait": lambda s, c, kw: c.jobs.create_and_wait(
        body=SUME.create_body(s.sdk), deadline=DEADLINE, **kw
    ),
    "handle.wait": lambda s, c, kw: c.jobs.handle("job_01").wait(DEADLINE, **kw),
    "handle.result": lambda s, c, kw: c.jobs.handle("job_01").result(DEADLINE, **kw),
}


def _timed_out(twin: Any, call: str, configured: bool, **per_call: Any) -> tuple[Any, Any]:
    api = ScriptedAPI(SUME).script("job_01", "processing")
    s = twin.connect(api, wait={"cancel_on_timeout": configured})
    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: CALLS[call](s, c, per_call))
    return api, caught.value


@pytest.mark.parametrize("call", list(CALLS))
def test_per_call_true_cancels_though_the_config_does_not(twin: Any, call: str) -> None:
    api, error = _timed_out(twin, call, configured=False, cancel_on_timeout=True)

    assert [r.job_id for r in api.of("cancel")] == ["job_01"]
    assert api.of("cancel")[0].path == "/v1/jobs/job_01/cancel"
    assert error.canceled is True and error.job_id == "job_01"
    assert "was not canceled" not in str(error)


@pytest.mark.parametrize("call", list(CALLS))
def test_per_call_false_does_not_cancel_though_the_config_does(twin: Any, call: str) -> None:
    api, error = _timed_out(twin, call, configured=True, cancel_on_timeout=False)

    assert api.of("cancel") == []
    assert error.canceled is False and "was not canceled" in str(error)


@pytest.mark.parametrize("configured", [False, True])
def test_none_follows_the_config(twin: Any, configured: bool) -> None:
    api, error = _timed_out(twin, "wait_for_job", configured=configured, cancel_on_timeout=None)

    assert len(api.of("cancel")) == int(configured)
    assert error.canceled is configured


def test_a_job_without_a_cancel_operation_offers_no_choice(twin: Any) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending")
    s = twin.connect(api)
    reporting = s.client.reporting

    for name in ("wait_for_job", "wait_for_result", "create_and_wait"):
        wait = getattr(reporting, name, None)
        assert wait is None or "cancel_on_timeout" not in inspect.signature(wait).parameters
    # A handle's wait asked to cancel a job that cannot be is refused before any request.
    with pytest.raises(s.errors.NoCancelOperation, match="no cancel operation"):
        s.run(lambda c: c.reporting.handle("frr_01").wait(DEADLINE, cancel_on_timeout=True))
    assert api.requests == []
