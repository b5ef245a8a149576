"""`jobgen validate` warns about schemas no value can satisfy and patterns a backtracking
regex engine may give up on, naming the pointer and the fix; the exit code is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest
import referencing
import yaml
from referencing.jsonschema import DRAFT202012

from jobgen.cli import main
from tests.helpers import REAL_SPECS, write

ASSEMBLYAI = REAL_SPECS / "assemblyai-openapi.yml"


def _spec(tmp_path: Path, schemas: dict[str, object]) -> Path:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shapes", "version": "1"},
        "paths": {},
        "components": {"schemas": schemas},
    }
    return write(tmp_path / "shapes.yaml", yaml.safe_dump(document, sort_keys=False))


def _warnings(capsys: pytest.CaptureFixture[str], spec: Path) -> list[str]:
    assert main(["validate", str(spec)]) == 0
    return [
        line.removeprefix("warning: ")
        for line in capsys.readouterr().err.splitlines()
        if line.startswith("warning: ")
    ]


def test_assemblyai_s_transcript_params_is_named_with_the_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Oracle: jsonschema-rs, an implementation of JSON Schema the project did not write,
    refuses AssemblyAI's own example of TranscriptParams, as the warning says it must."""
    warnings = _warnings(capsys, ASSEMBLYAI)
    transcript = [w for w in warnings if "/components/schemas/TranscriptParams/" in w]
    assert transcript[1] == (
        f"{ASSEMBLYAI}#/components/schemas/TranscriptParams/allOf/1: no value can satisfy it: "
        "the required property audio_url is refused by this member's additionalProperties: "
        "false (at /components/schemas/TranscriptOptionalParams), which sees only its own "
        "properties audio_end_at, audio_start_from, auto_chapters, auto_highlights, "
        "content_safety and 40 more; fix: move additionalProperties: false to the schema "
        "holding the allOf, with every property listed there (OpenAPI 3.1: "
        "unevaluatedProperties: false)"
    )
    document = yaml.safe_load(ASSEMBLYAI.read_text(encoding="utf-8"))
    text = json.dumps(document["components"]["schemas"]).replace("#/components/", "#/$defs/")
    oracle = jsonschema_rs.Draft202012Validator(
        {"$ref": "#/$defs/schemas/TranscriptParams", "$defs": {"schemas": json.loads(text)}}
    )
    example = document["components"]["schemas"]["TranscriptParams"]["example"]
    assert "audio_url" in example
    assert not oracle.is_valid(example)


def test_contradictions_are_named_by_pointer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = _spec(
        tmp_path,
        {
            "Closed": {
                "allOf": [
                    {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
                    {"type": "object", "properties": {"b": {}}},
                ]
            },
            "Both": {"allOf": [{"type": "string"}, {"type": "object"}]},
            "Enums": {"allOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}]},
            "Typed": {"type": "integer", "enum": ["one", "two"]},
            "Bounds": {"type": "integer", "minimum": 5, "maximum": 1},
            "Fine": {"type": "number", "nullable": True, "enum": [1, 2.5, None]},
        },
    )
    at = f"{spec}#/components/schemas"
    assert _warnings(capsys, spec) == [
        (
            f"{at}/Closed/allOf/0: no value carrying property b can satisfy it: it is refused by "
            "this member's additionalProperties: false (at /components/schemas/Closed/allOf/0), "
            "which sees only its own property a; fix: move additionalProperties: false to the "
            "schema holding the allOf, with every property listed there (OpenAPI 3.1: "
            "unevaluatedProperties: false)"
        ),
        (
            f"{at}/Both/allOf: no value can satisfy it: its parts ask for types no value has at "
            "once (allOf/0: string; allOf/1: object); fix: give every part the same type"
        ),
        (
            f"{at}/Enums/allOf: no value can satisfy it: the enums of allOf/0, allOf/1 have no "
            "value in common; fix: keep one enum"
        ),
        (
            f"{at}/Typed/enum: no value can satisfy it: none of the enum's values is of type "
            "integer; fix: make the type and the values agree"
        ),
        (
            f"{at}/Bounds/minimum: no value can satisfy it: minimum 5 is above maximum 1; fix: "
            "swap or correct them"
        ),
    ]


@pytest.mark.parametrize("name", ["a/b", "a~b", "~1", "/~0/", "plain", "1"])
def test_a_warning_s_pointer_escapes_tilde_and_slash_as_rfc_6901_says(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """Oracle: referencing (python-jsonschema's resolver) walks the pointer the warning
    names back to the property's minimum; RFC 6901's own rule spells it ("~" as "~0", then
    "/" as "~1")."""
    schema = {"type": "object", "properties": {name: {"minimum": 5, "maximum": 1}}}
    spec = _spec(tmp_path, {"Odd": schema})
    [warning] = _warnings(capsys, spec)
    located, _, message = warning.partition(": ")
    pointer = located.removeprefix(f"{spec}#")
    escaped = name.replace("~", "~0").replace("/", "~1")
    assert pointer == f"/components/schemas/Odd/properties/{escaped}/minimum"
    assert message.startswith("no value can satisfy it: minimum 5 is above maximum 1")
    document = yaml.safe_load(spec.read_text(encoding="utf-8"))
    resource = referencing.Resource.from_contents(document, DRAFT202012)
    resolver = referencing.Registry().with_resource("urn:spec", resource).resolver("urn:spec")
    assert resolver.lookup(f"urn:spec#{pointer}").contents == 5
    parent = pointer.rpartition("/")[0]
    assert resolver.lookup(f"urn:spec#{parent}").contents == schema["properties"][name]


def test_a_pattern_a_backtracking_engine_may_give_up_on_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = _spec(
        tmp_path,
        {
            "Label": {"type": "string", "pattern": r"^(\w+\s?)*(?=[A-Z])\w*$"},
            "Plain": {"type": "string", "pattern": r"^(\w+\s?)*$"},  # the regex crate: linear
            "Look": {"type": "string", "pattern": r"^(?=[A-Z])\w+$"},  # nothing nested
        },
    )
    assert _warnings(capsys, spec) == [
        (
            f'{spec}#/components/schemas/Label/pattern: the pattern "^(\\\\w+\\\\s?)*(?=[A-Z])\\\\w*$" '
            "needs a backtracking regex engine (look-around or back-references) and nests "
            "quantifiers: on a long value the engine can give up, and jobgen serve then refuses "
            "the value naming the pattern; write it without nested quantifiers, or without "
            "look-around"
        )
    ]
