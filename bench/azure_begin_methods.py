"""The ``begin_*`` methods of Microsoft's Python SDKs (azure-sdk-for-python) for the Azure
corpus in ``../shared/specs-real/azure``, each mapped to the REST operation of the corpus spec
it calls.

Run it with an interpreter that has the packages installed (not jobgen's venv), for example

    python3 -m venv /work/msvenv && /work/msvenv/bin/pip install azure-ai-documentintelligence \
        azure-ai-formrecognizer azure-ai-translation-document azure-ai-textanalytics \
        azure-ai-language-conversations azure-ai-language-questionanswering \
        azure-keyvault-administration azure-keyvault-securitydomain azure-communication-email \
        azure-health-deidentification azure-appconfiguration azure-iot-deviceupdate \
        azure-developer-devcenter azure-digitaltwins-core azure-healthinsights-radiologyinsights \
        azure-healthinsights-clinicalmatching azure-healthinsights-cancerprofiling
    python3 -m venv /work/msvenv-authoring && /work/msvenv-authoring/bin/pip install \
        azure-ai-textanalytics-authoring azure-ai-language-conversations-authoring \
        azure-ai-language-questionanswering-authoring
    python3 -m venv /work/msvenv-translation1 && /work/msvenv-translation1/bin/pip install \
        "azure-ai-translation-document==1.0.0" six  # 1.0.0 imports six without requiring it
    /work/msvenv/bin/python bench/azure_begin_methods.py \
        --also /work/msvenv-authoring/bin/python --also /work/msvenv-translation1/bin/python \
        -o tests/real/azure_begin_methods.json

(the three ``*-authoring`` betas need pre-releases of the runtime packages that the stable
ones conflict with, and Document Translation's v1.0 API is served by its 1.0.0 release only,
hence more interpreters: ``--also`` runs this script there and merges its answer).

Nothing is sent over the network. Each sync client is built with a transport that keeps the
first request it is given and stops there; every ``begin_*`` method (of the client and of its
operation groups) is called with placeholder arguments, and the method and URL of the request
it starts are matched against the corpus spec's paths (host template + path template, with
the request's ``Content-Type`` telling apart ``x-ms-paths`` overloads of one URL). A method
that raises before sending (an API version it refuses, an argument it checks) is listed with
an ``operation_id`` of null and the error as the reason.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import io
import json
import re
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "specs-real" / "azure"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
ORIGIN = "https://example.test"


@dataclass(frozen=True)
class Client:
    """One sync client of one package, used for one corpus spec."""

    spec: str
    """Relative to the corpus (``specification/`` of Azure/azure-rest-api-specs)."""
    dist: str
    module: str
    name: str
    api_version: str | None = None
    """The value passed as ``api_version=`` (the spec's version as the package spells it);
    None: the package's default (it does not offer the spec's version)."""
    args: dict[str, Any] = field(default_factory=dict)
    """Constructor arguments beyond endpoint and credential."""
    major: int | None = None
    """Only this major version of the package (another interpreter may hold another)."""

    def accepts(self, version: str) -> bool:
        return self.major is None or version.split(".")[0] == str(self.major)


FR = "cognitiveservices/data-plane/FormRecognizer/stable"
LANG = "cognitiveservices/data-plane/Language/stable"
TB = "cognitiveservices/data-plane/TranslatorText/stable"
HI = "ai/data-plane/HealthInsights"
KV = "keyvault/data-plane/Microsoft.KeyVault/stable/2025-06-01"
EMAIL = "communication/data-plane/Email/stable"
CREATOR = "maps/data-plane/Creator/stable/2023-07-01"

CLIENTS: tuple[Client, ...] = (
    # 1.0.0 is the release for the v1.0 API (1.1.0 moved to 2024-05-01, 2.0.0 to 2026-03-01).
    Client(
        f"{TB}/v1.0/TranslatorBatch.json",
        "azure-ai-translation-document",
        "azure.ai.translation.document",
        "DocumentTranslationClient",
        "1.0",
        major=1,
    ),
    Client(
        f"{TB}/v1.0/TranslatorBatch.json",
        "azure-ai-translation-document",
        "azure.ai.translation.document",
        "DocumentTranslationClient",
        major=2,
    ),
    Client(
        f"{TB}/v1.1/TranslatorBatch.json",
        "azure-ai-translation-document",
        "azure.ai.translation.document",
        "DocumentTranslationClient",
        major=1,
    ),
    Client(
        f"{TB}/v1.1/TranslatorBatch.json",
        "azure-ai-translation-document",
        "azure.ai.translation.document",
        "DocumentTranslationClient",
        major=2,
    ),
    Client(
        f"{LANG}/2021-10-01/questionanswering-authoring.json",
        "azure-ai-language-questionanswering",
        "azure.ai.language.questionanswering.authoring",
        "AuthoringClient",
    ),
    Client(
        f"{LANG}/2021-10-01/questionanswering-authoring.json",
        "azure-ai-language-questionanswering-authoring",
        "azure.ai.language.questionanswering.authoring",
        "QuestionAnsweringAuthoringClient",
    ),
    Client(
        f"{FR}/v2.0/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "FormRecognizerClient",
        "2.0",
    ),
    Client(
        f"{FR}/v2.0/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "FormTrainingClient",
        "2.0",
    ),
    Client(
        f"{FR}/v2.1/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "FormRecognizerClient",
        "2.1",
    ),
    Client(
        f"{FR}/v2.1/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "FormTrainingClient",
        "2.1",
    ),
    Client(
        f"{FR}/2022-08-31/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "DocumentAnalysisClient",
        "2022-08-31",
    ),
    Client(
        f"{FR}/2022-08-31/FormRecognizer.json",
        "azure-ai-formrecognizer",
        "azure.ai.formrecognizer",
        "DocumentModelAdministrationClient",
        "2022-08-31",
    ),
    Client(
        "cognitiveservices/data-plane/TextAnalytics/stable/v3.1/TextAnalytics.json",
        "azure-ai-textanalytics",
        "azure.ai.textanalytics",
        "TextAnalyticsClient",
        "v3.1",
    ),
    Client(
        f"{LANG}/2022-05-01/analyzetext-authoring.json",
        "azure-ai-textanalytics-authoring",
        "azure.ai.textanalytics.authoring",
        "TextAuthoringClient",
    ),
    Client(
        f"{LANG}/2022-05-01/analyzetext-authoring.json",
        "azure-ai-textanalytics-authoring",
        "azure.ai.textanalytics.authoring",
        "TextAuthoringProjectClient",
        None,
        {"project_name": "x1"},
    ),
    Client(
        f"{LANG}/2022-05-01/analyzeconversations-authoring.json",
        "azure-ai-language-conversations",
        "azure.ai.language.conversations.authoring",
        "ConversationAuthoringClient",
    ),
    Client(
        f"{LANG}/2022-05-01/analyzeconversations-authoring.json",
        "azure-ai-language-conversations-authoring",
        "azure.ai.language.conversations.authoring",
        "ConversationAuthoringClient",
    ),
    Client(
        f"{LANG}/2022-05-01/analyzeconversations-authoring.json",
        "azure-ai-language-conversations-authoring",
        "azure.ai.language.conversations.authoring",
        "ConversationAuthoringProjectClient",
        None,
        {"project_name": "x1"},
    ),
    Client(
        "ai/data-plane/DocumentIntelligence/stable/2024-11-30/DocumentIntelligence.json",
        "azure-ai-documentintelligence",
        "azure.ai.documentintelligence",
        "DocumentIntelligenceClient",
    ),
    Client(
        "ai/data-plane/DocumentIntelligence/stable/2024-11-30/DocumentIntelligence.json",
        "azure-ai-documentintelligence",
        "azure.ai.documentintelligence",
        "DocumentIntelligenceAdministrationClient",
    ),
    Client(
        f"{HI}/preview/2023-03-01-preview/openapi.json",
        "azure-healthinsights-cancerprofiling",
        "azure.healthinsights.cancerprofiling",
        "CancerProfilingClient",
    ),
    Client(
        f"{HI}/preview/2023-03-01-preview/openapi.json",
        "azure-healthinsights-clinicalmatching",
        "azure.healthinsights.clinicalmatching",
        "ClinicalMatchingClient",
    ),
    Client(
        "translation/data-plane/DocumentTranslation/stable/2024-05-01/openapi.json",
        "azure-ai-translation-document",
        "azure.ai.translation.document",
        "DocumentTranslationClient",
        "2024-05-01",
        major=2,
    ),
    Client(
        f"{HI}/stable/2024-04-01/openapi.json",
        "azure-healthinsights-radiologyinsights",
        "azure.healthinsights.radiologyinsights",
        "RadiologyInsightsClient",
    ),
    Client(
        f"{EMAIL}/2023-03-31/CommunicationServicesEmail.json",
        "azure-communication-email",
        "azure.communication.email",
        "EmailClient",
        "2023-03-31",
    ),
    Client(
        f"{KV}/backuprestore.json",
        "azure-keyvault-administration",
        "azure.keyvault.administration",
        "KeyVaultBackupClient",
    ),
    Client(
        f"{KV}/securitydomain.json",
        "azure-keyvault-securitydomain",
        "azure.keyvault.securitydomain",
        "SecurityDomainClient",
    ),
    Client(
        "healthdataaiservices/data-plane/HealthDataAIServices.DeidServices/stable/2024-11-15/"
        "HealthDataAIServices.DeidServices.json",
        "azure-health-deidentification",
        "azure.health.deidentification",
        "DeidentificationClient",
    ),
    Client(
        "appconfiguration/data-plane/Microsoft.AppConfiguration/stable/2023-11-01/"
        "appconfiguration.json",
        "azure-appconfiguration",
        "azure.appconfiguration",
        "AzureAppConfigurationClient",
    ),
    Client(
        "deviceupdate/data-plane/Microsoft.DeviceUpdate/stable/2022-10-01/deviceupdate.json",
        "azure-iot-deviceupdate",
        "azure.iot.deviceupdate",
        "DeviceUpdateClient",
        None,
        {"instance_id": "instance1"},
    ),
    Client(
        "devcenter/data-plane/Microsoft.DevCenter/stable/2023-04-01/devcenter.json",
        "azure-developer-devcenter",
        "azure.developer.devcenter",
        "DevCenterClient",
    ),
    Client(
        f"{EMAIL}/2025-09-01/CommunicationServicesEmail.json",
        "azure-communication-email",
        "azure.communication.email",
        "EmailClient",
        "2025-09-01",
    ),
    Client(
        "digitaltwins/data-plane/Microsoft.DigitalTwins/stable/2023-10-31/digitaltwins.json",
        "azure-digitaltwins-core",
        "azure.digitaltwins.core",
        "DigitalTwinsClient",
    ),
)

# Corpus specs with no Python package published for their service.
UNPUBLISHED = {
    "codesigning/data-plane/Azure.CodeSigning/preview/2023-06-15-preview/azure.codesigning.json": (
        "no Python data-plane package for Trusted Signing (code signing) is published;"
        " azure-mgmt-trustedsigning is the management plane"
    ),
    f"{CREATOR}/dataset.json": "no Python package for Azure Maps Creator is published",
    f"{CREATOR}/tileset.json": "no Python package for Azure Maps Creator is published",
    f"{CREATOR}/dwgconversion.json": "no Python package for Azure Maps Creator is published",
}

# Arguments a placeholder of the right shape cannot stand for: values the method checks
# before it sends (keyed ``Client.name.method``).
_FR_TARGET = {
    "modelId": "x1",
    "accessToken": "token",
    "expirationDateTimeTicks": 1,
    "resourceId": "resource",
    "resourceRegion": "westus",
}
_DA_TARGET = {
    "targetResourceId": "resource",
    "targetResourceRegion": "westus",
    "targetModelId": "x1",
    "targetModelLocation": "https://example.test/documentModels/x1",
    "accessToken": "token",
    "expirationDateTime": "2030-01-01T00:00:00Z",
}
_TRANSLATION = {
    "source_url": "https://example.test/source?sig=x",
    "target_url": "https://example.test/target?sig=x",
    "target_language": "fr",
}
ARGUMENTS: dict[str, dict[str, Any]] = {
    "FormTrainingClient.begin_copy_model": {"target": _FR_TARGET},
    "DocumentModelAdministrationClient.begin_copy_document_model_to": {"target": _DA_TARGET},
    "DocumentTranslationClient.begin_translation": _TRANSLATION,
}


# Methods that send one of several operations, depending on their arguments: each variant
# is called and listed.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "DocumentIntelligenceClient.begin_analyze_document": [
        {"body": {}},
        {"body": io.BytesIO(b"%PDF")},
    ],
    "DocumentIntelligenceClient.begin_classify_document": [
        {"body": {}},
        {"body": io.BytesIO(b"%PDF")},
    ],
    "KeyVaultBackupClient.begin_restore": [{}, {"key_name": "k1"}],
}


def _late_arguments() -> None:
    """Arguments built from the packages' own models (imported only where installed)."""
    try:
        ta = importlib.import_module("azure.ai.textanalytics")
    except ImportError:
        ta = None
    if ta is not None and hasattr(ta, "RecognizeEntitiesAction"):  # not in the 6.x betas
        ARGUMENTS["TextAnalyticsClient.begin_analyze_actions"] = {
            "documents": ["text"],
            "actions": [ta.RecognizeEntitiesAction()],
        }
    try:
        ac = importlib.import_module("azure.appconfiguration")
    except ImportError:
        return
    ARGUMENTS["AzureAppConfigurationClient.begin_create_snapshot"] = {
        "filters": [ac.ConfigurationSettingsFilter(key="*")],
    }


# -- the request a method starts -----------------------------------------------


class Sent(Exception):
    def __init__(self, request: Any) -> None:
        super().__init__("sent")
        self.request = request


def _transport() -> Any:
    from azure.core.pipeline.transport import HttpTransport

    class Capture(HttpTransport):  # type: ignore[type-arg]
        def __enter__(self) -> Any:
            return self

        def __exit__(self, *args: object) -> None:
            pass

        def open(self) -> None:
            pass

        def close(self) -> None:
            pass

        def send(self, request: Any, **kwargs: Any) -> Any:
            raise Sent(request)

    return Capture()


class Token:
    """A token credential that never asks anyone."""

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        from azure.core.credentials import AccessToken

        return AccessToken("token", int(time.time()) + 3600)

    def get_token_info(self, *scopes: str, options: Any = None) -> Any:
        from azure.core.credentials import AccessTokenInfo

        return AccessTokenInfo("token", int(time.time()) + 3600)


def _credentials() -> Iterator[Any]:
    from azure.core.credentials import AzureKeyCredential

    yield Token()
    yield AzureKeyCredential("a2V5a2V5a2V5")


def build(client: Client, api_version: str | None) -> Any:
    cls = getattr(importlib.import_module(client.module), client.name)
    params = inspect.signature(cls.__init__).parameters
    url_name = next(n for n in ("endpoint", "vault_url", "base_url") if n in params)
    kwargs: dict[str, Any] = {url_name: ORIGIN, **client.args, "transport": _transport()}
    if api_version is not None:
        kwargs["api_version"] = api_version
    errors = []
    for credential in _credentials():
        try:
            return cls(credential=credential, **kwargs)
        except (TypeError, ValueError) as exc:
            errors.append(exc)
    raise errors[-1]


def placeholder(param: inspect.Parameter) -> Any:
    """A value of the shape the parameter's name and annotation ask for."""
    note = str(param.annotation).replace("typing.", "").replace("<class '", "").rstrip("'>")
    name = param.name
    if name.endswith("_url") or name in ("source_url", "url_source"):
        return "https://example.test/container?sig=x"
    if name == "documents":
        return ["text"]
    if note.startswith(("List", "list", "Sequence")):
        return ["x1"]
    if "JSON" in note or "_models." in note or "Dict" in note or "dict" in note:
        return {}
    if "bytes" in note or "IO" in note:
        return io.BytesIO(b"%PDF")
    if note == "bool":
        return True
    if note in ("int", "float"):
        return 1
    if (
        note == "str"
        or note.startswith("Optional[str")
        or name.endswith(("_id", "_name", "name", "_key", "token", "language"))
    ):
        return "x1"
    return {}


def call(method: Callable[..., Any], override: dict[str, Any]) -> Any:
    """Call ``method`` with placeholders; the request it sends (or the error it raised)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in inspect.signature(method).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.name in override:
            value = override[param.name]
        elif param.default is not param.empty:
            continue
        else:
            value = placeholder(param)
        if param.kind == param.POSITIONAL_ONLY or param.kind == param.POSITIONAL_OR_KEYWORD:
            args.append(value)
        else:
            kwargs[param.name] = value
    for name, value in override.items():
        if name not in inspect.signature(method).parameters:
            kwargs[name] = value
    try:
        method(*args, **kwargs)
    except Sent as sent:
        return sent.request
    except Exception as exc:  # noqa: BLE001 - any refusal before sending is the answer
        return exc
    return RuntimeError("returned without sending a request")


def begin_methods(instance: Any) -> Iterator[tuple[str, Callable[..., Any]]]:
    """``begin_*`` of the client, then of its operation groups (``group.begin_x``)."""
    for name in sorted(dir(type(instance))):
        if name.startswith("begin_"):
            yield name, getattr(instance, name)
    for attr in sorted(vars(instance)):
        if attr.startswith("_"):
            continue
        group = getattr(instance, attr)
        if callable(group) or type(group).__module__.split(".")[0] != "azure":
            continue
        for name in sorted(dir(type(group))):
            if name.startswith("begin_"):
                yield f"{attr}.{name}", getattr(group, name)


def _azure_object(value: Any) -> bool:
    return not callable(value) and type(value).__module__.split(".")[0] == "azure"


def internal_begin_methods(instance: Any) -> Iterator[tuple[str, Callable[..., Any]]]:
    """``begin_*`` of the generated client a hand-written one wraps (``_client.begin_x``,
    ``_client.group.begin_x``): what the package generated but may not expose."""
    for attr, inner in sorted(vars(instance).items()):
        if not attr.startswith("_") or not _azure_object(inner) or "config" in attr:
            continue
        for name in sorted(dir(type(inner))):
            if name.startswith("begin_"):
                yield f"{attr}.{name}", getattr(inner, name)
        for group_name, group in sorted(vars(inner).items()):
            if group_name.startswith("_") or not _azure_object(group):
                continue
            for name in sorted(dir(type(group))):
                if name.startswith("begin_"):
                    yield f"{attr}.{group_name}.{name}", getattr(group, name)


def configured_version(instance: Any) -> str | None:
    """The API version a client holds (for clients that put it in the path, not the query)."""
    for path in (
        "_api_version",
        "api_version",
        "_config.api_version",
        "_client._config.api_version",
    ):
        value: Any = instance
        for part in path.split("."):
            value = getattr(value, part, None)
        if value is not None:
            return str(getattr(value, "value", value))
    return None


# -- the corpus spec's operations ----------------------------------------------


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    pattern: re.Pattern[str]
    template: str
    consumes: tuple[str, ...]
    long_running: bool


def _regex(template: str) -> str:
    out = ""
    for part in re.split(r"(\{[^}]+\})", template):
        out += "[^/]+" if part.startswith("{") else re.escape(part)
    return out


def _host_path(spec: dict[str, Any]) -> str:
    host = (spec.get("x-ms-parameterized-host") or {}).get("hostTemplate")
    if host is None:
        return spec.get("basePath") or ""
    if "://" in host:
        host = host.split("://", 1)[1]
    # The origin: a leading variable (``{endpoint}``) or a host name.
    rest = re.sub(r"^(\{[^}]+\}|[^/]+)", "", host, count=1)
    return rest.rstrip("/") + (spec.get("basePath") or "").rstrip("/")


def operations(path: Path) -> list[Operation]:
    spec = json.loads(path.read_text(encoding="utf-8"))
    prefix = _host_path(spec)
    found = []
    for section in ("paths", "x-ms-paths"):
        for key, item in (spec.get(section) or {}).items():
            template = prefix + key.split("?", 1)[0]
            for method, op in item.items():
                if method not in METHODS:
                    continue
                found.append(
                    Operation(
                        op["operationId"],
                        method.upper(),
                        re.compile(_regex(template) + "$"),
                        f"{method.upper()} {template}",
                        tuple(op.get("consumes") or spec.get("consumes") or ()),
                        op.get("x-ms-long-running-operation") is True,
                    )
                )
    return found


def match(request: Any, ops: list[Operation]) -> list[Operation]:
    path = urllib.parse.unquote(urllib.parse.urlsplit(request.url).path)
    hits = [op for op in ops if op.method == request.method and op.pattern.match(path)]
    if len(hits) > 1:
        sent = (request.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        typed = [op for op in hits if sent in (c.lower() for c in op.consumes)]
        hits = typed or hits
    return hits


def describe(variant: dict[str, Any]) -> dict[str, str]:
    """How a variant call differs from the plain one (``body=JSON``, ``key_name='k1'``)."""
    if not variant:
        return {}
    shown: dict[type, str] = {dict: "JSON", io.BytesIO: "bytes"}
    return {
        "arguments": ", ".join(
            f"{k}={shown.get(type(v)) or repr(v)}" for k, v in sorted(variant.items())
        )
    }


def outcome(sent: Any, ops: list[Operation]) -> dict[str, Any]:
    """The operation the request is, or why there is none."""
    if isinstance(sent, Exception):
        first = (str(sent).splitlines() or [""])[0][:200]
        return {
            "operation_id": None,
            "reason": f"raises {type(sent).__name__} before sending: {first}",
        }
    path = urllib.parse.urlsplit(sent.url).path
    request = f"{sent.method} {path}"
    hits = match(sent, ops)
    if len(hits) == 1:
        return {
            "operation_id": hits[0].operation_id,
            "request": request,
            "spec_operation": hits[0].template,
            "long_running_in_spec": hits[0].long_running,
        }
    if hits:
        return {
            "operation_id": None,
            "request": request,
            "reason": "ambiguous: " + ", ".join(h.operation_id for h in hits),
        }
    return {
        "operation_id": None,
        "request": request,
        "reason": f"no operation of this spec is {request}",
    }


# -- one run -------------------------------------------------------------------


def api_versions(module: Any) -> list[str]:
    """The values of the ``*ApiVersion`` enums of the client's package (empty: none)."""
    found: set[str] = set()
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == module.__name__ or name.startswith(module.__name__ + ".")):
            continue
        for attr, value in vars(mod).items():
            if attr.endswith("ApiVersion") and isinstance(value, type) and issubclass(value, Enum):
                found.update(str(m.value) for m in value)
    return sorted(found)


def owns(dist: str, module: Any) -> bool:
    """Whether the module's file is one of the distribution's files."""
    here = Path(module.__file__).resolve()
    return any(
        Path(str(f.locate())).resolve() == here for f in importlib.metadata.files(dist) or ()
    )


def _bare(version: str | None) -> str:
    return (version or "").lower().removeprefix("v")


def survey(corpus: Path) -> list[dict[str, Any]]:
    _late_arguments()
    rows: list[dict[str, Any]] = []
    for client in CLIENTS:
        try:
            module = importlib.import_module(client.module)
            version = importlib.metadata.version(client.dist)
            getattr(module, client.name)
        except (ImportError, AttributeError, importlib.metadata.PackageNotFoundError):
            continue
        if not owns(client.dist, module) or not client.accepts(version):
            continue  # another distribution installs that module here, or another release
        ops = operations(corpus / client.spec)
        spec_version = json.loads((corpus / client.spec).read_text())["info"]["version"]
        default = build(client, None)
        probe = next(iter(begin_methods(default)), None)
        default_version = None
        in_path = None
        if probe is not None:
            sent = call(probe[1], ARGUMENTS.get(f"{client.name}.{probe[0]}", {}))
            if not isinstance(sent, Exception):
                url = urllib.parse.urlsplit(sent.url)
                default_version = (urllib.parse.parse_qs(url.query).get("api-version") or [None])[0]
                found = re.search(r"/(v\d+\.\d+)(/|$)", url.path)
                in_path = found[1] if found else None
        # Clients of the older APIs put the version in the path, not the query.
        default_version = default_version or configured_version(default) or in_path
        declared = api_versions(module)
        instance = build(client, client.api_version) if client.api_version else default
        methods = []
        for name, method in begin_methods(instance):
            key = f"{client.name}.{name}"
            for variant in VARIANTS.get(key) or [{}]:
                entry = {"method": name, **describe(variant)}
                entry |= outcome(call(method, {**ARGUMENTS.get(key, {}), **variant}), ops)
                methods.append(entry)
        public = {m["operation_id"] for m in methods}
        internal = []
        for name, method in internal_begin_methods(instance):
            sent = call(method, {})
            if isinstance(sent, Exception):
                continue
            hits = match(sent, ops)
            if len(hits) == 1 and hits[0].operation_id not in public:
                public.add(hits[0].operation_id)
                internal.append({"method": name, "operation_id": hits[0].operation_id})
        rows.append(
            {
                "spec": client.spec,
                "spec_api_version": spec_version,
                "package": client.dist,
                "version": version,
                "client": f"{client.module}.{client.name}",
                "default_api_version": default_version,
                "declared_api_versions": declared,
                "supports_spec_api_version": _bare(spec_version)
                in {_bare(v) for v in [*declared, default_version]},
                "api_version_used": client.api_version or default_version,
                "begin_methods": methods,
                "not_exposed": internal,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--also", action="append", default=[], help="another interpreter")
    parser.add_argument("--rows", action="store_true", help="print this interpreter's rows")
    parser.add_argument("-o", "--output", type=Path, help="write the JSON here")
    args = parser.parse_args(argv)
    rows = survey(args.corpus)
    if args.rows:
        sys.stdout.write(json.dumps(rows) + "\n")
        return 0
    for python in args.also:
        out = subprocess.run(
            [python, __file__, "--corpus", str(args.corpus), "--rows"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows.extend(json.loads(out))
    # A generated operation is "not exposed" only if no client of the package has it.
    public: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        ids = {m["operation_id"] for m in row["begin_methods"] if m["operation_id"]}
        public.setdefault((row["spec"], row["package"], row["version"]), set()).update(ids)
    for row in rows:
        shown = public[(row["spec"], row["package"], row["version"])]
        row["not_exposed"] = [m for m in row["not_exposed"] if m["operation_id"] not in shown]

    def index(row: dict[str, Any]) -> int:
        return next(
            i
            for i, c in enumerate(CLIENTS)
            if (c.spec, f"{c.module}.{c.name}", c.dist)
            == (row["spec"], row["client"], row["package"])
            and c.accepts(row["version"])
        )

    rows.sort(key=index)
    specs: dict[str, dict[str, Any]] = {}
    for path in sorted({c.spec for c in CLIENTS} | set(UNPUBLISHED)):
        raw = json.loads((args.corpus / path).read_text(encoding="utf-8"))
        entry: dict[str, Any] = {"api_version": raw["info"]["version"], "clients": []}
        if path in UNPUBLISHED:
            entry["no_package"] = UNPUBLISHED[path]
        specs[path] = entry
    for row in rows:
        spec = row.pop("spec")
        row.pop("spec_api_version")
        specs[spec]["clients"].append(row)
    document = {
        "generated_by": "bench/azure_begin_methods.py",
        "python": sys.version.split()[0],
        "azure_core": importlib.metadata.version("azure-core"),
        "specs": specs,
    }
    text = json.dumps(document, indent=2) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
