"""``jobgen serve``: a simulated job API over real HTTP, with per-job timelines and faults."""

from __future__ import annotations

from .app import CONTROL_PREFIX, SCENARIO_HEADER, JobApp, serve
from .log import RequestRecord
from .runner import RunningServer, run_server
from .scenario import Scenario, ScenarioError, parse_scenario
from .store import Limits

__all__ = [
    "CONTROL_PREFIX",
    "SCENARIO_HEADER",
    "JobApp",
    "Limits",
    "RequestRecord",
    "RunningServer",
    "Scenario",
    "ScenarioError",
    "parse_scenario",
    "run_server",
    "serve",
]
