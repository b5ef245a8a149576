"""Read OpenAPI documents from disk and resolve their ``$ref``s.

Documents are untrusted text. Reading guards against the classic traps: files too
large to hold in memory (refused from their size, before reading), bytes that are not
UTF-8, duplicate keys (in JSON as in YAML), YAML alias bombs, nesting deep enough to exhaust the stack, values
that JSON cannot carry (YAML tags, ``.nan``, unpaired surrogates), and ``$ref``s
that climb out of the spec's folder or name something that is not a file.

YAML is read as the JSON-compatible data an OpenAPI document is (YAML 1.2 core
schema): ``yes``, ``on`` and ``2020-08-27`` stay strings, mapping keys are the text
written, and any tag beyond the JSON types is refused. Documents are built straight
from the parser's events (libyaml's when available): one pass checks depth, alias
expansion and tags, so every problem carries the JSON pointer where it was found.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import attrs
import yaml
from yaml import events as ev

from ..problems import Location, SpecError, pointer_join
from . import swagger2

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_FILE_MIB",
    "MAX_FILE_MIB_ENV",
    "Document",
    "SpecSet",
    "load_document",
    "load_spec",
]

# Real specs nest up to 25 levels. Each level of inline schema can add three levels of
# brackets to a generated annotation (``Union[list[...], int, None]``), and Python's
# parser stops at 200: 64 keeps the deepest allowed schema compiling.
MAX_DEPTH = 64
# Nodes that YAML aliases may add by repeating what they name. Real specs use none or
# a few; the generator does work for every node of the expanded tree.
MAX_ALIAS_NODES = 100_000
# The largest file read (a spec, a file it references, a side file), in MiB. The largest
# published specs are 3 to 20 MiB; parsing takes about ten times a file's size in memory.
MAX_FILE_MIB = 64
MAX_FILE_MIB_ENV = "JOBGEN_MAX_SPEC_MIB"

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@attrs.frozen
class Document:
    """One parsed file: where it lives, how errors name it, and its content."""

    path: Path
    name: str
    data: Any
    sha256: str = ""


class _Refused(Exception):
    """A problem found while reading a file, before its location is known."""


def _size_limit(name: str) -> int:
    """The largest file read, in bytes: MAX_FILE_MIB, or the environment's override."""
    raw = os.environ.get(MAX_FILE_MIB_ENV, "").strip()
    if not raw:
        return MAX_FILE_MIB << 20
    if not (raw.isascii() and raw.isdigit()) or int(raw) == 0 or len(raw) > 7:
        raise SpecError.at(
            Location(name),
            f"cannot be read: {MAX_FILE_MIB_ENV} must be a whole number of MiB"
            f" (1 to 9999999), not {_show(raw)}",
        )
    return int(raw) << 20


def _too_large(name: str, size: int, limit: int) -> SpecError:
    shown = f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size / (1 << 20):.1f} MiB"
    return SpecError.at(
        Location(name),
        f"is {shown} ({size:,} bytes), over the {limit >> 20} MiB limit for one file;"
        f" set {MAX_FILE_MIB_ENV} to raise it",
    )


def _read_bytes(path: Path, name: str) -> bytes:
    limit = _size_limit(name)
    try:
        info = path.stat()  # before opening: opening a FIFO would block
        if stat.S_ISDIR(info.st_mode):
            raise SpecError.at(Location(name), "is a directory, not a spec file")
        if not stat.S_ISREG(info.st_mode):
            raise SpecError.at(Location(name), "is not a regular file")
        if info.st_size > limit:
            raise _too_large(name, info.st_size, limit)
        with path.open("rb") as file:
            raw = file.read(limit + 1)  # a file that grew since stat() is caught too
            if len(raw) > limit:
                raise _too_large(name, os.fstat(file.fileno()).st_size, limit)
        return raw
    except FileNotFoundError:
        raise SpecError.at(Location(name), "file not found") from None
    except IsADirectoryError:
        raise SpecError.at(Location(name), "is a directory, not a spec file") from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpecError.at(Location(name), f"cannot be read: {reason}") from None


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError.at(
            Location(name), f"is not UTF-8 text (byte {exc.start}, line {line})"
        ) from None


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cycle collector: building a large tree otherwise triggers it thousands
    of times over a heap that only grows (it costs three quarters of the load time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# -- YAML -------------------------------------------------------------------

_CORE = "tag:yaml.org,2002:"
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_NOT_FINITE = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z|\.(?:nan|NaN|NAN)\Z")
# First characters of every plain scalar that is not a string in the core schema.
_TYPED_START = frozenset("0123456789+-.~nNtTfF")
_MERGE = object()
_NO_KEY = object()


def _number(value: str, what: str) -> int | float:
    try:
        if _INT.match(value):
            return int(value)
        if _OCT.match(value):
            return int(value, 0)
        if _HEX.match(value):
            return int(value, 0)
    except ValueError:  # more digits than int() converts
        raise _Refused("an integer has more than 4300 digits") from None
    if _FLOAT.match(value):
        number = float(value)
        if math.isinf(number):
            raise _Refused(f"number {value[:40]} is out of range")
        return number
    if _NOT_FINITE.match(value):
        raise _Refused(f"{value} is not a number JSON can carry")
    raise _Refused(f"{value[:40]!r} is not {what}")


def _plain(value: str) -> Any:
    """Resolve an untagged plain scalar by the YAML 1.2 core schema."""
    if not value:
        return None
    if value[0] not in _TYPED_START:
        return value
    if value in _NULLS:
        return None
    flag = _BOOLS.get(value)
    if flag is not None:
        return flag
    if _INT.match(value) or _FLOAT.match(value) or _NOT_FINITE.match(value):
        return _number(value, "a number")
    if _OCT.match(value) or _HEX.match(value):
        return _number(value, "a number")
    return value


def _tagged(tag: str, value: str) -> Any:
    """A scalar with an explicit tag: only the JSON types are accepted."""
    kind = tag[len(_CORE) :] if tag.startswith(_CORE) else ""
    if kind == "str":
        return value
    if kind == "null" and value in _NULLS:
        return None
    if kind == "bool" and value in _BOOLS:
        return _BOOLS[value]
    if kind == "int" and (_INT.match(value) or _OCT.match(value) or _HEX.match(value)):
        return _number(value, "an integer")
    if kind == "float" and (_FLOAT.match(value) or _NOT_FINITE.match(value)):
        return float(_number(value, "a number"))
    if kind in ("null", "bool", "int", "float"):
        raise _Refused(f"{value[:40]!r} is not a valid !!{kind}")
    raise _Refused(f"the YAML tag {_short(tag)} is not allowed: a spec holds JSON values only")


def _short(tag: str) -> str:
    return _show("!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag)[1:-1]


def _show(text: str) -> str:
    """Spec text quoted for a one-line message: control characters escaped."""
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _check_text(value: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(value[exc.start])
            raise _Refused(f"contains an unpaired surrogate (\\u{code:04x})") from None


@attrs.define(slots=True)
class _Anchor:
    value: Any
    size: int
    height: int
    text: str | None  # a scalar's text: an alias of it may be a mapping key


@attrs.define(slots=True)
class _Frame:
    """An open mapping or sequence while its events arrive."""

    items: Any  # dict or list
    anchor: str | None
    start: int  # the node count when it opened
    key: Any = _NO_KEY
    height: int = 1
    merges: list[Any] | None = None


class _YamlBuilder:
    """Builds JSON-compatible data from parser events, checking as it goes."""

    def __init__(self, text: str) -> None:
        self.loader = _Loader(text)
        self.frames: list[_Frame] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: dict[str, int] = {}
        self.count = 0
        self.aliased = 0
        self.root: Any = None
        self.done = False
        self.event: Any = None

    def pointer(self) -> str:
        tokens: list[str | int] = []
        for frame in self.frames:
            if isinstance(frame.items, list):
                tokens.append(len(frame.items))
            elif frame.key is _MERGE:
                tokens.append("<<")
            elif frame.key is not _NO_KEY:
                tokens.append(frame.key)
        return pointer_join("", *tokens)

    def build(self) -> Any:
        loader = self.loader
        get = loader.get_event
        frames = self.frames
        scalar, alias = ev.ScalarEvent, ev.AliasEvent
        mapping_start, sequence_start = ev.MappingStartEvent, ev.SequenceStartEvent
        collection_end = (ev.MappingEndEvent, ev.SequenceEndEvent)
        try:
            while True:
                self.event = event = get()  # type: ignore[no-untyped-call]
                kind = type(event)
                if kind is scalar:
                    top = frames[-1] if frames else None
                    if top is not None and top.key is _NO_KEY and isinstance(top.items, dict):
                        self._key(top, event)
                        continue
                    tag = event.tag
                    if tag is None or tag == "!":
                        value = _plain(event.value) if event.implicit[0] else event.value
                        if event.style == '"':
                            _check_text(value)
                    else:
                        value = _tagged(tag, event.value)
                    self.count += 1
                    if event.anchor is not None:
                        self.anchors[event.anchor] = _Anchor(value, 1, 0, event.value)
                    self._add(value, 0)
                elif kind is mapping_start or kind is sequence_start:
                    self._open(event, {} if kind is mapping_start else [])
                elif kind in collection_end:
                    self._close(frames.pop())
                elif kind is alias:
                    self._alias(event)
                elif kind is ev.DocumentStartEvent and self.done:
                    raise _Refused("holds more than one YAML document")
                elif kind is ev.StreamEndEvent:
                    return self.root
        finally:
            loader.dispose()  # type: ignore[no-untyped-call]

    def _key(self, frame: _Frame, event: ev.ScalarEvent) -> None:
        tag = event.tag
        if event.implicit[0] and event.value == "<<" and tag is None:
            frame.key = _MERGE
        else:
            if tag is not None and tag != "!":
                _tagged(tag, event.value)  # refuses the tags JSON cannot carry
            _check_text(event.value)
            frame.key = event.value
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(event.value, 1, 0, event.value)
        self.count += 1

    def _open(self, event: Any, items: Any) -> None:
        if event.tag not in (None, "!", _CORE + "map", _CORE + "seq"):
            raise _Refused(
                f"the YAML tag {_short(event.tag)} is not allowed: a spec holds JSON values only"
            )
        top = self.frames[-1] if self.frames else None
        if top is not None and top.key is _NO_KEY and isinstance(top.items, dict):
            raise _Refused("a mapping key must be a string, not a mapping or a list")
        if len(self.frames) >= MAX_DEPTH:
            raise _Refused(f"nests deeper than {MAX_DEPTH} levels")
        self.count += 1
        if event.anchor is not None:
            self.open_anchors[event.anchor] = self.open_anchors.get(event.anchor, 0) + 1
        self.frames.append(_Frame(items, event.anchor, self.count))

    def _close(self, frame: _Frame) -> None:
        value = frame.items
        if frame.merges is not None:
            merged: dict[str, Any] = {}
            for source in frame.merges:
                for part in reversed(source) if isinstance(source, list) else (source,):
                    merged.update(part)
            merged.update(value)
            value = merged
        if frame.anchor is not None:
            left = self.open_anchors[frame.anchor] - 1
            if left:
                self.open_anchors[frame.anchor] = left
            else:
                del self.open_anchors[frame.anchor]
            self.anchors[frame.anchor] = _Anchor(
                value, self.count - frame.start + 1, frame.height, None
            )
        self._add(value, frame.height)

    def _alias(self, event: ev.AliasEvent) -> None:
        name = event.anchor
        if name in self.open_anchors:
            raise _Refused(f"the YAML alias *{name} is recursive")
        anchor = self.anchors.get(name)
        if anchor is None:
            raise _Refused(f"the YAML alias *{name} names no anchor")
        top = self.frames[-1] if self.frames else None
        if top is not None and top.key is _NO_KEY and isinstance(top.items, dict):
            if anchor.text is None:
                raise _Refused("a mapping key must be a string, not a mapping or a list")
            top.key = anchor.text
            self.count += 1
            return
        self.count += anchor.size
        self.aliased += anchor.size
        if self.aliased > MAX_ALIAS_NODES:
            raise _Refused(
                f"YAML aliases expand it by more than {MAX_ALIAS_NODES:,} nodes: an alias bomb?"
            )
        if len(self.frames) + anchor.height > MAX_DEPTH:
            raise _Refused(f"nests deeper than {MAX_DEPTH} levels through YAML aliases")
        self._add(anchor.value, anchor.height)

    def _add(self, value: Any, height: int) -> None:
        if not self.frames:
            self.root = value
            self.done = True
            return
        top = self.frames[-1]
        if top.height <= height:
            top.height = height + 1
        items = top.items
        if isinstance(items, list):
            items.append(value)
            return
        key = top.key
        top.key = _NO_KEY
        if key is _MERGE:
            if not (
                isinstance(value, dict)
                or (isinstance(value, list) and all(isinstance(v, dict) for v in value))
            ):
                top.key = key
                raise _Refused("a YAML merge (<<) takes a mapping or a list of mappings")
            if top.merges is None:
                top.merges = []
            top.merges.append(value)
        elif key in items:
            top.key = key
            raise _Refused(f"duplicate key {_show(key)}")
        else:
            items[key] = value


def _parse_yaml(text: str, name: str) -> Any:
    builder = _YamlBuilder(text)
    try:
        with _no_gc():
            return builder.build()
    except _Refused as exc:
        line = _line_of(builder)
        raise SpecError.at(Location(name, builder.pointer()), f"{exc}{line}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = _one_line(exc.problem or exc.context or "syntax error")
        if "nesting depth" in problem:  # libyaml's own limit can fire before ours
            raise SpecError.at(
                Location(name, builder.pointer()), f"nests deeper than {MAX_DEPTH} levels{where}"
            ) from None
        raise SpecError.at(
            Location(name, builder.pointer()), f"is not valid YAML: {problem}{where}"
        ) from None
    except yaml.reader.ReaderError as exc:
        row = text.count("\n", 0, exc.position) + 1
        raise SpecError.at(
            Location(name, builder.pointer()),
            f"is not valid YAML: {exc.reason} {_show(chr(exc.character))} (line {row})",
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError.at(
            Location(name, builder.pointer()), f"is not valid YAML: {_one_line(str(exc))}"
        ) from None


def _line_of(builder: _YamlBuilder) -> str:
    mark = getattr(builder.event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


# -- JSON -------------------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _json_pointer_at(text: str, end: int, limit: int | None = None) -> str:
    """The pointer of the value being read at offset ``end`` (or where nesting passes ``limit``)."""
    stack: list[list[Any]] = []  # per open container: [is_object, key or index or None]
    last_string: Any = None
    i = 0
    while i < end:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char not in ",:]}" and stack and not stack[-1][0] and stack[-1][1] is None:
            stack[-1][1] = 0  # the first element of an array begins
        if char == '"':
            match = _STRING.match(text, i)
            if match is None:
                break
            try:
                last_string = json.loads(match.group())
            except ValueError:
                last_string = match.group()[1:-1]
            i = match.end()
            continue
        if char in "{[":
            stack.append([char == "{", None])
            if limit is not None and len(stack) > limit:
                break
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == ":" and stack and stack[-1][0]:
            stack[-1][1] = str(last_string)
        elif char == "," and stack:
            top = stack[-1]
            top[1] = None if top[0] else (top[1] or 0) + 1
        i += 1
    if stack and not stack[-1][0] and stack[-1][1] is None:
        stack[-1][1] = 0  # at the first element
    tokens = [token for _, token in stack if token is not None]
    if limit is not None:
        tokens = tokens[:limit]
    return pointer_join("", *tokens)


class _BadNumber(_Refused):
    def __init__(self, message: str, literal: str) -> None:
        super().__init__(message)
        self.literal = literal


def _refuse_constant(name: str) -> Any:
    raise _BadNumber(f"{name} is not a number JSON can carry", re.escape(name))


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise _BadNumber(f"number {text[:40]} is out of range", re.escape(text))
    return number


def _offset_of(text: str, literal: str) -> int:
    """Where ``literal`` (a regex) first occurs outside a string; 0 if nowhere."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.+-])(' + literal + r")(?![\w.])", re.DOTALL)
    for match in pattern.finditer(text):
        if match.group(1) is not None:
            return match.start(1)
    return 0


class _DuplicateKey(_Refused):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _DuplicateKey
    return value


def _json_duplicate_at(text: str) -> tuple[str, str, int]:
    """The first key that repeats in its object: its pointer, the key and its offset."""
    stack: list[list[Any]] = []  # per open container: [keys seen or None for an array, index]
    last_string: Any = None
    last_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            match = _STRING.match(text, i)
            if match is None:
                break
            last_string, last_start = json.loads(match.group()), i
            i = match.end()
            continue
        if char in "{[":
            stack.append([set() if char == "{" else None, 0])
        elif not stack:
            pass
        elif char in "}]":
            stack.pop()
        elif char == ":" and stack[-1][0] is not None:
            keys = stack[-1][0]
            if last_string in keys:
                tokens = [t[1] for t in stack[:-1]] + [last_string]
                return pointer_join("", *tokens), last_string, last_start
            keys.add(last_string)
            stack[-1][1] = last_string
        elif char == "," and stack[-1][0] is None:
            stack[-1][1] += 1
        i += 1
    return "", "", 0  # not reached: json.loads found the duplicate in this text


def _parse_json(text: str, name: str) -> Any:
    try:
        data = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite, object_pairs_hook=_object
        )
    except _DuplicateKey:
        pointer, key, at = _json_duplicate_at(text)
        line = text.count("\n", 0, at) + 1
        raise SpecError.at(
            Location(name, pointer), f"duplicate key {_show(key)} (line {line})"
        ) from None
    except json.JSONDecodeError as exc:
        raise SpecError.at(
            Location(name, _json_pointer_at(text, exc.pos)),
            f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
        ) from None
    except RecursionError:
        pointer = _json_pointer_at(text, len(text), MAX_DEPTH)
        raise SpecError.at(
            Location(name, pointer), f"nests deeper than {MAX_DEPTH} levels"
        ) from None
    except (_BadNumber, ValueError) as exc:  # ValueError: int() refuses that many digits
        if isinstance(exc, _BadNumber):
            message, literal = str(exc), exc.literal
        else:
            message, literal = "an integer has more than 4300 digits", r"-?[0-9]{4300,}"
        at = _offset_of(text, literal)
        line = text.count("\n", 0, at) + 1
        raise SpecError.at(
            Location(name, _json_pointer_at(text, at)), f"{message} (line {line})"
        ) from None
    _check_json(data, name, _SURROGATE_ESCAPE.search(text) is not None)
    return data


def _check_json(data: Any, name: str, strings: bool) -> None:
    """Refuse nesting deeper than MAX_DEPTH, and (``strings``) unpaired surrogates."""
    # Entries: (value, depth, parent entry, token); the path is rebuilt only on error.
    stack: list[tuple[Any, int, Any, Any]] = [(data, 1, None, None)]
    while stack:
        entry = stack.pop()
        value, depth = entry[0], entry[1]
        problem = None
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                problem = f"nests deeper than {MAX_DEPTH} levels"
            else:
                for key, child in value.items():
                    if strings:
                        try:
                            _check_text(key)
                        except _Refused as exc:
                            problem = f"key {exc}"
                            break
                    if isinstance(child, (dict, list)) or strings and isinstance(child, str):
                        stack.append((child, depth + 1, entry, key))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                problem = f"nests deeper than {MAX_DEPTH} levels"
            else:
                stack.extend(
                    (child, depth + 1, entry, index)
                    for index, child in enumerate(value)
                    if isinstance(child, (dict, list)) or strings and isinstance(child, str)
                )
        elif isinstance(value, str):
            try:
                _check_text(value)
            except _Refused as exc:
                problem = str(exc)
        if problem is not None:
            tokens: list[Any] = []
            node = entry
            while node[2] is not None:
                tokens.append(node[3])
                node = node[2]
            raise SpecError.at(Location(name, pointer_join("", *reversed(tokens))), problem)


def _parse(text: str, path: Path, name: str) -> Any:
    if path.suffix.lower() == ".json":
        return _parse_json(text, name)
    if text.lstrip().startswith("{"):
        # JSON is the fast path for a YAML file that is JSON. YAML flow style also
        # starts with "{": if both fail, the JSON error is the one that helps.
        try:
            return _parse_json(text, name)
        except SpecError as json_error:
            try:
                return _parse_yaml(text, name)
            except SpecError:
                raise json_error from None
    return _parse_yaml(text, name)


def load_document(path: Path, name: str) -> Document:
    """Read and parse one file; any failure is a SpecError naming it."""
    raw = _read_bytes(path, name)
    data = _parse(_decode(raw, name), path, name)
    if swagger2.is_swagger2(data):
        data = swagger2.convert(data)
    return Document(path=path, name=name, data=data, sha256=hashlib.sha256(raw).hexdigest())


# -- references -------------------------------------------------------------


def _walk_pointer(data: Any, pointer: str, location: Location) -> Any:
    if pointer in ("", "/"):
        return data
    if not pointer.startswith("/"):
        raise SpecError.at(location, f"'{pointer}' is not a JSON pointer")
    node = data
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (
            isinstance(node, list)
            and token.isascii()
            and token.isdigit()
            and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            raise SpecError.at(location, f"$ref target '{pointer}' does not exist")
    return node


@attrs.define
class SpecSet:
    """The root document and every file its ``$ref``s reach, loaded on demand."""

    root: Document
    documents: dict[Path, Document] = attrs.field(factory=dict)

    @property
    def folder(self) -> Path:
        return self.root.path.parent

    def document_at(self, location: Location) -> Document:
        for document in self.documents.values():
            if document.name == location.file:
                return document
        raise KeyError(location.file)

    def _load_relative(self, base: Document, target: str, at: Location) -> Document:
        try:
            path = (base.path.parent / unquote(target)).resolve()
            inside = path.is_relative_to(self.folder)
        except (OSError, ValueError, RuntimeError) as exc:
            raise SpecError.at(at, f"$ref '{target}' is not a usable file path: {exc}") from None
        if not inside:
            raise SpecError.at(at, f"$ref '{target}' points outside the spec's folder")
        if path not in self.documents:
            name = str(Path(self.root.name).parent / path.relative_to(self.folder))
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                raise SpecError.at(at, f"$ref '{target}': file {name} not found") from None
            except (OSError, ValueError) as exc:
                raise SpecError.at(
                    at, f"$ref '{target}': file {name} cannot be read: {exc}"
                ) from None
            if not stat.S_ISREG(mode):
                raise SpecError.at(at, f"$ref '{target}': {name} is not a regular file")
            self.documents[path] = load_document(path, name)
        return self.documents[path]

    def resolve(self, ref: object, at: Location) -> tuple[Any, Location]:
        """Follow one ``$ref`` found at ``at``; returns the target and its location."""
        if not isinstance(ref, str):
            raise SpecError.at(at, "$ref must be a string")
        if "://" in ref:
            raise SpecError.at(
                at, f"$ref '{ref}' is remote; only local and relative files are read"
            )
        base = self.document_at(at)
        target, _, pointer = ref.partition("#")
        document = self._load_relative(base, target, at) if target else base
        pointer = unquote(pointer)
        return _walk_pointer(document.data, pointer, at), Location(document.name, pointer)

    def deref(self, node: Any, at: Location) -> tuple[Any, Location]:
        """Follow ``$ref`` chains until a node that is not a reference."""
        seen: set[Location] = set()
        while isinstance(node, dict) and "$ref" in node:
            if at in seen:
                raise SpecError.at(at, "$ref cycle: the reference points back to itself")
            seen.add(at)
            node, at = self.resolve(node["$ref"], at.child("$ref"))
        return node, at


def load_spec(path: Path, name: str | None = None) -> SpecSet:
    """Load the root document of a spec; referenced files load as they are reached."""
    label = name or str(path)
    try:
        resolved = path.resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise SpecError.at(Location(label), f"cannot be read: {exc}") from None
    root = load_document(resolved, label)
    spec = SpecSet(root=root)
    spec.documents[root.path] = root
    return spec
