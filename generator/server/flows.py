"""Operation URLs and status-code flows, as the simulated API plays them.

A job declaring ``operation_url`` is answered on create with each of those headers
naming its status URL, absolute and with the status operation's required query
(``api-version=...``); the scenario's ``operation_host`` names another host there, to
test that an SDK refuses it (or follows it once allowed). A job declaring
``status_rules`` answers a status read in a state that a rule with a ``status`` names
with that status: 202 with the record while running, 303 See Other with a
``Location`` of the result (and no body), 404 with an error body once expired, and
a rule with a ``path`` only gets a body holding that value and no state field.
A job whose result is at its original URI (``final_from: original-uri``, Azure's PUT
and PATCH) serves it on a GET of the URL that created it: the result operation's path
filled with the create's own path parameters names the newest such job.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlencode

from .kinds import JobKind
from .samples import locate, put
from .store import SimJob

__all__ = ["operation_headers", "original_job", "result_url", "ruled_status"]


def _base(origin: str, other: str | None) -> str:
    """The request's origin (``scheme://host[:port]``), its host replaced by ``other``
    if given."""
    if other is None:
        return origin
    scheme, _, host = origin.partition("://")
    port = host.rsplit(":", 1)[1] if ":" in host.rsplit("]", 1)[-1] else None
    return f"{scheme}://{other}:{port}" if port else f"{scheme}://{other}"


def operation_headers(
    kind: JobKind, sim: SimJob, origin: str, params: Mapping[str, list[str]]
) -> tuple[tuple[str, str], ...]:
    """The create answer's operation URL headers (none unless the job declares them).

    A required query parameter of the status operation without a default (Azure's
    ``api-version``) takes the value the create request carried.
    """
    job = kind.job
    if not job.operation_url:
        return ()
    url = kind.status_url(_base(origin, sim.scenario.operation_host), sim)
    carried = [
        (p.wire, params[p.wire][-1])
        for p in job.status.parameters
        if p.location == "query" and p.required and not p.has_default and params.get(p.wire)
    ]
    if carried:
        url += ("&" if "?" in url else "?") + urlencode(carried)
    # A create-location job's Location would name its result, which the simulation
    # does not serve apart from its record: it answers without one (the record is then
    # the result).
    names = [
        n
        for n in job.operation_url
        if not (job.final_from == "create-location" and n.lower() == "location")
    ]
    return tuple((name.lower(), url) for name in names)


def original_job(
    jobs: Mapping[str, SimJob], names: Collection[str], params: Mapping[str, str]
) -> str | None:
    """The id of the newest job of one of ``names`` created at the URL a result read
    names (its path parameters ``params``): a ``final_from: original-uri`` result is
    read there."""
    for sim in reversed(list(jobs.values())):
        if sim.name in names and all(sim.path.get(k) == v for k, v in params.items()):
            return sim.id
    return None


def result_url(kind: JobKind, sim: SimJob, origin: str) -> str | None:
    """Where a 303 See Other points: the result operation's URL for the job."""
    if kind.job.result is None:
        return None
    return _base(origin, sim.scenario.operation_host) + kind.fill_path(kind.job.result, sim)


def ruled_status(
    kind: JobKind, state: str, record: Any, sim: SimJob, origin: str
) -> tuple[int, Any, tuple[tuple[str, str], ...]] | None:
    """``(status, JSON body or None, headers)`` of a status answer in ``state`` that a
    status rule names; None when no rule gives that state a status or a path."""
    job = kind.job
    rule = next((r for r in job.status_rules if r.state == state), None)
    if rule is None:
        return None
    # A rule naming no status answers with the status operation's own success status
    # (a 202 monitor's is 202): the simulator sends no status the spec leaves out.
    declared = job.status.response.status
    status = rule.status[0] if rule.status else int(declared) if declared.isdigit() else 200
    if rule.path is not None:
        # The branch holding the value is made whole (an error's required message too).
        body: dict[str, Any] = {}
        kept = rule.path[:1]
        found = (
            locate(job.status.response.type, kept, kind.schemas)
            if job.status.response.type
            else None
        )
        if found is not None and len(rule.path) > 1:
            put(body, kept, kind.sampler(sim.created_wall).sample(found.type, force=True))
        put(body, rule.path, rule.equals if rule.equals is not None else "simulated")
        return status, body, ()
    if status == 303:
        location = result_url(kind, sim, origin)
        return status, None, (("location", location),) if location else ()
    if status >= 400:
        return status, None, ()  # the caller answers with the operation's error body
    return status, record, ()
