"""Control endpoints under ``/_jobgen/`` (create a job from a scenario, the log, reset),
and the banner ``jobgen serve`` prints.

The log and reset act on the caller's share only: the requests, jobs, idempotency keys and
create-attempt counters made with the credential the control request carries (in any of
the spec's schemes). A control request without a credential sees and resets only what was
made without one. So no caller sees another key's jobs, keys or query strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs

from .answers import SelfCheck
from .auth import read_credential
from .jobs import Jobs
from .routes import Route
from .scenario import ScenarioError
from .webhooks import WebhookSender
from .wire import Answer, Request, json_answer, parse_json

__all__ = [
    "CONTROL_PREFIX",
    "SCENARIO_HEADER",
    "Control",
    "control_error",
    "describe",
    "handle_control",
]

CONTROL_PREFIX = "/_jobgen"
SCENARIO_HEADER = "x-jobgen-scenario"


def control_error(status: int, field: str, message: str) -> Answer:
    """A control-plane error: ``{"error": {"field": ..., "message": ...}}``."""
    return json_answer(status, {"error": {"field": field, "message": message}})


@attrs.frozen
class Control:
    """What the control endpoints act on: the jobs, and their webhook sender if any."""

    jobs: Jobs
    webhooks: WebhookSender | None = None
    routes: tuple[Route, ...] = ()
    """Every route of the job API the server answers, for the banner."""
    self_check: SelfCheck | None = None
    """The check of the server's own answers against the spec."""


def handle_control(app: Control, request: Request) -> Answer:
    action = request.path[len(CONTROL_PREFIX) :]
    routes: dict[str, tuple[str, Callable[[Control, Request], Answer]]] = {
        "/jobs": ("POST", _create),
        "/requests": ("GET", _requests),
        "/reset": ("POST", _reset),
        "/webhooks": ("GET", _webhooks),
        "/self-check": ("GET", _self_check),
    }
    if action not in routes:
        return control_error(
            404, "", f"no control endpoint {request.path}; try {CONTROL_PREFIX}/jobs"
        )
    method, handler = routes[action]
    if request.method != method:
        answer = control_error(405, "", f"use {method} {request.path}")
        return Answer(answer.status, answer.body, (*answer.headers, ("allow", method)))
    return handler(app, request)


def _create(app: Control, request: Request) -> Answer:
    names = request.params.get("job_name")
    try:
        job = app.jobs.job_for(names[0] if names else None)
        text = request.body.decode("utf-8")
        data = parse_json(text) if text.strip() else None
        scenario = app.jobs.scenario(data, job)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return control_error(400, "", f"the body is not JSON: {exc.msg} ({where})")
    except UnicodeDecodeError:
        return control_error(400, "", "the body is not UTF-8")
    except ScenarioError as exc:
        return control_error(400, exc.field, exc.message)
    credentials = read_credential(
        app.jobs.sdk.auths, job.status.security, request.headers, request.params
    )
    job_id = app.jobs.add_job(job, scenario, credentials.value)
    return json_answer(201, {"id": job_id, "job": job.name})


def _requests(app: Control, request: Request) -> Answer:
    ids = request.params.get("job")
    records = app.jobs.store.records(
        ids[0] if ids else None, caller=app.jobs.caller_of(request), everyone=False
    )
    return json_answer(200, {"requests": [r.to_json() for r in records]})


def _webhooks(app: Control, request: Request) -> Answer:
    ids = request.params.get("job")
    caller = app.jobs.caller_of(request)
    with app.jobs.store.lock:
        mine = {
            job.id
            for job in app.jobs.store.jobs.values()
            if job.caller == caller and (not ids or job.id == ids[0])
        }
    sent = [] if app.webhooks is None else app.webhooks.deliveries()
    attempts = [d.to_json() for d in sent if d.job_id in mine]
    return json_answer(200, {"deliveries": attempts})


def _self_check(app: Control, request: Request) -> Answer:
    """The self-check's counts, and the violations of the caller's own requests."""
    if app.self_check is None:
        return json_answer(200, {"mode": "log", "checked": 0, "violations": 0, "yours": []})
    return json_answer(200, app.self_check.to_json(app.jobs.caller_of(request)))


def _reset(app: Control, request: Request) -> Answer:
    caller = app.jobs.caller_of(request)
    with app.jobs.store.lock:
        app.jobs.store.clear(caller)
    return json_answer(200, {"reset": True})


def describe(app: Control, url: str) -> str:
    """The banner: the base URL, the job operations and the control endpoints."""
    lines = [
        f"Simulating {app.jobs.sdk.title} on {url}",
        f"SDK base_url: {url}",
        "",
        "Routes (paths from the base URL):",
    ]
    order = {"create": 0, "status": 1, "result": 2, "cancel": 3, "list": 4, "events": 5}
    names = list(app.jobs.kinds)
    routes = sorted(app.routes, key=lambda r: (names.index(r.job.name), order[r.role]))
    for route in routes:
        op = route.operation
        lines.append(
            f"  {route.job.name:<12} {route.role:<7} {route.method:<6} {op.path}"
            f"  ({op.operation_id})"
        )
    lines += [
        "",
        "Control:",
        f"  POST {url}{CONTROL_PREFIX}/jobs       create a job from a scenario (JSON body)",
        f"  GET  {url}{CONTROL_PREFIX}/requests   your requests (?job=ID), by your credential",
        f"  POST {url}{CONTROL_PREFIX}/reset      forget your jobs, keys and requests",
        f"  GET  {url}{CONTROL_PREFIX}/self-check answers that broke the spec (a serve bug)",
        *(
            [f"  GET  {url}{CONTROL_PREFIX}/webhooks   webhook delivery attempts (?job=ID)"]
            if app.webhooks is not None
            else []
        ),
        f"  or send a scenario on create in the {SCENARIO_HEADER} header (JSON)",
        "",
        *(
            [
                f"Webhooks are signed with {app.webhooks.secret}",
                f"  and sent to the create's URL, else {app.webhooks.url or '(none)'}",
                "",
            ]
            if app.webhooks is not None
            else []
        ),
        "Press Ctrl-C to stop.",
    ]
    return "\n".join(lines)
