"""``jobgen jobs init`` on specs shaped like the published job APIs it used to get wrong.

Each spec below has the shape of a real one (an OCR API answering ``202`` with a
``Location``, DeepL's documents, Replicate's predictions, Anthropic's batches,
ElevenLabs's dubbing, Azure's long-running operations...); each draft goes through the
command line and then through ``jobgen validate SPEC --jobs DRAFT``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.cli import main
from tests.helpers import SPECS, write

HEAD = """openapi: 3.0.3
info: {title: Cases, version: "1"}
"""


def _draft(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> tuple[dict[str, Any], str, str, str]:
    """``(data, text, stdout, stderr)`` of the draft of ``text``, checked to validate."""
    spec = write(tmp_path / "api.yaml", text)
    draft = tmp_path / "api.jobs.yaml"
    code = main(["jobs", "init", str(spec), "-o", str(draft)])
    out, err = capsys.readouterr()
    assert code == 0, err
    drafted = draft.read_text(encoding="utf-8")
    code = main(["validate", str(spec), "--jobs", str(draft)])
    valid, problems = capsys.readouterr()
    assert code == 0, problems
    assert "valid" in valid
    return yaml.safe_load(drafted), drafted, out, err


def _line(text: str, start: str) -> str:
    """The draft's line starting (after its indent) with ``start``."""
    return next(line for line in text.splitlines() if line.strip().startswith(start))


OCR = (
    HEAD
    + """paths:
  /v2/ocr-jobs:
    post:
      operationId: createOcrJob
      responses:
        "202":
          description: Accepted.
          headers:
            Location: {schema: {type: string}}
          content:
            application/json:
              schema:
                type: object
                properties: {id: {type: string}}
  /v2/ocr-jobs/{job_id}:
    get:
      operationId: getOcrJob
      parameters: [{name: job_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The job.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/OcrJob"}
        "404":
          description: No such job (or expired after 7 days)
RESULT_AND_CANCEL
components:
  schemas:
    OcrJob:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [queued, running, succeeded, failed, canceled]}
        error: {type: string}
"""
)
OCR_RESULT_AND_CANCEL = """  /v2/ocr-jobs/{job_id}/result:
    get:
      operationId: getOcrResult
      parameters: [{name: job_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The text.
          content:
            application/json:
              schema:
                type: object
                properties: {text: {type: string}}
  /v2/ocr-jobs/{job_id}/cancel:
    post:
      operationId: cancelOcrJob
      parameters: [{name: job_id, in: path, required: true, schema: {type: string}}]
      responses:
        "202": {description: Canceling.}
"""


def test_a_202_location_create_whose_answer_holds_the_id_gets_its_result_and_cancel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, _ = _draft(
        tmp_path, capsys, OCR.replace("RESULT_AND_CANCEL\n", OCR_RESULT_AND_CANCEL)
    )
    job = data["jobs"]["ocr_job"]
    assert (job["create"], job["status"]) == ("createOcrJob", "getOcrJob")
    assert job["result"] == "getOcrResult"
    assert job["cancel"] == "cancelOcrJob"
    assert job["id_from"] == "/id"
    assert "operation_url" not in job
    assert job["state"]["canceled"] == ["canceled"]
    # The 404's prose is no state: a mistyped id must still raise NotFoundError.
    assert "status_rules" not in job
    assert "expired" not in str(job["state"]).lower()
    assert "no status rule drafted" in _line(text, "ocr_job:")
    assert "answers 404 ('No such job (or expired after 7 days)')" in text
    assert "the job is read by its id instead" in _line(text, "id_from:")


def test_a_202_location_job_polled_at_its_url_writes_the_current_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, _ = _draft(tmp_path, capsys, OCR.replace("RESULT_AND_CANCEL\n", ""))
    job = data["jobs"]["ocr_job"]
    assert job["operation_url"] == "Location"
    assert job["final_from"] == "record"
    assert "operation-url" not in text
    assert "status_rules" not in job
    assert "no status rule drafted" in _line(text, "ocr_job:")


def test_operations_an_operation_url_job_cannot_call_are_named_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The create's answer holds no id: the job is polled at its Location, and the
    # result and cancel under the id are said, with why.
    spec = OCR.replace("RESULT_AND_CANCEL\n", OCR_RESULT_AND_CANCEL).replace(
        "properties: {id: {type: string}}\n  /v2/ocr-jobs/{job_id}:",
        "properties: {queued: {type: boolean}}\n  /v2/ocr-jobs/{job_id}:",
    )
    data, text, _, _ = _draft(tmp_path, capsys, spec)
    job = data["jobs"]["ocr_job"]
    assert "result" not in job and "cancel" not in job
    note = _line(text, "ocr_job:")
    assert "# check:" in note
    assert "'getOcrResult' (GET /v2/ocr-jobs/{job_id}/result)" in note
    assert "'cancelOcrJob' (POST /v2/ocr-jobs/{job_id}/cancel)" in note
    assert "which an operation URL does not give" in note


DOCUMENTS = (
    HEAD
    + """paths:
  /v2/document:
    post:
      operationId: translateDocument
      responses:
        "200":
          description: Uploaded.
          content:
            application/json:
              schema:
                type: object
                properties:
                  document_id: {type: string}
                  document_key: {type: string}
  /v2/document/{document_id}:
    post:
      operationId: getDocumentStatus
      parameters: [{name: document_id, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [document_key]
              properties: {document_key: {type: string}}
      responses:
        "200":
          description: The status.
          content:
            application/json:
              schema:
                type: object
                properties:
                  document_id: {type: string}
                  status: {type: string, enum: [queued, translating, done, error]}
  /v2/document/{document_id}/result:
    post:
      operationId: downloadDocument
      parameters: [{name: document_id, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [document_key]
              properties: {document_key: {type: string}}
      responses:
        "200":
          description: The document.
          content:
            application/octet-stream:
              schema: {type: string, format: binary}
        "404":
          description: >-
            Documents can only be downloaded once before they are deleted from the
            server.
"""
)


def test_a_status_and_a_result_read_by_post_and_a_result_served_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, _ = _draft(tmp_path, capsys, DOCUMENTS)
    job = data["jobs"]["document"]
    assert (job["status"], job["result"]) == ("getDocumentStatus", "downloadDocument")
    assert job["result_once"] is True
    assert "read from the result operation's description" in _line(text, "result_once:")
    assert job["carry"] == {"document_key": {"from": "/document_key", "to": "body:/document_key"}}


PREDICTIONS = (
    HEAD
    + """paths:
  /v1/predictions:
    post:
      operationId: createPrediction
      responses:
        "201":
          description: Created.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Prediction"}
  /v1/predictions/{prediction_id}:
    get:
      operationId: getPrediction
      parameters: [{name: prediction_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The prediction.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Prediction"}
  /v1/predictions/{prediction_id}/cancel:
    post:
      operationId: cancelPrediction
      parameters: [{name: prediction_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The prediction.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Prediction"}
components:
  schemas:
    Prediction:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [starting, processing, succeeded, failed, canceled]}
        output: {}
        error: {type: string, nullable: true}
"""
)


def test_a_job_whose_record_is_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, _ = _draft(tmp_path, capsys, PREDICTIONS)
    job = data["jobs"]["prediction"]
    assert job["final_from"] == "record"
    assert "result" not in job
    assert job["cancel"] == "cancelPrediction"
    assert job["error_field"] == "/error"
    assert "the record holds 'output'" in _line(text, "final_from:")


def test_a_cancel_on_an_api_without_a_canceled_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = PREDICTIONS.replace(
        "enum: [starting, processing, succeeded, failed, canceled]",
        "enum: [in_progress, canceling, ended]",
    )
    data, text, _, _ = _draft(tmp_path, capsys, spec)
    job = data["jobs"]["prediction"]
    assert job["cancel"] == "cancelPrediction"
    assert job["state"]["canceled"] == []
    assert job["state"]["pending"] == ["in_progress", "canceling"]
    assert "no canceled state" in _line(text, "cancel:")


def test_a_deleted_state_is_terminal_and_a_requested_one_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = PREDICTIONS.replace(
        "enum: [starting, processing, succeeded, failed, canceled]",
        "enum: [queued, running, cancel_requested, succeeded, failed, deleted]",
    )
    data, text, _, _ = _draft(tmp_path, capsys, spec)
    state = data["jobs"]["prediction"]["state"]
    assert state["canceled"] == ["deleted"]
    assert state["pending"] == ["queued", "running", "cancel_requested"]
    assert "deleted: read as canceled from its name" in _line(text, "canceled:")
    assert "cancel_requested: a state still moving" in _line(text, "pending:")


def test_states_named_in_single_quotes_in_a_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = PREDICTIONS.replace(
        "status: {type: string, enum: [starting, processing, succeeded, failed, canceled]}",
        'status: {type: string, description: "The status of the dubbing project.'
        " Either 'dubbed', 'dubbing' or 'failed'.\"}",
    )
    data, text, _, _ = _draft(tmp_path, capsys, spec)
    state = data["jobs"]["prediction"]["state"]
    assert (state["success"], state["failure"], state["pending"]) == (
        ["dubbed"],
        ["failed"],
        ["dubbing"],
    )
    assert "states read from its description" in _line(text, "field:")
    assert "dubbed: read as success: it ends a state still moving" in _line(text, "success:")


def test_the_word_bearer_in_a_schemes_description_gives_its_auth_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = PREDICTIONS.replace(
        "components:\n  schemas:",
        """security: [{bearerAuth: []}]
components:
  securitySchemes:
    bearerAuth:
      type: apiKey
      in: header
      name: Authorization
      description: "Bearer token authentication. Use the format: Bearer $API_KEY"
  schemas:""",
    )
    data, text, out, _ = _draft(tmp_path, capsys, spec)
    assert data["auth_prefix"] == {"bearerAuth": "Bearer"}
    assert "# check: the scheme's description sends the key after 'Bearer'" in _line(
        text, "bearerAuth:"
    )
    assert "1 job drafted, 2 guesses to check" in out  # the prefix and final_from


def test_nothing_is_drafted_again_for_jobs_a_dialect_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (SPECS / "azure_operations.yaml").read_text(encoding="utf-8")
    text = text.split("\nx-jobgen:", 1)[0] + "\n"
    text = text.replace(
        "      operationId: startAnalysis\n",
        "      operationId: startAnalysis\n      x-ms-long-running-operation: true\n",
    )
    spec = write(tmp_path / "azure.yaml", text)
    draft = tmp_path / "azure.jobs.yaml"
    assert main(["jobs", "init", str(spec), "-o", str(draft)]) == 0
    out, err = capsys.readouterr()
    assert not draft.exists()
    assert "no other job found" in out
    assert "note: not drafted: 1 job the spec declares in its own extensions" in err
    assert "start_analysis (imported from x-ms-long-running-operation)" in err


BATCHES = (
    HEAD
    + """paths:
  /v1/batches:
    post:
      operationId: createBatch
      responses:
        "200":
          description: Created.
          content:
            application/json:
              schema:
                type: object
                properties: {job_id: {type: string}}
  /v1/batches/{id}:
    get:
      operationId: getBatch
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The batch.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Batch"}
  /v1/batches/{id}/status:
    get:
      operationId: getBatchStatus
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The batch.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Batch"}
  /v1/batches/{id}:cancel:
    post:
      operationId: cancelBatch
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: Canceling.}
  /v1/files/{file_id}/content:
    get:
      operationId: downloadFile
      parameters: [{name: file_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The file.
          content:
            application/octet-stream:
              schema: {type: string, format: binary}
components:
  schemas:
    Batch:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [QUEUED, RUNNING, SUCCESS, FAILED, CANCELLED]}
        output_file_id: {type: string, nullable: true}
        error_file_id: {type: string, nullable: true}
"""
)


def test_a_batch_its_file_result_its_custom_cancel_and_its_status_operation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, _ = _draft(tmp_path, capsys, BATCHES)
    assert list(data["jobs"]) == ["batch"]  # one job, though two operations read it
    job = data["jobs"]["batch"]
    assert job["status"] == "getBatchStatus"  # the one that says it reads the status
    assert "'getBatch' reads the job too" in _line(text, "status:")
    assert job["id_from"] == "/job_id"
    assert "the id is read from 'job_id'" in _line(text, "id_from:")
    assert job["cancel"] == "cancelBatch"  # POST /v1/batches/{id}:cancel
    assert job["result"] == "downloadFile"
    assert job["carry"] == {
        "output_file_id": {
            "from": "record:/output_file_id",
            "failure_from": "record:/error_file_id",
            "to": "path:file_id",
        }
    }
    assert "the finished record names a file ('output_file_id')" in _line(text, "result:")


UPLOADS = (
    HEAD
    + """paths:
  /v1/models:
    post:
      operationId: uploadModel
      responses:
        "200":
          description: The upload's job.
          content:
            application/json:
              schema:
                type: object
                properties:
                  data:
                    type: object
                    properties: {job_id: {type: string}, model_name: {type: string}}
  /v1/jobs/{jobId}:
    get:
      operationId: getJob
      parameters: [{name: jobId, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The job.
          content:
            application/json:
              schema:
                type: object
                properties:
                  job_id: {type: string}
                  status: {type: string, enum: [Queued, Running, Complete, Failed]}
  /v1/datasets:
    post:
      operationId: createDataset
      responses:
        "200":
          description: Uploaded.
          content:
            application/json:
              schema:
                type: object
                properties: {id: {type: string}}
  /v1/datasets/{id}:
    get:
      operationId: getDataset
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The dataset.
          content:
            application/json:
              schema:
                type: object
                properties:
                  dataset:
                    type: object
                    properties:
                      id: {type: string}
                      validation_status:
                        type: string
                        enum: [unknown, queued, processing, failed, validated]
  /v1/deployments:
    post:
      operationId: createDeployment
      responses:
        "200":
          description: The deployment.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Deployment"}
  /v1/deployments/{id}:
    get:
      operationId: getDeployment
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The deployment.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Deployment"}
components:
  schemas:
    Deployment:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [Updating, Scaling, Ready, Failed]}
"""
)


def test_creates_elsewhere_state_fields_by_suffix_and_resources_that_are_no_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, _, err = _draft(tmp_path, capsys, UPLOADS)
    jobs = data["jobs"]
    assert set(jobs) == {"job", "dataset"}
    # The upload answers the job's id under `data`, named as the status path's {jobId}.
    assert (jobs["job"]["create"], jobs["job"]["id_from"]) == ("uploadModel", "/data/job_id")
    assert "a create found elsewhere by the id it answers ('job_id'" in text
    # A dataset validated after its upload: the state is its `validation_status`.
    dataset = jobs["dataset"]
    assert (dataset["record"], dataset["state"]["field"]) == ("/dataset", "/validation_status")
    assert dataset["state"]["success"] == ["validated"]
    assert "validated: read as success from its name" in text
    # A deployment goes Updating and Scaling again after Ready: named, not drafted.
    assert "createDeployment" not in text.split("jobs:", 1)[1]
    assert "#   'getDeployment' (Updating, Scaling)" in text
    assert "note: not drafted: the status operations of live resources" in err


BUILDS = (
    HEAD
    + """paths:
  /sites/{site_id}/builds:
    post:
      operationId: createSiteBuild
      parameters: [{name: site_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The build.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Build"}
  /builds/{build_id}:
    get:
      operationId: getSiteBuild
      parameters: [{name: build_id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: The build.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Build"}
components:
  schemas:
    Build:
      type: object
      properties:
        id: {type: string}
        sha: {type: string}
        done: {type: boolean}
        error: {type: string}
"""
)


def test_a_job_whose_record_says_only_whether_it_is_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, text, out, _ = _draft(tmp_path, capsys, BUILDS)
    job = data["jobs"]["build"]
    assert (job["create"], job["status"], job["id_from"]) == (
        "createSiteBuild",
        "getSiteBuild",
        "/id",
    )
    assert (job["terminal_field"], job["error_field"]) == ("/done", "/error")
    assert "state" not in job
    assert "no state field: the job's end read from the boolean 'done'" in _line(
        text, "terminal_field:"
    )
    assert "build: createSiteBuild -> getSiteBuild (ends when /done is true)" in out


@pytest.mark.parametrize(
    ("collection", "param", "name"),
    [
        ("/v1/batch/jobs", "job_id", "batch_job"),  # the kind of job a generic one is
        ("/v2/Transcripts", "Sid", "transcript"),  # Twilio's sid is an id
        ("/v1/jobs", "jobid", "job"),
    ],
)
def test_job_names_from_generic_paths(
    collection: str, param: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        PREDICTIONS.replace("/v1/predictions", collection)
        .replace("{prediction_id}", "{" + param + "}")
        .replace("name: prediction_id", f"name: {param}")
    )
    data, _, _, _ = _draft(tmp_path, capsys, spec)
    assert list(data["jobs"]) == [name]


def test_an_operation_under_the_id_the_draft_cannot_use_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The output needs a format nothing supplies: no result, but the draft says so.
    spec = PREDICTIONS.replace(
        "components:\n  schemas:",
        """  /v1/predictions/{prediction_id}/download:
    get:
      operationId: downloadOutput
      parameters:
        - {name: prediction_id, in: path, required: true, schema: {type: string}}
        - {name: format, in: query, required: true, schema: {type: string}}
      responses:
        "200":
          description: The output.
          content:
            application/octet-stream:
              schema: {type: string, format: binary}
components:
  schemas:""",
    )
    data, text, _, _ = _draft(tmp_path, capsys, spec)
    job = data["jobs"]["prediction"]
    assert "result" not in job
    note = _line(text, "prediction:")
    assert "not drafted: 'downloadOutput' (GET /v1/predictions/{prediction_id}/download)" in note
