"""The names of a job's methods read as a person would write them: no doubled verb
(`create_dev_box_and_wait`, `begin_start_dev_box`), and plurals of the job's noun only
where they are words (`wait_for_dev_boxes`, never `wait_for_create_dev_boxs` nor
`wait_for_copy_classifier_tos`)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.helpers import imported_sdk, write
from tests.vendors.test_azure_final_states import AZURE, SPECS

NAMES = [
    "batch",
    "dev_box",
    "query",
    "analysis",
    "health",
    "results",
    "create_dev_box",
    "start_dev_box",
    "copy_classifier_to",
    "delete",
]


def _spec() -> dict[str, Any]:
    record = {
        "type": "object",
        "required": ["id", "status"],
        "properties": {
            "id": {"type": "string"},
            "status": {"type": "string", "enum": ["running", "done"]},
        },
    }
    answer = {
        "200": {
            "description": "the job",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}},
        }
    }
    paths: dict[str, Any] = {}
    for i, name in enumerate(NAMES):
        paths[f"/things/{i}"] = {
            "post": {"operationId": f"make{i}", "tags": ["things"], "responses": answer}
        }
        paths[f"/things/{i}/{{id}}"] = {
            "get": {
                "operationId": f"read{i}",
                "tags": ["things"],
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": answer,
            }
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        "components": {"schemas": {"Job": record}},
    }


def _jobs() -> dict[str, Any]:
    state = {"field": "/status", "success": ["done"], "pending": ["running"]}
    return {
        "jobs": {
            name: {"create": f"make{i}", "status": f"read{i}", "id_from": "/id", "state": state}
            for i, name in enumerate(NAMES)
        }
    }


@pytest.fixture(scope="module")
def things(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("names")
    spec = write(out / "things.yaml", yaml.safe_dump(_spec()))
    jobs = write(out / "things.jobs.yaml", yaml.safe_dump(_jobs()))
    with imported_sdk(spec, out, "things_sdk", jobs=jobs) as module:
        yield module


def _methods(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction)}


def _resources(sdk: ModuleType) -> list[type]:
    """Every resource class of the SDK (one module per tag, a sync and an async class)."""
    found = []
    for info in pkgutil.iter_modules(sdk.resources.__path__):
        module = importlib.import_module(f"{sdk.__name__}.resources.{info.name}")
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if cls.__module__ == module.__name__ and not cls.__name__.startswith("_")
        ]
    return found


def test_a_thing_is_created_and_a_doing_is_begun(things: ModuleType) -> None:
    from things_sdk.resources.things import AsyncThings, Things

    for cls in (Things, AsyncThings):
        methods = _methods(cls)
        # a thing: create it, start it, wait for many of them
        assert {"create_batch_and_wait", "start_batch", "wait_for_batches"} <= methods
        assert {"create_dev_box_and_wait", "start_dev_box", "wait_for_dev_boxes"} <= methods
        assert {"wait_for_queries", "wait_for_analyses"} <= methods
        # no plural in use (`healths`), or one already (`results`): their jobs
        assert {"wait_for_health_jobs", "wait_for_results_jobs"} <= methods
        # an action: do it and wait, begin it, wait for many such jobs
        assert {
            "create_dev_box_and_wait",
            "begin_create_dev_box",
            "wait_for_create_dev_box_jobs",
            "start_dev_box_and_wait",
            "begin_start_dev_box",
            "wait_for_start_dev_box_jobs",
            "copy_classifier_to_and_wait",
            "begin_copy_classifier_to",
            "wait_for_copy_classifier_to_jobs",
            "delete_and_wait",
            "begin_delete",
        } <= methods
        _assert_readable(methods)


def _assert_readable(methods: set[str]) -> None:
    doubled = re.compile(r"^([a-z]+)_\1_|^(?:create|start)_(?:create|start|delete|copy)_")
    assert not [m for m in methods if doubled.match(m)]
    assert not [m for m in methods if re.search(r"(?:boxs|tos|batchs|querys|analysiss)$", m)]


@pytest.fixture(scope="module")
def devcenter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("devcenter_names")
    with imported_sdk(AZURE / SPECS["devcenter"], out, "devcenter_sdk", ref_root=AZURE) as module:
        yield module


def test_dev_center_jobs_imported_from_the_published_spec_read_as_written(
    devcenter: ModuleType,
) -> None:
    """DevCenter's LROs are named after their operations (`DevBoxes_CreateDevBox`)."""
    methods = set().union(*(_methods(cls) for cls in _resources(devcenter)))
    assert {
        "create_dev_box_and_wait",
        "begin_create_dev_box",
        "wait_for_create_dev_box",
        "wait_for_create_dev_box_jobs",
        "start_dev_box_and_wait",
        "begin_start_dev_box",
        "delete_dev_box_and_wait",
    } <= methods
    _assert_readable(methods)
