"""Input specs are checked against the official OpenAPI schemas (Swagger 2.0, OpenAPI 3.0
and 3.1) before anything else, through ``jobgen validate``: a misspelt key is an error at
its ``file#pointer`` with "did you mean", ``x-`` extensions are allowed, every problem
is reported in one run (capped, with a count), and the harmless breaks that published
specs make are warnings (docs/input-limits.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jobgen.spec.specschema import MAX_PROBLEMS
from tests.helpers import write

OPENAPI3 = """openapi: {version}
info: {{title: Misspelt, version: "1"}}
paths:
  /a:
    post:
      operationId: a
      x-internal: true
      requestbody:
        content: {{application/json: {{schema: {{type: object}}}}}}
      responses: {{"200": {{description: ok}}}}
    get:
      operationId: b
      parameters:
        - {{name: q, in: query, requird: true, schema: {{type: string}}}}
      responses: {{"200": {{description: ok}}}}
"""

SWAGGER2 = """swagger: "2.0"
info: {title: Misspelt, version: "1"}
paths:
  /a:
    post:
      operationId: a
      x-internal: true
      paramters: []
      responses: {"200": {description: ok}}
"""


def _validate(spec: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobgen", "validate", str(spec)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_misspelt_keys_of_openapi_3_are_errors_with_did_you_mean(
    tmp_path: Path, version: str
) -> None:
    spec = write(tmp_path / "spec.yaml", OPENAPI3.format(version=version))
    run = _validate(spec)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert lines == [
        (
            f"error: {spec}#/paths/~1a/get/parameters/0/requird: unknown key 'requird';"
            " did you mean 'required'?"
        ),
        (
            f"error: {spec}#/paths/~1a/post/requestbody: unknown key 'requestbody';"
            " did you mean 'requestBody'?"
        ),
        "2 problems",
    ]


def test_misspelt_keys_of_swagger_2_are_errors_with_did_you_mean(tmp_path: Path) -> None:
    spec = write(tmp_path / "spec.yaml", SWAGGER2)
    run = _validate(spec)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        (
            f"error: {spec}#/paths/~1a/post/paramters: unknown key 'paramters';"
            " did you mean 'parameters'?"
        ),
        "1 problem",
    ]


def test_the_schemas_problems_come_with_the_generators_own(tmp_path: Path) -> None:
    """A misspelt key does not hide what the generator finds elsewhere."""
    spec = write(
        tmp_path / "spec.yaml",
        OPENAPI3.format(version="3.0.3")
        + "  /c/{id}:\n    get:\n      operationId: c\n"
        + '      responses: {"204": {description: ok}}\n',
    )
    errors = [line for line in _validate(spec).stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 3
    assert "requird" in errors[0] and "requestbody" in errors[1]
    assert "/paths/~1c~1{id}" in errors[2]


def test_every_problem_is_named_up_to_a_cap_then_counted(tmp_path: Path) -> None:
    operations = "".join(
        f"  /p{i}:\n    get:\n      operationId: p{i}\n      sumary: x\n"
        f'      responses: {{"200": {{description: ok}}}}\n'
        for i in range(MAX_PROBLEMS + 7)
    )
    spec = write(
        tmp_path / "spec.yaml",
        'openapi: 3.0.3\ninfo: {title: Many, version: "1"}\npaths:\n' + operations,
    )
    lines = _validate(spec).stderr.splitlines()
    unknown = [line for line in lines if "unknown key 'sumary'; did you mean 'summary'?" in line]
    assert len(unknown) == MAX_PROBLEMS
    assert f"error: {spec}#: and 7 more places that break the OpenAPI schema" in lines


def test_harmless_breaks_of_published_specs_are_warnings(tmp_path: Path) -> None:
    """An operation given by ``$ref`` (DigitalOcean), ``title`` on an operation and
    ``const`` in a 3.0 schema (openapi-python-client's baselines) still generate."""
    write(
        tmp_path / "op.yaml",
        'operationId: b\nresponses: {"204": {description: ok}}\n',
    )
    spec = write(
        tmp_path / "spec.yaml",
        """openapi: 3.0.3
info: {title: Lenient, version: "1"}
paths:
  /a:
    get:
      operationId: a
      title: A
      responses:
        "200":
          description: ok
          headers: {Location: {}}
          content:
            application/json:
              schema: {type: object, properties: {kind: {type: string, const: a}}}
  /b:
    get: {$ref: "op.yaml"}
""",
    )
    run = _validate(spec)
    assert run.returncode == 0, run.stderr
    assert f"{spec}#/paths/~1a/get/title: 'title' on an operation" in run.stdout + run.stderr
    assert f"{spec}#/paths/~1b/get: an operation given by $ref" in run.stdout + run.stderr
    assert "a JSON Schema keyword of a later draft" in run.stdout + run.stderr
    assert (
        f"{spec}#/paths/~1a/get/responses/200/headers/Location: a header or parameter with "
        "neither 'schema' nor 'content'"
    ) in run.stdout + run.stderr
