"""The only way text reaches a generated file: one escaper per output context.

Every string that comes from a spec, a side file, a config or a path is untrusted. It
is placed in a generated file by exactly one of the functions below, chosen by where it
lands: a Python string literal, a docstring, a comment, a TOML string, Markdown text or
a Markdown code span. Each returns a :class:`Code` fragment, and the template
environment refuses to print anything that is not one (see ``render._finalize``), so a
template cannot emit raw spec text by mistake.

Code-building helpers make :class:`Code` from identifiers (:func:`ident`, checked) and
other fragments; nothing else should construct it from spec text.
"""

from __future__ import annotations

import functools
import keyword
import math
import re
import textwrap
from collections.abc import Iterable

__all__ = [
    "Code",
    "comment",
    "doc_text",
    "docstring",
    "ident",
    "join",
    "md_code",
    "md_comment",
    "md_text",
    "py_literal",
    "py_str",
    "toml_str",
    "yaml_str",
]


class Code(str):
    """A fragment of generated text that is safe where it is placed (escaped or built)."""

    __slots__ = ()


def join(separator: str, parts: Iterable[Code]) -> Code:
    """``separator.join(parts)`` for fragments only: a plain string in ``parts`` is refused."""
    items = list(parts)
    for item in items:
        if not isinstance(item, Code):
            raise TypeError(f"not a code fragment: {item!r:.80}")
    return Code(separator.join(items))


def ident(name: str) -> Code:
    """A Python identifier (or a dotted path of them) that names.py produced."""
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in name.split(".")):
        raise ValueError(f"not a Python identifier: {name!r:.80}")
    return Code(name)


def _char_escape(ch: str) -> str:
    """``\\x00``, ``\\u2028``...: the escape Python's ``repr`` uses for one character."""
    return repr(ch)[1:-1]


def _visible(ch: str) -> bool:
    # isprintable() is False for controls, line and paragraph separators (U+2028/9),
    # U+0085, surrogates and unassigned code points: none of them is left raw.
    return ch.isprintable()


def py_str(value: str) -> Code:
    """A Python string literal holding ``value`` exactly, in the quotes ruff prefers.

    Double quotes, unless the value holds more double than single quotes.
    """
    quote = "'" if value.count('"') > value.count("'") else '"'
    if value.isprintable():
        return Code(quote + value.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote)
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + ch)
        elif ch in "\n\r\t" or not _visible(ch):
            out.append(_char_escape(ch))
        else:
            out.append(ch)
    return Code(quote + "".join(out) + quote)


def py_literal(value: object) -> Code:
    """A Python literal for a JSON scalar; a string goes through :func:`py_str`."""
    if isinstance(value, str):
        return py_str(value)
    if value is None or isinstance(value, bool):
        return Code(repr(value))
    if isinstance(value, int):
        return Code(repr(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return Code(f'float("{value!r}")')
        return Code(repr(value))
    raise TypeError(f"not a JSON scalar: {type(value).__name__}")


_ARG_ITEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: ")
_QUOTE = re.compile('"')


def _docstring_line(line: str) -> str:
    if line.isprintable() and "\\" not in line:
        return line
    out = []
    for ch in line:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("    ")
        elif _visible(ch) or ch == " ":
            out.append(ch)
        else:
            out.append(_char_escape(ch))
    return "".join(out)


@functools.lru_cache(maxsize=8192)  # descriptions repeat: the twins, a field in many models
def docstring(*parts: str, indent: int = 0, width: int = 88) -> Code:
    """The body of a triple-double-quoted docstring holding ``parts`` as paragraphs.

    Backslashes, quotes and invisible characters are escaped, so nothing can end the
    string; lines are wrapped to ``width`` at ``indent`` and indented as ruff formats a
    docstring (continuation lines at ``indent``). The result goes between ``\"\"\"`` and
    ``\"\"\"`` with nothing else.
    """
    paragraphs: list[str] = []
    for part in parts:
        text = (part or "").replace("\r\n", "\n").replace("\r", "\n").strip()
        if text.strip():
            paragraphs.append(text)
    lines: list[str] = []
    room = max(width - indent, 40)
    for raw in "\n\n".join(paragraphs).split("\n"):
        line = _docstring_line(raw.rstrip())
        stripped = line.strip()
        lead = " " * (len(line) - len(line.lstrip()))
        if len(lead) + len(stripped) <= room:  # fits: what textwrap would return
            lines.append(lead + stripped if stripped else "")
            continue
        hang = lead + "    " if _ARG_ITEM.match(stripped) else lead
        wrapped = textwrap.wrap(
            stripped,
            room,
            initial_indent=lead,
            subsequent_indent=hang,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines.extend(wrapped or [""])
    # Relative indentation is kept, but the least indented line after the first sits
    # at the docstring's own indentation (as ruff re-indents it).
    rest = [line for line in lines[1:] if line.strip()]
    common = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    first = lines[0].lstrip() if lines else ""
    body_lines = [first] + [
        (" " * indent + line[common:]).rstrip() if line.strip() else "" for line in lines[1:]
    ]
    while len(body_lines) > 1 and not body_lines[-1]:
        body_lines.pop()
    body = "\n".join(body_lines)
    # Only quotes that could close the string are escaped: one before another, and a
    # leading or trailing one.
    if '"' in body:
        last = len(body) - 1
        body = _QUOTE.sub(
            lambda m: '\\"' if m.start() in (0, last) or body[m.start() + 1] == '"' else '"', body
        )
    return Code(body)


def doc_text(value: str) -> Code:
    """One line of text inside a docstring, placed anywhere in it: quotes all escaped."""
    return Code(_docstring_line(_one_line(value)).replace('"', '\\"'))


def comment(text: str) -> Code:
    """Text for one ``#`` comment line (Python or TOML): nothing in it can end the line."""
    return Code("".join(ch if _visible(ch) else _char_escape(ch) for ch in text).rstrip())


def md_comment(text: str) -> Code:
    """Text for one HTML comment in Markdown: one line, and no ``--`` to close it."""
    return Code(comment(text).replace("--", "- -").replace("<", "&lt;").replace(">", "&gt;"))


def toml_str(value: str) -> Code:
    """A TOML basic string holding ``value`` (lone surrogates become U+FFFD)."""
    out = []
    for ch in value:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        if ch in '"\\':
            out.append("\\" + ch)
        elif _visible(ch):
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return Code('"' + "".join(out) + '"')


def yaml_str(value: str) -> Code:
    """A YAML double-quoted scalar holding ``value`` exactly (YAML 1.1 and 1.2 alike):
    quotes and backslashes escaped, and every invisible character (line breaks, tabs,
    U+2028, U+FEFF...) as a ``\\x``/``\\u``/``\\U`` escape, so nothing can end the
    scalar, the line or the document (lone surrogates become U+FFFD)."""
    out = []
    for ch in value:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        if ch in '"\\':
            out.append("\\" + ch)
        elif _visible(ch) and ch != "\x7f":
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02X}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return Code('"' + "".join(out) + '"')


# What can start inline markup mid-line (emphasis, code, links, HTML, table cells), and
# what makes a renderer link bare text (``https://``, ``mailto`` addresses, ``www.``);
# ``#``, ``+`` and the like only matter at the start of a line, where this text never is.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~:@])")
_MD_WWW = re.compile(r"(www)\.", re.IGNORECASE)


def _one_line(text: str) -> str:
    visible = "".join(ch if _visible(ch) else " " for ch in text)
    return " ".join(visible.split())


def md_text(value: str) -> Code:
    """Inline Markdown text (one line, also inside a table cell): markup characters
    escaped, and URLs, addresses and ``www.`` names broken so that no renderer links them."""
    escaped = _MD_SPECIAL.sub(r"\\\1", _one_line(value))
    return Code(_MD_WWW.sub(r"\1\\.", escaped))


def md_code(value: str) -> Code:
    """The inside of a one-backtick code span (one line, also inside a table cell)."""
    return Code(_one_line(value).replace("`", "'").replace("|", "/"))
