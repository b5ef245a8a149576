"""diff_sdks: every kind of change, whether it breaks SDK callers, and the suggested bump."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from jobgen.diff import diff_sdks
from jobgen.diff.compare import KINDS
from jobgen.model import ir
from jobgen.model.build import load_and_build
from tests.diff.specs import (
    JOB_PATH,
    RESULT_PATH,
    SUME,
    diff,
    dump,
    job,
    kinds,
    only,
    op,
    props,
    schemas,
    sume,
)
from tests.helpers import ROOT, SPECS

Spec = dict[str, Any]
Edit = Callable[[Spec], None]


@attrs.frozen
class Case:
    edit: Edit
    expected: set[tuple[str, bool]]
    bump: str
    base: Edit | None = None


# --- edits -------------------------------------------------------------------------------


def query(name: str, required: bool = False, kind: str = "string", where: str = "query") -> Any:
    return {"name": name, "in": where, "required": required, "schema": {"type": kind}}


# Parameter edits go to the create operation: the job's status operation may need
# nothing but the job id (nothing else would supply a required parameter).
CREATE_PATH = "/v1/jobs"


def with_expand(spec: Spec) -> None:
    op(spec, CREATE_PATH, "post")["parameters"].append(query("expand"))


def expand(spec: Spec) -> dict[str, Any]:
    result: dict[str, Any] = op(spec, CREATE_PATH, "post")["parameters"][-1]
    return result


def set_expand(**changes: Any) -> Edit:
    def edit(spec: Spec) -> None:
        param = expand(spec)
        for key, value in changes.items():
            param[key] = value

    return edit


def with_required_expand(spec: Spec) -> None:
    with_expand(spec)
    expand(spec)["required"] = True


def remove_result_operation(spec: Spec) -> None:
    del spec["paths"][RESULT_PATH]
    del job(spec)["result"]


def rename_result_operation(to: str) -> Edit:
    def edit(spec: Spec) -> None:
        op(spec, RESULT_PATH, "get")["operationId"] = to
        job(spec)["result"] = to

    return edit


def add_retry(spec: Spec) -> None:
    spec["paths"]["/v1/jobs/{job_id}/retry"] = {
        "parameters": [{"$ref": "#/components/parameters/JobId"}],
        "post": {
            "operationId": "retryJob",
            "tags": ["jobs"],
            "responses": {
                "200": {
                    "description": "retried",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/JobEnvelope"}}
                    },
                }
            },
        },
    }


def move_path(spec: Spec) -> None:
    spec["paths"]["/v1/jobs/{job_id}/output"] = spec["paths"].pop(RESULT_PATH)


def http_method(spec: Spec) -> None:
    item = spec["paths"][RESULT_PATH]
    item["post"] = item.pop("get")


def retag(spec: Spec) -> None:
    op(spec, RESULT_PATH, "get")["tags"] = ["results"]


def deprecate(spec: Spec) -> None:
    op(spec, RESULT_PATH, "get")["deprecated"] = True


def rename_path_parameter(spec: Spec) -> None:
    spec["components"]["parameters"]["JobId"]["name"] = "id"
    paths = spec["paths"]
    paths["/v1/jobs/{id}"] = paths.pop(JOB_PATH)
    paths["/v1/jobs/{id}/result"] = paths.pop(RESULT_PATH)
    job(spec)["id_parameter"] = "id"


def body(spec: Spec) -> dict[str, Any]:
    result: dict[str, Any] = op(spec, "/v1/jobs", "post")["requestBody"]
    return result


def body_optional(spec: Spec) -> None:
    body(spec)["required"] = False


def body_required(spec: Spec) -> None:
    body(spec)["required"] = True


def body_type(spec: Spec) -> None:
    body(spec)["content"]["application/json"]["schema"] = {"$ref": "#/components/schemas/TextInput"}


def no_body(spec: Spec) -> None:
    del op(spec, "/v1/jobs", "post")["requestBody"]


def restore_body(spec: Spec) -> None:
    op(spec, "/v1/jobs", "post")["requestBody"] = body(sume())


def response_type(spec: Spec) -> None:
    content = op(spec, RESULT_PATH, "get")["responses"]["200"]["content"]
    content["application/json"]["schema"] = {"$ref": "#/components/schemas/JobEnvelope"}


def add_field(schema: str, name: str, required: bool) -> Edit:
    def edit(spec: Spec) -> None:
        props(spec, schema)[name] = {"type": "integer"}
        if required:
            schemas(spec)[schema].setdefault("required", []).append(name)

    return edit


def set_required(schema: str, name: str, required: bool) -> Edit:
    def edit(spec: Spec) -> None:
        names = schemas(spec)[schema].setdefault("required", [])
        if required:
            names.append(name)
        else:
            names.remove(name)

    return edit


def set_type(schema: str, name: str, kind: Any) -> Edit:
    def edit(spec: Spec) -> None:
        props(spec, schema)[name]["type"] = kind

    return edit


def drop_field(schema: str, name: str) -> Edit:
    def edit(spec: Spec) -> None:
        del props(spec, schema)[name]

    return edit


def rename_schema(old: str, new: str) -> Edit:
    """Rename a schema key and every reference to it."""

    def edit(spec: Spec) -> None:
        schemas(spec)[new] = schemas(spec).pop(old)
        _replace_refs(spec, f"#/components/schemas/{old}", f"#/components/schemas/{new}")

    return edit


def _replace_refs(node: Any, old: str, new: str) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and value == old:
                node[key] = new
            else:
                _replace_refs(value, old, new)
    elif isinstance(node, list):
        for item in node:
            _replace_refs(item, old, new)


def with_tree(spec: Spec) -> None:
    schemas(spec)["Node"] = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        },
    }
    props(spec, "JobResult")["tree"] = {"$ref": "#/components/schemas/Node"}


def with_unused(spec: Spec) -> None:
    schemas(spec)["Extra"] = {"type": "object", "properties": {"x": {"type": "string"}}}


def progress_enum(spec: Spec) -> None:
    schemas(spec)["JobProgress"] = {"type": "string", "enum": ["low", "high"]}


def error_is_error(spec: Spec) -> None:
    props(spec, "Job")["error"]["anyOf"][0] = {"$ref": "#/components/schemas/Error"}


def drop_mode_webhook(spec: Spec) -> None:
    props(spec, "Job")["mode"]["enum"] = ["polling"]


def add_mode_email(spec: Spec) -> None:
    props(spec, "Job")["mode"]["enum"].append("email")


def drop_mode_email(spec: Spec) -> None:
    props(spec, "Job")["mode"]["enum"].remove("email")


def one_request_mode(spec: Spec) -> None:
    props(spec, "CreateJobRequest")["mode"]["enum"] = ["polling"]


def add_request_mode(spec: Spec) -> None:
    props(spec, "CreateJobRequest")["mode"]["enum"].append("email")


def add_file_input(spec: Spec) -> None:
    schemas(spec)["FileInput"] = {
        "type": "object",
        "required": ["type", "file_id"],
        "properties": {"type": {"type": "string", "const": "file"}, "file_id": {"type": "string"}},
    }
    union = schemas(spec)["JobInput"]
    union["oneOf"].append({"$ref": "#/components/schemas/FileInput"})
    union["discriminator"]["mapping"]["file"] = "#/components/schemas/FileInput"


def drop_url_input(spec: Spec) -> None:
    union = schemas(spec)["JobInput"]
    union["oneOf"].remove({"$ref": "#/components/schemas/UrlInput"})
    del union["discriminator"]["mapping"]["url"]


def api_key_header(spec: Spec) -> None:
    spec["components"]["securitySchemes"]["ApiKeyAuth"]["name"] = "x-sume-key"


def bearer_instead(spec: Spec) -> None:
    spec["components"]["securitySchemes"]["ApiKeyAuth"] = {"type": "http", "scheme": "bearer"}


def with_bearer(spec: Spec) -> None:
    spec["components"]["securitySchemes"]["BearerAuth"] = {"type": "http", "scheme": "bearer"}


def base_url(spec: Spec) -> None:
    spec["servers"] = [{"url": "https://eu.api.sume.com"}]


def add_state(state: str, kind: str) -> Edit:
    def edit(spec: Spec) -> None:
        props(spec, "Job")["status"]["enum"].append(state)
        job(spec)["state"][kind].append(state)

    return edit


def reclassify_canceled(spec: Spec) -> None:
    states = job(spec)["state"]
    del states["canceled"]
    states["failure"].append("canceled")


def drop_canceled(spec: Spec) -> None:
    props(spec, "Job")["status"]["enum"].remove("canceled")
    del job(spec)["state"]["canceled"]


def no_jobs(spec: Spec) -> None:
    del spec["x-jobgen"]


def restore_jobs(spec: Spec) -> None:
    spec["x-jobgen"] = sume()["x-jobgen"]


def no_create(spec: Spec) -> None:
    del job(spec)["create"]
    del job(spec)["id_from"]


def restore_create(spec: Spec) -> None:
    job(spec).update(create="createJob", id_from="/data/id")


def copy_operation(path: str, method: str, to_path: str, to_id: str) -> Edit:
    def edit(spec: Spec) -> None:
        item = dict(spec["paths"][path])
        item[method] = dict(item[method], operationId=to_id)
        spec["paths"][to_path] = item

    return edit


def whole_envelope_record(spec: Spec) -> None:
    declared = job(spec)
    declared["record"] = ""
    declared["state"]["field"] = "/data/status"
    declared["terminal_field"] = "/data/terminal"
    declared["result_ready_field"] = "/data/result_ready"
    declared["error_field"] = "/data/error"
    declared["poll"]["body_hint"]["field"] = "/data/next_poll_after_seconds"


def with_parts(spec: Spec) -> None:
    spec["paths"]["/v1/parts/{job_id}/{part_id}"] = {
        "get": {
            "operationId": "getPart",
            "tags": ["parts"],
            "parameters": [
                {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "part_id", "in": "path", "required": True, "schema": {"type": "string"}},
            ],
            "responses": {"204": {"description": "ok"}},
        }
    }


def swap_parts(spec: Spec) -> None:
    spec["paths"]["/v1/parts/{part_id}/{job_id}"] = spec["paths"].pop(
        "/v1/parts/{job_id}/{part_id}"
    )


def form_body(spec: Spec) -> None:
    content = body(spec)["content"]
    content["application/x-www-form-urlencoded"] = content.pop("application/json")


def with_alias(spec: Spec) -> None:
    schemas(spec)["JobId"] = {"type": "string"}
    props(spec, "Job")["id"] = {"$ref": "#/components/schemas/JobId"}


def drop_job_key(key: str) -> Edit:
    def edit(spec: Spec) -> None:
        del job(spec)[key]

    return edit


CANCEL_PATH = "/v1/jobs/{job_id}/cancel"


def cancel_path(spec: Spec) -> None:
    spec["paths"][CANCEL_PATH] = copy.deepcopy(SUME["paths"][CANCEL_PATH])


def with_cancel(spec: Spec) -> None:
    cancel_path(spec)
    job(spec)["cancel"] = "cancelJob"


def with_cancel_twin(spec: Spec) -> None:
    with_cancel(spec)
    copy_operation(CANCEL_PATH, "post", "/v1/jobs-again/{job_id}/cancel", "cancelJobAgain")(spec)


def with_progress(spec: Spec) -> None:
    job(spec)["progress"] = {"field": "/progress/percent"}


def poll(spec: Spec) -> None:
    job(spec)["poll"].update(floor=1.0, first=1.0, cap=60.0)


def with_key_inputs(spec: Spec) -> None:
    """Status and result take an optional key, in the query or in a header."""
    for path in (JOB_PATH, RESULT_PATH):
        op(spec, path, "get").setdefault("parameters", []).extend(
            [query("key"), query("X-Key", where="header")]
        )


def with_carry(spec: Spec) -> None:
    with_key_inputs(spec)
    job(spec)["carry"] = {"key": {"from": "/data/id", "to": "query:key"}}


def carry_to_header(spec: Spec) -> None:
    job(spec)["carry"]["key"]["to"] = "header:X-Key"


def drop_carry(spec: Spec) -> None:
    del job(spec)["carry"]


def one_shot_result(spec: Spec) -> None:
    job(spec)["result_once"] = True


def binary_result(spec: Spec) -> None:
    content = op(spec, RESULT_PATH, "get")["responses"]["200"]["content"]
    content.clear()
    content["application/pdf"] = {"schema": {"type": "string", "format": "binary"}}


def by_operation_url(spec: Spec) -> None:
    declared = job(spec)
    del declared["id_from"]
    declared.update(operation_url="Location", final_from="location")


def rename_job(spec: Spec) -> None:
    spec["x-jobgen"]["jobs"] = {"summary": job(spec)}


def second_job(spec: Spec) -> None:
    jobs = spec["x-jobgen"]["jobs"]
    jobs["other"] = dict(jobs["summary"])


# --- cases -------------------------------------------------------------------------------

# --- facets the SDK model leaves out: constraints, defaults, access, responses ------------


def set_prop(schema: str, field: str, **changes: Any) -> Edit:
    def edit(spec: Spec) -> None:
        props(spec, schema)[field].update(changes)

    return edit


def drop_prop_key(schema: str, field: str, key: str) -> Edit:
    def edit(spec: Spec) -> None:
        del props(spec, schema)[field][key]

    return edit


def add_prop(schema: str, field: str, node: Any) -> Edit:
    def edit(spec: Spec) -> None:
        props(spec, schema)[field] = copy.deepcopy(node)

    return edit


def idempotency_max(spec: Spec) -> None:
    spec["components"]["parameters"]["IdempotencyKey"]["schema"]["maxLength"] = 64


def with_priority(spec: Spec) -> None:
    op(spec, JOB_PATH, "get")["parameters"] = [query("priority", kind="integer")]


def create_status(spec: Spec) -> None:
    responses = op(spec, "/v1/jobs", "post")["responses"]
    responses["201"] = responses.pop("202")


def job_headers(spec: Spec) -> dict[str, Any]:
    result: dict[str, Any] = op(spec, JOB_PATH, "get")["responses"]["200"]["headers"]
    return result


def with_request_base(spec: Spec) -> None:
    """CreateJobRequest extends a base model no response carries."""
    schemas(spec)["RequestBase"] = {
        "type": "object",
        "properties": {"label": {"type": "string"}},
    }
    request = schemas(spec)["CreateJobRequest"]
    schemas(spec)["CreateJobRequest"] = {
        "allOf": [{"$ref": "#/components/schemas/RequestBase"}, request]
    }


def with_twins(spec: Spec) -> None:
    """Two structurally identical option models, one sent and one received."""
    for name in ("SendOptions", "ReadOptions"):
        schemas(spec)[name] = {"type": "object", "properties": {"verbose": {"type": "boolean"}}}
    props(spec, "CreateJobRequest")["options"] = {"$ref": "#/components/schemas/SendOptions"}
    props(spec, "Job")["options"] = {"$ref": "#/components/schemas/ReadOptions"}


def rename_twins(spec: Spec) -> None:
    rename_schema("SendOptions", "RequestOptions")(spec)
    rename_schema("ReadOptions", "JobOptions")(spec)


CASES: dict[str, Case] = {
    # operations
    "operation removed": Case(
        remove_result_operation,
        {("operation.removed", True), ("job.result_removed", True)},
        "major",
    ),
    "operation added": Case(add_retry, {("operation.added", False)}, "minor"),
    "operation renamed, SDK method renamed": Case(
        rename_result_operation("fetchJobResult"),
        {("operation.renamed", True), ("job.result_changed", False)},
        "major",
    ),
    "operation renamed, same SDK method": Case(
        rename_result_operation("getJobsResult"),
        {("operation.renamed", False), ("job.result_changed", False)},
        "patch",
    ),
    "operation path changed": Case(move_path, {("operation.path_changed", False)}, "patch"),
    "operation HTTP method changed": Case(
        http_method, {("operation.http_method_changed", False)}, "patch"
    ),
    "operation moved to another resource": Case(
        retag, {("operation.sdk_method_changed", True)}, "major"
    ),
    "operation deprecated": Case(deprecate, {("operation.deprecated", False)}, "patch"),
    # parameters
    "parameter removed": Case(
        lambda s: op(s, CREATE_PATH, "post")["parameters"].pop(),
        {("parameter.removed", True)},
        "major",
        base=with_expand,
    ),
    "optional parameter added": Case(with_expand, {("parameter.added", False)}, "minor"),
    "required parameter added": Case(
        lambda s: op(s, CREATE_PATH, "post")["parameters"].append(query("region", required=True)),
        {("parameter.added", True)},
        "major",
    ),
    "parameter renamed": Case(
        set_expand(name="include"), {("parameter.renamed", True)}, "major", base=with_expand
    ),
    "parameter renamed on the wire only": Case(
        set_expand(name="Expand"), {("parameter.renamed", False)}, "patch", base=with_expand
    ),
    "path parameter renamed": Case(
        rename_path_parameter,
        {
            ("parameter.renamed", True),
            ("operation.path_changed", False),
            ("job.pointer_changed", False),
        },
        "major",
    ),
    "parameter moved to a header": Case(
        set_expand(**{"in": "header"}), {("parameter.moved", False)}, "patch", base=with_expand
    ),
    "parameter type changed": Case(
        set_expand(schema={"type": "integer"}),
        {("parameter.type_changed", True)},
        "major",
        base=with_expand,
    ),
    "path parameters reordered": Case(
        swap_parts,
        {("parameter.reordered", True), ("operation.path_changed", False)},
        "major",
        base=with_parts,
    ),
    "parameter became required": Case(
        set_expand(required=True), {("parameter.became_required", True)}, "major", base=with_expand
    ),
    "parameter became optional": Case(
        set_expand(required=False),
        {("parameter.became_optional", False)},
        "patch",
        base=with_required_expand,
    ),
    # request body and response
    "body became required": Case(
        body_required, {("body.became_required", True)}, "major", base=body_optional
    ),
    "body became optional": Case(body_optional, {("body.became_optional", False)}, "patch"),
    "body type changed": Case(body_type, {("body.type_changed", True)}, "major"),
    "body media type changed": Case(form_body, {("body.media_type_changed", False)}, "patch"),
    "body removed": Case(no_body, {("body.removed", True)}, "major"),
    "required body added": Case(restore_body, {("body.added", True)}, "major", base=no_body),
    "response type changed": Case(response_type, {("response.type_changed", True)}, "major"),
    # model fields
    "response field removed": Case(
        drop_field("Job", "progress"), {("field.removed", True)}, "major"
    ),
    "required request field added": Case(
        add_field("CreateJobRequest", "priority", True), {("field.added", True)}, "major"
    ),
    "optional request field added": Case(
        add_field("CreateJobRequest", "priority", False), {("field.added", False)}, "minor"
    ),
    "required response field added": Case(
        add_field("Job", "priority", True), {("field.added", False)}, "minor"
    ),
    "field type changed": Case(
        set_type("JobProgress", "percent", "string"), {("field.type_changed", True)}, "major"
    ),
    "request field became required": Case(
        set_required("CreateJobRequest", "mode", True),
        {("field.became_required", True)},
        "major",
    ),
    "response field became required": Case(
        set_required("Job", "mode", True), {("field.became_required", False)}, "patch"
    ),
    "response field became optional": Case(
        set_required("Job", "created_at", False), {("field.became_optional", True)}, "major"
    ),
    "request field became optional": Case(
        set_required("CreateJobRequest", "input", False),
        {("field.became_optional", False)},
        "patch",
    ),
    "response field became nullable": Case(
        set_type("Job", "id", ["string", "null"]), {("field.became_nullable", True)}, "major"
    ),
    "request field became nullable": Case(
        set_type("TextInput", "text", ["string", "null"]),
        {("field.became_nullable", False)},
        "patch",
    ),
    "request field became non-nullable": Case(
        set_type("CreateJobRequest", "webhook_url", "string"),
        {("field.became_non_nullable", True)},
        "major",
    ),
    "response field became non-nullable": Case(
        set_type("Job", "webhook_url", "string"),
        {("field.became_non_nullable", False)},
        "patch",
    ),
    "field refers to another schema": Case(error_is_error, {("field.type_changed", True)}, "major"),
    # schemas
    "schema key renamed, same structure": Case(
        rename_schema("JobError", "JobFailure"), {("schema.renamed", True)}, "major"
    ),
    "recursive schema renamed": Case(
        rename_schema("Node", "TreeNode"), {("schema.renamed", True)}, "major", base=with_tree
    ),
    "recursive schema gains a field": Case(
        add_field("Node", "size", False), {("field.added", False)}, "minor", base=with_tree
    ),
    "schema added": Case(with_unused, {("schema.added", False)}, "minor"),
    "schema removed": Case(
        lambda s: schemas(s).pop("Extra"), {("schema.removed", True)}, "major", base=with_unused
    ),
    "schema kind changed": Case(progress_enum, {("schema.kind_changed", True)}, "major"),
    "alias target changed": Case(
        lambda s: schemas(s)["JobId"].update(type="integer"),
        {("schema.type_changed", True)},
        "major",
        base=with_alias,
    ),
    # enums and unions
    "enum value removed": Case(
        drop_mode_email, {("enum.value_removed", True)}, "major", base=add_mode_email
    ),
    # An inline enum of one value is typed as that value (a Literal), not as an enum class.
    "inline enum narrowed to one value": Case(
        drop_mode_webhook, {("field.type_changed", True), ("schema.removed", True)}, "major"
    ),
    "request field of one value grown to an enum": Case(
        add_request_mode,
        {("field.type_changed", False), ("schema.added", False)},
        "minor",
        base=one_request_mode,
    ),
    "response field of one value grown to an enum": Case(
        set_prop("Job", "mode", enum=["polling", "webhook"]),
        {("field.type_changed", True), ("schema.added", False)},
        "major",
        base=set_prop("Job", "mode", enum=["polling"]),
    ),
    "enum value added": Case(add_request_mode, {("enum.value_added", False)}, "minor"),
    "union variant added": Case(
        add_file_input, {("union.variant_added", False), ("schema.added", False)}, "minor"
    ),
    "union variant removed": Case(
        drop_url_input, {("union.variant_removed", True)}, "major", base=add_file_input
    ),
    # auth and client
    "API key header renamed": Case(api_key_header, {("auth.changed", False)}, "patch"),
    "API key became a bearer token": Case(bearer_instead, {("auth.changed", True)}, "major"),
    "auth scheme added": Case(with_bearer, {("auth.added", False)}, "minor"),
    "auth scheme removed": Case(
        lambda s: s["components"]["securitySchemes"].pop("BearerAuth"),
        {("auth.removed", True)},
        "major",
        base=with_bearer,
    ),
    "base URL changed": Case(base_url, {("client.base_url_changed", False)}, "patch"),
    # jobs
    "new terminal state": Case(
        add_state("expired", "failure"),
        {("job.terminal_state_added", True), ("enum.value_added", False)},
        "major",
    ),
    "new pending state": Case(
        add_state("paused", "pending"),
        {("job.pending_state_added", True), ("enum.value_added", False)},
        "major",
    ),
    "state reclassified": Case(reclassify_canceled, {("job.state_reclassified", True)}, "major"),
    "state removed": Case(
        drop_canceled, {("job.state_removed", True), ("enum.value_removed", True)}, "major"
    ),
    "job removed": Case(no_jobs, {("job.removed", True)}, "major"),
    "job added": Case(restore_jobs, {("job.added", False)}, "minor", base=no_jobs),
    "second job renames the waiters": Case(
        second_job, {("job.added", False), ("job.waiters_renamed", True)}, "major", base=rename_job
    ),
    "job result operation removed": Case(
        drop_job_key("result"), {("job.result_removed", True)}, "major"
    ),
    "job result operation added": Case(
        lambda s: job(s).update(result="getJobResult"),
        {("job.result_added", False)},
        "minor",
        base=drop_job_key("result"),
    ),
    "job create operation removed": Case(
        no_create,
        {("job.create_removed", True), ("job.pointer_changed", False)},
        "major",
    ),
    "job create operation added": Case(
        restore_create,
        {("job.create_added", False), ("job.pointer_changed", False)},
        "minor",
        base=no_create,
    ),
    "job create operation changed": Case(
        lambda s: job(s).update(create="createJobAgain"),
        {("job.create_changed", False)},
        "patch",
        base=copy_operation("/v1/jobs", "post", "/v1/jobs-again", "createJobAgain"),
    ),
    "job status operation changed": Case(
        lambda s: job(s).update(status="getJobAgain"),
        {("job.status_operation_changed", False)},
        "patch",
        base=copy_operation(JOB_PATH, "get", "/v1/jobs-again/{job_id}", "getJobAgain"),
    ),
    "job record changed": Case(
        whole_envelope_record,
        {
            ("job.record_changed", True),
            ("job.pointer_changed", True),
            ("job.pointer_changed", False),
            ("job.ready_field_changed", True),
            ("job.poll_changed", False),
        },
        "major",
    ),
    "readiness field removed": Case(
        drop_job_key("result_ready_field"), {("job.ready_field_changed", True)}, "major"
    ),
    "idempotency header removed": Case(
        drop_job_key("idempotency_header"), {("job.idempotency_changed", True)}, "major"
    ),
    "error field removed": Case(
        drop_job_key("error_field"), {("job.pointer_changed", False)}, "patch"
    ),
    "poll defaults changed": Case(poll, {("job.poll_changed", False)}, "patch"),
    "carried value added": Case(
        with_carry, {("job.carry_added", True)}, "major", base=with_key_inputs
    ),
    "carried value removed": Case(
        drop_carry, {("job.carry_removed", True)}, "major", base=with_carry
    ),
    "carried value moved to a header": Case(
        carry_to_header, {("job.carry_changed", False)}, "patch", base=with_carry
    ),
    "result became one-shot": Case(one_shot_result, {("job.result_once_changed", True)}, "major"),
    "result became binary": Case(
        binary_result,
        {
            ("job.result_body_changed", True),
            ("response.type_changed", True),
            ("response.media_types_changed", False),
        },
        "major",
    ),
    "result no longer one-shot": Case(
        drop_job_key("result_once"),
        {("job.result_once_changed", False)},
        "patch",
        base=one_shot_result,
    ),
    "job cancel operation removed": Case(
        drop_job_key("cancel"), {("job.cancel_removed", True)}, "major", base=with_cancel
    ),
    "job cancel operation added": Case(
        lambda s: job(s).update(cancel="cancelJob"),
        {("job.cancel_added", False)},
        "minor",
        base=cancel_path,
    ),
    "job cancel operation changed": Case(
        lambda s: job(s).update(cancel="cancelJobAgain"),
        {("job.cancel_changed", False)},
        "patch",
        base=with_cancel_twin,
    ),
    "job progress field removed": Case(
        drop_job_key("progress"), {("job.progress_changed", False)}, "patch", base=with_progress
    ),
    "job progress as done out of total": Case(
        lambda s: job(s).update(
            progress={"done": "/progress/percent", "total": "/progress/percent"}
        ),
        {("job.progress_changed", False)},
        "patch",
        base=with_progress,
    ),
    "job stall_after declared": Case(
        lambda s: job(s).update(stall_after=300), {("job.stall_after_changed", True)}, "major"
    ),
    "job stall_after shortened": Case(
        lambda s: job(s).update(stall_after=60),
        {("job.stall_after_changed", True)},
        "major",
        base=lambda s: job(s).update(stall_after=300),
    ),
    "job stall_after lengthened": Case(
        lambda s: job(s).update(stall_after=600),
        {("job.stall_after_changed", False)},
        "patch",
        base=lambda s: job(s).update(stall_after=300),
    ),
    "job stall_after dropped": Case(
        drop_job_key("stall_after"),
        {("job.stall_after_changed", False)},
        "patch",
        base=lambda s: job(s).update(stall_after=300),
    ),
    "job polled at its operation URL": Case(
        by_operation_url,
        {
            ("job.operation_url_changed", True),
            ("job.final_from_changed", True),
            ("job.pointer_changed", False),
        },
        "major",
    ),
    "status rule added": Case(
        lambda s: job(s).update(status_rules=[{"status": 404, "state": "failed"}]),
        {("job.status_rules_changed", True)},
        "major",
    ),
    # constraints, defaults, access
    "request field maxLength lowered": Case(
        set_prop("TextInput", "text", maxLength=1000), {("constraint.tightened", True)}, "major"
    ),
    "request field maxLength raised": Case(
        set_prop("TextInput", "text", maxLength=300000), {("constraint.loosened", False)}, "patch"
    ),
    "request field pattern added": Case(
        set_prop("UrlInput", "url", pattern="^https://"), {("constraint.tightened", True)}, "major"
    ),
    "response field minimum raised": Case(
        set_prop("Job", "next_poll_after_seconds", minimum=5),
        {("constraint.tightened", False)},
        "patch",
    ),
    "request list items constrained": Case(
        set_prop("CreateJobRequest", "tags", maxItems=3, items={"type": "string", "maxLength": 8}),
        {("constraint.tightened", True)},
        "major",
        base=add_prop("CreateJobRequest", "tags", {"type": "array", "items": {"type": "string"}}),
    ),
    "parameter maxLength lowered": Case(idempotency_max, {("constraint.tightened", True)}, "major"),
    "request default changed": Case(
        set_prop("CreateJobRequest", "mode", default="webhook"),
        {("default.changed", True)},
        "major",
    ),
    "request default removed": Case(
        drop_prop_key("CreateJobRequest", "mode", "default"), {("default.changed", True)}, "major"
    ),
    "request default null added": Case(
        set_prop("CreateJobRequest", "webhook_url", default=None), set(), "none"
    ),
    "request field minLength added": Case(
        set_prop("TextInput", "text", minLength=1), {("constraint.tightened", True)}, "major"
    ),
    "response default added": Case(
        set_prop("Job", "mode", default="polling"), {("default.changed", False)}, "patch"
    ),
    "request field became read-only": Case(
        set_prop("CreateJobRequest", "webhook_url", readOnly=True),
        {("field.became_read_only", True)},
        "major",
    ),
    "response field became write-only": Case(
        set_prop("Job", "webhook_url", writeOnly=True), {("field.became_write_only", True)}, "major"
    ),
    "response field no longer read-only": Case(
        drop_prop_key("Job", "mode", "readOnly"),
        {("field.access_relaxed", False)},
        "patch",
        base=set_prop("Job", "mode", readOnly=True),
    ),
    # widening
    "request field integer -> number": Case(
        set_prop("CreateJobRequest", "priority", type="number"),
        {("field.type_changed", False)},
        "patch",
        base=add_prop("CreateJobRequest", "priority", {"type": "integer"}),
    ),
    "response field integer -> number": Case(
        set_prop("Job", "attempts", type="number"),
        {("field.type_changed", True)},
        "major",
        base=add_prop("Job", "attempts", {"type": "integer"}),
    ),
    "request field number -> integer": Case(
        set_prop("CreateJobRequest", "priority", type="integer"),
        {("field.type_changed", True)},
        "major",
        base=add_prop("CreateJobRequest", "priority", {"type": "number"}),
    ),
    "parameter integer -> number": Case(
        lambda s: op(s, JOB_PATH, "get")["parameters"][0]["schema"].update(type="number"),
        {("parameter.type_changed", False)},
        "patch",
        base=with_priority,
    ),
    # allOf bases travel with the model that extends them
    "base of a request model became nullable": Case(
        lambda s: schemas(s)["RequestBase"]["properties"]["label"].update(type=["string", "null"]),
        {("field.became_nullable", False)},
        "patch",
        base=with_request_base,
    ),
    "base of a request model gained a required field": Case(
        lambda s: schemas(s)["RequestBase"].update(required=["label"]),
        {("field.became_required", True)},
        "major",
        base=with_request_base,
    ),
    # structural twins renamed together are told apart by what refers to them
    "structurally identical schemas renamed": Case(
        rename_twins, {("schema.renamed", True)}, "major", base=with_twins
    ),
    # responses
    "success status changed": Case(create_status, {("response.status_changed", False)}, "patch"),
    "response media type added": Case(
        lambda s: op(s, JOB_PATH, "get")["responses"]["200"]["content"].update(
            {"application/problem+json": {"schema": {"$ref": "#/components/schemas/JobEnvelope"}}}
        ),
        {("response.media_types_changed", False)},
        "patch",
    ),
    "response header a waiter reads removed": Case(
        lambda s: job_headers(s).clear(), {("response.header_removed", True)}, "major"
    ),
    "response header added": Case(
        lambda s: job_headers(s).update({"X-Request-Id": {"schema": {"type": "string"}}}),
        {("response.header_added", False)},
        "patch",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_change(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    old = sume()
    if case.base is not None:
        case.base(old)
    new = sume()
    if case.base is not None:
        case.base(new)
    case.edit(new)
    report = diff(tmp_path, old, new)
    assert kinds(report) == case.expected, report.changes
    assert report.bump == case.bump
    for change in report.changes:
        assert change.kind in KINDS
        assert change.message and "\n" not in change.message


def test_every_kind_is_exercised() -> None:
    exercised = {kind for case in CASES.values() for kind, _ in case.expected}
    # field.renamed and enum.member_renamed: see test_renamed_attribute_and_enum_member.
    assert set(KINDS) - exercised == {"field.renamed", "enum.member_renamed"}


def test_identical_specs_have_no_changes(tmp_path: Path) -> None:
    report = diff(tmp_path, sume(), sume())
    assert report.changes == ()
    assert report.bump == "none"


@pytest.mark.parametrize("spec", sorted(SPECS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_spec_is_unchanged_against_itself(spec: Path) -> None:
    sdk = load_and_build(spec)
    assert diff_sdks(sdk, load_and_build(spec)).changes == ()


def test_new_terminal_state_message(tmp_path: Path) -> None:
    new = sume()
    add_state("expired", "failure")(new)
    report = diff(tmp_path, sume(), new)
    change = only(report, "job.terminal_state_added")
    assert change.location == "job job"
    assert change.breaking
    assert "'expired' (failure)" in change.message
    assert report.breaking == (change,)
    assert only(report, "enum.value_added").location == "schema JobStatus"


def test_field_location_names_schema_and_field(tmp_path: Path) -> None:
    new = sume()
    set_type("Job", "id", ["string", "null"])(new)
    assert only(diff(tmp_path, sume(), new), "field.became_nullable").location == "schema Job.id"


def test_renamed_schema_is_not_a_type_change_of_its_fields(tmp_path: Path) -> None:
    new = sume()
    rename_schema("JobError", "JobFailure")(new)
    change = only(diff(tmp_path, sume(), new), "schema.renamed")
    assert change.message == "class JobError renamed to JobFailure"


def test_breaking_changes_come_first(tmp_path: Path) -> None:
    new = sume()
    add_state("paused", "pending")(new)
    add_state("expired", "failure")(new)
    poll(new)
    report = diff(tmp_path, sume(), new)
    flags = [(c.breaking, c.addition) for c in report.changes]
    assert flags == sorted(flags, key=lambda f: (not f[0], not f[1]))
    assert {c.kind for c in report.changes[:2]} == {
        "job.terminal_state_added",
        "job.pending_state_added",
    }


def test_state_changes_name_who_breaks_in_each_rollout_order(tmp_path: Path) -> None:
    """A new state breaks SDKs already deployed when the server ships first; a state no longer
    documented breaks regenerated SDKs when they ship before the server; a state read from
    elsewhere breaks both."""
    paused = sume()
    add_state("paused", "pending")(paused)
    added = diff(tmp_path / "a", sume(), paused)
    (change,) = [c for c in added.changes if c.kind == "job.pending_state_added"]
    assert change.rollout is not None
    assert change.rollout.deployed == (
        "deployed SDKs raise UnknownJobState when the server reports 'paused'"
    )
    assert change.rollout.regenerated is None
    assert added.breaks_deployed == (change,) and added.breaks_regenerated == ()

    dropped = sume()
    drop_canceled(dropped)
    removed = diff(tmp_path / "b", sume(), dropped)
    (change,) = [c for c in removed.changes if c.kind == "job.state_removed"]
    assert change.rollout is not None and change.rollout.deployed is None
    assert change.rollout.regenerated == (
        "regenerated SDKs raise UnknownJobState when a server not yet upgraded reports 'canceled'"
    )

    moved = sume()
    job(moved)["state"]["field"] = "/state"
    props(moved, "Job")["state"] = props(moved, "Job").pop("status")
    schemas(moved)["Job"]["required"] = [
        "state" if r == "status" else r for r in schemas(moved)["Job"]["required"]
    ]
    report = diff(tmp_path / "c", sume(), moved)
    (change,) = [c for c in report.changes if c.message == "state field /status -> /state"]
    assert change.breaking and change.rollout is not None
    assert change.rollout.deployed and change.rollout.regenerated


def test_specs_in_other_files_and_folders_match(tmp_path: Path) -> None:
    """Schema keys carry the file name; two versions at different paths still match."""

    def split(root: Path, name: str) -> Path:
        spec = sume()
        common = {"components": {"schemas": {"Error": schemas(spec).pop("Error")}}}
        _replace_refs(spec, "#/components/schemas/Error", "common.yaml#/components/schemas/Error")
        dump(root / "common.yaml", common)
        return dump(root / name, spec)

    old = load_and_build(split(tmp_path / "a", "sume.yaml"))
    new = load_and_build(split(tmp_path / "b" / "v2", "api.yaml"))
    assert diff_sdks(old, new).changes == ()


def test_side_files_are_compared(tmp_path: Path) -> None:
    spec = sume()
    side = {"jobs": spec.pop("x-jobgen")["jobs"]}
    path = dump(tmp_path / "spec.yaml", spec)
    old_side = dump(tmp_path / "old.jobs.yaml", side)
    side["jobs"]["job"]["state"]["pending"] = ["queued"]
    side["jobs"]["job"]["state"]["success"] = ["completed", "processing"]
    new_side = dump(tmp_path / "new.jobs.yaml", side)
    report = diff_sdks(
        load_and_build(path, jobs_file=old_side), load_and_build(path, jobs_file=new_side)
    )
    assert kinds(report) == {("job.state_reclassified", True)}
    assert "'processing' is now success (was pending)" in report.changes[0].message


def test_docs_list_every_kind() -> None:
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    missing = [kind for kind in KINDS if f"`{kind}`" not in text]
    assert missing == []


def test_renamed_attribute_and_enum_member(tmp_path: Path) -> None:
    """Python names derive from wire names, so edit the model itself."""
    sdk = load_and_build(dump(tmp_path / "spec.yaml", sume()))
    by_name = {schema.name: key for key, schema in sdk.schemas.items()}
    model = sdk.schemas[by_name["Job"]]
    status = sdk.schemas[by_name["JobStatus"]]
    assert isinstance(model, ir.Model) and isinstance(status, ir.EnumSchema)
    renamed: dict[str, ir.NamedSchema] = {
        by_name["Job"]: attrs.evolve(
            model,
            fields=tuple(
                attrs.evolve(f, name="ident") if f.wire == "id" else f for f in model.fields
            ),
        ),
        by_name["JobStatus"]: attrs.evolve(
            status,
            members=tuple(
                attrs.evolve(m, name="WAITING") if m.value == "queued" else m
                for m in status.members
            ),
        ),
    }
    report = diff_sdks(sdk, attrs.evolve(sdk, schemas={**sdk.schemas, **renamed}))
    assert kinds(report) == {("field.renamed", True), ("enum.member_renamed", True)}
    assert only(report, "field.renamed").message == "attribute id renamed to ident"


def test_mutually_recursive_schemas_renamed(tmp_path: Path) -> None:
    def cycle(a: str, b: str) -> Edit:
        def edit(spec: Spec) -> None:
            schemas(spec)[a] = {
                "type": "object",
                "properties": {"b": {"$ref": f"#/components/schemas/{b}"}},
            }
            schemas(spec)[b] = {
                "type": "object",
                "properties": {"a": {"$ref": f"#/components/schemas/{a}"}},
            }
            props(spec, "JobResult")["cycle"] = {"$ref": f"#/components/schemas/{a}"}

        return edit

    old, new = sume(), sume()
    cycle("Ping", "Pong")(old)
    cycle("Tick", "Tock")(new)
    report = diff(tmp_path, old, new)
    assert {(c.kind, c.message) for c in report.changes} == {
        ("schema.renamed", "class Ping renamed to Tick"),
        ("schema.renamed", "class Pong renamed to Tock"),
    }
