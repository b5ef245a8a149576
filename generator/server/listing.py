"""The simulated list operation: the caller's jobs, paged as the operation declares.

A paginated GET whose items are a job's records lists the jobs of that kind the caller
may read, oldest first, ``limit`` at a time (its ``limit`` query parameter where it has
one, else :data:`PAGE_SIZE`), in the operation's style: cursor (next cursor field, or
the last item's id with ``has_more``), page number, offset, or a next link (``Link``
header, or a next-URL field of the body).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from ..model import ir
from .samples import Sampler, locate, put

__all__ = ["PAGE_SIZE", "list_operations", "page_of", "record_type"]

PAGE_SIZE = 3
_LINK_PARAM = "page_offset"
JSON = Any


def list_operations(sdk: ir.Sdk) -> list[tuple[ir.Job, ir.Operation]]:
    """Each paginated GET and the job whose records it lists.

    Its items are that job's record type, or, with one job only, any object. An
    operation of a job (its create, status, result or cancel) is that, never a list,
    even where its answer pages over items of its own (a result that is a page of
    output lines is the job's result, not a list of its records).
    """
    owned = {
        op.operation_id
        for job in sdk.jobs
        for op in (job.create, job.status, job.result, job.cancel)
        if op is not None
    }
    found = []
    for resource in sdk.resources:
        for op in resource.operations:
            paging = op.pagination
            if paging is None or op.method != "GET" or op.operation_id in owned:
                continue
            job = next(
                (j for j in sdk.jobs if record_type(j, sdk) == paging.item_type),
                sdk.jobs[0] if len(sdk.jobs) == 1 else None,
            )
            if job is not None:
                found.append((job, op))
    return found


def record_type(job: ir.Job, sdk: ir.Sdk) -> ir.TypeRef | None:
    """The type of ``job``'s record (its status answer at the record path)."""
    status = job.status.response.type
    if status is None:
        return None
    if not job.record_path:
        return status
    at = locate(status, job.record_path, sdk.schemas)
    return at.type if at is not None else None


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def page_of(
    op: ir.Operation,
    records: Sequence[tuple[str, JSON]],
    params: Mapping[str, str],
    sampler: Sampler,
) -> tuple[JSON, tuple[tuple[str, str], ...]]:
    """One page of ``records`` (job id, record) for ``params``: its body and headers."""
    paging = op.pagination
    assert paging is not None
    query = {p.wire for p in op.parameters if p.location == "query"}
    size = max(_int(params.get("limit"), PAGE_SIZE) if "limit" in query else PAGE_SIZE, 1)
    param = paging.param or _LINK_PARAM
    start = 0
    if paging.style == "cursor" and paging.item_cursor is not None:
        after = params.get(param)
        ids = [job_id for job_id, _ in records]
        start = ids.index(after) + 1 if after in ids else 0
    elif paging.style == "page":
        start = (max(_int(params.get(param), 1), 1) - 1) * size
    elif paging.style == "offset":
        size = max(_int(params.get(paging.limit_param or "limit"), size), 1)
        start = max(_int(params.get(param), 0), 0)
    else:
        start = max(_int(params.get(param), 0), 0)
    end = min(start + size, len(records))
    more = end < len(records)
    items = [record for _, record in records[start:end]]
    headers: tuple[tuple[str, str], ...] = ()
    body: JSON
    if not paging.items:
        body = items
    else:
        body = sampler.sample(op.response.type) if op.response.type is not None else {}
        if not isinstance(body, dict):
            body = {}
        put(body, paging.items, items)
    if isinstance(body, dict):
        if paging.has_more is not None:
            put(body, paging.has_more, more)
        if paging.next_cursor is not None:
            put(body, paging.next_cursor, str(end) if more else None)
    if paging.style == "link":
        link = None
        if more:
            following = {**params, param: str(end)}
            link = op.path + "?" + urlencode(sorted(following.items()))
        if paging.next_url is not None and isinstance(body, dict):
            put(body, paging.next_url, link)
        elif link is not None:
            headers = (("link", f'<{link}>; rel="next"'),)
    return body, headers
