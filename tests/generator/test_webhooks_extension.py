"""The job extension's `webhooks:` key: what it resolves to, where the event comes from
(`webhooks` of 3.1, `callbacks`), and a clear error for each mistake."""

from __future__ import annotations

import copy
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.generator.test_job_extension import SUME, build, problems
from tests.helpers import imported_sdk, write


def with_hooks(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(SUME)
    hooks = spec["x-jobgen"]["jobs"]["job"]["webhooks"]
    for key, value in changes.items():
        if value is None:
            hooks.pop(key, None)
        else:
            hooks[key] = value
    return spec


def test_the_sume_declaration_resolves(tmp_path: Path) -> None:
    (job,) = build(tmp_path, SUME).jobs
    hooks = job.webhooks
    assert hooks.event == "jobFinishedWebhook"
    assert hooks.event_type.key.endswith("#/components/schemas/JobEnvelope")
    assert (hooks.record_path, hooks.id_path, hooks.url_field) == (
        ("data",),
        ("id",),
        ("webhook_url",),
    )
    assert (hooks.scheme, hooks.secret_env, hooks.attempts) == (
        "standard-webhooks",
        "SUME_WEBHOOK_SECRET",
        10,
    )
    assert (hooks.fallback_floor, hooks.fallback_first, hooks.fallback_cap) == (30.0, 30.0, 300.0)


def test_defaults_come_from_the_spec_and_the_job(tmp_path: Path) -> None:
    """The only webhook of the spec is the event; the id is `id_from` inside the record."""
    spec = copy.deepcopy(SUME)
    spec["x-jobgen"]["jobs"]["job"]["webhooks"] = {}
    (job,) = build(tmp_path, spec).jobs
    hooks = job.webhooks
    assert (hooks.event, hooks.record_path, hooks.id_path) == (
        "jobFinishedWebhook",
        ("data",),
        ("id",),
    )
    assert (hooks.signature_header, hooks.tolerance, hooks.url_field) == (
        "webhook-signature",
        300.0,
        None,
    )
    assert hooks.secret_env == "JOB_WEBHOOK_SECRET"


def test_a_callback_with_an_inline_body_becomes_a_typed_event_model(tmp_path: Path) -> None:
    spec = copy.deepcopy(SUME)
    del spec["webhooks"]
    spec["paths"]["/v1/jobs"]["post"]["callbacks"] = {
        "finished": {
            "{$request.body#/webhook_url}": {
                "post": {
                    "operationId": "jobFinishedCallback",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["job"],
                                    "properties": {
                                        "job": {"$ref": "#/components/schemas/Job"},
                                        "sent_at": {"type": "string"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        }
    }
    spec["x-jobgen"]["jobs"]["job"]["webhooks"] = {"record": "/job", "url_field": "/webhook_url"}
    path = write(tmp_path / "callback.yaml", yaml.safe_dump(spec, sort_keys=False))
    with imported_sdk(path, tmp_path / "out", "callback_sdk") as sdk:
        event = importlib.import_module("callback_sdk.models").JobFinishedCallbackEvent
        receiver = sdk.Client(api_key="k").jobs.webhook_receiver(secret="s3cret of sixteen bytes")
        decoded = receiver._decode_event({"job": _record(), "sent_at": "now"})
        assert isinstance(decoded, event) and decoded.job.id == "job_1"
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(tmp_path / "out" / "callback_sdk")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout


def _record() -> dict[str, Any]:
    return {
        "id": "job_1",
        "status": "completed",
        "terminal": True,
        "result_ready": True,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }


def test_mistakes_are_named_with_their_pointer(tmp_path: Path) -> None:
    at = "#/x-jobgen/jobs/job/webhooks"
    cases = {
        "event": (
            "jobFinishedWebhok",
            f"{at}/event: no webhook or callback operation 'jobFinishedWebhok' (did you mean 'jobFinishedWebhook'?)",
        ),
        "id_field": (
            "/ident",
            f"{at}/id_field: the record (Job) has no property 'ident'",
        ),
        "url_field": (
            "/callback",
            f"{at}/url_field: the create request (CreateJobRequest) has no property 'callback'",
        ),
        "signature": (
            {"scheme": "md5"},
            f"{at}/signature/scheme: scheme must be one of standard-webhooks, hmac-sha256, not 'md5'",
        ),
        "secret_env": (
            "not a name",
            (
                f"{at}/secret_env: must name a webhook secret: upper-case letters, digits and _,"
                " starting with a letter, ending in WEBHOOK_SECRET (such as SUME_WEBHOOK_SECRET),"
                " at most 64 characters, not 'not a name'"
            ),
        ),
        "delivery": (
            {"attempts": 0},
            f"{at}/delivery/attempts: must be an integer from 1 to 100, not 0",
        ),
        "fallback": ({"floor": 600}, f"{at}/fallback: floor and first must not exceed cap (300)"),
        "retries": (3, f"{at}/retries: unknown key 'retries'"),
    }
    for key, (value, message) in cases.items():
        found = problems(tmp_path, with_hooks(**{key: value}))
        assert len(found) == 1 and message in found[0], (key, found)


@pytest.mark.parametrize("name", ["HOME", "PATH", "1_WEBHOOK_SECRET", "AWS_SECRET_ACCESS_KEY"])
def test_secret_env_cannot_name_a_variable_others_know(tmp_path: Path, name: str) -> None:
    """A spec may not make the receiver verify with HOME, PATH or any variable that is
    not named as a webhook secret (docs/webhooks.md states the rule)."""
    found = problems(tmp_path, with_hooks(secret_env=name))
    assert len(found) == 1, found
    assert "#/x-jobgen/jobs/job/webhooks/secret_env: must name a webhook secret" in found[0]
    assert repr(name) in found[0]


@pytest.mark.parametrize("tolerance", [0, 0.5, 3601, 1e308])
def test_tolerance_is_bounded(tmp_path: Path, tolerance: float) -> None:
    found = problems(tmp_path, with_hooks(signature={"tolerance": tolerance}))
    assert len(found) == 1, found
    assert (
        "#/x-jobgen/jobs/job/webhooks/signature/tolerance: must be a number of seconds"
        " from 1 to 3600" in found[0]
    )


def test_a_job_without_webhooks_generates_no_receiver(tmp_path: Path) -> None:
    spec = with_hooks()
    del spec["x-jobgen"]["jobs"]["job"]["webhooks"]
    (job,) = build(tmp_path, spec).jobs
    assert job.webhooks is None
    path = write(tmp_path / "plain.yaml", yaml.safe_dump(spec, sort_keys=False))
    with imported_sdk(path, tmp_path / "out", "plain_sdk") as sdk:
        jobs = sdk.Client(api_key="k").jobs
        assert not hasattr(jobs, "webhook_receiver")
        assert "events" not in jobs.wait_for_job.__code__.co_varnames
