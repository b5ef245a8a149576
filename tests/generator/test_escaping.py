"""Text from a spec reaches a generated file only through the escaper of its context.

The escapers are checked against the parser of each context (Python, TOML), and the
template environment is checked to refuse any text that did not pass through them.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize
import tomllib

import jinja2
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from jobgen.render.escape import (
    Code,
    comment,
    doc_text,
    docstring,
    md_code,
    md_comment,
    md_text,
    py_literal,
    py_str,
    toml_str,
    yaml_str,
)
from jobgen.render.render import UnescapedText, environment

# Every code point, surrogates included: specs in JSON can hold lone surrogates.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
BREAKOUTS = st.sampled_from(
    ['"""', "'''", '"', "'", "\\", "\n", "\r", "\u2028", "\x00", "{{ x }}", "{% if %}", "-->", "`"]
)
HOSTILE = st.lists(st.one_of(BREAKOUTS, ANY_TEXT), max_size=6).map("".join)


# -- the template environment ----------------------------------------------------------


def test_a_template_refuses_text_that_was_not_escaped() -> None:
    env = environment()
    with pytest.raises(UnescapedText, match="not a Code fragment"):
        env.from_string("x = {{ value }}\n").render(value='"; import os #')
    with pytest.raises(UnescapedText):
        env.from_string('{{ "literal " ~ value }}').render(value=Code("a"))
    with pytest.raises(TypeError, match="not a code fragment"):
        env.from_string('{{ items | join(", ") }}').render(items=[Code("a"), "b"])
    assert env.from_string("x = {{ value }}\n").render(value=py_str('"')) == "x = '\"'\n"


def test_a_layout_block_splits_long_lines_and_prints_nothing_unescaped() -> None:
    """README examples are laid out by ``{% filter layout %}``: a long call is split as
    ruff splits it, and the filter is no way around the escapers."""
    env = environment()
    block = env.from_string(
        "{% filter layout %}\nwith Client() as client:\n"
        "    client.{{ attr }}.get({{ args | join(', ') }})\n{% endfilter %}"
    )
    args = [py_str(f"argument-{n:02}") for n in range(8)]
    text = block.render(attr=Code("things"), args=args)
    assert text.endswith("\n") and max(len(line) for line in text.splitlines()) <= 88
    assert ast.dump(ast.parse(text)) == ast.dump(
        ast.parse(f"with Client() as client:\n    client.things.get({', '.join(args)})\n")
    )
    assert "        " + args[0] + "," in text.splitlines()
    with pytest.raises(UnescapedText):
        env.from_string("{{ value | layout }}").render(value="</code> raw")
    with pytest.raises(UnescapedText):
        block.render(attr="x; import os", args=[])


def test_a_template_cannot_reach_the_usual_filters() -> None:
    with pytest.raises(jinja2.TemplateAssertionError):
        environment().from_string("{{ value | safe }}")


# -- each escaper against its parser ------------------------------------------------------


@given(HOSTILE)
def test_a_python_string_literal_holds_the_value_exactly(value: str) -> None:
    literal = py_str(value)
    assert "\n" not in literal and "\r" not in literal
    tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    assert tokens[0].type == tokenize.STRING and tokens[0].string == literal
    assert ast.literal_eval(literal) == value


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), HOSTILE))
def test_a_python_literal_evaluates_to_the_scalar(value: object) -> None:
    source = py_literal(value)
    result = eval(source, {"__builtins__": {"float": float}})
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(result, float) and math.isnan(result)
    else:
        assert result == value and type(result) is type(value)


def _docstring_of(source: str) -> str:
    tree = ast.parse(source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef) and len(function.body) == 1
    doc = ast.get_docstring(function, clean=False)
    assert doc is not None
    return doc


@given(HOSTILE, HOSTILE)
def test_a_docstring_holds_the_text_and_nothing_else(first: str, second: str) -> None:
    body = docstring(first, second, indent=4)
    doc = _docstring_of(f'def f() -> None:\n    """{body}"""\n')
    assert doc.split() == (first + " " + second).replace("\t", " ").split()


@given(HOSTILE)
def test_docstring_text_holds_the_text_on_one_line(value: str) -> None:
    doc = _docstring_of(f'def f() -> None:\n    """Header {doc_text(value)} end."""\n')
    visible = "".join(c if c.isprintable() else " " for c in value)  # controls become spaces
    assert doc.split() == ["Header", *visible.split(), "end."]


@given(HOSTILE)
def test_a_comment_stays_one_comment(value: str) -> None:
    source = f"x = 1  # {comment(value)}\n"
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    assert [t.type for t in tokens].count(tokenize.COMMENT) == 1
    assert [t.type for t in tokens].count(tokenize.NEWLINE) == 1
    assert len(ast.parse(source).body) == 1


@given(HOSTILE)
def test_a_toml_string_holds_the_value(value: str) -> None:
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    assert tomllib.loads(f"key = {toml_str(value)}  # {comment(value)}\n") == {"key": expected}


@given(HOSTILE)
def test_a_yaml_string_holds_the_value(value: str) -> None:
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    text = f"key: {yaml_str(value)}  # {comment(value)}\nnext: 1\n"
    assert yaml.safe_load(text) == {"key": expected, "next": 1}
    assert len(text.splitlines()) == 2


@given(HOSTILE)
def test_markdown_text_and_code_spans_stay_on_their_line(value: str) -> None:
    for escaped in (md_text(value), md_code(value), md_comment(value)):
        assert len(escaped.splitlines()) <= 1 and "\u2028" not in escaped
    assert "`" not in md_code(value) and "|" not in md_code(value)
    assert "-->" not in md_comment(value)
