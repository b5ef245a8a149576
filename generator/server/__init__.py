"""``jobgen serve``: a simulated job API over real HTTP, with per-job timelines and faults."""

from __future__ import annotations

from .answers import AnswerViolation, SelfCheck
from .app import CONTROL_PREFIX, SCENARIO_HEADER, JobApp, serve
from .log import RequestRecord
from .runner import RunningServer, SelfCheckError, run_server
from .scenario import Scenario, ScenarioError, parse_scenario
from .store import Limits

__all__ = [
    "CONTROL_PREFIX",
    "SCENARIO_HEADER",
    "AnswerViolation",
    "JobApp",
    "Limits",
    "RequestRecord",
    "RunningServer",
    "Scenario",
    "ScenarioError",
    "SelfCheck",
    "SelfCheckError",
    "parse_scenario",
    "run_server",
    "serve",
]
