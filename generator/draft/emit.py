"""Write a :class:`~jobgen.draft.find.Draft` as a side file (docs/job-extension.md).

Block-style YAML, keys in the order the documentation lists them, every string from
the spec as a double-quoted scalar (``escape.yaml_str``), every note as one ``#`` comment
(``escape.comment``): an operationId or a state name cannot end a scalar, a line or the
document. A guess the shapes do not settle is marked ``# check: ...`` on its own line.
The same draft always gives the same text.
"""

from __future__ import annotations

import re

import attrs

from ..render.escape import Code, comment, yaml_str
from .find import Draft, DraftJob

__all__ = ["CHECK", "Rendered", "render"]

CHECK = "# check:"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Scalar = str | int | float | bool


def _key(name: str) -> str:
    return name if _KEY.fullmatch(name) else yaml_str(name)


def _scalar(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return yaml_str(value)


def _flow(values: tuple[Scalar, ...]) -> str:
    return "[" + ", ".join(_scalar(v) for v in values) + "]"


@attrs.frozen
class Rendered:
    text: Code
    guesses: int
    """The lines marked ``# check:``."""


class _Writer:
    def __init__(self, job: DraftJob) -> None:
        self.job = job
        self.lines: list[str] = []
        self.used: set[str] = set()
        self.guesses = 0

    def line(self, depth: int, text: str, check: str | None = None) -> None:
        note = f"  {CHECK} {comment(' '.join(check.split()))}" if check else ""
        self.guesses += bool(check)
        self.lines.append("  " * depth + text + note)

    def entry(self, depth: int, key: str, value: str | None, check_key: str | None = None) -> None:
        name = check_key or key
        self.used.add(name)
        check = self.job.checks.get(name)
        self.line(depth, f"{_key(key)}:" + ("" if value is None else f" {value}"), check)


def _job(job: DraftJob) -> _Writer:
    w = _Writer(job)
    _body(w, job)
    body, w.lines = w.lines, []
    # The job's own note, and any note on a key it does not write, go on its first line.
    notes = [job.checks["name"]] if "name" in job.checks else []
    notes += [note for key, note in sorted(job.checks.items()) if key not in w.used | {"name"}]
    w.line(1, f"{_key(job.name)}:", "; ".join(notes) or None)
    w.lines += body
    return w


def _body(w: _Writer, job: DraftJob) -> None:
    d = 2
    if job.create is not None:
        w.entry(d, "create", yaml_str(job.create))
    w.entry(d, "status", yaml_str(job.status))
    if job.result is not None:
        w.entry(d, "result", yaml_str(job.result))
    if job.cancel is not None:
        w.entry(d, "cancel", yaml_str(job.cancel))
    w.entry(d, "id_parameter", yaml_str(job.id_parameter))
    if job.operation_url:
        value = (
            yaml_str(job.operation_url[0])
            if len(job.operation_url) == 1
            else _flow(job.operation_url)
        )
        w.entry(d, "operation_url", value)
    elif job.id_from is not None:
        w.entry(d, "id_from", yaml_str(job.id_from))
    if job.final_from is not None:
        w.entry(d, "final_from", yaml_str(job.final_from))
    if job.status_rules:
        w.entry(d, "status_rules", None)
        for status, state in job.status_rules:
            w.line(d + 1, f"- status: {status}")
            w.line(d + 2, f"state: {yaml_str(state)}")
    w.entry(d, "record", yaml_str(job.record))
    if job.state_field is not None:
        w.entry(d, "state", None)
        w.entry(d + 1, "field", yaml_str(job.state_field), "state.field")
        for kind in ("success", "failure", "canceled", "pending"):
            w.entry(d + 1, kind, _flow(getattr(job, kind)), f"state.{kind}")
    for key in ("terminal_field", "result_ready_field", "error_field"):
        value = getattr(job, key)
        if value is not None:
            w.entry(d, key, yaml_str(value))
    if job.progress:
        w.entry(d, "progress", None)
        for key, pointer in job.progress:
            w.line(d + 1, f"{key}: {yaml_str(pointer)}")
    if job.body_hint is not None or job.headers:
        w.entry(d, "poll", None)
        if job.body_hint is not None:
            w.entry(d + 1, "body_hint", None, "poll.body_hint")
            w.line(d + 2, f"field: {yaml_str(job.body_hint[0])}")
            w.line(d + 2, f"unit: {yaml_str(job.body_hint[1])}")
        if job.headers:
            w.entry(d + 1, "headers", None, "poll.headers")
            for name, fmt in job.headers:
                w.line(d + 2, f"- name: {yaml_str(name)}")
                w.line(d + 3, f"format: {yaml_str(fmt)}")
    if job.idempotency_header is not None:
        w.entry(d, "idempotency_header", yaml_str(job.idempotency_header))
    if job.carry or job.file_carry:
        w.entry(d, "carry", None)
        for name, source, target in job.carry:
            w.line(d + 1, f"{_key(name)}:")
            w.line(d + 2, f"from: {yaml_str(source)}")
            w.line(d + 2, f"to: {yaml_str(target)}")
        if job.file_carry is not None:
            name, source, failure, target = job.file_carry
            w.line(d + 1, f"{_key(name)}:")
            w.line(d + 2, f"from: {yaml_str(source)}")
            if failure is not None:
                w.line(d + 2, f"failure_from: {yaml_str(failure)}")
            w.line(d + 2, f"to: {yaml_str(target)}")
    if job.result_once:
        w.entry(d, "result_once", "true")


def render(draft: Draft, source: str) -> Rendered:
    """The side file of ``draft``, drafted from the spec named ``source``."""
    lines = [
        f"# Job declarations drafted by `jobgen jobs init` from {comment(source)}.",
        "# Each line marked `# check:` is a guess: compare it with the API's documentation.",
        "# The draft validates as written: jobgen validate SPEC --jobs THIS_FILE",
    ]
    if draft.imported:
        lines.append("# Not drafted: the jobs the spec's own extensions declare, which jobgen")
        lines.append("# imports as they are (jobgen validate lists them):")
        lines += [f"#   {comment(job)}" for job in draft.imported]
    if draft.resources:
        lines.append("# Not drafted: status operations of live resources, whose states")
        lines.append("# change and come back (not jobs that end):")
        lines += [f"#   {comment(op)}" for op in draft.resources]
    guesses = 0
    if draft.auth_prefix:
        lines.append("auth_prefix:")
        for scheme, word in draft.auth_prefix:
            note = f"the scheme's description sends the key after {word!r}"
            lines.append(f"  {_key(scheme)}: {yaml_str(word)}  {CHECK} {comment(note)}")
            guesses += 1
    lines.append("jobs:" if draft.jobs else "jobs: {}")
    for job in draft.jobs:
        writer = _job(job)
        lines.extend(writer.lines)
        guesses += writer.guesses
    return Rendered(Code("\n".join(lines) + "\n"), guesses)
