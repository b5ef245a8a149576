"""The job extension's keys for operation URLs and status-code flows.

``operation_url`` names the create-response header(s) holding the absolute URL the
job is polled at (Azure's ``Operation-Location`` / ``Azure-AsyncOperation``, a
``Location`` on 202). ``status_rules`` give a status answer its state by HTTP status
and/or a value in its body (botocore waiters' ``status`` / ``path`` / ``error``
matchers). ``final_from`` says where ``wait_for_result`` gets the result:

- ``result``: the result operation, called with the job id (the default with one);
- ``location``: the ``Location`` header of the terminal status answer (a 303 See
  Other, or a 200 naming the created resource), typed by the result operation's
  success response (its path is not called);
- ``record``: the terminal status record itself (the default of a job polled at its
  operation URL without a result operation; ``operation-url`` is its older name).

See ``docs/job-extension.md``.
"""

from __future__ import annotations

from typing import Any, cast

import attrs

from ...fieldwise import Node
from ...problems import Location, Problem
from .. import ir
from ..operations import HEADER_TOKEN, token_problem
from .common import split_pointer, unknown_keys

__all__ = ["POLLING_KEYS", "Polling", "check_rule_states", "read_polling", "rule_states"]

POLLING_KEYS = frozenset({"operation_url", "status_rules", "final_from"})
_RULE_KEYS = frozenset({"state", "status", "path", "equals"})
_FINAL = ("result", "location", "record", "original-uri", "create-location")
#: Older spellings of a `final_from`, read as the current one.
_FINAL_ALIASES = {"operation-url": "record"}


@attrs.frozen(eq=False, repr=False)
class Polling(Node):
    operation_url: tuple[str, ...] = ()
    rules: tuple[ir.StatusRule, ...] = ()
    final_from: ir.FinalFrom = "result"


def rule_states(node: dict[str, Any]) -> frozenset[str]:
    """The states the status rules of a job node name (whatever else is wrong)."""
    rules = node.get("status_rules")
    if not isinstance(rules, list):
        return frozenset()
    return frozenset(
        str(rule["state"])
        for rule in rules
        if isinstance(rule, dict) and isinstance(rule.get("state"), (str, int))
    )


def _headers(value: Any, at: Location, problems: list[Problem]) -> tuple[str, ...]:
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and n.strip() for n in names)
    ):
        problems.append(
            Problem(
                at,
                "must be a header name (Operation-Location, Azure-AsyncOperation,"
                " Location) or a list of them, the first present winning",
            )
        )
        return ()
    for index, name in enumerate(names):
        if not HEADER_TOKEN.match(name.strip()):
            where = at if isinstance(value, str) else at.child(str(index))
            problems.append(Problem(where, token_problem("header", name.strip())))
            return ()
    return tuple(n.strip() for n in names)


def _rule(raw: Any, at: Location, problems: list[Problem]) -> ir.StatusRule | None:

    if not isinstance(raw, dict):
        problems.append(
            Problem(at, "a status rule is a mapping with 'state' and 'status' or 'path'")
        )
        return None
    unknown_keys(raw, _RULE_KEYS, at, problems)
    state = raw.get("state")
    if not isinstance(state, (str, int)) or isinstance(state, bool):
        problems.append(Problem(at, "'state' is required: the state this answer means"))
        return None
    codes = raw.get("status", [])
    codes = [codes] if isinstance(codes, int) else codes
    if not isinstance(codes, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) and 100 <= c <= 599 for c in codes
    ):
        problems.append(Problem(at.child("status"), "must be an HTTP status or a list of them"))
        return None
    path = raw.get("path")
    if path is not None and (not isinstance(path, str) or (path and not path.startswith("/"))):
        problems.append(Problem(at.child("path"), f"must be a JSON pointer, not {path!r}"))
        return None
    equals = raw.get("equals")
    if equals is not None and path is None:
        problems.append(Problem(at.child("equals"), "'equals' needs a 'path'"))
        return None
    if equals is not None and not isinstance(equals, (str, int)):
        problems.append(Problem(at.child("equals"), "must be a string, an integer or a boolean"))
        return None
    if not codes and path is None:
        problems.append(Problem(at, "a status rule needs 'status', 'path' or both"))
        return None
    return ir.StatusRule(
        state=str(state),
        status=tuple(codes),
        path=None if path is None else split_pointer(path),
        # A boolean stays one: `equals: true` is the JSON `true`, not the text "True".
        equals=equals if equals is None or isinstance(equals, bool) else str(equals),
    )


def read_polling(
    node: dict[str, Any], at: Location, problems: list[Problem], *, has_result: bool
) -> Polling:
    """The job's operation URL headers, status rules and final source."""
    headers = _headers(node.get("operation_url"), at.child("operation_url"), problems)
    if headers and node.get("create") is None:
        problems.append(
            Problem(at.child("operation_url"), "needs a 'create' operation whose answer has it")
        )
    rules: list[ir.StatusRule] = []
    raw_rules = node.get("status_rules", [])
    if not isinstance(raw_rules, list):
        problems.append(Problem(at.child("status_rules"), "must be a list of status rules"))
        raw_rules = []
    for index, raw in enumerate(raw_rules):
        rule = _rule(raw, at.child("status_rules", index), problems)
        if rule is not None:
            rules.append(rule)
    default = "result" if has_result else "record"
    final = node.get("final_from", default if headers or has_result else "result")
    final = _FINAL_ALIASES.get(final, final) if isinstance(final, str) else final
    final_at = at.child("final_from")
    if final not in _FINAL:
        problems.append(Problem(final_at, f"must be one of {', '.join(_FINAL)}, not {final!r}"))
        final = "result"
    elif headers and final == "result" and has_result:
        problems.append(
            Problem(
                final_at if "final_from" in node else at,
                "a job polled at its operation URL has no id to call the result operation"
                " with: declare final_from: location (the result operation types what the"
                " Location header names) or record (the terminal record is the result)",
            )
        )
    elif final in ("location", "original-uri", "create-location") and not has_result:
        problems.append(
            Problem(final_at, f"final_from: {final} needs a 'result' operation to type the result")
        )
    elif final in ("original-uri", "create-location") and not headers:
        problems.append(
            Problem(
                final_at,
                f"final_from: {final} needs 'operation_url': a job known by id"
                " fetches its result with the result operation",
            )
        )
    elif final == "record" and has_result:
        problems.append(
            Problem(
                at.child("result"),
                "final_from: record takes the result from the terminal record:"
                " the result operation would never be called",
            )
        )
    return Polling(headers, tuple(rules), cast(ir.FinalFrom, final))


def check_rule_states(
    polling: Polling, classified: frozenset[str], at: Location, problems: list[Problem]
) -> None:
    """Every state a status rule gives must be classified under ``state``."""
    for index, rule in enumerate(polling.rules):
        if rule.state not in classified:
            problems.append(
                Problem(
                    at.child("status_rules", index, "state"),
                    f"state '{rule.state}' is not classified: add it to state.success,"
                    " failure, canceled or pending",
                )
            )
