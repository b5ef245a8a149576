"""Azure's long-running operations side by side: the jobs jobgen imports from each spec of the
corpus with no side file, and the ``begin_*`` methods of Microsoft's Python SDKs.

Microsoft's side is ``tests/real/azure_begin_methods.json``, written by
``bench/azure_begin_methods.py`` (run with the azure-* packages installed; see its top). jobgen's
side is ``load_and_build(spec, ref_root=<corpus>)``: the jobs it declares, keyed by the
operation id of each job's create. The tables of docs/real-specs.md are printed by

    .venv/bin/python -m tests.real.azure_compare

and ``tests/real/test_azure_comparison.py`` checks that the document holds them.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import attrs

from tests.helpers import ROOT
from tests.real.azure import AzureSpec, Outcome, corpus, validate

COMMAND = ".venv/bin/python -m tests.real.azure_compare"
BEGIN_METHODS = ROOT / "tests" / "real" / "azure_begin_methods.json"
DOC = ROOT / "docs" / "real-specs.md"
SIDES = ("both", "jobgen only", "Microsoft only", "neither", "outside the spec")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")

# Why a long-running operation is on one side only, where the data does not say it by itself
# (keyed by spec path and operation id).
_TB10 = "cognitiveservices/data-plane/TranslatorText/stable/v1.0/TranslatorBatch.json"
_FR20 = "cognitiveservices/data-plane/FormRecognizer/stable/v2.0/FormRecognizer.json"
_TA31 = "cognitiveservices/data-plane/TextAnalytics/stable/v3.1/TextAnalytics.json"
_CONV = (
    "cognitiveservices/data-plane/Language/stable/2022-05-01/analyzeconversations-authoring.json"
)
REASONS: dict[tuple[str, str], str] = {
    (_TB10, "DocumentTranslation_StartTranslation"): (
        "the v1.0 spec's published host template is `{endpoint}/translator/text/batch/v1.1`,"
        " so its operation is `POST /translator/text/batch/v1.1/batches`;"
        " azure-ai-translation-document 1.0.0, made for v1.0, calls"
        " `/translator/text/batch/v1.0/batches`, and 2.0.0 calls 2026-03-01's"
        " `/translator/document/batches`"
    ),
    (_FR20, "TrainCustomModelAsync"): (
        "the spec does not mark it `x-ms-long-running-operation` (v2.1 does); Microsoft's"
        " hand-written `begin_training` sends it as a plain call and polls the model itself"
    ),
    (_TA31, "CancelHealthJob"): (
        "no `begin_` method: the poller `begin_analyze_healthcare_entities` returns cancels"
        " the job through it (`AnalyzeHealthcareEntitiesLROPoller.cancel()`)"
    ),
    (_CONV, "ConversationalAnalysisAuthoring_CancelTrainingJob"): (
        "the spec does not mark it `x-ms-long-running-operation`; the packages are generated"
        " from later api-versions (2023-04-01, 2025-11-15-preview) that do"
    ),
}


@functools.cache
def begin_methods() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(BEGIN_METHODS.read_text(encoding="utf-8"))
    return data


@functools.cache
def _outcome(spec: AzureSpec) -> Outcome:
    return validate(spec)


@attrs.frozen
class Row:
    """One long-running operation, or one ``begin_*`` call that is no operation of the spec
    (``operation`` None: "outside the spec")."""

    spec: str
    operation: str | None
    job: str | None
    methods: tuple[str, ...]
    reason: str

    @property
    def side(self) -> str:
        if self.operation is None:
            return "outside the spec"
        if self.job and self.methods:
            return "both"
        if self.job:
            return "jobgen only"
        return "Microsoft only" if self.methods else "neither"


def _recorded(spec: AzureSpec) -> dict[str, Any]:
    entry: dict[str, Any] = begin_methods()["specs"][spec.path]
    return entry


def _clients(spec: AzureSpec) -> list[dict[str, Any]]:
    clients: list[dict[str, Any]] = _recorded(spec)["clients"]
    return clients


def _label(client: dict[str, Any], method: dict[str, Any], several: bool) -> str:
    name = client["client"].rsplit(".", 1)[1] + "." + method["method"]
    if method.get("arguments"):
        name += f"({method['arguments']})"
    return f"{name} [{_release(client)}]" if several else name


def _pointers(spec: AzureSpec) -> dict[str, str]:
    """``#/paths/~1x/post`` of each operation id, as published."""
    raw = spec.raw()
    found = {}
    for section in ("paths", "x-ms-paths"):
        for key, item in (raw.get(section) or {}).items():
            escaped = key.replace("~", "~0").replace("/", "~1")
            for method, op in item.items():
                if method in _METHODS:
                    found[op["operationId"]] = f"#/{section}/{escaped}/{method}"
    return found


def _long_running(spec: AzureSpec) -> list[str]:
    return [
        op["operationId"]
        for op in spec.operations()
        if op.get("x-ms-long-running-operation") is True
    ]


def _warning(outcome: Outcome, pointer: str) -> str | None:
    """jobgen's warning at the operation (its pointer or one below it), if any."""
    if outcome.sdk is None:
        return None
    for warning in outcome.sdk.warnings:
        where = warning.split(": ", 1)[0]
        at = "#" + where.split("#", 1)[1] if "#" in where else ""
        if at == pointer or at.startswith(pointer + "/"):
            return "jobgen warns: " + warning.split(": ", 1)[1]
    return None


def _release(client: dict[str, Any]) -> str:
    return f"{client['package']} {client['version']}"


def _microsoft_only_reason(spec: AzureSpec, outcome: Outcome, op: str) -> str:
    if (spec.path, op) in REASONS:
        return REASONS[(spec.path, op)]
    if outcome.sdk is None:
        return _refused(spec)
    if op not in _long_running(spec):
        return (
            "the spec does not mark it `x-ms-long-running-operation`; the package's"
            " hand-written code polls it"
        )
    pointer = _pointers(spec).get(op, "")
    return _warning(outcome, pointer) or ""


def _jobgen_only_reason(spec: AzureSpec, op: str) -> str:
    if (spec.path, op) in REASONS:
        return REASONS[(spec.path, op)]
    unpublished: str | None = _recorded(spec).get("no_package")
    if unpublished:
        return unpublished
    clients = _clients(spec)
    for client in clients:
        for hidden in client["not_exposed"]:
            if hidden["operation_id"] == op:
                return (
                    f"{client['package']} generates `{hidden['method']}` for it but its"
                    f" `{client['client'].rsplit('.', 1)[1]}` does not expose it"
                )
    if clients and not any(c["supports_spec_api_version"] for c in clients):
        targets = ", ".join(
            dict.fromkeys(f"{_release(c)}: {c['default_api_version']}" for c in clients)
        )
        return (
            f"no package offers api-version {_recorded(spec)['api_version']} (they target"
            f" {targets}) and none calls this operation's URL"
        )
    return ""


def _refused(spec: AzureSpec) -> str:
    return f"jobgen refuses the spec (a published defect: {spec.expected_error})"


def _neither_reason(spec: AzureSpec, outcome: Outcome, op: str) -> str:
    reasons = []
    if outcome.sdk is None:
        reasons.append(_refused(spec))
    else:
        pointer = _pointers(spec).get(op, "")
        reasons.append(_warning(outcome, pointer) or REASONS.get((spec.path, op), ""))
    reasons.append(_jobgen_only_reason(spec, op))
    return "; ".join(r for r in reasons if r) if all(reasons) else ""


def _unmatched_reason(client: dict[str, Any], method: dict[str, Any]) -> str:
    used = client["api_version_used"]
    if "request" in method:
        # The placeholders the survey passed stand for path parameters.
        request = re.sub(r"(?<=/)(x1|instance1|k1)(?=[/:]|$)", "{…}", method["request"])
        return f"calls `{request}` (api-version {used}), which is no operation of this spec"
    return f"not available at api-version {used}: {method['reason']}"


def rows(spec: AzureSpec) -> list[Row]:
    outcome = _outcome(spec)
    jobs = {} if outcome.sdk is None else _jobs(outcome)
    clients = _clients(spec)
    several = len({_release(c) for c in clients}) > 1
    microsoft: dict[str, list[str]] = {}
    unmatched: list[Row] = []
    for client in clients:
        for method in client["begin_methods"]:
            label = _label(client, method, several)
            if method["operation_id"]:
                microsoft.setdefault(method["operation_id"], []).append(label)
            else:
                unmatched.append(
                    Row(spec.path, None, None, (label,), _unmatched_reason(client, method))
                )
    order = list(_pointers(spec))
    out = []
    for op in sorted(set(jobs) | set(microsoft) | set(_long_running(spec)), key=order.index):
        methods = tuple(microsoft.get(op, ()))
        job = jobs.get(op)
        if job and methods:
            reason = ""
        elif job:
            reason = _jobgen_only_reason(spec, op)
        elif methods:
            reason = _microsoft_only_reason(spec, outcome, op)
        else:
            reason = _neither_reason(spec, outcome, op)
        out.append(Row(spec.path, op, job, methods, reason))
    return out + unmatched


def _jobs(outcome: Outcome) -> dict[str, str]:
    assert outcome.sdk is not None
    return {job.create.operation_id: job.name for job in outcome.sdk.jobs if job.create is not None}


def all_rows() -> list[Row]:
    return [row for spec in corpus() for row in rows(spec)]


# -- the tables of docs/real-specs.md -------------------------------------------


def packages_table() -> list[str]:
    lines = [
        "| package | version | client | api-version by default | api-versions it declares |",
        "|---|---|---|---|---|",
    ]
    seen = set()
    everyone = [c for entry in begin_methods()["specs"].values() for c in entry["clients"]]
    for client in sorted(everyone, key=lambda c: (c["package"], c["version"], c["client"])):
        key = (client["package"], client["version"], client["client"])
        if key in seen:
            continue
        seen.add(key)
        declared = ", ".join(client["declared_api_versions"]) or "-"
        lines.append(
            f"| {client['package']} | {client['version']} | `{client['client']}`"
            f" | {client['default_api_version']} | {declared} |"
        )
    return lines


def _counts(rows: list[Row], bold: str = "") -> str:
    return " | ".join(f"{bold}{sum(1 for r in rows if r.side == side)}{bold}" for side in SIDES)


def summary_table(specs: list[AzureSpec], found: list[Row]) -> list[str]:
    lines = [
        (
            "| spec | api-version | Microsoft's package (offers the spec's api-version) | both"
            " | jobgen only | Microsoft only | neither | `begin_` calls outside the spec |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for spec in specs:
        mine = [r for r in found if r.spec == spec.path]
        clients = _clients(spec)
        if clients:
            offers = {_release(c): c["supports_spec_api_version"] for c in clients}
            package = ", ".join(f"{p} ({'yes' if ok else 'no'})" for p, ok in offers.items())
        else:
            package = "none published"
        version = spec.raw()["info"]["version"]
        lines.append(f"| `{spec.path}` | {version} | {package} | " + _counts(mine) + " |")
    lines.append(f"| **all {len(specs)} specs** | | | " + _counts(found, "**") + " |")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def detail_table(found: list[Row]) -> list[str]:
    lines = [
        "| spec | operation | jobgen job | Microsoft's `begin_` methods | found by | reason |",
        "|---|---|---|---|---|---|",
    ]
    for row in found:
        short = "/".join(row.spec.split("/")[-4:])
        methods = "<br>".join(f"`{m}`" for m in row.methods) or "-"
        lines.append(
            f"| `{short}` | {f'`{row.operation}`' if row.operation else '-'}"
            f" | {f'`{row.job}`' if row.job else '-'} | {methods} | {row.side}"
            f" | {_cell(row.reason) if row.side != 'both' else ''} |"
        )
    return lines


def tables() -> dict[str, str]:
    specs = corpus()
    found = [row for spec in specs for row in rows(spec)]
    return {
        "packages": "\n".join(packages_table()) + "\n",
        "summary": "\n".join(summary_table(specs, found)) + "\n",
        "detail": "\n".join(detail_table(found)) + "\n",
    }


def documented(name: str) -> str:
    """The text between ``<!-- azure-lro:NAME -->`` and its closing marker in the doc."""
    text = DOC.read_text(encoding="utf-8")
    start, end = f"<!-- azure-lro:{name} -->\n", f"<!-- /azure-lro:{name} -->"
    assert start in text and end in text, f"{DOC.name} has no azure-lro:{name} table"
    return text.split(start, 1)[1].split(end, 1)[0]


def _blocks() -> Iterator[str]:
    for name, table in tables().items():
        yield f"<!-- azure-lro:{name} -->\n{table}<!-- /azure-lro:{name} -->"


def main() -> int:
    print("\n\n".join(_blocks()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
