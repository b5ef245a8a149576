"""Azure's `x-ms-long-running-operation` operations become jobs with no side file:
`jobgen validate` shows where each came from, a side file completes or replaces them,
and the generated SDK waits for each kind over the wire as azure-core's poller does."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from jobgen.cli import main
from jobgen.model.build import load_and_build
from jobgen.model.declare.azure import job_names
from jobgen.pipeline import Target, generate
from tests.helpers import REAL_SPECS, TEST_SPECS, imported_sdk, write
from tests.waiters.support import FakeTime

KINDS = TEST_SPECS / "azure_lro_kinds.yaml"
HOST = "https://contoso.example.net"
QUERY = "api-version=2025-01-01"


def test_validate_shows_where_each_imported_job_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["validate", str(KINDS)]) == 0

    out = capsys.readouterr().out
    assert "valid (7 schemas, 8 operations, 6 jobs)" in out
    assert (
        f"  job create_or_replace: imported from x-ms-long-running-operation at {KINDS}"
        "#/paths/~1widgets~1{name}/put"
    ) in out
    assert f"  job ship: imported from x-ms-long-running-operation at {KINDS}" in out


def test_names_are_the_operation_part_and_the_full_name_where_two_meet() -> None:
    assert job_names(["DocumentModels_AnalyzeDocument", "Email_Send", "FullBackup"]) == {
        "DocumentModels_AnalyzeDocument": "analyze_document",
        "Email_Send": "send",
        "FullBackup": "full_backup",
    }
    assert job_names(["Models_Build", "Classifiers_Build", "Copy"]) == {
        "Models_Build": "models_build",
        "Classifiers_Build": "classifiers_build",
        "Copy": "copy",
    }


def test_each_kind_reads_as_azure_core_polls_it() -> None:
    sdk = load_and_build(KINDS)
    jobs = {job.name: job for job in sdk.jobs}

    put = jobs["create_or_replace"]
    assert put.operation_url == ("Operation-Location", "Azure-AsyncOperation", "Location")
    assert (put.final_from, put.result and put.result.operation_id) == (
        "original-uri",
        "Widgets_Get",
    )
    assert put.status.operation_id == "Operations_Get" and put.ignore_case
    assert put.success == ("Succeeded",) and put.pending == ("NotStarted", "Running")
    assert put.error_path == ("error",) and put.progress_path == ("percentComplete",)
    assert jobs["update"].final_from == "original-uri"
    assert (jobs["delete"].final_from, jobs["delete"].result) == ("record", None)
    assert jobs["polish"].final_from == jobs["paint"].final_from == "record"
    ship = jobs["ship"]  # no GET types what its Location names: the record is the result
    assert ship.status.synthetic and ship.final_from == "record"
    assert [(r.status, r.state) for r in ship.status_rules] == [
        ((202,), "Running"),
        ((200, 201, 204), "Succeeded"),
    ]


def _side(tmp_path: Path, text: str) -> Path:
    return write(tmp_path / "kinds.jobs.yaml", text)


def test_a_side_file_job_of_the_same_name_overrides_the_imported_one_key_by_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    side = _side(tmp_path, "jobs:\n  polish:\n    stall_after: 120\n")

    sdk = load_and_build(KINDS, jobs_file=side)

    polish = next(job for job in sdk.jobs if job.name == "polish")
    assert polish.stall_after == 120.0  # the side file's key
    assert polish.status.operation_id == "Operations_Get"  # the import's keys
    assert polish.operation_url == ("Operation-Location", "Azure-AsyncOperation", "Location")
    assert len(sdk.jobs) == 6
    assert main(["validate", str(KINDS), "--jobs", str(side)]) == 0
    out = capsys.readouterr().out
    assert f"  job polish: declared at {side}#/jobs/polish, over the job imported from" in out


def test_a_side_file_job_naming_the_same_create_replaces_the_import(tmp_path: Path) -> None:
    side = _side(
        tmp_path,
        """jobs:
  polishing:
    create: Widgets_Polish
    status: Operations_Get
    operation_url: Azure-AsyncOperation
    final_from: record
    state:
      field: /status
      success: [Succeeded]
      failure: [Failed, Canceled]
      pending: [NotStarted, Running]
""",
    )

    sdk = load_and_build(KINDS, jobs_file=side)

    names = sorted(job.name for job in sdk.jobs)
    assert "polish" not in names and "polishing" in names and len(names) == 6
    polishing = next(job for job in sdk.jobs if job.name == "polishing")
    assert polishing.operation_url == ("Azure-AsyncOperation",)
    assert polishing.origin == f"declared at {side}#/jobs/polishing"


# -- over the wire ------------------------------------------------------------------------


class Contoso:
    """An Azure-style service: each long-running request answers with a monitor, which
    reports `status` (its case as the service likes it), then the resource."""

    def __init__(self, states: list[str], status_case: str = "Succeeded") -> None:
        self.states, self.case = states, status_case
        self.requests: list[tuple[str, str]] = []
        self.polls = 0

    def handle(self, request: httpx.Request) -> httpx.Response:
        path, query = request.url.path, request.url.query.decode()
        self.requests.append((request.method, f"{path}?{query}" if query else path))
        if request.headers.get("api-key") != "k":
            return httpx.Response(401, json={"error": {"code": "401", "message": "key"}})
        monitor = {"Operation-Location": f"{HOST}/operations/op1?{QUERY}", "Retry-After": "1"}
        if request.method in ("PUT", "PATCH", "DELETE") or path.endswith(":polish"):
            status = 201 if request.method == "PUT" else 202
            return httpx.Response(status, headers=monitor)
        if path.endswith(":ship"):
            return httpx.Response(202, headers={"Location": f"{HOST}/shipments/s1?{QUERY}"})
        if path == "/shipments/s1":
            self.polls += 1
            if self.polls < 3:
                return httpx.Response(202, headers={"Retry-After": "2"})
            return httpx.Response(200, json={"id": "s1", "status": "shipped"})
        if path == "/operations/op1":
            state = self.states[min(self.polls, len(self.states) - 1)]
            self.polls += 1
            body: dict[str, Any] = {"id": "op1", "status": state}
            if state.lower() == "failed":
                body["error"] = {"code": "Melted", "message": "the widget melted"}
            return httpx.Response(200, json=body, headers={"Retry-After": "1"})
        if request.method == "GET" and re.fullmatch(r"/widgets/[^/:]+", path):
            return httpx.Response(200, json={"name": path.rsplit("/", 1)[1], "color": "red"})
        return httpx.Response(404, json={"error": {"code": "NotFound", "message": path}})


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(KINDS, tmp_path_factory.mktemp("contoso"), "contoso_lro") as module:
        yield module


def _client(sdk: ModuleType, service: Contoso, time: FakeTime) -> Any:
    config = sdk.WaitConfig(
        clock=time.clock, wall_clock=time.wall_clock, sleep=time.sleep, rng=lambda: 0.5
    )
    return sdk.Client(
        api_key="k",
        base_url=HOST,
        wait_config=config,
        transport=httpx.MockTransport(service.handle),
    )


def test_a_put_ends_with_a_get_of_its_original_uri(contoso: ModuleType) -> None:
    service, time = Contoso(["Running", "Succeeded"]), FakeTime()
    widgets = _client(contoso, service, time).widgets

    widget = widgets.create_or_replace_and_wait(
        "w1", body=contoso.models.Widget(color="red"), deadline=60
    )

    assert service.requests == [
        ("PUT", f"/widgets/w1?{QUERY}"),
        ("GET", f"/operations/op1?{QUERY}"),
        ("GET", f"/operations/op1?{QUERY}"),
        ("GET", f"/widgets/w1?{QUERY}"),  # the original URI
    ]
    assert (widget.name, widget.color) == ("w1", "red")
    assert time.sleeps == [1.0, 1.0]


def test_a_started_put_keeps_its_original_uri_in_its_resume_token(contoso: ModuleType) -> None:
    service, time = Contoso(["Running", "Succeeded"]), FakeTime()
    widgets = _client(contoso, service, time).widgets
    handle = widgets.begin_create_or_replace(
        "w2", body=contoso.models.Widget(color="red"), deadline=60
    )

    token = json.loads(handle.resume_token)
    resumed = widgets.create_or_replace_handle(resume=handle.resume_token)

    assert token["final_url"] == f"{HOST}/widgets/w2?{QUERY}"
    assert resumed.result(deadline=60).name == "w2"
    assert service.requests[-1] == ("GET", f"/widgets/w2?{QUERY}")


def test_states_are_compared_without_regard_to_case(contoso: ModuleType) -> None:
    service, time = Contoso(["running", "FAILED"]), FakeTime()
    widgets = _client(contoso, service, time).widgets

    with pytest.raises(contoso.errors.PolishFailed) as caught:
        widgets.create_polish_and_wait("w1", deadline=60)

    assert caught.value.error.code == "Melted"


def test_a_delete_ends_on_its_terminal_record_and_raises_when_it_failed(
    contoso: ModuleType,
) -> None:
    widgets = _client(contoso, Contoso(["Running", "Succeeded"]), FakeTime()).widgets
    failing = _client(contoso, Contoso(["Running", "Failed"]), FakeTime()).widgets

    record = widgets.delete_and_wait("w1", deadline=60)
    with pytest.raises(contoso.errors.DeleteFailed) as caught:  # as azure-core raises
        failing.delete_and_wait("w2", deadline=60)

    assert record.status.value == "Succeeded"
    assert caught.value.error.code == "Melted"


def test_a_location_monitor_is_read_by_its_http_status(contoso: ModuleType) -> None:
    service, time = Contoso([]), FakeTime()
    widgets = _client(contoso, service, time).widgets

    shipped = widgets.create_ship_and_wait("w1", deadline=60)

    assert service.requests == [
        ("POST", f"/widgets/w1:ship?{QUERY}"),
        ("GET", f"/shipments/s1?{QUERY}"),  # no hint on the 202: read at once
        ("GET", f"/shipments/s1?{QUERY}"),  # 202, Retry-After: 2
        ("GET", f"/shipments/s1?{QUERY}"),  # 200: succeeded, the body is the record
    ]
    assert shipped.status == "shipped" and time.sleeps == [2.0, 2.0]


# -- the published Azure specs ------------------------------------------------------------

AZURE = REAL_SPECS / "azure"


def _roots() -> list[str]:
    roots = []
    for readme in ("README-ai.md", "README-other.md"):
        text = (AZURE / readme).read_text(encoding="utf-8")
        roots += re.findall(r"^\| \d+ \| `([^`]+)`", text, flags=re.MULTILINE)
    return roots


def test_every_published_lro_becomes_a_job_or_a_warning_saying_why(tmp_path: Path) -> None:
    """The corpus's 26 root specs (two of which cannot be read: a $ref to a file the
    corpus lacks, and one to a definition the spec lacks) declare 83 long-running
    operations; every one of the 24 readable specs' 76 is a job."""
    found = imported = warned = unreadable = 0
    for root in _roots():
        spec = json.loads((AZURE / root).read_text(encoding="utf-8"))
        lros = sum(
            1
            for section in ("paths", "x-ms-paths")
            for item in (spec.get(section) or {}).values()
            for op in item.values()
            if isinstance(op, dict) and op.get("x-ms-long-running-operation") is True
        )
        found += lros
        try:
            sdk = load_and_build(AZURE / root, ref_root=AZURE)
        except Exception:  # noqa: BLE001 - counted, and the count is asserted
            unreadable += lros
            continue
        skipped = [w for w in sdk.warnings if "not imported as a job" in w]
        assert len(sdk.jobs) + len(skipped) == lros, root
        # ... and the SDK generates, with no side file.
        package = f"azure_{len(list(tmp_path.iterdir()))}"
        generate(
            Target(spec=AZURE / root, output=tmp_path / package, package=package, ref_root=AZURE)
        )
        imported += len(sdk.jobs)
        warned += len(skipped)
    assert (found, imported, warned, unreadable) == (83, 77, 0, 6)


# -- jobgen serve ---------------------------------------------------------------------------


async def _no_sleep(seconds: float) -> None:
    return None


def test_jobgen_serve_simulates_imported_jobs(contoso: ModuleType) -> None:
    from jobgen.server import run_server

    with run_server(KINDS) as server:
        config = contoso.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep)
        with contoso.Client(api_key="k", base_url=server.base_url, wait_config=config) as client:
            polished = client.widgets.create_polish_and_wait("w1", deadline=60)
            handle = client.widgets.begin_create_or_replace(
                "w7", body=contoso.models.Widget(color="blue"), deadline=60
            )
            widget = handle.result(deadline=60)
            deleted = client.widgets.delete_and_wait("w7", deadline=60)
        job_id = httpx.URL(handle.job_id).path.rsplit("/", 1)[1]
        log = server.requests(job_id)

    # The create answered with the monitor's URL, api-version and all.
    assert "/operations/" in handle.job_id and QUERY in handle.job_id
    assert polished.status.value == deleted.status.value == "Succeeded"
    operations = [r.operation for r in log]
    assert operations[0] == "create" and operations[-1] == "result"
    assert set(operations[1:-1]) == {"status"}
    assert type(widget).__name__ == "Widget"  # the GET of the PUT's own URL


# -- jobgen diff ----------------------------------------------------------------------------


def test_diff_reports_changes_to_imported_jobs_and_an_operation_no_longer_long_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = KINDS.read_text(encoding="utf-8")
    polish = "      operationId: Widgets_Polish\n      x-ms-long-running-operation: true\n"
    assert polish in text
    new = text.replace(polish, "      operationId: Widgets_Polish\n")
    # The PATCH's result is no longer the resource: its final GET goes.
    new = new.replace(
        "      operationId: Widgets_Update\n      x-ms-long-running-operation: true\n",
        "      operationId: Widgets_Update\n      x-ms-long-running-operation: true\n"
        "      x-ms-long-running-operation-options:\n        final-state-via: location\n",
    )
    newer = write(tmp_path / "azure_lro_kinds.yaml", new)

    assert main(["diff", str(KINDS), str(newer)]) == 1

    out = capsys.readouterr().out
    assert (
        "job polish and its waiters (client.widgets.wait_for_polish(), ...) were removed:"
        " Widgets_Polish is no longer long-running (x-ms-long-running-operation)"
    ) in out
    assert "job update" in out and "original-uri" in out


def test_the_states_microsofts_own_sdks_end_on_end_the_job() -> None:
    spec = AZURE / "translation/data-plane/DocumentTranslation/stable/2024-05-01/openapi.json"
    (job,) = load_and_build(spec, ref_root=AZURE).jobs

    assert (job.success, job.failure, job.canceled, job.pending) == (
        ("Succeeded",),
        ("Failed", "ValidationFailed"),
        ("Cancelled",),
        ("NotStarted", "Running", "Cancelling"),
    )
    assert job.name == "start_translation" and job.ignore_case
    assert job.status.operation_id == "DocumentTranslationOperations_GetTranslationStatus"


def _location_monitors(tmp_path: Path, draft_states: list[str]) -> Path:
    """A Swagger 2.0 spec whose creates answer `201` with `Location` alone, naming an
    item of their collection: a model (its `modelInfo.status`: creating, ready,
    invalid; its `trainResult.errors`) or a draft (its `status`: `draft_states`)."""

    def create(op_id: str) -> dict[str, Any]:
        return {
            "operationId": op_id,
            "x-ms-long-running-operation": True,
            "parameters": [{"name": "body", "in": "body", "schema": {"type": "object"}}],
            "responses": {
                "201": {"description": "Queued.", "headers": {"Location": {"type": "string"}}}
            },
        }

    def read(op_id: str, name: str, schema: str) -> dict[str, Any]:
        return {
            "operationId": op_id,
            "parameters": [{"name": name, "in": "path", "required": True, "type": "string"}],
            "responses": {"200": {"description": "It.", "schema": {"$ref": schema}}},
        }

    error = {"type": "object", "properties": {"code": {"type": "string"}}}
    spec = {
        "swagger": "2.0",
        "info": {"title": "Models", "version": "1.0"},
        "host": "models.example.net",
        "schemes": ["https"],
        "paths": {
            "/models": {"post": create("TrainModel")},
            "/models/compose": {"post": create("ComposeModels")},
            "/models/{modelId}": {"get": read("GetModel", "modelId", "#/definitions/Model")},
            "/drafts": {"post": create("StartDraft")},
            "/drafts/{draftId}": {"get": read("GetDraft", "draftId", "#/definitions/Draft")},
        },
        "definitions": {
            "Model": {
                "type": "object",
                "properties": {
                    "modelInfo": {
                        "type": "object",
                        "properties": {
                            "status": {"type": "string", "enum": ["creating", "ready", "invalid"]}
                        },
                    },
                    "trainResult": {
                        "type": "object",
                        "properties": {"errors": {"type": "array", "items": error}},
                    },
                },
            },
            "Draft": {
                "type": "object",
                "properties": {"status": {"type": "string", "enum": draft_states}},
            },
        },
    }
    return write(tmp_path / "models.json", json.dumps(spec))


def test_a_location_monitor_whose_target_has_a_status_enum_is_read_by_that_status(
    tmp_path: Path,
) -> None:
    jobs = {job.name: job for job in load_and_build(_location_monitors(tmp_path, [])).jobs}

    for name in ("train_model", "compose_models"):  # an item of the create's collection
        job = jobs[name]
        assert job.status.operation_id == "GetModel" and not job.status.synthetic
        assert job.state_path == ("modelInfo", "status") and job.ignore_case
        assert (job.success, job.failure, job.canceled, job.pending) == (
            ("ready",),
            ("invalid",),
            (),
            ("creating",),
        )
        assert job.status_rules == () and job.operation_url == ("Location",)
        assert job.error_path == ("trainResult", "errors")
        assert (job.final_from, job.result) == ("record", None)


@pytest.mark.parametrize("states", [["drafting", "ready"], ["drafting", "ready", "lost"]])
def test_a_location_monitor_whose_target_has_no_failure_state_is_read_by_http_status(
    tmp_path: Path, states: list[str]
) -> None:
    """A status enum that names no failure (or a state none of the rules know, "lost")
    cannot say how the job failed: the HTTP status tells, as azure-core reads it."""
    jobs = {job.name: job for job in load_and_build(_location_monitors(tmp_path, states)).jobs}

    draft = jobs["start_draft"]
    assert draft.status.synthetic and draft.state_path == ("status",)
    assert [(r.status, r.state) for r in draft.status_rules] == [
        ((202,), "Running"),
        ((200, 201, 204), "Succeeded"),
    ]
