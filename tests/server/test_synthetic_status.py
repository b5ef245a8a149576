"""A job whose monitor the spec gives no operation (an imported Azure job polled at the
``Location`` of a 202, with nothing typing what it names) is polled at that URL over real
HTTP: the made-up status operation carries no contract of the create's (its api-version,
its body), so the reads the SDK sends are answered, not refused."""

from __future__ import annotations

import httpx

from jobgen.server import run_server
from tests.helpers import TEST_SPECS

KINDS = TEST_SPECS / "azure_lro_kinds.yaml"


def test_the_monitor_of_a_job_without_a_status_operation_answers_its_reads() -> None:
    headers = {
        "api-key": "k",
        "x-jobgen-scenario": '{"states": [{"state": "Running", "polls": 1}]}',
    }
    with run_server(KINDS) as server, httpx.Client(base_url=server.base_url) as client:
        created = client.post(
            "/widgets/w1:ship", params={"api-version": "2025-01-01"}, headers=headers
        )
        assert created.status_code == 202, created.text
        monitor = created.headers["location"]
        assert monitor.startswith(server.base_url + "/")
        read = client.get(monitor, headers={"api-key": "k"})
        # 202 while running (Azure's Location polling), the record in the body.
        assert read.status_code == 202, read.text
        assert read.json()["status"] == "Running"
        assert [r.fault for r in server.requests() if r.operation == "status"] == [None]
