"""Line layout of generated Python: what does not fit in 88 columns is split as ruff would.

Templates write each statement on one line. A line that fits is left alone; a longer
one is split as ruff splits it: at its bracket, one item per line with a magic trailing
comma (a fixed point of ``ruff format``), recursively; an argument that is an operator
chain (``+``, ``|``, a conditional expression) before its operators; an assignment by
parenthesizing its value or annotation, or splitting its target. Docstrings and
comments are never touched. tests/generator/test_formatted_output.py holds this to
ruff on every example and real spec, and the breakout property test on hostile names.

This works because the generated code is regular: docstring bodies never hold a raw
triple quote (see ``escape.docstring``) and string literals are one-line.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .code import LINE_LENGTH

__all__ = ["layout", "width"]

_OPEN = {"(": ")", "[": "]", "{": "}"}
_STRING = r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"""
# ``target: annotation = value`` (a name, attribute or subscript by a string target).
_ANNOTATED = re.compile(
    rf"^([A-Za-z_][A-Za-z0-9_.]*(?:\[(?:{_STRING})\])?)(: (?:[^=]|==)+?)?( = (.+))?$"
)
_CLOSE = frozenset(")]}")


def width(text: str) -> int:
    """Columns ``text`` takes, counted as ruff counts them (East Asian wide = 2)."""
    if text.isascii():
        return len(text)
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return total


# A line longer than a line may be (``.`` stops at a newline).
_LONG_LINE = re.compile(rf"^.{{{LINE_LENGTH + 1}}}", re.MULTILINE)


def layout(text: str) -> str:
    """``text`` (a Python module) with every overlong code line split."""
    if text.isascii() and not _LONG_LINE.search(text):
        return text
    out: list[str] = []
    in_doc = False
    for line in text.split("\n"):
        if in_doc:
            in_doc = '"""' not in line
        elif '"""' in line and line.lstrip(" ").startswith('"""'):
            in_doc = line.count('"""') == 1
        elif (
            len(line) > LINE_LENGTH if line.isascii() else width(line) > LINE_LENGTH
        ) and not line.lstrip(" ").startswith("#"):
            # A line ending in a comma is an item of a bracket the template opened.
            out.extend(_split(line, nested=line.endswith(",")))
            continue
        out.append(line)
    return "\n".join(out)


_TOKEN = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[()\[\]{},]| [+|] | if | else | for """)
# Inside brackets only brackets count: the next one, past everything else (strings whole,
# a stray quote as one character), without backtracking.
_NEXT_BRACKET = re.compile(
    r"""(?:[^()\[\]{}"']++|"(?:[^"\\]|\\.)*+"|'(?:[^'\\]|\\.)*+'|["'])*+([()\[\]{}])"""
)


@functools.lru_cache(maxsize=4096)
def _scan(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], tuple[int, ...]]:
    """Depth-0 bracket pairs, commas and operators (``+``, ``|``, ``if``/``else``),
    strings skipped. Each character is read once; what is inside a depth-0 bracket pair
    is passed over to its closing bracket. (Cached: the twins of a module repeat lines.)"""
    pairs: list[tuple[int, int]] = []
    commas: list[int] = []
    operators: list[int] = []
    token, next_bracket = _TOKEN.search, _NEXT_BRACKET.match
    at = 0
    while match := token(text, at):
        kind = match.group()
        at = match.end()
        if kind in _OPEN:
            start = at - 1
            depth = 1
            while depth and (inner := next_bracket(text, at)):
                at = inner.end()
                depth += 1 if inner.group(1) in _OPEN else -1
            if depth:  # never closed: nothing at depth 0 follows
                break
            pairs.append((start, at - 1))
        elif kind in _CLOSE or kind[0] in "\"'":
            continue  # a stray closing bracket, or a string
        elif kind == ",":
            commas.append(match.start())
        elif kind == " for ":
            commas.append(-1)  # a generator expression: not a list of items
        else:
            operators.append(match.start() + 1)  # ``a + b``, ``A | B``, ``x if c else y``
    return tuple(pairs), tuple(commas), tuple(operators)


def _split(line: str, nested: bool) -> list[str]:
    if width(line) <= LINE_LENGTH:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    pad = " " * indent
    body = line[indent:]
    pairs, _, operators = _scan(body)
    if nested and operators:
        return _operands(pad, body, operators)
    ends_in_bracket = bool(pairs) and pairs[-1][1] == len(body) - 1
    assignment = None if nested else _ANNOTATED.match(body)
    if assignment and (assignment.group(2) or assignment.group(3)):
        if not ends_in_bracket:
            return _annotated(pad, assignment)
        value = assignment.group(4)
        if value is not None and width(pad + body[: pairs[-1][0] + 1]) > LINE_LENGTH:
            # ``target = call(`` does not fit: the value goes in parentheses, if that fits.
            target = body[: len(body) - len(value)]
            # A subscript such as ``Union[...]`` only where every line then fits.
            inside = pad + "    " + value
            if width(pad + target + "(") <= LINE_LENGTH:
                if body[pairs[-1][0]] == "(" and (
                    width(inside[: len(inside) - (len(body) - pairs[-1][0]) + 1]) <= LINE_LENGTH
                ):
                    return [pad + target + "(", *_split(inside, False), pad + ")"]
                wrapped = [pad + target + "(", *_split(inside, False), pad + ")"]
                if all(width(w) <= LINE_LENGTH for w in wrapped):
                    return wrapped
            annotation = assignment.group(2)
            hint = annotation[2:] if annotation is not None else ""
            if (
                annotation is not None
                and pairs[0][0] > len(target)
                and _scan(hint)[2]  # a lone name is left long, as ruff leaves it
            ):
                # Nor ``target: annotation = (``: the annotation goes in parentheses, then
                # the rest (``) = call(...)``) is split as it needs.
                name = assignment.group(1)
                inner = pad + "    "
                _, _, hint_operators = _scan(hint)
                if width(inner + hint) <= LINE_LENGTH or not hint_operators:
                    hint_lines = [inner + hint]
                else:
                    hint_lines = _operands(inner, hint, hint_operators)
                return [f"{pad}{name}: (", *hint_lines, *_split(f"{pad}) = {value}", False)]
            if pairs[0][1] < len(target):
                # Nor does ``target = (``: the target's own bracket is split first.
                return _explode(pad, body, *pairs[0], nested)
    if body.startswith(") -> ") and body.endswith(":") and not pairs:
        # A return annotation that does not fit goes in parentheses.
        inside = pad + "    " + body[5:-1]
        if width(inside) <= LINE_LENGTH:
            return [pad + ") -> (", inside, pad + "):"]
        _, _, returned = _scan(body[5:-1])
        if returned:
            return [pad + ") -> (", *_operands(pad + "    ", body[5:-1], returned), pad + "):"]
    if not pairs:
        return [line]
    is_def = body.startswith(("def ", "async def ", "class "))
    start, end = pairs[0] if is_def else pairs[-1]
    return _explode(pad, body, start, end, nested)


def _explode(pad: str, body: str, start: int, end: int, nested: bool) -> list[str]:
    """The bracket at ``start``..``end`` split: one item per line, magic trailing comma."""
    line = pad + body
    inner = body[start + 1 : end]
    if not inner.strip():
        return [line]
    _, commas, _ = _scan(inner)
    generator = -1 in commas
    if generator:
        commas = ()
    items = [inner[a + 1 : b].strip() for a, b in zip([-1, *commas], [*commas, len(inner)])]
    if items and not items[-1]:
        items.pop()
        had_comma = True
    else:
        had_comma = False
    before = body[start - 1] if start else " "
    attached = before.isalnum() or before in "_)]"
    if body[start] == "[" and attached or body[start] == "(" and not attached:
        comma = len(items) > 1 or had_comma
    else:
        comma = not generator
    out = [pad + body[: start + 1]]
    inner_pad = pad + "    "
    for item in items:
        out.extend(_split(inner_pad + item + ("," if comma else ""), nested=True))
    out.extend(_split(pad + body[end:], nested))
    return out


def _operands(pad: str, body: str, operators: tuple[int, ...]) -> list[str]:
    """``a + b + c`` (or ``A | B``) in brackets: one operand per line, operators leading."""
    lines = _split(pad + body[: operators[0]].rstrip(), nested=True)
    for start, end in zip(operators, [*operators[1:], len(body)]):
        lines.extend(_split(pad + body[start:end].rstrip(), nested=True))
    return lines


def _annotated(pad: str, match: re.Match[str]) -> list[str]:
    """``name: annotation = value`` at statement level, as ruff splits it."""
    name, annotation, value = match.group(1), match.group(2), match.group(4)
    inner = pad + "    "
    if value is not None:
        if width(inner + value) > LINE_LENGTH:
            return [f"{pad}{match.group(0)}"]  # nothing makes it fit: left as it is
        head = f"{pad}{name}{annotation or ''} = ("
        if width(head) <= LINE_LENGTH:
            return [head, inner + value, pad + ")"]
    if annotation is None:
        return [f"{pad}{match.group(0)}"]
    hint = annotation[2:]
    tail = pad + ")" + (f" = {value}" if value is not None else "")
    _, _, operators = _scan(hint)
    if not operators:
        if width(inner + hint) > LINE_LENGTH or width(f"{pad}{name}: (") > LINE_LENGTH:
            return [f"{pad}{match.group(0)}"]  # one long name: left as it is
        return [f"{pad}{name}: (", inner + hint, tail]
    if width(inner + hint) <= LINE_LENGTH:
        return [f"{pad}{name}: (", inner + hint, tail]
    return [f"{pad}{name}: (", *_operands(inner, hint, operators), tail]
