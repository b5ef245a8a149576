"""The client view: its credentials, environment variables and resources."""

from __future__ import annotations

from typing import Any

from ...model import ir
from ..code import from_line
from ..escape import Code, doc_text, ident, join, py_str

__all__ = ["client_view", "default_base_url", "env_prefix"]


_PROVIDED_SYNC = "str | _abc.Callable[[], str] | None"
_PROVIDED_ASYNC = "str | _abc.Callable[[], str | _abc.Awaitable[str]] | None"
_CREDENTIAL = " | _tokens.TokenCredential | None"


def env_prefix(sdk: ir.Sdk) -> str:
    """The prefix of the environment variables a client reads its credentials from."""
    stem = sdk.package.upper()
    return stem[: -len("_SDK")] if stem.endswith("_SDK") and len(stem) > 4 else stem


def default_base_url(sdk: ir.Sdk) -> str | None:
    """The client's default ``base_url``: the spec's server, when it is absolute (else a
    client must be given one)."""
    return sdk.base_url if sdk.base_url and "://" in sdk.base_url else None


def client_view(sdk: ir.Sdk) -> dict[str, Any]:
    auths: list[dict[str, Any]] = []
    for auth in sdk.auths:
        if isinstance(auth, ir.ApiKeyAuth):
            auths.append(
                {
                    "params": [ident(auth.param)],
                    "doc": doc_text(
                        f"{auth.param}: API key sent as the {auth.where} {auth.wire!r}"
                        + (f", after {auth.prefix!r}." if auth.prefix else ".")
                        + (
                            " A parameter of every operation: optional here, and a"
                            " call's own value wins."
                            if auth.declared
                            else ""
                        )
                    ),
                    "make": Code(
                        f"_http.ApiKey({py_str(auth.scheme)}, {py_str(auth.wire)}, "
                        f"{py_str(auth.where)}, {ident(auth.param)}"
                        + (f", prefix={py_str(auth.prefix)}" if auth.prefix else "")
                        + (", declared=True)" if auth.declared else ")")
                    ),
                    "check": ident(auth.param),
                    "types": (Code(_PROVIDED_SYNC), Code(_PROVIDED_ASYNC)),
                }
            )
        elif isinstance(auth, ir.BearerAuth):
            items = [py_str(scope) for scope in auth.scopes]
            # A tuple literal as ruff formats it: `()`, `("a",)`, `("a", "b")`.
            scopes = ", ".join(items) + ("," if len(items) == 1 else "")
            auths.append(
                {
                    "params": [ident(auth.param)],
                    "doc": doc_text(
                        f"{auth.param}: bearer token sent in the Authorization header, or a"
                        " token credential (get_token(*scopes), as azure-identity's)"
                        + (f" asked for {', '.join(auth.scopes)}." if auth.scopes else ".")
                    ),
                    "make": Code(
                        f"_http.Bearer({py_str(auth.scheme)},"
                        f" _tokens.token_source({ident(auth.param)}, ({scopes})))"
                    ),
                    "check": ident(auth.param),
                    "types": (
                        Code(_PROVIDED_SYNC.replace(" | None", _CREDENTIAL)),
                        Code(_PROVIDED_ASYNC.replace(" | None", _CREDENTIAL)),
                    ),
                    "bearer": True,
                }
            )
        else:
            auths.append(
                {
                    "params": [ident(auth.username_param), ident(auth.password_param)],
                    "doc": doc_text(
                        f"{auth.username_param}, {auth.password_param}: HTTP basic credentials."
                    ),
                    "make": Code(
                        f"_http.Basic({py_str(auth.scheme)}, {ident(auth.username_param)}, "
                        f"{ident(auth.password_param)})"
                    ),
                    "check": Code(
                        f"{ident(auth.username_param)} is not None and {ident(auth.password_param)}"
                    ),
                    "types": (Code("str | None"), Code("str | None")),
                }
            )
    prefix = env_prefix(sdk)
    envs = [
        {"param": p, "name": py_str(f"{prefix}_{p.upper()}"), "doc": Code(f"{prefix}_{p.upper()}")}
        for auth in auths
        for p in auth["params"]
    ]
    ops = [op for r in sdk.resources for op in r.operations]
    required = (
        bool(auths)
        and bool(ops)
        and all(op.security for op in ops)
        and not any(isinstance(a, ir.ApiKeyAuth) and a.declared for a in sdk.auths)
    )
    choices = "; or ".join(
        "=, ".join(str(p) for p in auth["params"])
        + "= or set "
        + ", ".join(f"{prefix}_{str(p).upper()}" for p in auth["params"])
        for auth in auths
    )
    return {
        "auth_signature": join(
            ", ", [Code(f"{p}: {auth['types'][1]}") for auth in auths for p in auth["params"]]
        ),
        "auth_call": join(", ", [p for auth in auths for p in auth["params"]]),
        "base_url_doc": doc_text(sdk.base_url),
        "operation_urls": any(
            j.operation_url or j.final_from in ("location", "original-uri", "create-location")
            for j in sdk.jobs
        ),
        "auths": auths,
        "bearer": any(auth.get("bearer") for auth in auths),
        "envs": envs,
        "required": required,
        "missing": py_str(f"no credentials: pass {choices}"),
        "base_url": py_str(base_url) if (base_url := default_base_url(sdk)) else None,
        "token_url": next(
            (
                py_str(a.token_url)
                for a in sdk.auths
                if isinstance(a, ir.BearerAuth) and a.token_url
            ),
            None,
        ),
        "resources": [
            {
                "name": ident(r.name),
                "doc_name": doc_text(r.name),
                "attr": ident(r.attr),
                "module": ident(r.module),
                "import": Code(from_line(".resources." + r.module, [r.name], 8)),
                "async_import": Code(from_line(".resources." + r.module, ["Async" + r.name], 8)),
            }
            for r in sdk.resources
        ],
    }
