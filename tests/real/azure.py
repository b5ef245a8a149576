"""The Azure corpus in ``../shared/specs-real/azure``: 26 published Swagger 2.0 data-plane
specs with long-running operations, kept at their paths under the repository's
``specification/`` folder so relative ``$ref``s (``../../../../../common-types/...``)
resolve with that folder as ``--ref-root``.

The list of specs is read from the corpus's own README-*.md tables; what each spec holds is
counted from its JSON as published (``json.load``, not jobgen's reading), so the checks in
``test_azure_corpus.py`` compare jobgen's SDK with an independent count.

    .venv/bin/python -m tests.real.azure

prints the table of docs/real-specs.md (a test checks that the two agree).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import attrs

from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from tests.helpers import REAL_SPECS

AZURE = REAL_SPECS / "azure"
_ROW = re.compile(r"^\|\s*\d+\s*\|\s*`([^`]+\.json)`")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")

# Published defects of the corpus, each refused with exit 2 and this problem.
EXPECTED_ERRORS = {
    # The common.json next to it is not in the corpus (nor in the index it was copied from).
    "cognitiveservices/data-plane/Language/stable/2021-10-01/questionanswering-authoring.json": (
        "data-plane/Language/stable/2021-10-01/common.json not found"
    ),
}


@attrs.frozen
class AzureSpec:
    path: str
    """Relative to the corpus (the repository's ``specification/`` folder)."""

    @property
    def file(self) -> Path:
        return AZURE / self.path

    @property
    def id(self) -> str:
        parts = self.path.split("/")
        service, stem, version = parts[2], Path(parts[-1]).stem, parts[-2]
        words = [service] if stem.lower() in (service.lower(), "openapi") else [service, stem]
        return "-".join([*words, version])

    @property
    def package(self) -> str:
        return "azure_" + re.sub(r"[^a-z0-9]+", "_", self.id.lower()).strip("_")

    @property
    def expected_error(self) -> str | None:
        return EXPECTED_ERRORS.get(self.path)

    def raw(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.file.read_text(encoding="utf-8"))
        return data

    def operations(self) -> list[dict[str, Any]]:
        """Every operation of ``paths`` and ``x-ms-paths``, as published."""
        raw = self.raw()
        return [
            op
            for section in ("paths", "x-ms-paths")
            for item in (raw.get(section) or {}).values()
            for method, op in item.items()
            if method in _METHODS
        ]

    def operation_ids(self) -> set[str]:
        return {op["operationId"] for op in self.operations()}

    def long_running(self) -> int:
        return sum(1 for op in self.operations() if op.get("x-ms-long-running-operation") is True)

    def definitions(self) -> list[str]:
        return list(self.raw().get("definitions") or {})


def corpus() -> list[AzureSpec]:
    """The root specs the corpus's README-*.md tables list, in their order."""
    found: list[AzureSpec] = []
    for readme in sorted(AZURE.glob("README-*.md")):
        for line in readme.read_text(encoding="utf-8").splitlines():
            match = _ROW.match(line)
            if match and (AZURE / match[1]).is_file():
                found.append(AzureSpec(match[1]))
    return found


@attrs.frozen
class Outcome:
    spec: AzureSpec
    sdk: ir.Sdk | None
    problems: tuple[str, ...] = ()


def validate(spec: AzureSpec) -> Outcome:
    """``jobgen validate --ref-root <corpus> <spec>``, in process."""
    try:
        return Outcome(spec, load_and_build(spec.file, ref_root=AZURE))
    except SpecError as exc:
        return Outcome(spec, None, tuple(str(p) for p in exc.problems))


HEADER = (
    (
        "| spec | operations (SDK / published) | long-running | definitions (SDK / published)"
        " | schemas built | warnings | outcome |"
    ),
    "|---|---|---|---|---|---|---|",
)


def row(outcome: Outcome) -> str:
    spec, sdk = outcome.spec, outcome.sdk
    published = len(spec.operations())
    definitions = spec.definitions()
    if sdk is None:
        return (
            f"| `{spec.path}` | - / {published} | {spec.long_running()} | - / {len(definitions)}"
            " | - | - | refused (published defect) |"
        )
    ids = {op.operation_id for r in sdk.resources for op in r.operations}
    prefix = f"{sdk.spec.root.name}#/components/schemas/" if sdk.spec else ""
    built = sum(1 for d in definitions if prefix + d in sdk.schemas)
    return (
        f"| `{spec.path}` | {len(ids & spec.operation_ids())} / {published}"
        f" | {spec.long_running()} | {built} / {len(definitions)} | {len(sdk.schemas)}"
        f" | {len(sdk.warnings)} | generated |"
    )


def table(outcomes: list[Outcome]) -> list[str]:
    return [*HEADER, *(row(o) for o in outcomes)]


def summary(outcomes: list[Outcome]) -> str:
    loaded = sum(1 for o in outcomes if o.sdk is not None)
    return f"`jobgen validate --ref-root` loads {loaded} of the {len(outcomes)} specs."


def main() -> int:
    outcomes = [validate(spec) for spec in corpus()]
    print(summary(outcomes))
    print()
    print("\n".join(table(outcomes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
