#!/usr/bin/env python3
"""Cost of checking one request against its operation in `jobgen serve`, per library.

    .venv/bin/python bench/serve_validation.py   # needs jsonschema and openapi-core too

Measures, on specs/sume.yaml: the create body (a oneOf of two inputs) and the status
read's path parameter checked with jsonschema_rs (what the server uses) and with
jsonschema (pure Python) on the same bundled schema; openapi-core's whole-request
validation of the same create; and a status read over HTTP with and without checking.
Prints microseconds per call (the median of 7 runs).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import httpx

from jobgen.model.build import load_and_build
from jobgen.server import run_server
from jobgen.server.validate import OperationCheck, _Bundler
from jobgen.server.wire import Request

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "sume.yaml"
BODY = {"input": {"type": "text", "text": "hello"}, "options": {"language": "en"}}


def per_call(fn: object, n: int) -> float:
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            fn()  # type: ignore[operator]
        runs.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(runs)


def main() -> None:
    sdk = load_and_build(SPEC)
    assert sdk.spec is not None
    job = sdk.jobs[0]
    create, status = job.create, job.status
    assert create is not None and create.location is not None
    check = OperationCheck(create, sdk.spec, openapi30=True)
    status_check = OperationCheck(status, sdk.spec, openapi30=True)
    raw = json.dumps(BODY).encode()
    headers = {"content-type": "application/json", "x-api-key": "k"}
    request = Request("POST", "/v1/jobs", "", headers, raw, "localhost")
    read = Request("GET", "/v1/jobs/job_1", "", {"x-api-key": "k"}, b"", "localhost")
    assert check.check(request, {}) == []
    rows = [
        ("jsonschema_rs: create (headers, body)", per_call(lambda: check.check(request, {}), 2000)),
        (
            "jsonschema_rs: status read (path parameter)",
            per_call(lambda: status_check.check(read, {"job_id": "job_1"}), 5000),
        ),
    ]
    media = create.location.child("requestBody", "content", "application/json", "schema")
    schema = _Bundler(sdk.spec, openapi30=True).bundle(
        sdk.spec.resolve("#" + media.pointer, media)[0], media
    )
    try:
        import jsonschema

        validator = jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )
        rows.append(
            (
                "jsonschema: create body alone",
                per_call(lambda: list(validator.iter_errors(BODY)), 500),
            )
        )
    except ImportError:
        rows.append(("jsonschema: not installed", float("nan")))
    try:
        from openapi_core import OpenAPI
        from openapi_core.testing import MockRequest

        api = OpenAPI.from_file_path(str(SPEC))
        mock = MockRequest(
            "https://api.sume.com",
            "post",
            "/v1/jobs",
            data=raw,
            headers=headers,
            content_type="application/json",
        )
        api.validate_request(mock)
        rows.append(
            (
                "openapi-core: whole create request",
                per_call(lambda: api.validate_request(mock), 200),
            )
        )
    except ImportError:
        rows.append(("openapi-core: not installed", float("nan")))
    for strict in (True, False):
        with run_server(SPEC, strict=strict) as server:
            job_id = server.create_job({"states": [{"state": "processing", "polls": 10**6}]})
            with httpx.Client(base_url=server.base_url, headers={"x-api-key": "k"}) as client:
                client.get(f"/v1/jobs/{job_id}")
                rows.append(
                    (
                        f"status read over HTTP, {'strict' if strict else 'lenient'}",
                        per_call(lambda url=f"/v1/jobs/{job_id}": client.get(url), 200),
                    )
                )
    for name, micros in rows:
        print(f"{name:<48} {micros:10.1f} us")


if __name__ == "__main__":
    main()
