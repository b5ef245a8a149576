"""jobgen diff on pairs of real published spec versions (see tests/diff/real/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobgen.diff import diff_sdks
from jobgen.model.build import load_and_build

REAL = Path(__file__).parent / "real"


def _report(name: str) -> set[tuple[str, str, bool]]:
    old = load_and_build(REAL / name / "old.yaml")
    new = load_and_build(REAL / name / "new.yaml")
    return {(c.kind, c.location, c.breaking) for c in diff_sdks(old, new).changes}


def test_universal_3_launch() -> None:
    """TranscriptOptionalParams is only ever sent (as an allOf base of TranscriptParams):
    its fields follow the request rules, so a field that became required breaks and one
    that may no longer be None does too; a removed request default breaks."""
    assert _report("assemblyai-universal-3") == {
        ("enum.value_removed", "schema SpeechModel", True),
        ("enum.value_added", "schema SpeechModel", False),
        ("default.changed", "schema TranscriptOptionalParams.speech_model", True),
        ("default.changed", "schema TranscriptParams.speech_model", True),
        ("field.became_non_nullable", "schema TranscriptOptionalParams.speech_models", True),
        ("field.became_non_nullable", "schema TranscriptParams.speech_models", True),
        ("field.became_required", "schema TranscriptOptionalParams.speech_models", True),
        ("field.became_required", "schema TranscriptParams.speech_models", True),
        ("field.became_optional", "schema TranscriptSpeechUnderstanding.request", True),
        ("field.added", "schema Transcript.temperature", False),
        ("field.added", "schema TranscriptOptionalParams.temperature", False),
        ("field.added", "schema TranscriptParams.temperature", False),
    }


def test_universal_3_launch_names_the_request_model() -> None:
    old = load_and_build(REAL / "assemblyai-universal-3" / "old.yaml")
    new = load_and_build(REAL / "assemblyai-universal-3" / "new.yaml")
    messages = {
        c.message
        for c in diff_sdks(old, new).changes
        if c.location == "schema TranscriptOptionalParams.speech_models"
    }
    assert messages == {
        "speech_models is now required (request model)",
        "speech_models may no longer be None (request model)",
    }


def test_subtitles_gain_a_media_type() -> None:
    assert _report("assemblyai-subtitles-html") == {
        ("response.media_types_changed", "operation getSubtitles response", False)
    }


def test_openai_drops_a_minimum_length() -> None:
    assert _report("openai-namespace-description") == {
        ("constraint.loosened", "schema NamespaceToolParam.description", False),
        ("constraint.loosened", "schema BetaNamespaceToolParam.description", False),
    }


def test_openai_raises_a_maximum_length() -> None:
    old = load_and_build(REAL / "openai-compaction-length" / "old.yaml")
    new = load_and_build(REAL / "openai-compaction-length" / "new.yaml")
    report = diff_sdks(old, new)
    assert {(c.kind, c.location, c.message) for c in report.changes} == {
        (
            "constraint.loosened",
            f"schema {name}.encrypted_content",
            "maxLength 10485760 -> 20971520",
        )
        for name in ("CompactionSummaryItemParam", "BetaCompactionSummaryItemParam")
    }
    assert report.bump == "patch"
    # The same two versions the other way round: a tighter bound, on a model no operation
    # carries (so only ever received), breaks nobody.
    back = diff_sdks(new, old)
    assert {(c.kind, c.breaking) for c in back.changes} == {("constraint.tightened", False)}


PAIRS = [p.name for p in sorted(REAL.iterdir()) if p.is_dir()]


def test_every_pair_is_tested() -> None:
    assert len(PAIRS) == 4


@pytest.mark.parametrize("name", PAIRS)
@pytest.mark.parametrize("version", ["old.yaml", "new.yaml"])
def test_each_version_is_unchanged_against_itself(name: str, version: str) -> None:
    sdk = load_and_build(REAL / name / version)
    assert diff_sdks(sdk, load_and_build(REAL / name / version)).changes == ()
