"""Example JSON from intermediate-model types, and error bodies in each spec's shape."""

from __future__ import annotations

from functools import cache

import pytest

from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.server.errors import ErrorShapes
from jobgen.server.samples import Sampler, drop, locate, put
from tests.helpers import SPECS

STAMP = "2025-01-02T03:04:05Z"


@cache
def sdk(name: str) -> ir.Sdk:
    return load_and_build(SPECS / f"{name}.yaml")


def sampler(name: str) -> Sampler:
    return Sampler(sdk(name).schemas, timestamp=STAMP)


def ref(name: str, schema: str) -> ir.Ref:
    """The named schema ``schema`` of spec ``name``, by its key in the SDK model."""
    keys = [k for k in sdk(name).schemas if k.endswith(f"#/components/schemas/{schema}")]
    assert len(keys) == 1, keys
    return ir.Ref(keys[0])


def test_primitives_enums_and_nullables() -> None:
    s = Sampler({}, timestamp=STAMP)
    assert s.sample(ir.Primitive("str")) == "example"
    assert s.sample(ir.Primitive("int")) == 0
    assert s.sample(ir.Primitive("bool")) is False
    assert s.sample(ir.Primitive("datetime")) == STAMP
    assert s.sample(ir.Primitive("date")) == "2025-01-02"
    assert s.sample(ir.Primitive("uuid")) == "00000000-0000-0000-0000-000000000000"
    assert s.sample(ir.Nullable(ir.Primitive("str"))) is None
    assert s.sample(ir.Nullable(ir.Primitive("str")), force=True) == "example"
    assert s.sample(ir.ConstType("text")) == "text"
    assert s.sample(ir.ListType(ir.Primitive("int"))) == [0]
    assert s.sample(ir.MapType(ir.Primitive("int"))) == {}
    assert s.sample(ir.InlineUnion((ir.Primitive("float"), ir.Primitive("str")))) == 0.0


def test_sume_record_has_every_required_field() -> None:
    job = sdk("sume").jobs[0]
    body = sampler("sume").sample(job.status.response.type)  # type: ignore[arg-type]
    record = body["data"]
    for field in ("id", "status", "terminal", "result_ready", "created_at", "updated_at"):
        assert field in record
    assert record["status"] == "queued"  # an enum takes its first member
    assert record["created_at"] == STAMP


def test_recursive_schemas_terminate() -> None:
    value = sampler("azure_operations").sample(ref("azure_operations", "ErrorDetail"), force=True)
    # Optional fields that would recurse are left out; the rest is filled near the top.
    assert value["code"] == "example" and "details" not in value
    assert value["innererror"] == {"code": "example"}


def test_discriminated_union_takes_the_first_variant_with_its_tag() -> None:
    source = ref("azure_operations", "AnalysisSource")
    assert sampler("azure_operations").sample(source)["kind"] == "inline"


def test_locate_follows_wire_names_through_refs() -> None:
    s = sdk("sume")
    t = s.jobs[0].status.response.type
    assert t is not None
    found = locate(t, ("data", "next_poll_after_seconds"), s.schemas)
    assert found is not None and isinstance(found.type, ir.Nullable) and not found.required
    assert locate(t, ("data", "status"), s.schemas) is not None
    assert locate(t, ("data", "nope"), s.schemas) is None


def test_put_and_drop() -> None:
    body: dict[str, object] = {"data": {"a": 1}}
    put(body, ("data", "b"), 2)
    put(body, ("x", "y"), 3)
    drop(body, ("data", "a"))
    drop(body, ("missing", "a"))
    assert body == {"data": {"b": 2}, "x": {"y": 3}}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sume", {"code": "job_not_completed", "message": "not yet", "request_id": None}),
        (
            "salesforce_bulk",
            [{"errorCode": "job_not_completed", "message": "not yet", "fields": ["example"]}],
        ),
        ("azure_operations", None),
    ],
)
def test_error_bodies_follow_the_spec(name: str, expected: object) -> None:
    s = sdk(name)
    shapes = ErrorShapes(s, SPECS / f"{name}.yaml", timestamp=STAMP)
    job = s.jobs[0]  # Azure's operations have no result operation: their status one
    body = shapes.body(job.result or job.status, 409, "not yet", "job_not_completed")
    if expected is not None:
        assert body == expected
    else:
        assert body["error"]["code"] == "job_not_completed"
        assert body["error"]["message"] == "not yet"


def test_stripe_errors_nest_under_error() -> None:
    s = sdk("stripe_report_runs")
    shapes = ErrorShapes(s, SPECS / "stripe_report_runs.yaml", timestamp=STAMP)
    body = shapes.body(s.jobs[0].status, 503, "down")
    assert body["error"]["code"] == "service_unavailable"
    assert body["error"]["message"] == "down"
    assert body["error"]["type"] == "api_error"


def test_without_the_spec_document_errors_are_code_and_message() -> None:
    s = sdk("sume")
    shapes = ErrorShapes(s, None, timestamp=STAMP)
    # The SDK's locations name specs/sume.yaml relative to the repository root; from
    # elsewhere the document is not found and the generic shape is used.
    body = shapes.body(None, 429, "slow down")
    assert body == {"code": "rate_limited", "message": "slow down"}
