"""Values a job carries from its create response into every later call.

Some APIs key a job by more than its id: a document translation answers its upload
with a `document_id` and a `document_key`, and each status read, result download or
cancel must send the key back. A job that declares such values gets a `Carry` of
`CarriedValue`s in its `JobSpec` (only such an SDK ships this module); the waiter reads
them from the create response (`Carry.read`), keeps them beside the job id (in its
handle and its resume token, which then hold them: keep a token as secret as the
values), and hands them to every call as keyword arguments, which the generated code
puts where the API wants them (`take`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, cast

import attrs
import httpx

from ..shared.errors import MissingJobId

__all__ = [
    "CarriedValue",
    "Carry",
    "carried_from",
    "check_carried",
    "record_values",
    "take",
]

T = TypeVar("T")


@attrs.frozen
class CarriedValue:
    """One value read from create's response: at `path` in its JSON body, or in the
    `header` of that name; `kind` is its type (str, int, float or bool).

    A `record` value is read at `path` in the terminal record instead (OpenAI's
    `output_file_id`) and given to the result fetch alone; `failure_path` is where a
    failed record holds it for the failure download (`error_file_id`).
    """

    name: str
    path: tuple[str, ...] | None = None
    header: str | None = None
    kind: type = str
    record: bool = False
    failure_path: tuple[str, ...] | None = None


def _dig(value: object, path: tuple[str, ...]) -> object:
    """The value at `path`: a key of an object, or an index of an array (`0`)."""
    for key in path:
        if isinstance(value, list) and key.isdigit():
            items = cast("list[object]", value)
            if int(key) >= len(items):
                return None
            value = items[int(key)]
        elif not isinstance(value, dict) or key not in value:
            return None
        else:
            value = cast("dict[str, object]", value)[key]
    return value


def _nothing_at(document: object, path: tuple[str, ...]) -> str:
    """Why nothing usable is at `path`: an array too short is said so."""
    where = "/" + "/".join(path)
    for depth, key in enumerate(path):
        above = _dig(document, path[:depth])
        if isinstance(above, list) and key.isdigit():
            shown = "/" + "/".join(path[:depth])
            if not above:
                return f"nothing usable at {where}: {shown} is an empty array"
            count = len(cast("list[object]", above))
            return f"nothing usable at {where}: {shown} has {count} element(s)"
    return f"nothing usable at {where}"


def _fits(value: object, kind: type) -> bool:
    if isinstance(value, bool) or kind is bool:
        return isinstance(value, bool) and kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def carried_from(
    specs: tuple[CarriedValue, ...], response: httpx.Response, job: str
) -> dict[str, object]:
    """The carried values of a create response; MissingJobId names one it lacks."""
    specs = tuple(spec for spec in specs if not spec.record)
    if not specs:
        return {}
    try:
        body: object = response.json() if any(s.path for s in specs) else None
    except ValueError:
        body = None
    out: dict[str, object] = {}
    for spec in specs:
        if spec.header is not None:
            value: object = response.headers.get(spec.header)
            where = f"no {spec.header} header"
        else:
            value = _dig(body, spec.path or ())
            where = _nothing_at(body, spec.path or ()).replace(" usable", "", 1)
        if isinstance(value, str) and spec.kind is not str:
            value = _parse(value, spec.kind)
        if _unsendable(value):
            where = "a line break or NUL in its value, which no request can carry,"
        if value is None or not _fits(value, spec.kind) or _unsendable(value):
            raise MissingJobId(
                f"cannot find the new {job} job's {spec.name}: {where} in the create"
                " response (every later call of the job needs it)"
            )
        out[spec.name] = value
    return out


def _parse(text: str, kind: type) -> object:
    try:
        if kind is bool:
            return {"true": True, "false": False}.get(text.strip().lower())
        return kind(text.strip())
    except ValueError:
        return None


def check_carried(
    specs: tuple[CarriedValue, ...], given: Mapping[str, object] | None
) -> dict[str, object]:
    """`given` checked against the job's carried values: all there, typed, no others."""
    given = dict(given or {})
    specs = tuple(spec for spec in specs if not spec.record)
    names = {spec.name for spec in specs}
    unknown = sorted(set(given) - names)
    if unknown:
        raise ValueError(
            f"unexpected carried value {unknown[0]!r}"
            + (f": this job carries {', '.join(sorted(names))}" if names else "")
        )
    for spec in specs:
        if given.get(spec.name) is None:
            raise ValueError(
                f"{spec.name} is required: every call of this job sends it"
                " (create's response holds it; a job handle and a resume token keep it)"
            )
        if not _fits(given[spec.name], spec.kind):
            raise ValueError(
                f"{spec.name} must be a {spec.kind.__name__},"
                f" got {type(given[spec.name]).__name__}"
            )
        if _unsendable(given[spec.name]):
            raise ValueError(
                f"{spec.name} holds a line break or NUL, which no request can carry"
            )
    return given


def _unsendable(value: object) -> bool:
    """Whether a carried value holds what no header (or request line) may: CR, LF, NUL."""
    return isinstance(value, str) and any(ch in value for ch in "\r\n\0")


def record_values(
    specs: tuple[CarriedValue, ...],
    record: object,
    job_id: str,
    *,
    failed: bool = False,
) -> dict[str, object] | None:
    """The values the terminal `record` of job `job_id` holds for its result fetch.

    A succeeded record lacking one raises MissingJobId, naming it. With `failed`, the
    values of the failure download (each at its `failure_path`, else its `path`):
    None when no value declares a `failure_path` or the record lacks one.
    """
    specs = tuple(spec for spec in specs if spec.record)
    if failed and not any(spec.failure_path is not None for spec in specs):
        return None
    out: dict[str, object] = {}
    for spec in specs:
        path = (spec.failure_path if failed else None) or spec.path or ()
        value = _dig(record, path)
        if isinstance(value, str) and spec.kind is not str:
            value = _parse(value, spec.kind)
        if value is None or not _fits(value, spec.kind):
            if failed:
                return None
            raise MissingJobId(
                f"job {job_id} succeeded, but its record has no {spec.name}"
                f" ({_nothing_at(record, path)}), which its result fetch needs"
            )
        out[spec.name] = value
    return out


def take(carried: Mapping[str, object], name: str, kind: type[T]) -> T:
    """The carried value `name`, of type `kind` (generated calls put it in place)."""
    value = carried.get(name)
    if value is None or not _fits(value, kind):
        raise ValueError(f"{name} is required: every call of this job sends it")
    return cast(T, float(value) if kind is float else value)  # type: ignore[arg-type]


@attrs.frozen
class Carry:
    """The values a job carries (`spec.Carries`, as the waits use them)."""

    values: tuple[CarriedValue, ...]

    def check(self, given: Mapping[str, object] | None) -> dict[str, object]:
        """`given` checked: every value there and typed, no others (`check_carried`)."""
        return check_carried(self.values, given)

    def read(self, response: httpx.Response, job: str) -> dict[str, object]:
        """The values of a create response of a `job` job (`carried_from`)."""
        return carried_from(self.values, response, job)

    def from_record(
        self, record: object, job_id: str, *, failed: bool = False
    ) -> dict[str, object] | None:
        """The values a terminal record holds for the result fetch (`record_values`)."""
        return record_values(self.values, record, job_id, failed=failed)
