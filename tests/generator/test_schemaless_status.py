"""A job that reads fields of a status answer declared without a schema
(``application/json: {}``) validates, with a warning naming the fields it reads: nothing
checks they exist, and the record type is Any."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.cli import main
from tests.helpers import write


def spec(status_content: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Loose", "version": "1.0"},
        "paths": {
            "/jobs": {
                "post": {
                    "operationId": "createJob",
                    "responses": {
                        "202": {
                            "description": "started",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"id": {"type": "string"}},
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/jobs/{job_id}": {
                "get": {
                    "operationId": "getJob",
                    "parameters": [
                        {
                            "name": "job_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "the job",
                            "content": {"application/json": status_content},
                        }
                    },
                }
            },
        },
        "x-jobgen": {
            "jobs": {
                "job": {
                    "create": "createJob",
                    "status": "getJob",
                    "id_parameter": "job_id",
                    "id_from": "/id",
                    "state": {
                        "field": "/status",
                        "success": ["done"],
                        "failure": ["failed"],
                        "pending": ["running"],
                    },
                    "progress": {"field": "/progress"},
                    "poll": {"body_hint": {"field": "/poll_after_seconds", "unit": "seconds"}},
                }
            }
        },
    }


def test_a_schemaless_status_answer_is_warned_about_with_the_fields_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "loose.yaml", yaml.safe_dump(spec({})))
    assert main(["validate", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        (
            f"warning: {path}#/x-jobgen/jobs/job/status: operation 'getJob' answers JSON with no "
            "schema, so the fields this job reads (state /status, poll hint /poll_after_seconds, "
            "progress /progress) are not checked and its record is untyped (Any): give the status "
            "response a schema"
        )
    ]
    assert "1 warning" in captured.out


def test_a_typed_status_answer_is_not_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = {
        "schema": {
            "type": "object",
            "properties": {
                "status": {"type": "string", "enum": ["running", "done", "failed"]},
                "progress": {"type": "number"},
                "poll_after_seconds": {"type": "number"},
            },
        }
    }
    path = write(tmp_path / "typed.yaml", yaml.safe_dump(spec(typed)))
    assert main(["validate", str(path)]) == 0
    assert "warning" not in capsys.readouterr().err
