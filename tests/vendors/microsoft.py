"""Microsoft's own Python clients (azure-core and the service packages, test-only
dependencies) on the services of `azure_shapes`: an azure-core transport that hands each
request to the service's handler instead of the network."""

from __future__ import annotations

import io
import time
from typing import Any

import httpx
import requests
import urllib3
from azure.core.credentials import AccessToken
from azure.core.pipeline.transport import RequestsTransport
from requests.adapters import BaseAdapter

from tests.vendors.azure_rpc import TOKEN, AzureService


class _Adapter(BaseAdapter):
    """A `requests` adapter answering from an `AzureService`."""

    def __init__(self, service: AzureService) -> None:
        super().__init__()
        self.service = service

    def send(self, request: Any, **_: Any) -> requests.Response:  # type: ignore[override]
        body = request.body or b""
        content = body.encode() if isinstance(body, str) else bytes(body)
        answer = self.service.handle(
            httpx.Request(
                request.method, request.url, headers=dict(request.headers), content=content
            )
        )
        data = answer.read()
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers.update(answer.headers)
        response.raw = urllib3.HTTPResponse(
            body=io.BytesIO(data),
            headers=dict(answer.headers),
            status=answer.status_code,
            preload_content=False,
        )
        response.url, response.request = request.url, request
        return response

    def close(self) -> None:
        pass


def transport(service: AzureService) -> RequestsTransport:
    """An azure-core transport whose every request `service` answers."""
    session = requests.Session()
    session.mount("https://", _Adapter(service))
    return RequestsTransport(session=session)


class Credential:
    """A TokenCredential (azure-identity's protocol) giving the services' token."""

    def get_token(self, *scopes: str, **_: Any) -> AccessToken:
        return AccessToken(TOKEN, int(time.time()) + 3600)
