"""The log and reset over HTTP show and touch only the caller's share; secrets are masked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jobgen.server import RunningServer, run_server
from tests.helpers import SPECS
from tests.server.conftest import Session

KEY_1 = {"x-api-key": "key-1"}
KEY_2 = {"x-api-key": "key-2"}


def log(session: Session, headers: dict[str, str], **params: str) -> list[dict[str, Any]]:
    url = session.server.base_url + "/_jobgen/requests"
    answer = httpx.get(url, headers=headers, params=params)
    assert answer.status_code == 200
    entries: list[dict[str, Any]] = answer.json()["requests"]
    return entries


def reset(session: Session, headers: dict[str, str]) -> None:
    answer = httpx.post(session.server.base_url + "/_jobgen/reset", headers=headers)
    assert answer.json() == {"reset": True}


def test_each_key_sees_only_its_own_requests(sume: Session) -> None:
    mine = sume.id_of(sume.create(**{"Idempotency-Key": "secret-plan-1"}))
    sume.client.get(f"/v1/jobs/{mine}", params={"expand": "x"})
    theirs = sume.id_of(sume.create(**KEY_2, **{"Idempotency-Key": "their-plan"}))
    sume.status(mine, **KEY_2)  # a 401: logged for key-2, who sent it
    httpx.get(f"{sume.server.base_url}/v1/jobs/{mine}")  # no credential at all

    assert [(e["operation"], e["job_id"]) for e in log(sume, KEY_1)] == [
        ("create", mine),
        ("status", mine),
    ]
    seen_by_2 = log(sume, KEY_2)
    assert [(e["operation"], e["job_id"], e["fault"]) for e in seen_by_2] == [
        ("create", theirs, None),
        ("status", mine, "wrong_credentials"),
    ]
    assert "secret-plan-1" not in str(seen_by_2) and "expand" not in str(seen_by_2)
    assert log(sume, KEY_2, job=mine) == [seen_by_2[1]]
    # Without a credential, only the requests made without one.
    (anonymous,) = log(sume, {})
    assert anonymous["fault"] == "missing_credentials" and anonymous["job_id"] == mine
    # In process, the test harness sees everyone's.
    assert len(sume.server.requests()) == 5


def test_reset_forgets_only_the_callers_jobs_keys_and_requests(sume: Session) -> None:
    mine = sume.id_of(sume.create(**{"Idempotency-Key": "same"}))
    theirs = sume.id_of(sume.create(**KEY_2, **{"Idempotency-Key": "same"}))
    assert mine != theirs  # an idempotency key belongs to its caller
    reset(sume, KEY_2)
    assert log(sume, KEY_2) == []
    assert sume.status(theirs, **KEY_2).status_code == 404
    assert sume.status(mine).status_code == 200
    assert [e["seq"] for e in log(sume, KEY_1)] == [1, 4]  # seq numbers every caller's requests
    again = sume.create(**{"Idempotency-Key": "same"})
    assert sume.id_of(again) == mine  # key-1's replay survived key-2's reset
    reset(sume, {})  # an anonymous reset forgets what was made without a credential
    assert sume.status(mine).status_code == 200
    reset(sume, KEY_1)
    assert sume.status(mine).status_code == 404
    assert sume.server.app.store.jobs == {}
    assert [e["status"] for e in log(sume, KEY_1)] == [404]  # the read just made


def test_anonymous_control_jobs_belong_to_anonymous_callers(sume: Session) -> None:
    made = httpx.post(sume.server.base_url + "/_jobgen/jobs").json()["id"]
    assert sume.status(made, **KEY_2).status_code == 200  # readable with any credential
    reset(sume, KEY_1)
    assert sume.status(made).status_code == 200
    reset(sume, {})
    assert sume.status(made).status_code == 404


def test_secret_headers_are_masked_in_the_log(sume: Session) -> None:
    sume.create(
        **{
            "Idempotency-Key": "plan-7",
            "Cookie": "session=abc123",
            "X-Auth-Token": "t0k3n",
            "Accept": "application/json",
        }
    )
    (record,) = sume.server.requests()
    headers = record.headers
    assert headers["x-api-key"] == "***"
    assert headers["cookie"] == "***" and headers["x-auth-token"] == "***"
    assert headers["idempotency-key"] == "plan-7" and headers["accept"] == "application/json"
    assert "key-1" not in repr(record) and "abc123" not in repr(record)
    bearer = httpx.get(
        sume.server.base_url + "/v1/jobs/x", headers={"authorization": "Bearer sk_live_9"}
    )
    assert bearer.status_code == 401
    assert sume.server.requests()[-1].headers["authorization"] == "Bearer ***"


@pytest.fixture
def query_key(tmp_path: Path) -> Iterator[RunningServer]:
    """Sume with its API key in the query string (as Google Maps or Azure SAS URLs do)."""
    spec = yaml.safe_load((SPECS / "sume.yaml").read_text())
    spec["components"]["securitySchemes"]["ApiKeyAuth"] = {
        "type": "apiKey",
        "in": "query",
        "name": "key",
    }
    path = tmp_path / "sume.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with run_server(path) as server:
        yield server


def test_secrets_in_query_strings_are_masked(query_key: RunningServer) -> None:
    base = query_key.base_url
    job = query_key.create_job(credential="k-123")
    httpx.get(f"{base}/v1/jobs/{job}?key=k-123&expand=a%20b&access_token=zz&sig=s1&x=")
    httpx.get(f"{base}/v1/jobs/{job}?key=other")
    mine = httpx.get(f"{base}/_jobgen/requests?key=k-123").json()["requests"]
    assert [entry["query"] for entry in mine] == [
        "key=***&expand=a%20b&access_token=***&sig=***&x="
    ]
    assert mine[0]["status"] == 200
    theirs = httpx.get(f"{base}/_jobgen/requests?key=other").json()["requests"]
    assert [(e["query"], e["fault"]) for e in theirs] == [("key=***", "wrong_credentials")]
    assert "k-123" not in repr(query_key.requests())
