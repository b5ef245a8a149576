"""The corpus sweep: every spec of specs/ and every published spec of ``../shared/specs-real``
(the Azure corpus with ``--ref-root``) is served by ``jobgen serve``, and every job the SDK
can create runs to success and to failure through its generated SDK, with the server's
own self-check counting every answer that breaks the spec.

    .venv/bin/python -m tests.real.sweep

prints the table of docs/serve.md ("The corpus sweep"); a test checks that the two agree
and that the sweep finds nothing wrong.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import attrs

from jobgen.model.build import load_and_build
from jobgen.problems import SpecError
from jobgen.server import run_server
from tests.helpers import REAL_SPECS, ROOT, imported_sdk
from tests.oracle.drive import Driver, cases
from tests.real.azure import AZURE, corpus
from tests.real.realspecs import SPECS

OUTCOMES = ("success", "failure")


@attrs.frozen
class Entry:
    """One spec to sweep: its path, shown relative to its folder, and how to read it."""

    shown: str
    spec: Path
    package: str
    jobs: Path | None = None
    ref_root: Path | None = None


@attrs.frozen
class Row:
    entry: Entry
    jobs: int = 0
    creatable: int = 0
    """The jobs the SDK creates (each runs once per outcome)."""
    runs: int = 0
    succeeded: int = 0
    answers: int = 0
    violations: int = 0
    note: str = ""
    failures: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.failures and self.violations == 0 and self.runs == self.succeeded


def entries() -> Iterator[Entry]:
    """specs/*.yaml, then the published specs (when ../shared/specs-real is there)."""
    for spec in sorted((ROOT / "specs").glob("*.yaml")):
        yield Entry(f"specs/{spec.name}", spec, f"sweep_{spec.stem}_sdk")
    if not REAL_SPECS.is_dir():
        return
    for real in SPECS:
        yield Entry(real.path, real.spec, f"sweep_{real.package}", jobs=real.side_file)
    if AZURE.is_dir():
        for azure in corpus():
            yield Entry(f"azure/{azure.path}", azure.file, f"sweep_{azure.package}", None, AZURE)


def sweep(entry: Entry, workdir: Path) -> Row:
    """Serve ``entry`` and run each of its jobs to each outcome through its SDK (sync)."""
    try:
        sdk = load_and_build(entry.spec, jobs_file=entry.jobs, ref_root=entry.ref_root)
    except SpecError:
        return Row(entry, note="not loadable: a published defect (docs/real-specs.md)")
    found = cases(sdk)
    if not sdk.jobs:
        return Row(entry, note="declares no jobs: serve refuses it (exit 2)")
    with ExitStack() as stack:
        package = stack.enter_context(
            imported_sdk(entry.spec, workdir, entry.package, entry.jobs, entry.ref_root)
        )
        server = stack.enter_context(run_server(sdk, self_check="log"))
        driver = Driver(sdk, package, server.base_url)
        failures: list[str] = []
        notes: list[str] = []
        runs = succeeded = 0
        for case in found:
            for outcome in OUTCOMES:
                run = driver.run(case, outcome, "sync")
                refused = [e for e in run.exchanges if e.status in (400, 422)][:1]
                create = case.job.create
                by_id = create is not None and not case.job.operation_url
                if not run.ok and by_id and refused and refused[0].method == create.method:
                    # The spec admits no create body the SDK can send (AssemblyAI's
                    # TranscriptParams): the job is made apart and waited for by id.
                    note = f"{case.name}: every create refused ({refused[0].status}); waited by id"
                    if note not in notes:
                        notes.append(note)
                    scenario = driver.scenario(case, outcome)
                    made = server.create_job(
                        scenario, job_name=case.name, credential=driver.credential
                    )
                    run = driver.run_by_id(case, outcome, made)
                runs += 1
                if run.ok:
                    succeeded += 1
                else:
                    failures.append(f"{case.name} {outcome}: {run.error}")
        check = server.self_check
        failures += [f"self-check: {v}" for v in check.violations()]
        untried = len(sdk.jobs) - len(found)
        if untried:
            notes.append(f"{untried} job(s) without a create")
        note = "; ".join(notes)
        return Row(
            entry,
            jobs=len(sdk.jobs),
            creatable=len(found),
            runs=runs,
            succeeded=succeeded,
            answers=check.checked,
            violations=check.count,
            note=note,
            failures=tuple(failures),
        )


HEADER = (
    (
        "| spec | jobs | waits (success + failure) through the SDK | answers self-checked"
        " | self-check violations | note |"
    ),
    "|---|---|---|---|---|---|",
)


def row_text(row: Row) -> str:
    if row.runs == 0:
        return f"| `{row.entry.shown}` | {row.jobs} | - | - | - | {row.note} |"
    return (
        f"| `{row.entry.shown}` | {row.jobs} | {row.succeeded} of {row.runs}"
        f" | {row.answers} | {row.violations} | {row.note} |"
    )


def table(rows: list[Row]) -> list[str]:
    return [*HEADER, *(row_text(r) for r in rows)]


def summary(rows: list[Row]) -> str:
    served = [r for r in rows if r.runs]
    runs = sum(r.runs for r in served)
    ok = sum(r.succeeded for r in served)
    violations = sum(r.violations for r in served)
    answers = sum(r.answers for r in served)
    return (
        f"{len(served)} of {len(rows)} specs served; {ok} of {runs} waits reached their"
        f" outcome; {violations} self-check violations in {answers} answers."
    )


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory(prefix="jobgen-sweep-") as tmp:
        for entry in entries():
            print(f"sweeping {entry.shown}", file=sys.stderr, flush=True)
            row = sweep(entry, Path(tmp))
            rows.append(row)
            for failure in row.failures:
                print(f"{entry.shown}: {failure}", file=sys.stderr)
    print("\n".join(table(rows)))
    print()
    print(summary(rows))
    return 0 if all(r.clean for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
