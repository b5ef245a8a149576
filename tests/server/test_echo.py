"""Answers that say what the client sent and what the URL names
(tests/server/specs/training.yaml, Form Recognizer's custom model shape), over real HTTP in
strict self-check mode: the model read at the ``Location`` carries the id that URL ends in
(``modelInfo.modelId``, the field named like the ``{modelId}`` parameter), the request's
own properties that the model declares come back where the model's schema accepts them,
and the components a request composes (``modelIds``) are listed by their ids. Bodies are
checked with jsonschema (not the validator serve uses) against the spec's own schemas; the
generated SDK waits through it, sync and async."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import jsonschema
import pytest
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from jobgen.server import SCENARIO_HEADER, RunningServer, run_server
from tests.helpers import imported_sdk

SPEC = Path(__file__).resolve().parent / "specs" / "training.yaml"
KEY = "key-1"
COMPOSED = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"]
READY = {
    SCENARIO_HEADER: json.dumps({"states": [{"state": "creating", "polls": 1}], "final": "ready"})
}
#: Valid for the request (200 characters at most), too long for the model (8 at most).
LONG = "a description the model cannot hold"


def _oracle(pointer: str) -> jsonschema.Draft202012Validator:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(
        "urn:spec", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    return jsonschema.Draft202012Validator(
        {"$ref": f"urn:spec#{pointer}"},
        registry=registry,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )


MODEL = _oracle("/components/schemas/Model")


def _valid(value: Any) -> Any:
    problems = [f"{e.json_path}: {e.message}" for e in MODEL.iter_errors(value)]
    assert problems == [], value
    return value


@pytest.fixture(scope="module")
def served() -> Iterator[RunningServer]:
    with run_server(SPEC, self_check="strict") as server:
        yield server


@pytest.fixture
def http(served: RunningServer) -> Iterator[httpx.Client]:
    served.reset()
    with httpx.Client(base_url=served.base_url, headers={"x-api-key": KEY}) as client:
        yield client


def _train(http: httpx.Client, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The model id the ``Location`` ends in, and the two reads of the model there."""
    created = http.post("/models", json=body, headers=READY)
    assert created.status_code == 202, created.text
    location = created.headers["location"]
    reads = [http.get(location) for _ in range(2)]
    assert [r.status_code for r in reads] == [200, 200]
    return location.rsplit("/", 1)[-1], [_valid(r.json()) for r in reads]


def test_the_model_carries_the_id_its_location_names(
    served: RunningServer, http: httpx.Client
) -> None:
    model_id, reads = _train(http, {"source": "s3://docs"})
    assert uuid.UUID(model_id) != uuid.UUID(int=0)
    assert [r["modelInfo"] for r in reads] == [
        {"modelId": model_id, "status": "creating"},
        {"modelId": model_id, "status": "ready"},
    ]
    assert served.self_check.count == 0


def test_the_sent_properties_the_model_declares_come_back(
    served: RunningServer, http: httpx.Client
) -> None:
    _, reads = _train(http, {"source": "s3://docs", "labels": ["total", "date"]})
    for read in reads:
        assert (read["source"], read["labels"]) == ("s3://docs", ["total", "date"])
    assert served.self_check.count == 0


def test_a_sent_value_the_models_schema_refuses_is_not_echoed(
    served: RunningServer, http: httpx.Client
) -> None:
    """The request may say more than the model holds: the model keeps a valid value of
    its own, and the other properties sent still come back."""
    _, reads = _train(http, {"source": "s3://docs", "description": LONG})
    for read in reads:
        assert read["source"] == "s3://docs"
        assert read.get("description") != LONG
    assert served.self_check.count == 0


def test_composed_components_are_named_by_the_ids_sent(
    served: RunningServer, http: httpx.Client
) -> None:
    model_id, reads = _train(http, {"source": "s3://docs", "modelIds": COMPOSED})
    for read in reads:
        assert [c["modelId"] for c in read["components"]] == COMPOSED
        assert read["modelInfo"]["modelId"] == model_id
    assert served.self_check.count == 0


def test_components_not_named_by_the_request_have_ids_of_their_own(
    served: RunningServer, http: httpx.Client
) -> None:
    model_id, reads = _train(http, {"source": "s3://docs"})
    ids = [c["modelId"] for c in reads[-1]["components"]]
    assert ids, reads[-1]
    assert all(uuid.UUID(i) != uuid.UUID(int=0) and i != model_id for i in ids)
    assert served.self_check.count == 0


@pytest.fixture(scope="module")
def training_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(SPEC, tmp_path_factory.mktemp("training"), "training_sdk") as package:
        yield package


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_generated_sdk_returns_the_model_as_it_was_asked_for(
    served: RunningServer, training_sdk: ModuleType, mode: str
) -> None:
    served.reset()
    sdk = training_sdk
    options: dict[str, Any] = {
        "base_url": served.base_url,
        "api_key": KEY,
        "headers": READY,
        "wait_config": sdk.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep),
    }
    body = sdk.models.TrainRequest(
        source="s3://docs", labels=["total"], model_ids=[uuid.UUID(m) for m in COMPOSED]
    )
    if mode == "sync":
        with sdk.Client(**options) as client:
            model = client.models.create_and_wait(body=body, deadline=30)
    else:

        async def main() -> Any:
            async with sdk.AsyncClient(**options) as client:
                return await client.models.create_and_wait(body=body, deadline=30)

        model = asyncio.run(main())
    location = served.requests()[-1].path
    assert location.startswith("/models/")
    assert str(model.model_info.model_id) == location.rsplit("/", 1)[-1]
    assert model.model_info.status == sdk.models.ModelInfoStatus.READY
    assert (model.source, model.labels) == ("s3://docs", ["total"])
    assert [str(c.model_id) for c in model.components] == COMPOSED
    assert served.self_check.count == 0


def _param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


#: A job created under a project and a user (`POST /projects/{project}/users/{id}/jobs`):
#: the record's `project` is the project of that path, but its `id` is the job's own.
NESTED = {
    "openapi": "3.1.0",
    "info": {"title": "Nested", "version": "1"},
    "security": [{"key": []}],
    "paths": {
        "/projects/{project}/users/{id}/jobs": {
            "post": {
                "operationId": "createJob",
                "parameters": [_param("project"), _param("id")],
                "responses": {"202": {"$ref": "#/components/responses/Job"}},
            }
        },
        "/jobs/{job_id}": {
            "get": {
                "operationId": "getJob",
                "parameters": [_param("job_id")],
                "responses": {"200": {"$ref": "#/components/responses/Job"}},
            }
        },
    },
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "responses": {
            "Job": {
                "description": "A job.",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["id", "state", "project"],
                            "properties": {
                                "id": {"type": "string"},
                                "state": {"type": "string", "enum": ["running", "done"]},
                                "project": {"type": "string"},
                            },
                        }
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
                "id_from": "/id",
                "state": {"field": "/state", "success": ["done"], "pending": ["running"]},
            }
        }
    },
}


def test_a_path_parameter_names_its_field_but_not_the_jobs_own_id(tmp_path: Path) -> None:
    spec = tmp_path / "nested.json"
    spec.write_text(json.dumps(NESTED), encoding="utf-8")
    with (
        run_server(spec, self_check="strict") as server,
        httpx.Client(base_url=server.base_url, headers={"x-key": "k"}) as http,
    ):
        created = http.post("/projects/apollo/users/u-7/jobs")
        assert created.status_code == 202, created.text
        job_id = created.json()["id"]
        read = http.get(f"/jobs/{job_id}").json()
        assert server.self_check.count == 0
    assert job_id != "u-7"
    assert job_id == server.requests()[0].job_id
    assert created.json()["project"] == read["project"] == "apollo"
    assert read["id"] == job_id
