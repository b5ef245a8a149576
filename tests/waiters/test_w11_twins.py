"""W11: the sync and async twins behave identically; async waits are cancellation-safe;
every Sync/Async resource pair exposes the same signatures."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.waiters.support import (
    AZURE,
    SALESFORCE,
    STRIPE,
    SUME,
    ScriptedAPI,
    answer,
    http,
)

OP = AZURE.make_id(1)
SF = SALESFORCE.make_id(1)
MASKED = {"idempotency-key", "repeatability-request-id"}  # random per run

Wait = Callable[[Any, Callable[..., None]], Any]


def _sume(api: ScriptedAPI, sdk: Any) -> Wait:
    api.script(
        "job_01",
        answer("queued", {"Retry-After": "4"}),
        http(503),
        http(429, {"Retry-After": "2"}),
        answer("processing", hint=0.5),
        httpx.ConnectError("reset"),
        "processing",
        answer("completed", ready=False),
        "completed",
    )
    return lambda c, hook: c.jobs.wait_for_result("job_01", deadline=600, on_poll=hook)


def _stripe_timeout(api: ScriptedAPI, sdk: Any) -> Wait:
    api.script("frr_01", "pending", http(502), "pending")
    return lambda c, hook: c.reporting.wait_for_job("frr_01", deadline=30, on_poll=hook)


def _azure_create(api: ScriptedAPI, sdk: Any) -> Wait:
    body = AZURE.create_body(sdk)
    api.on_create(httpx.ConnectError("refused"))
    api.script(OP, answer("NotStarted", {"Retry-After": "3"}), "Running", "Succeeded")
    return lambda c, hook: c.analysis.create_and_wait(body=body, deadline=600, on_poll=hook)


def _salesforce_unknown(api: ScriptedAPI, sdk: Any) -> Wait:
    api.script(SF, "Open", "UploadComplete", "InProgress", "Paused")
    return lambda c, hook: c.ingest.wait_for_result(SF, deadline=600, on_poll=hook)


SCENARIOS = {
    "sume-result": (SUME, _sume),
    "stripe-timeout": (STRIPE, _stripe_timeout),
    "azure-create": (AZURE, _azure_create),
    "salesforce-unknown": (SALESFORCE, _salesforce_unknown),
}


def _trace(twin, flavour, build) -> dict[str, Any]:
    api = ScriptedAPI(flavour)
    wait = build(api, twin.sdk(flavour))
    s = twin.connect(api)
    events: list[Any] = []
    try:
        outcome: Any = s.run(lambda c: wait(c, events.append))
        outcome = outcome if isinstance(outcome, str) else outcome.to_dict()
    except s.errors.SDKError as error:
        outcome = (type(error).__name__, str(error), getattr(error, "resume_token", None))
    return {
        "requests": [
            (
                *r.key(),
                r.body,
                {k: ("*" if k in MASKED else v) for k, v in r.headers.items()},
                r.timeout,
            )
            for r in api.requests
        ],
        "sleeps": s.time.sleeps,
        "events": [(e.job_id, e.attempt, e.state, e.delay, e.source, e.elapsed) for e in events],
        "outcome": outcome,
    }


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sync_and_async_send_the_same_requests_and_wait_the_same(twins, name: str) -> None:
    flavour, build = SCENARIOS[name]
    sync, async_ = (_trace(twin, flavour, build) for twin in twins)

    assert sync["requests"], "the scenario sent nothing"
    assert sync == async_


def test_cancelling_an_async_wait_leaves_no_task_behind(twins) -> None:
    _, twin = twins
    api = ScriptedAPI(SUME).script("job_01", "processing")
    s = twin.connect(api)

    async def main() -> None:
        task = asyncio.ensure_future(s.client.jobs.wait_for_job("job_01", deadline=600))
        while len(api.requests) < 3:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asyncio.all_tasks() == {asyncio.current_task()}
        sent = len(api.requests)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(api.requests) == sent  # nothing keeps polling

    asyncio.run(main())
    assert {r.method for r in api.requests} == {"GET"}  # cancelling never cancels the job


def test_cancelling_async_wait_for_jobs_cancels_every_wait(twins) -> None:
    _, twin = twins
    api = ScriptedAPI(STRIPE)
    for n in range(1, 11):
        api.script(STRIPE.make_id(n), "pending")
    s = twin.connect(api)
    seen: list[Any] = []

    async def consume() -> None:
        async with s.client.reporting.wait_for_jobs(
            [STRIPE.make_id(n) for n in range(1, 11)], concurrency=4, deadline=10_000
        ) as outcomes:
            async for outcome in outcomes:
                seen.append(outcome)

    async def main() -> None:
        task = asyncio.ensure_future(consume())
        while len(api.requests) < 12:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asyncio.all_tasks() == {asyncio.current_task()}
        sent = len(api.requests)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(api.requests) == sent

    asyncio.run(main())
    assert seen == []
    assert len({r.job_id for r in api.requests}) == 4


def test_breaking_out_of_async_wait_for_jobs_stops_the_rest(twins) -> None:
    _, twin = twins
    api = ScriptedAPI(STRIPE).script(STRIPE.make_id(1), "succeeded")
    for n in range(2, 6):
        api.script(STRIPE.make_id(n), "pending")
    s = twin.connect(api)

    async def main() -> Any:
        async with s.client.reporting.wait_for_jobs(
            [STRIPE.make_id(n) for n in range(1, 6)], concurrency=3, deadline=10_000
        ) as outcomes:
            async for outcome in outcomes:
                first = outcome
                break
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return first

    first = asyncio.run(main())
    assert first.job_id == STRIPE.make_id(1)


# -- the public surface of every generated SDK -------------------------------------------


_LAZY = re.compile(r"\b(Sync)?(Pager|Streaming|EventStream)\b")


def _resource_pairs(sdk) -> list[tuple[type, type]]:
    pairs = []
    resources = importlib.import_module(f"{sdk.__name__}.resources")
    for info in pkgutil.iter_modules(resources.__path__):
        module = importlib.import_module(f"{resources.__name__}.{info.name}")
        for name in module.__all__:
            if not name.startswith("Async"):
                pairs.append((getattr(module, name), getattr(module, "Async" + name)))
    return pairs


def _public_methods(cls: type) -> dict[str, Any]:
    return {
        name: member
        for name, member in vars(cls).items()
        if not name.startswith("_") and callable(member)
    }


def _parameters(fn: Any) -> list[tuple[str, Any, Any, Any]]:
    return [
        (p.name, p.kind, p.default, p.annotation) for p in inspect.signature(fn).parameters.values()
    ]


@pytest.mark.parametrize("flavour", [SUME, STRIPE, SALESFORCE, AZURE], ids=lambda f: f.package)
def test_sync_and_async_resources_have_identical_signatures(sdks, flavour) -> None:
    pairs = _resource_pairs(sdks[flavour.package])
    assert pairs, "no resource classes found"
    for sync_cls, async_cls in pairs:
        sync_methods, async_methods = _public_methods(sync_cls), _public_methods(async_cls)
        assert sorted(sync_methods) == sorted(async_methods), sync_cls.__name__
        for name, method in sync_methods.items():
            other = async_methods[name]
            assert _parameters(method) == _parameters(other), f"{sync_cls.__name__}.{name}"
            returns = inspect.signature(method).return_annotation
            other_returns = inspect.signature(other).return_annotation
            # Pagers, streaming responses and event streams are made at once and
            # iterated/entered later: their async twins are AsyncPager / AsyncStreaming /
            # AsyncEventStream, not coroutines.
            lazy = _LAZY.search(str(returns))
            if lazy:
                assert _LAZY.sub(r"Async\2", str(returns)) == other_returns, name
                assert not inspect.iscoroutinefunction(other), name
            elif name != "wait_for_jobs":  # Iterator[...] vs AsyncJobOutcomes[...]
                # A handle's twin is AsyncJobHandle; getting one sends no request, and
                # neither does getting a webhook receiver (the same for both twins).
                twin = returns.replace("_handle.JobHandle[", "_handle.AsyncJobHandle[")
                assert twin == other_returns, name
                receiver = "_wh.WebhookReceiver[" in returns
                sends = not ((twin != returns and name.endswith("handle")) or receiver)
                assert inspect.iscoroutinefunction(other) == sends, (
                    f"Async{sync_cls.__name__}.{name}"
                )
        if sync_cls.__name__.endswith(("WithRawResponse", "WithStreamingResponse")):
            continue
        for name in ("wait_for_job", "create_and_wait", "wait_for_jobs", "handle", "start"):
            assert name in sync_methods, f"{sync_cls.__name__} has no {name}"


@pytest.mark.parametrize("flavour", [SUME, STRIPE, SALESFORCE, AZURE], ids=lambda f: f.package)
def test_client_and_async_client_take_the_same_options(sdks, flavour) -> None:
    sdk = sdks[flavour.package]
    sync = [(n, k, d) for n, k, d, _ in _parameters(sdk.Client.__init__)]
    async_ = [(n, k, d) for n, k, d, _ in _parameters(sdk.AsyncClient.__init__)]

    assert sync == async_
    assert hasattr(sdk.Client, flavour.resource) and hasattr(sdk.AsyncClient, flavour.resource)


@pytest.mark.parametrize("flavour", [SUME, STRIPE, SALESFORCE, AZURE], ids=lambda f: f.package)
def test_raw_and_streaming_variants_take_each_operations_own_parameters(sdks, flavour) -> None:
    """``with_raw_response`` and ``with_streaming_response`` hold every operation, with
    its exact parameters, and nothing else: no job method, no event-stream twin."""
    sdk = sdks[flavour.package]
    # The examples have jobs: their resources take the HTTP layer with the wait settings.
    runtime = importlib.import_module(f"{sdk.__name__}._runtime.waiting.jobhttp")
    settings: dict[str, Any] = {
        "base_url": "https://api.test",
        "credentials": (),
        "timeout": None,
        "headers": None,
        "user_agent": "t",
        "max_retries": 0,
        "wait_config": None,
    }
    checked = 0
    for sync_cls, async_cls in _resource_pairs(sdk):
        if sync_cls.__name__.endswith(("WithRawResponse", "WithStreamingResponse")):
            continue
        module = inspect.getmodule(sync_cls)
        operations = {
            name[1 : -len("_request")]
            for name, value in vars(module).items()
            if name.endswith("_request") and inspect.isfunction(value)
        }
        for cls, transport in ((sync_cls, runtime.SyncJobHTTP), (async_cls, runtime.AsyncJobHTTP)):
            resource = cls(transport(**settings))
            for variant in (resource.with_raw_response, resource.with_streaming_response):
                names = {n for n in dir(variant) if not n.startswith("_")}
                assert names == operations, type(variant).__name__
                for name in names:
                    assert _parameters(getattr(variant, name)) == _parameters(
                        getattr(resource, name)
                    ), f"{type(variant).__name__}.{name}"
                    checked += 1
    assert checked
