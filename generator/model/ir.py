"""Typed attrs objects describing one SDK: schemas, operations, jobs and auth.

The builder turns a loaded spec into these; the renderer turns these into code.
Every name here is already a safe Python identifier; wire names are kept beside
them, verbatim, for (de)serialisation only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from ..fieldwise import Node
from ..problems import Location

if TYPE_CHECKING:
    from ..spec.loader import SpecSet

__all__ = [
    "AliasSchema",
    "AnyType",
    "ApiKeyAuth",
    "Auth",
    "BasicAuth",
    "BearerAuth",
    "Body",
    "ConstType",
    "EnumMember",
    "EnumSchema",
    "Field",
    "HeaderHint",
    "InlineUnion",
    "Job",
    "ListType",
    "MapType",
    "Model",
    "NamedSchema",
    "Nullable",
    "Operation",
    "Pagination",
    "Parameter",
    "Primitive",
    "Ref",
    "Resource",
    "Response",
    "Sdk",
    "TypeRef",
    "UnionSchema",
    "contained",
]

PrimitiveKind = Literal["str", "int", "float", "bool", "datetime", "date", "uuid", "bytes"]


@attrs.frozen(eq=False, repr=False)
class Primitive(Node):
    kind: PrimitiveKind


@attrs.frozen(eq=False, repr=False)
class AnyType(Node):
    pass


@attrs.frozen(eq=False, repr=False)
class ConstType(Node):
    """A single permitted JSON value (``const``, or a one-value enum kept inline)."""

    value: str | int | float | bool | None


@attrs.frozen(eq=False, repr=False)
class ListType(Node):
    item: TypeRef


@attrs.frozen(eq=False, repr=False)
class MapType(Node):
    value: TypeRef


@attrs.frozen(eq=False, repr=False)
class Ref(Node):
    """A named schema, by its key in :attr:`Sdk.schemas`."""

    key: str


@attrs.frozen(eq=False, repr=False)
class Nullable(Node):
    inner: TypeRef


@attrs.frozen(eq=False, repr=False)
class InlineUnion(Node):
    """An unnamed union, e.g. a 3.1 ``type: [number, string]``; tried in order."""

    variants: tuple[TypeRef, ...]


TypeRef = Primitive | AnyType | ConstType | ListType | MapType | Ref | Nullable | InlineUnion


def contained(t: TypeRef) -> tuple[TypeRef, ...]:
    """The types written inside ``t`` (a list's item, a map's value, the inner type of a
    nullable, a union's variants); none for a named schema's :class:`Ref` or a leaf."""
    if isinstance(t, ListType):
        return (t.item,)
    if isinstance(t, MapType):
        return (t.value,)
    if isinstance(t, Nullable):
        return (t.inner,)
    if isinstance(t, InlineUnion):
        return t.variants
    return ()


@attrs.frozen(eq=False, repr=False)
class Field(Node):
    name: str
    wire: str
    type: TypeRef
    required: bool
    description: str = ""
    default_repr: str | None = None


@attrs.frozen(eq=False, repr=False)
class Model(Node):
    key: str
    name: str
    module: str
    fields: tuple[Field, ...]
    additional: TypeRef | None
    description: str = ""
    location: Location | None = None


@attrs.frozen(eq=False, repr=False)
class EnumMember(Node):
    name: str
    value: str | int


@attrs.frozen(eq=False, repr=False)
class EnumSchema(Node):
    key: str
    name: str
    module: str
    base: Literal["str", "int"]
    members: tuple[EnumMember, ...]
    description: str = ""
    location: Location | None = None


@attrs.frozen(eq=False, repr=False)
class UnionSchema(Node):
    key: str
    name: str
    module: str
    variants: tuple[TypeRef, ...]
    discriminator: str | None = None
    mapping: tuple[tuple[str, str], ...] = ()
    description: str = ""
    location: Location | None = None
    stem: str = ""
    """The name of its own module, which names its decoder ``decode_<stem>`` also when it
    is defined in the module of the one model that uses it (``module``); empty: ``module``."""

    @property
    def decoder(self) -> str:
        return f"decode_{self.stem or self.module}"


@attrs.frozen(eq=False, repr=False)
class AliasSchema(Node):
    key: str
    name: str
    module: str
    target: TypeRef
    description: str = ""
    location: Location | None = None


NamedSchema = Model | EnumSchema | UnionSchema | AliasSchema


ParamLocation = Literal["path", "query", "header", "cookie"]


@attrs.frozen(eq=False, repr=False)
class Parameter(Node):
    name: str
    wire: str
    location: ParamLocation
    type: TypeRef
    required: bool
    description: str = ""
    style: str | None = None
    explode: bool = True
    default: str | int | float | bool | None = None
    has_default: bool = False


BodyKind = Literal["json", "form", "multipart", "text", "binary"]


@attrs.frozen(eq=False, repr=False)
class Body(Node):
    kind: BodyKind
    media_type: str
    type: TypeRef
    required: bool
    description: str = ""
    encoding: tuple[tuple[str, str, bool], ...] = ()
    """A form body's declared ``(property, style, explode)``, other than ``form``/explode."""
    media: tuple[tuple[str, BodyKind], ...] = ()
    """Every ``(media type, kind)`` the caller may send, in the spec's order, when the
    operation declares more than one it can send (``media_type`` is one of them): the
    structured one (JSON, form or multipart), and every text and binary one."""
    part_types: tuple[tuple[str, str], ...] = ()
    """A multipart body's declared ``(property, contentType)`` (its ``encoding``)."""


ResponseKind = Literal["json", "text", "binary", "empty", "redirect", "events"]
"""``redirect``: an operation answering only with 3xx; it returns the ``Location``.
``events``: a ``text/event-stream`` answer; ``type`` is the type of each event's data."""


@attrs.frozen(eq=False, repr=False)
class Response(Node):
    status: str
    kind: ResponseKind
    media_type: str | None
    type: TypeRef | None
    description: str = ""
    events: TypeRef | None = None
    """The event data type of a ``text/event-stream`` alternative to ``media_type``."""


PageStyle = Literal["cursor", "page", "offset", "link"]


@attrs.frozen(eq=False, repr=False)
class Pagination(Node):
    """How a list operation pages (runtime ``pagination.Paging`` takes the same fields).

    Paths are wire names into the body; ``items`` () means the body is the list.
    """

    style: PageStyle
    items: tuple[str, ...]
    item_type: TypeRef
    param: str | None = None
    next_cursor: tuple[str, ...] | None = None
    item_cursor: tuple[str, ...] | None = None
    has_more: tuple[str, ...] | None = None
    next_url: tuple[str, ...] | None = None
    limit_param: str | None = None


@attrs.frozen(eq=False, repr=False)
class Operation(Node):
    operation_id: str
    name: str
    method: str
    path: str
    summary: str
    description: str
    parameters: tuple[Parameter, ...]
    body: Body | None
    response: Response
    security: tuple[str, ...]
    deprecated: bool = False
    location: Location | None = None
    pagination: Pagination | None = None
    server: str | None = None
    """The ``servers`` URL the operation (or its path) declares, variables filled in."""
    redirects: tuple[int, ...] = ()
    """The 3xx statuses a redirect-only operation declares (returned, not followed)."""
    stream_name: str | None = None
    """The method asking for the ``text/event-stream`` alternative (``response.events``)."""
    synthetic: bool = False
    """A status operation made up for a monitor the spec has no operation for (an
    imported Azure job's): it types the record and is never a method of the SDK."""

    @property
    def path_parameters(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.location == "path")


@attrs.frozen(eq=False, repr=False)
class Resource(Node):
    name: str
    attr: str
    module: str
    operations: tuple[Operation, ...]
    jobs: tuple[Job, ...] = ()


@attrs.frozen(eq=False, repr=False)
class ApiKeyAuth(Node):
    scheme: str
    param: str
    wire: str
    where: Literal["header", "query", "cookie"]
    prefix: str = ""
    """The scheme word sent before the key (``DeepL-Auth-Key``), if any."""
    declared: bool = False
    """No security scheme: a header parameter every operation declares (``xi-api-key``).
    The client may go without it (each call can give it), and a call's value wins."""


@attrs.frozen(eq=False, repr=False)
class BearerAuth(Node):
    scheme: str
    param: str
    token_url: str | None = None
    """An OAuth 2 scheme's ``flows.clientCredentials.tokenUrl``."""
    scopes: tuple[str, ...] = ()
    """The scopes a token credential is asked for (an Azure ``.../.default`` scope of
    the scheme's flows); none: the server's 401 challenge names them."""


@attrs.frozen(eq=False, repr=False)
class BasicAuth(Node):
    scheme: str
    username_param: str
    password_param: str


Auth = ApiKeyAuth | BearerAuth | BasicAuth


@attrs.frozen(eq=False, repr=False)
class HeaderHint(Node):
    name: str
    format: Literal["retry-after", "seconds", "milliseconds"]


CarryTarget = Literal["body", "query", "header", "path"]
CarryKind = Literal["str", "int", "float", "bool"]


@attrs.frozen(eq=False, repr=False)
class Carry(Node):
    """A value read from create's response and sent with every later call of the job,
    or (``record``) read from the terminal record and sent to the result operation.

    ``source`` is a JSON pointer into create's response body (into the record when
    ``record``), or ``header`` the response header holding it; ``target``/``wire``
    where status, result and cancel take it (a top-level property of their JSON body,
    or a parameter); ``kind`` its scalar type. ``failure_source`` (record values only)
    is where a failed record names the value for the failure download.
    """

    name: str
    source: tuple[str, ...] | None
    header: str | None
    target: CarryTarget
    wire: str
    kind: CarryKind
    record: bool = False
    failure_source: tuple[str, ...] | None = None


ConstantValue = str | int | float | bool


@attrs.frozen(eq=False, repr=False)
class Constant(Node):
    """A value the declaration gives one call of the job (``constants``): the status,
    result or cancel request sends ``value`` at ``target``/``wire`` every time
    (``DELETE /jobs/{id}?force=true``)."""

    call: Literal["status", "result", "cancel"]
    target: CarryTarget
    wire: str
    value: ConstantValue


@attrs.frozen(eq=False, repr=False)
class Webhooks(Node):
    """How a job's webhook deliveries are signed and read (``webhooks:`` of the job)."""

    event: str | None
    """The webhook or callback operation delivering the job; its body is the event."""
    event_type: TypeRef | None
    record_path: tuple[str, ...]
    """From the delivery body to the job record."""
    id_path: tuple[str, ...]
    """The job id inside the delivered record."""
    scheme: Literal["standard-webhooks", "hmac-sha256"]
    id_header: str
    timestamp_header: str
    signature_header: str
    tolerance: float
    secret_env: str
    url_field: tuple[str, ...] | None
    """Where a create request carries the job's own webhook URL."""
    attempts: int
    retry_first: float
    retry_cap: float
    fallback_floor: float
    fallback_first: float
    fallback_cap: float


FinalFrom = Literal["result", "location", "record", "original-uri", "create-location"]


@attrs.frozen(eq=False, repr=False)
class StatusRule(Node):
    """A status answer matching every test given here has ``state`` (botocore-like)."""

    state: str
    status: tuple[int, ...] = ()
    path: tuple[str, ...] | None = None
    equals: str | bool | None = None
    """The value at ``path``: a JSON boolean (``equals: true``) or a value's text."""


@attrs.frozen(eq=False, repr=False)
class Job(Node):
    """A job declared with ``x-jobgen``, resolved against the operations it names."""

    name: str
    status: Operation
    create: Operation | None
    result: Operation | None
    id_parameter: str
    id_path: tuple[str, ...] | None
    id_header: str | None
    record_path: tuple[str, ...]
    record_type: TypeRef
    state_path: tuple[str, ...] | None
    success: tuple[str, ...]
    failure: tuple[str, ...]
    canceled: tuple[str, ...]
    pending: tuple[str, ...]
    terminal_path: tuple[str, ...] | None
    ready_path: tuple[str, ...] | None
    error_path: tuple[str, ...] | None
    hint_path: tuple[str, ...] | None
    hint_unit: Literal["seconds", "milliseconds"]
    header_hints: tuple[HeaderHint, ...]
    floor: float
    first: float
    cap: float
    idempotency_header: str | None
    location: Location | None = None
    cancel: Operation | None = None
    """The operation that asks the server to cancel the job (keyed by ``id_parameter``)."""
    cancel_at_url: str | None = None
    """For a job polled at its operation URL whose cancel is an operation on the status
    operation's own path (``DELETE /batches/{id}``) or below it (``:cancel``, ``/cancel``):
    what the cancel appends to the URL's path ("" for none); its request goes to the
    operation URL with the cancel's method. None: the cancel is called with the job id."""
    progress_path: tuple[str, ...] | None = None
    """A percentage (0-100) in the record."""
    progress_done_path: tuple[str, ...] | None = None
    """With ``progress_total_path``: progress as done out of total."""
    progress_total_path: tuple[str, ...] | None = None
    stall_after: float | None = None
    """Seconds without a change of state or progress after which a wait raises JobStalled."""
    carry: tuple[Carry, ...] = ()
    """Values of create's response that status, result and cancel calls need besides the id."""
    result_once: bool = False
    """The result can be downloaded once (then 404): fetched exactly once, never re-sent."""
    constants: tuple[Constant, ...] = ()
    """Values the declaration gives the status, result or cancel request."""
    error_type: TypeRef | None = None
    """The type of the value at ``error_path``: the job's error model."""
    webhooks: Webhooks | None = None
    """Webhook deliveries of the job, when it declares them."""
    operation_url: tuple[str, ...] = ()
    """Create-response headers (first present wins) holding the absolute URL the job is
    polled at; empty when the status operation is called with the job id."""
    status_rules: tuple[StatusRule, ...] = ()
    """Rules giving a status answer its state by HTTP status or body value."""
    final_from: FinalFrom = "result"
    """Where ``wait_for_result`` gets the result (see ``model/declare/opurl.py``)."""
    result_path: tuple[str, ...] | None = None
    """With ``final_from: record``: the member of the terminal record that is the
    result (``result_field``; Azure's ``analyzeResult``), typed by ``result_type``."""
    result_type: TypeRef | None = None
    id_last_segment: bool = False
    """The id is the last ``/``-separated segment of the value at ``id_path`` (an
    AIP-151 Operation's ``operations/123`` -> ``123``)."""
    ignore_case: bool = False
    """States are compared without regard to case (Azure's ``succeeded``/``Succeeded``)."""
    origin: str | None = None
    """Where the declaration came from, as ``jobgen validate`` shows it."""


@attrs.frozen(eq=False, repr=False)
class Sdk(Node):
    """Everything one generated package holds."""

    title: str
    version: str
    description: str
    package: str
    base_url: str
    schemas: dict[str, NamedSchema]
    resources: tuple[Resource, ...]
    auths: tuple[Auth, ...]
    jobs: tuple[Job, ...]
    spec_hash: str
    """A digest of ``inputs``: what the SDK was generated from, by content."""
    warnings: tuple[str, ...] = ()
    """What the SDK cannot represent, each as ``file#pointer: message``; the rest works."""
    located: dict[str, TypeRef] = attrs.field(factory=dict, eq=False, repr=False)
    """The type built for each schema location, keyed ``file#pointer``."""
    inputs: tuple[tuple[str, str], ...] = ()
    """``(role/relative name, sha256)`` of every input file: the spec documents (named
    relative to the root document's folder) and the side file; never an absolute path."""
    sdk_version: str = "0.1.0"
    """The generated package's own version (configured, or derived from ``version``)."""
    spec: SpecSet | None = attrs.field(default=None, eq=False, repr=False)
    """The documents the SDK was built from, for what the model leaves out (constraints,
    defaults, response headers), which ``jobgen diff`` still compares."""
