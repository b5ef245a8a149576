"""The README's quickstart, run against the simulated Sume API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import E2E, scenario_header


@pytest.mark.parametrize("spec_name", ["sume"])
def test_the_readme_quickstart_runs(e2e: E2E) -> None:
    # README.md: job = client.jobs.create(body=...)
    #            result = client.jobs.wait_for_result(job.data.id, deadline=600)
    headers = scenario_header(e2e.api.scenario(states=e2e.api.stages(1)))
    body = e2e.body()

    def quickstart(jobs: Any) -> Any:
        job = jobs.create(body=body, extra_headers=headers)
        return jobs.wait_for_result(job.data.id, deadline=10)

    async def async_quickstart(jobs: Any) -> Any:
        job = await jobs.create(body=body, extra_headers=headers)
        return await jobs.wait_for_result(job.data.id, deadline=10)

    result = e2e.run(async_quickstart if e2e.is_async else quickstart)

    (job_id,) = e2e.server.app.store.jobs
    assert result.data.job_id == job_id
