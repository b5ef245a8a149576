"""The Voiceover dubbing API, as its documentation (the description of
`tests/vendors/specs/voiceover.yaml`) states it; no jobgen code:

- every request sends the account's key in `xi-api-key`, else 401
  `{"detail": {"status": "invalid_api_key"}}`;
- `POST /v1/dubs` takes `source_url` and `target_languages` and answers
  `{dub_id, expected_duration_sec}`;
- `GET /v1/dubs/{dub_id}` answers the dub: `queued`, `dubbing`, then `dubbed`, or
  `failed` with `error`, or `canceled`; `target_languages` as given at create;
- `GET /v1/dubs/{dub_id}/audio/{language_code}` answers the dubbed audio
  (`audio/mpeg`) of one of the dub's target languages once it is `dubbed`, 404 for
  another language, 425 before;
- `DELETE /v1/dubs/{dub_id}` stops a `queued` or `dubbing` dub only with `force=true`
  (else 423 Locked, the dub going on); stopped, the dub is `canceled`; an ended dub
  is answered 409.

A dub's status reads follow its `Plan`: one state per read, the last repeated.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from tests.vendors.server import Answer, Seen, json_answer

KEY = "xi-test-key-0123"
_DUB = re.compile(r"^/v1/dubs/(dub_[0-9]+)(?:/audio/([^/]+))?$")
RUNNING = ("queued", "dubbing")


def audio(dub_id: str, language: str) -> bytes:
    """The dubbed audio the API answers: an MP3 frame header, then the dub's name."""
    return b"\xff\xfb\x90\x00" + f"{dub_id}:{language}".encode()


@attrs.frozen
class Plan:
    states: tuple[str, ...]


@attrs.define
class Dub:
    id: str
    languages: list[str]
    plan: Plan
    status: str = "queued"
    reads: int = 0


@attrs.define
class Voiceover:
    """The API; `plans` gives each new dub its course, in creation order."""

    plans: list[Plan] = attrs.field(factory=list)
    dubs: dict[str, Dub] = attrs.field(factory=dict)

    def __call__(self, seen: Seen) -> Answer:
        if seen.headers.get("xi-api-key") != KEY:
            return json_answer(401, {"detail": {"status": "invalid_api_key"}})
        if seen.path == "/v1/dubs" and seen.method == "POST":
            body = seen.json()
            n = len(self.dubs) + 1
            plan = self.plans[n - 1] if n <= len(self.plans) else Plan(("dubbed",))
            dub = Dub(f"dub_{n}", list(body["target_languages"]), plan)
            self.dubs[dub.id] = dub
            return json_answer(200, {"dub_id": dub.id, "expected_duration_sec": 12.5})
        found = _DUB.match(seen.path)
        dub = self.dubs.get(found.group(1)) if found else None
        if found is None or dub is None:
            return json_answer(404, {"detail": {"status": "dubbing_not_found"}})
        language = found.group(2)
        if language is not None and seen.method == "GET":
            if dub.status != "dubbed":
                return json_answer(425, {"detail": {"status": "dubbing_not_finished"}})
            if language not in dub.languages:
                return json_answer(404, {"detail": {"status": "language_not_found"}})
            return Answer(200, audio(dub.id, language), {"Content-Type": "audio/mpeg"})
        if seen.method == "GET":
            dub.status = dub.plan.states[min(dub.reads, len(dub.plan.states) - 1)]
            dub.reads += 1
            return json_answer(200, self.record(dub))
        if seen.method == "DELETE":
            if dub.status not in RUNNING:
                return json_answer(409, {"detail": {"status": "dubbing_ended"}})
            if ("force", "true") not in seen.query:
                return json_answer(423, {"detail": {"status": "dubbing_in_progress"}})
            dub.status = "canceled"
            dub.plan = Plan(("canceled",))
            return json_answer(200, self.record(dub))
        return json_answer(405, {"detail": {"status": "method_not_allowed"}})

    def record(self, dub: Dub) -> dict[str, Any]:
        return {
            "dub_id": dub.id,
            "status": dub.status,
            "target_languages": dub.languages,
            "error": "the source has no speech" if dub.status == "failed" else None,
        }
