"""The simulated event stream: a job's state changes as server-sent events.

A GET whose answer is a ``text/event-stream`` of a job's records, on a path naming that
job's id parameter, follows one job. The stream looks at the job every
:data:`EVENT_TICK` seconds; each look is a read of its timeline (it ends a ``polls``
stage like a status read does, but is not a poll: no status fault applies). The first
look, and every look that finds a new state, sends one ``state`` event (``id`` counting
from 1, the job's record as JSON ``data``); the stream ends after the event of a
terminal state, or when the job is forgotten or the client goes away.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from ..model import ir
from .listing import record_type

__all__ = ["EVENT", "EVENT_TICK", "event_frame", "event_operations", "follow"]

EVENT = "state"
EVENT_TICK = 0.05
JSON = Any


def event_operations(sdk: ir.Sdk) -> list[tuple[ir.Job, ir.Operation]]:
    """Each GET streaming a job's records and the job it follows.

    Its event data is that job's record type, or, with one job only, any type; its path
    names the job's id parameter.
    """
    found = []
    for resource in sdk.resources:
        for op in resource.operations:
            if op.method != "GET" or op.response.kind != "events":
                continue
            job = next(
                (j for j in sdk.jobs if record_type(j, sdk) == op.response.type),
                sdk.jobs[0] if len(sdk.jobs) == 1 else None,
            )
            if job is not None and "{" + job.id_parameter + "}" in op.path:
                found.append((job, op))
    return found


def event_frame(seq: int, data: JSON) -> bytes:
    """One ``state`` event: its id, type and JSON data lines, and the blank line after."""
    payload = json.dumps(data, ensure_ascii=False)
    return f"id: {seq}\nevent: {EVENT}\ndata: {payload}\n\n".encode()


async def follow(
    look: Callable[[], tuple[str, bool, JSON] | None],
    sleep: Callable[[float], Awaitable[None]],
) -> AsyncGenerator[bytes, None]:
    """The event frames of one job: ``look()`` reads it (state, terminal, record), or
    returns None once the job is gone; ``sleep`` waits between looks."""
    last: str | None = None
    seq = 0
    while True:
        seen = look()
        if seen is None:
            return
        state, terminal, record = seen
        if state != last:
            seq += 1
            last = state
            yield event_frame(seq, record)
        if terminal:
            return
        await sleep(EVENT_TICK)
