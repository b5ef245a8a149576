"""The kill soak (exhaustive): docs/fleet.md's app, 2,000 jobs, four workers (two
threads, two prefork), one SIGKILLed every 20 s and replaced; its timeouts half the
page's (grace 30 s). Nothing is lost, every effect happens once, a report delivered
again keeps its report id, and no status is read after a report."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobgen.server import RunningServer
from tests.fleet import soak
from tests.fleet.docapp import DocFleet


@pytest.mark.exhaustive
def test_two_thousand_jobs_while_a_worker_is_killed_every_20_s(
    redis_url: str, sume_server: RunningServer, tmp_path: Path
) -> None:
    sume_server.reset()
    fleet = DocFleet(tmp_path, redis_url, sume_server.base_url, scale=2)

    figures = soak.run(fleet, sume_server, jobs=2000, kill_every=20.0, say=lambda _: None)

    assert figures["complete"], figures
    assert figures["kills"] >= 3, figures
    assert figures["lost"] == 0, figures
    assert figures["effects_repeated"] == 0, figures
    assert figures["jobs_with_two_report_ids"] == 0, figures
    assert figures["status_reads_after_report"] == 0, figures
