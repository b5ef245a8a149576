"""YAML documents, read by the YAML 1.2 core schema as the JSON-compatible data an OpenAPI
document is (see :mod:`jobgen.spec.loader`); imported only when a YAML file is read."""

from __future__ import annotations

import math
import re
from typing import Any

import attrs
import yaml
from yaml import events as ev

from ..fieldwise import MutableNode
from ..problems import Location, SpecError, pointer_join
from .loader import MAX_ALIAS_NODES, MAX_DEPTH, _check_text, _no_gc, _Refused, _show

__all__ = ["parse_yaml"]

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
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


def _one_line(text: str) -> str:
    return " ".join(text.split())


@attrs.define(eq=False, repr=False, slots=True)
class _Anchor(MutableNode):
    value: Any
    size: int
    height: int
    text: str | None  # a scalar's text: an alias of it may be a mapping key


@attrs.define(eq=False, repr=False, slots=True)
class _Frame(MutableNode):
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
                    if top is not None and top.key is _NO_KEY and type(top.items) is dict:
                        text = event.value
                        if event.tag is None and event.anchor is None and text != "<<":
                            # The common key, inline (``_key`` does the rest).
                            if not text.isascii():
                                _check_text(text)
                            top.key = text
                            self.count += 1
                        else:
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
                    if top is not None and type(top.items) is list:
                        top.items.append(value)  # ``_add`` of a scalar to a list, inline
                    else:
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


def parse_yaml(text: str, name: str) -> Any:
    """The JSON-compatible data of a YAML document; any problem is a SpecError."""
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
