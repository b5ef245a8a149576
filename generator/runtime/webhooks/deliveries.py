"""Webhook deliveries: verify their signature, decode them, and route them to waits.

A `WebhookReceiver` is framework-free: `handle(headers, body)` verifies a delivery
(its signature, its age, that it was not seen before), decodes it and returns a
`WebhookDelivery`; waits given the receiver as `events=` end as soon as a delivery
for their job is handled (see `hybrid`). `acknowledge()`, `wsgi_app()` and
`asgi_app()` wrap it for web frameworks.

Two signature schemes, as the API declares them:

- "standard-webhooks" (the default, https://www.standardwebhooks.com): headers
  `webhook-id`, `webhook-timestamp` (epoch seconds) and `webhook-signature`, a
  space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; a
  `whsec_` secret is base64 after its prefix.
- "hmac-sha256": a timestamp header and a signature header holding the hex
  HMAC-SHA256 of `"timestamp.body"` (an optional `sha256=` prefix is accepted).

Signatures are compared in constant time. A delivery older or newer than
`tolerance` seconds raises `StaleWebhook`; one seen before raises `DuplicateWebhook`.
What counts as "seen before" is what the signature covers: the delivery id under
Standard Webhooks (it is signed), the timestamp and body under hmac-sha256 (the id
header, if any, is not signed, so a changed id is still a replay).

Configuration cannot weaken verification (the rules are in `rules`): a key
shorter than `MIN_KEY_BYTES` (an empty `whsec_` one included) is refused. The web
apps (`apps`) check method and headers before reading a bounded body.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from os import environ as os_environ
from typing import Any, Generic, Union

import attrs
import httpx

from ..shared.errors import (  # a bare WebhookReceiver: any job's events
    RecordT_co,
    SDKError,
)
from ..waiting.records import dig, pointer
from ..wire.serde import lenient
from .rules import (
    MIN_KEY_BYTES,
    TOLERANCE_RANGE,
    secret_env_problem,
    tolerance_problem,
)

__all__ = [
    "MAX_BODY",
    "MAX_INBOX_BYTES",
    "MIN_KEY_BYTES",
    "TOLERANCE_RANGE",
    "DuplicateWebhook",
    "InvalidSignature",
    "MalformedWebhook",
    "StaleWebhook",
    "WebhookDelivery",
    "WebhookError",
    "WebhookReceiver",
    "WebhookSpec",
    "secret_env_problem",
    "sign_webhook",
    "signing_key",
]

Headers = Union[Mapping[str, str], Sequence[tuple[str, str]], httpx.Headers]

SCHEMES = ("standard-webhooks", "hmac-sha256")
#: The largest delivery body the WSGI and ASGI apps read (bytes), by default.
MAX_BODY = 1024 * 1024
#: The bytes of deliveries a receiver keeps for waits that have not taken them.
MAX_INBOX_BYTES = 16 * 1024 * 1024


class WebhookError(SDKError):
    """A delivery this receiver refuses; `status` is the HTTP status to answer with."""

    status = 400


class InvalidSignature(WebhookError):
    """The delivery is unsigned, or signed with another secret, or was altered."""

    status = 401


class StaleWebhook(WebhookError):
    """The delivery's timestamp is outside the tolerance (an old or replayed delivery)."""

    status = 401


class DuplicateWebhook(WebhookError):
    """The delivery was handled before (same delivery id): acknowledge it, ignore it."""

    status = 200


class MalformedWebhook(WebhookError):
    """A correctly signed delivery that is not JSON or names no job."""

    status = 400


# Tracebacks name these where an SDK exports them (its top level), not its runtime.
for _error in [WebhookError, *WebhookError.__subclasses__()]:
    _error.__module__ = __name__.rpartition("._runtime.")[0] or __name__


def _keys(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _scheme(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in SCHEMES:
        raise ValueError(f"{attribute.name} must be one of {SCHEMES}, got {value!r}")


def _tolerance(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    problem = tolerance_problem(value)
    if problem is not None:
        raise ValueError(f"{attribute.name} {problem}")


def _secret_env(
    _: object, attribute: attrs.Attribute[str | None], value: object
) -> None:
    problem = secret_env_problem(value) if value is not None else None
    if problem is not None:
        raise ValueError(f"{attribute.name} {problem}")


@attrs.frozen(kw_only=True)
class WebhookSpec:
    """How one job type's webhook deliveries are signed and where the job is in them.

    `record_path` leads from the delivery body to the job record (what a status read
    returns); `job_id_path` is the job id inside that record. `fallback_floor`,
    `fallback_first` and `fallback_cap` are the slow poll schedule of a wait that
    listens for deliveries. `secret_env` names the environment variable holding the
    signing secret when none is passed to the receiver.
    """

    scheme: str = attrs.field(default="standard-webhooks", validator=_scheme)
    id_header: str = "webhook-id"
    timestamp_header: str = "webhook-timestamp"
    signature_header: str = "webhook-signature"
    tolerance: float = attrs.field(default=300.0, validator=_tolerance)
    secret_env: str | None = attrs.field(default=None, validator=_secret_env)
    record_path: tuple[str, ...] = attrs.field(default=(), converter=_keys)
    job_id_path: tuple[str, ...] = attrs.field(default=("id",), converter=_keys)
    fallback_floor: float = 30.0
    fallback_first: float = 30.0
    fallback_cap: float = 300.0


@attrs.frozen(kw_only=True)
class WebhookDelivery(Generic[RecordT_co]):
    """One verified delivery: its id, its job, the typed event and the raw record."""

    delivery_id: str
    job_id: str
    timestamp: int
    event: RecordT_co
    record: object = attrs.field(repr=False)


def signing_key(secret: str | bytes) -> bytes:
    """The signing key of `secret`; ValueError if it is shorter than `MIN_KEY_BYTES`."""
    if isinstance(secret, bytes):
        key = secret
    elif secret.startswith("whsec_"):
        try:
            key = base64.b64decode(secret[len("whsec_") :], validate=True)
        except binascii.Error:
            raise ValueError(
                "a whsec_ secret must be base64 after its prefix"
            ) from None
    else:
        key = secret.encode()
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(
            f"a webhook signing key must be at least {MIN_KEY_BYTES} bytes"
            f" (this one is {len(key)})"
        )
    return key


def _header_map(headers: Headers) -> dict[str, str]:
    """`headers` by lower-case name (the last of a repeated name wins)."""
    if isinstance(headers, httpx.Headers):
        pairs: Iterable[tuple[str, str]] = headers.multi_items()
    elif isinstance(headers, Mapping):
        pairs = headers.items()
    else:
        pairs = headers
    return {str(k).lower(): str(v) for k, v in pairs}


def _signature(
    spec: WebhookSpec, key: bytes, delivery_id: str, ts: str, body: bytes
) -> str:
    if spec.scheme == "standard-webhooks":
        signed = f"{delivery_id}.{ts}.".encode() + body
        digest = hmac.new(key, signed, hashlib.sha256).digest()
        return base64.b64encode(digest).decode()
    return hmac.new(key, f"{ts}.".encode() + body, hashlib.sha256).hexdigest()


def sign_webhook(
    spec: WebhookSpec,
    secret: str | bytes,
    body: bytes,
    *,
    delivery_id: str,
    timestamp: int,
) -> dict[str, str]:
    """The headers that sign `body` under `spec`'s scheme (for senders and tests)."""
    ts = str(int(timestamp))
    sig = _signature(spec, signing_key(secret), delivery_id, ts, body)
    headers = {spec.timestamp_header: ts}
    if spec.scheme == "standard-webhooks":
        headers[spec.id_header] = delivery_id
        headers[spec.signature_header] = f"v1,{sig}"
    else:
        headers[spec.signature_header] = sig
    return headers


class WebhookReceiver(Generic[RecordT_co]):
    """Verifies deliveries, decodes them and routes them to the waits listening for them.

    `secret` defaults to the environment variable the spec names; its key must be at
    least `MIN_KEY_BYTES` long. `wall_clock` (epoch seconds) checks timestamps.
    Deliveries that arrive before their wait starts are kept, at most `max_per_job`
    for each of the last `max_jobs` jobs and `max_inbox_bytes` in all (the oldest
    jobs' go first). The WSGI and ASGI apps refuse a body longer than `max_body`
    bytes (413) without reading it. The receiver is thread-safe: deliveries may be
    handled in any thread or event loop, and waits may run in others.
    """

    def __init__(
        self,
        spec: WebhookSpec,
        decode_event: Callable[[Any], RecordT_co],
        *,
        secret: str | bytes | None = None,
        wall_clock: Callable[[], float] = time.time,
        max_jobs: int = 1024,
        max_per_job: int = 16,
        max_body: int = MAX_BODY,
        max_inbox_bytes: int = MAX_INBOX_BYTES,
    ) -> None:
        if secret is None and spec.secret_env:
            secret = os_environ.get(spec.secret_env)
        if not secret:
            where = f" or set {spec.secret_env}" if spec.secret_env else ""
            raise ValueError(
                f"a webhook receiver needs its signing secret: pass secret={where}"
            )
        if min(max_jobs, max_per_job, max_body, max_inbox_bytes) < 1:
            raise ValueError(
                "max_jobs, max_per_job, max_body and max_inbox_bytes must be >= 1"
            )
        self.spec = spec
        self._key = signing_key(secret)
        self._decode_event = decode_event
        self._wall_clock = wall_clock
        self._max_jobs = max_jobs
        self._max_per_job = max_per_job
        self.max_body = max_body
        self._max_inbox_bytes = max_inbox_bytes
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._inbox: OrderedDict[str, deque[tuple[object, int]]] = OrderedDict()
        self._inbox_bytes = 0
        self._wakers: dict[str, list[Callable[[], None]]] = {}

    def __repr__(self) -> str:
        return f"WebhookReceiver(scheme={self.spec.scheme!r})"

    # -- verification ----------------------------------------------------------------

    def verify(self, headers: Headers, body: bytes | str) -> tuple[str, int]:
        """Check `body`'s signature and age; returns (delivery id, timestamp).

        Raises `InvalidSignature` or `StaleWebhook`; never marks the delivery as seen.
        """
        delivery_id, ts, _ = self._verified(headers, body)
        return delivery_id, ts

    def _fields(self, headers: Headers) -> tuple[str, str, str, int]:
        """The delivery id, timestamp text, signatures and timestamp of `headers`,
        checked for presence and age (before the body is read or hashed)."""
        spec = self.spec
        found = _header_map(headers)
        values: list[str] = []
        for name in (spec.id_header, spec.timestamp_header, spec.signature_header):
            value = found.get(name.lower(), "").strip()
            if not value.isascii():
                raise InvalidSignature(f"the {name} header is not ASCII")
            values.append(value)
        delivery_id, ts_text, signatures = values
        if spec.scheme == "standard-webhooks" and not delivery_id:
            raise InvalidSignature(f"the delivery has no {spec.id_header} header")
        if not ts_text or not signatures:
            missing = spec.timestamp_header if not ts_text else spec.signature_header
            raise InvalidSignature(f"the delivery has no {missing} header")
        if not ts_text.isdigit() or len(ts_text) > 12:
            raise InvalidSignature(
                f"the {spec.timestamp_header} header is not epoch seconds"
            )
        ts = int(ts_text)
        age = self._wall_clock() - ts
        if abs(age) > spec.tolerance:
            raise StaleWebhook(
                f"the delivery's timestamp is {abs(age):.0f}s "
                f"{'old' if age > 0 else 'in the future'}, beyond the "
                f"{spec.tolerance:g}s tolerance"
            )
        return delivery_id, ts_text, signatures, ts

    def _verified(self, headers: Headers, body: bytes | str) -> tuple[str, int, str]:
        """`verify`, and the delivery's replay key: what its signature covers."""
        spec = self.spec
        delivery_id, ts_text, signatures, ts = self._fields(headers)
        raw = body.encode() if isinstance(body, str) else bytes(body)
        expected = _signature(spec, self._key, delivery_id, ts_text, raw).encode()
        if not any(
            hmac.compare_digest(expected, given.encode())
            for given in self._candidates(signatures)
        ):
            raise InvalidSignature(
                f"the {spec.signature_header} header does not match the body"
            )
        if spec.scheme == "standard-webhooks":
            return delivery_id, ts, delivery_id
        # The id header is not signed: a replay may change it, so the timestamp and
        # the body (their signature) say whether this delivery was seen before.
        signed = f"{ts_text}.{expected.decode()}"
        return delivery_id or signed, ts, signed

    def _candidates(self, header: str) -> list[str]:
        if self.spec.scheme == "standard-webhooks":
            parts = (item.split(",", 1) for item in header.split())
            return [p[1] for p in parts if len(p) == 2 and p[0] == "v1"]
        value = header.strip()
        return [value.removeprefix("sha256=")]

    # -- deliveries ------------------------------------------------------------------

    def handle(
        self, headers: Headers, body: bytes | str
    ) -> WebhookDelivery[RecordT_co]:
        """Verify and decode one delivery, and wake the wait for its job.

        Raises `InvalidSignature`, `StaleWebhook`, `DuplicateWebhook` (a delivery
        handled before: the same id under Standard Webhooks, the same timestamp and
        body under hmac-sha256) or `MalformedWebhook`, each a `WebhookError` whose
        `status` is the HTTP status to answer with.
        """
        delivery_id, ts, replay_key = self._verified(headers, body)
        try:
            data = json.loads(body)
        except ValueError:
            raise MalformedWebhook("the delivery body is not JSON") from None
        except RecursionError:
            raise MalformedWebhook("the delivery body nests too deeply") from None
        record = dig(data, self.spec.record_path)
        job_id = dig(record, self.spec.job_id_path)
        if isinstance(job_id, int) and not isinstance(job_id, bool):
            job_id = str(job_id)
        if not isinstance(job_id, str) or not job_id:
            where = pointer(self.spec.record_path + self.spec.job_id_path)
            raise MalformedWebhook(f"the delivery names no job id at {where}")
        try:
            with lenient():
                event = self._decode_event(data)
        except SDKError as error:
            raise MalformedWebhook(f"the delivery does not decode: {error}") from None
        except RecursionError:
            raise MalformedWebhook("the delivery body nests too deeply") from None
        with self._lock:
            if not self._remember(replay_key):
                raise DuplicateWebhook(f"delivery {delivery_id} was already handled")
            self._keep(job_id, record, len(body))
            wakers = list(self._wakers.get(job_id, ()))
        for wake in wakers:
            wake()
        return WebhookDelivery(
            delivery_id=delivery_id,
            job_id=job_id,
            timestamp=ts,
            event=event,
            record=record,
        )

    def _keep(self, job_id: str, record: object, size: int) -> None:
        """Keep `record` for the wait of `job_id` (lock held), within the bounds."""
        kept = self._inbox.pop(job_id, None) or deque()
        kept.append((record, size))
        self._inbox_bytes += size
        while len(kept) > self._max_per_job:
            self._inbox_bytes -= kept.popleft()[1]
        self._inbox[job_id] = kept
        while self._inbox and (
            len(self._inbox) > self._max_jobs
            or self._inbox_bytes > self._max_inbox_bytes
        ):
            oldest = next(iter(self._inbox.values()))
            self._inbox_bytes -= oldest.popleft()[1]
            if not oldest:
                self._inbox.popitem(last=False)

    def _remember(self, key: str) -> bool:
        """Note a replay key (lock held); False if it was seen within the window."""
        now = self._wall_clock()
        horizon = now - 2 * self.spec.tolerance
        while self._seen and next(iter(self._seen.values())) < horizon:
            self._seen.popitem(last=False)
        if key in self._seen:
            return False
        self._seen[key] = now
        while len(self._seen) > 64 * self._max_jobs:
            self._seen.popitem(last=False)
        return True

    def acknowledge(self, headers: Headers, body: bytes | str) -> tuple[int, str]:
        """`handle`, as the (status, text) a web framework answers with; never raises
        a `WebhookError` (a duplicate is acknowledged with 200, and not routed)."""
        try:
            delivery = self.handle(headers, body)
        except WebhookError as error:
            return error.status, error.message
        return (
            200,
            f"delivery {delivery.delivery_id} for job {delivery.job_id} received",
        )

    def check_headers(self, headers: Headers) -> None:
        """Check the signature headers alone (presence, ASCII, age), before a body is
        read: raises `InvalidSignature` or `StaleWebhook`."""
        self._fields(headers)

    def refusal(self, method: object, headers: Headers) -> tuple[int, str] | None:
        """The (status, text) a request is refused with before its body is read (a
        method other than POST, bad signature headers), or None to read it."""
        if method != "POST":
            return 405, "deliveries are POSTed"
        try:
            self.check_headers(headers)
        except WebhookError as error:
            return error.status, error.message
        return None

    def wsgi_app(self) -> Callable[[dict[str, Any], Callable[..., Any]], list[bytes]]:
        """A WSGI application that acknowledges every POST it receives (see
        `apps.wsgi_app`)."""
        from .apps import wsgi_app

        return wsgi_app(self)

    def asgi_app(
        self,
    ) -> Callable[
        [
            dict[str, Any],
            Callable[[], Awaitable[Any]],
            Callable[[Any], Awaitable[None]],
        ],
        Awaitable[None],
    ]:
        """An ASGI application that acknowledges every POST it receives (see
        `apps.asgi_app`)."""
        from .apps import asgi_app

        return asgi_app(self)

    # -- routing to waits (used by `hybrid`) -----------------------------------------

    def take(self, job_id: str) -> list[object]:
        """The records delivered for `job_id` and not yet taken, oldest first."""
        with self._lock:
            kept = self._inbox.pop(job_id, ())
            self._inbox_bytes -= sum(size for _, size in kept)
            return [record for record, _ in kept]

    def watch(self, job_id: str, wake: Callable[[], None]) -> Callable[[], None]:
        """Call `wake` (from the handling thread) on each delivery for `job_id`;
        returns the function that stops it."""
        with self._lock:
            self._wakers.setdefault(job_id, []).append(wake)

        def stop() -> None:
            with self._lock:
                wakers = self._wakers.get(job_id, [])
                if wake in wakers:
                    wakers.remove(wake)
                if not wakers:
                    self._wakers.pop(job_id, None)

        return stop
