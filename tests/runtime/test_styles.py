"""Parameter serialization against the style examples table of the OpenAPI
specification (color = "blue", ["blue", "black", "brown"], {R: 100, G: 200, B: 150})."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from jobgen.runtime.wire.serde import UNSET
from jobgen.runtime.wire.styles import (
    cookie_header,
    form_items,
    header,
    path_param,
    query_items,
)

STRING = "blue"
ARRAY = ["blue", "black", "brown"]
OBJECT = {"R": 100, "G": 200, "B": 150}


def query(value: Any, style: str, explode: bool) -> str:
    return urlencode(query_items({"color": value}, {"color": (style, explode)}))


@pytest.mark.parametrize(
    ("style", "explode", "value", "expected"),
    [
        ("form", False, STRING, "color=blue"),
        ("form", False, ARRAY, "color=blue%2Cblack%2Cbrown"),
        ("form", False, OBJECT, "color=R%2C100%2CG%2C200%2CB%2C150"),
        ("form", True, ARRAY, "color=blue&color=black&color=brown"),
        ("form", True, OBJECT, "R=100&G=200&B=150"),
        ("spaceDelimited", False, ARRAY, "color=blue+black+brown"),
        ("spaceDelimited", False, OBJECT, "color=R+100+G+200+B+150"),
        ("pipeDelimited", False, ARRAY, "color=blue%7Cblack%7Cbrown"),
        ("pipeDelimited", False, OBJECT, "color=R%7C100%7CG%7C200%7CB%7C150"),
        ("deepObject", True, OBJECT, "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
    ],
)
def test_query_styles(style: str, explode: bool, value: Any, expected: str) -> None:
    assert query(value, style, explode) == expected


def test_query_defaults_to_exploded_form_and_skips_unset_values() -> None:
    assert query_items({"color": ARRAY, "size": UNSET, "n": None, "ok": True}) == [
        ("color", "blue"),
        ("color", "black"),
        ("color", "brown"),
        ("ok", "true"),
    ]


@pytest.mark.parametrize(
    ("style", "explode", "value", "expected"),
    [
        ("simple", False, STRING, "blue"),
        ("simple", False, ARRAY, "blue,black,brown"),
        ("simple", False, OBJECT, "R,100,G,200,B,150"),
        ("simple", True, OBJECT, "R=100,G=200,B=150"),
        ("label", False, STRING, ".blue"),
        ("label", False, ARRAY, ".blue,black,brown"),
        ("label", True, ARRAY, ".blue.black.brown"),
        ("label", True, OBJECT, ".R=100.G=200.B=150"),
        ("matrix", False, STRING, ";color=blue"),
        ("matrix", False, ARRAY, ";color=blue,black,brown"),
        ("matrix", True, ARRAY, ";color=blue;color=black;color=brown"),
        ("matrix", False, OBJECT, ";color=R,100,G,200,B,150"),
        ("matrix", True, OBJECT, ";R=100;G=200;B=150"),
    ],
)
def test_path_styles(style: str, explode: bool, value: Any, expected: str) -> None:
    assert path_param(value, style, explode, "color") == expected


def test_a_path_value_never_adds_a_segment() -> None:
    assert path_param("a/b c") == "a%2Fb%20c"
    assert path_param(["a/b", "c,d"]) == "a%2Fb,c%2Cd"


def test_headers_are_simple_never_json() -> None:
    assert header(ARRAY) == "blue,black,brown"
    assert header(OBJECT) == "R,100,G,200,B,150"
    assert header(OBJECT, explode=True) == "R=100,G=200,B=150"
    assert header(7) == "7"
    assert header(UNSET) is UNSET


def test_cookies_are_form_style() -> None:
    assert cookie_header((("color", ARRAY, False), ("id", UNSET, True))) == "color=blue,black,brown"
    assert cookie_header((("color", ARRAY, True),)) == "color=blue; color=black; color=brown"
    assert cookie_header((("s", "a b;c", True),)) == "s=a%20b%3Bc"
    assert cookie_header((("s", None, True),)) is None


def test_form_bodies_repeat_array_keys_and_follow_the_declared_encoding() -> None:
    body = {"tags": ["a", "b"], "meta": {"k": "v"}, "ids": [1, 2], "n": 1, "gone": UNSET}
    encoding = {"meta": ("deepObject", True), "ids": ("form", False)}
    assert form_items(body, encoding) == [
        ("tags", "a"),
        ("tags", "b"),
        ("meta[k]", "v"),
        ("ids", "1,2"),
        ("n", "1"),
    ]
    # Without an encoding an object is exploded into keys of its own (form, explode).
    assert form_items({"meta": {"k": "v"}}) == [("k", "v")]
    # Lists of objects have no form style: they keep their index.
    assert form_items({"lines": [{"sku": "x"}]}) == [("lines[0][sku]", "x")]
