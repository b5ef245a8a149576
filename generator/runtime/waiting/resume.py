"""Resume tokens: how a timed-out wait is continued, possibly in another process.

A token is versioned JSON naming the job, the wall-clock deadline (epoch seconds) and
the number of polls made (`deadline_at` is null for a job handle without a deadline), e.g. `{"attempt":4,"deadline_at":1767225600.0,"job":"job",
"job_id":"j_1","v":1}`. A job polled at an operation URL adds it as `url`, its query
string included (which may hold a signature, such as Azure's `sig=`); a wait whose next
status read is not due yet (the create answer's `Retry-After`, W7) adds when it is, as
`due_at` (epoch seconds); one whose monitor is read by HTTP status (a `Location`
alone) adds `"by_status": true`. It holds none of the client's credentials, but a job that
carries values from its create response into later calls (such as a document key, which
is secret) keeps them under `carried`: such a token is as secret as those values and that
URL. To store a token without its carried values, drop `carried` from its JSON and pass
the values again on resuming (`handle(resume=token, document_key=...)`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import cast

import attrs

from ..shared.errors import InvalidResumeToken

__all__ = ["ResumeToken", "decode_resume_token", "encode_resume_token"]

_TOKEN_VERSION = 1


@attrs.frozen
class ResumeToken:
    """The decoded content of a `JobTimeout.resume_token`."""

    job_id: str
    deadline_at: float | None
    attempt: int
    job: str | None = None
    carried: Mapping[str, object] = attrs.field(factory=dict[str, object])
    url: str | None = None
    due_at: float | None = None
    #: Where the result is fetched once the job succeeded (`final_from: original-uri`).
    final_url: str | None = None
    #: The job's monitor is read by HTTP status (a `Location` alone).
    by_status: bool = False


def encode_resume_token(token: ResumeToken) -> str:
    """Versioned JSON: `{"v":1,"job_id":...,"deadline_at":<epoch s>,"attempt":n,...}`."""
    payload: dict[str, object] = {
        "v": _TOKEN_VERSION,
        "job_id": token.job_id,
        "deadline_at": token.deadline_at,
        "attempt": token.attempt,
    }
    if token.job is not None:
        payload["job"] = token.job
    if token.carried:
        payload["carried"] = dict(token.carried)
    if token.url is not None:
        payload["url"] = token.url
    if token.due_at is not None:
        payload["due_at"] = token.due_at
    if token.final_url is not None:
        payload["final_url"] = token.final_url
    if token.by_status:
        payload["by_status"] = True
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


def decode_resume_token(text: str, job: str | None = None) -> ResumeToken:
    """Read a token written by `encode_resume_token`; InvalidResumeToken if it is not one."""

    def bad(why: str) -> InvalidResumeToken:
        return InvalidResumeToken(f"invalid resume token: {why}")

    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        raise bad("not JSON") from None
    except RecursionError:
        raise bad("nested too deeply") from None
    if not isinstance(data, dict):
        raise bad("not a JSON object")
    data = cast("dict[str, object]", data)
    if data.get("v") != _TOKEN_VERSION:
        raise bad(f"unsupported version {data.get('v')!r}")
    job_id, deadline_at, attempt = (
        data.get(k) for k in ("job_id", "deadline_at", "attempt")
    )
    if not isinstance(job_id, str) or not job_id:
        raise bad("no job_id")
    if "deadline_at" not in data:
        raise bad("no deadline_at")
    if deadline_at is not None:
        if isinstance(deadline_at, bool) or not isinstance(deadline_at, (int, float)):
            raise bad("no deadline_at")
        if not math.isfinite(deadline_at):
            raise bad("deadline_at is not finite")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 0:
        raise bad("no attempt count")
    kind = data.get("job")
    if job is not None and kind is not None and kind != job:
        raise bad(f"it belongs to a {kind!r} job, not a {job!r} job")
    carried = data.get("carried", {})
    if not isinstance(carried, dict) or not all(
        isinstance(v, (str, int, float, bool))
        for v in cast("dict[str, object]", carried).values()
    ):
        raise bad("carried values are not a JSON object of scalars")
    carried = cast("dict[str, object]", carried)
    url = data.get("url")
    if url is not None and (not isinstance(url, str) or not url):
        raise bad("url is not a string")
    final_url = data.get("final_url")
    if final_url is not None and (not isinstance(final_url, str) or not final_url):
        raise bad("final_url is not a string")
    due_at = data.get("due_at")
    if due_at is not None and (
        isinstance(due_at, bool)
        or not isinstance(due_at, (int, float))
        or not math.isfinite(due_at)
    ):
        raise bad("due_at is not a finite number")
    by_status = data.get("by_status", False)
    if not isinstance(by_status, bool):
        raise bad("by_status is not a boolean")
    return ResumeToken(
        job_id,
        None if deadline_at is None else float(deadline_at),
        attempt,
        kind if isinstance(kind, str) else None,
        carried,
        url=url,
        due_at=None if due_at is None else float(due_at),
        final_url=final_url,
        by_status=by_status,
    )
