"""A list operation against `jobgen serve`: every job of the caller, page after page,
fetched lazily, sync and async (Stripe's cursor by last id, Salesforce's next URL)."""

from __future__ import annotations

from typing import Any

import pytest

from jobgen.server.listing import PAGE_SIZE
from tests.e2e.support import E2E

LIST = {"stripe_report_runs": "get_report_runs", "salesforce_bulk": "get_all_jobs"}


def _every_id(e2e: E2E) -> list[str]:
    name = LIST[e2e.api.name]

    async def collect(jobs: Any) -> list[str]:
        return [str(item.id) async for item in getattr(jobs, name)()]

    if e2e.is_async:
        return e2e.run(collect)
    return e2e.run(lambda jobs: [str(item.id) for item in getattr(jobs, name)()])


@pytest.mark.parametrize("spec_name", sorted(LIST))
def test_list_iterates_every_page_of_the_callers_jobs(e2e: E2E) -> None:
    mine = [e2e.job() for _ in range(2 * PAGE_SIZE + 1)]
    e2e.job(key="someone-else")

    assert _every_id(e2e) == mine
    lists = [r for r in e2e.log() if r.operation == "list"]
    assert len(lists) == 3


@pytest.mark.parametrize("spec_name", sorted(LIST))
def test_the_first_page_alone_is_one_request(e2e: E2E) -> None:
    mine = [e2e.job() for _ in range(PAGE_SIZE + 1)]
    name = LIST[e2e.api.name]

    async def first(jobs: Any) -> tuple[list[str], bool]:
        page = await getattr(jobs, name)().page()
        return [str(item.id) for item in page.items], page.has_next()

    def first_sync(jobs: Any) -> tuple[list[str], bool]:
        page = getattr(jobs, name)().page()
        return [str(item.id) for item in page.items], page.has_next()

    ids, more = e2e.run(first if e2e.is_async else first_sync)
    assert (ids, more) == (mine[:PAGE_SIZE], True)
    assert len([r for r in e2e.log() if r.operation == "list"]) == 1
