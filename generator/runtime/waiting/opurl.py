"""Operation URLs and status-code rules: jobs polled where the server says.

An API may answer a create with the absolute URL of a status monitor (Azure's
`Operation-Location` / `Azure-AsyncOperation`, a `Location` on 202). Such a job is
followed at that URL, query string included; its id, as errors show it, is the URL
without its query. Only URLs of the client's own origin (scheme, host and port of
its `base_url`) are followed, and those of the origins in its `operation_hosts`:
credentials are never sent anywhere else (`OperationUrlRefused`).

A `StatusRule` gives a status answer its state from the HTTP status (202 while
running, 303 See Other when done, 404 once expired) or from a value in its body (an
error body with no state field), in the manner of botocore's waiter matchers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs
import httpx

from ..http.credentials import origin_of
from ..shared.errors import OperationUrlRefused
from ..shared.shown import display_url
from ..wire.encoding import RequestOptions

if TYPE_CHECKING:
    from ..http.layer import BaseHTTP

__all__ = [
    "StatusRule",
    "check_origin",
    "display_url",
    "is_url",
    "join_url",
    "match_rule",
    "origin_of",
    "status_redirects",
    "url_options",
]


def _codes(value: Iterable[int]) -> frozenset[int]:
    return frozenset(value)


def _optional_path(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class StatusRule:
    """A status answer matching every given test has the state `state`.

    `status`: the HTTP status is one of these; `path` (keys into the body): the body
    has a value there other than null, equal to `equals` when that is given (a JSON
    boolean equals only `True` or `False`; any other value is compared as text).
    """

    state: str
    status: frozenset[int] = attrs.field(default=frozenset(), converter=_codes)
    path: tuple[str, ...] | None = attrs.field(default=None, converter=_optional_path)
    equals: str | bool | None = None

    def matches(self, status: int, body: object) -> bool:
        if self.status and status not in self.status:
            return False
        if self.path is None:
            return True
        value: Any = body
        for key in self.path:
            if isinstance(value, dict):
                value = cast("dict[str, Any]", value).get(key)
            elif isinstance(value, list) and key.isdigit():
                items = cast("list[object]", value)
                if int(key) >= len(items):
                    return False
                value = items[int(key)]
            else:
                return False
        if value is None:
            return False
        if self.equals is None:
            return True
        if isinstance(value, bool) or isinstance(self.equals, bool):
            return value is self.equals
        return str(value) == self.equals


def match_rule(
    rules: Sequence[StatusRule], response: httpx.Response
) -> tuple[StatusRule, object] | None:
    """The first rule `response` matches, and its body (JSON, or None); None if none."""
    if not rules:
        return None
    body: object = None
    if response.content:
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
    for rule in rules:
        if rule.matches(response.status_code, body):
            return rule, body
    return None


def _origin_text(url: httpx.URL) -> str:
    scheme, host, port = origin_of(url)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}" if port is not None else f"{scheme}://{shown}"


def is_url(job_id: str) -> bool:
    """Whether `job_id` is an operation URL (else the id of the status operation)."""
    return "://" in job_id


def join_url(base: httpx.URL, url: str) -> str:
    """`url` (an operation URL or a Location a server sent) resolved against `base`;
    one that is not a URL (a tab, a line break) raises `OperationUrlRefused`."""
    try:
        return str(base.join(url.strip()))
    except httpx.InvalidURL as error:
        raise OperationUrlRefused(
            f"the server sent {display_url(url)!r} as a URL, which it is not ({error})"
        ) from None


def check_origin(url: str, base_url: str, allowed: Sequence[str]) -> httpx.URL:
    """`url`, parsed, if its origin is the client's or listed in `allowed`."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise OperationUrlRefused(f"the operation URL {url!r} is not a URL") from None
    if not parsed.is_absolute_url:
        raise OperationUrlRefused(
            f"the operation URL {display_url(url)} is not absolute"
        )
    origin = origin_of(parsed)
    trusted = [origin_of(httpx.URL(base_url))]
    trusted += [origin_of(httpx.URL(entry)) for entry in allowed]
    if origin not in trusted:
        shown = _origin_text(parsed)
        raise OperationUrlRefused(
            f"refused to follow {display_url(url)}: {shown} is not the client's origin"
            f" ({_origin_text(httpx.URL(base_url))}), and credentials are never sent to"
            f" another host; to trust it, pass operation_hosts=[{shown!r}] to the client"
        )
    return parsed


#: The redirect statuses a status read returns to the waiter instead of following.
_REDIRECTS = (301, 302, 303, 307, 308)


def status_redirects(options: RequestOptions) -> tuple[int, ...]:
    """The 3xx statuses a job's status read returns instead of following, whatever
    the status operation declares: a 3xx is the job's answer, for the status rules
    to read; one no rule matches is an error, like any status the operation does
    not declare."""
    return tuple(sorted({*options.redirects, *_REDIRECTS}))


def url_options(
    http: BaseHTTP,
    url: str,
    security: tuple[str, ...],
    method: str = "GET",
    suffix: str = "",
) -> RequestOptions:
    """A GET (or `method`) of the absolute `url` (its query kept; `suffix` added to its
    path: a cancel's ":cancel") with the client's credentials, once `url` passed
    `check_origin`."""
    parsed = check_origin(url, http.base_url, http.operation_hosts)
    # The query goes in `params` (httpx replaces a URL's query with the params given).
    params: dict[str, list[str]] = {}
    for key, value in parsed.params.multi_items():
        params.setdefault(key, []).append(value)
    bare_url = parsed.copy_with(query=None, fragment=None)
    if suffix:
        bare_url = bare_url.copy_with(path=bare_url.path.rstrip("/") + suffix)
    bare = str(bare_url)
    return RequestOptions(
        method=method,
        path="",
        url=bare,
        params=params,
        security=security,
    )
