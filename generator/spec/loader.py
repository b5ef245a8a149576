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
import posixpath
import re
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import attrs

from ..fieldwise import MutableNode, Node
from ..problems import Location, Nearest, Problem, SpecError, pointer_join
from .specschema import check_spec_schema

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_FILE_MIB",
    "MAX_FILE_MIB_ENV",
    "Document",
    "SpecSet",
    "default_ref_root",
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


@attrs.frozen(eq=False, repr=False)
class Document(Node):
    """One parsed file: where it lives, how errors name it, and its content."""

    path: Path
    name: str
    data: Any
    sha256: str = ""
    sources: dict[str, str] = attrs.field(factory=dict, eq=False, repr=False)
    """For a converted Swagger 2.0 document: the 2.0 pointer of each converted node that moved."""
    warnings: tuple[Problem, ...] = attrs.field(default=(), eq=False, repr=False)
    """What reading the document found that the SDK leaves out, or that breaks the OpenAPI
    schema harmlessly (specschema.py, then the Swagger 2.0 conversion)."""
    schema_errors: tuple[Problem, ...] = attrs.field(default=(), eq=False, repr=False)
    """Where a root document breaks the OpenAPI schema (specschema.py)."""


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


def _show(text: str) -> str:
    """Spec text quoted for a one-line message: control characters escaped."""
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


def _check_text(value: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(value[exc.start])
            raise _Refused(f"contains an unpaired surrogate (\\u{code:04x})") from None


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


def _parse_yaml(text: str, name: str) -> Any:
    from .yamldoc import parse_yaml  # PyYAML is loaded only for a YAML document

    return parse_yaml(text, name)


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


def _original_pointer(pointer: str, sources: dict[str, str]) -> str:
    """The pointer in the Swagger 2.0 document of what is at ``pointer`` in its conversion
    (``sources`` is empty for an OpenAPI 3 document: the pointer is its own)."""
    if not sources:
        return pointer
    from . import swagger2

    return swagger2.original_pointer(pointer, sources)


class _Parsed:
    """What files a process parsed, and a copy of those it parsed twice, to unpickle the
    third time and after: a test suite, a server per spec, or specs sharing files (Azure's
    common-types) read the same bytes again. Keyed by the bytes' sha256 (and whether the
    name says JSON), so a changed file is parsed anew; each load gets its own copy of the
    data, so what one caller does with its tree no other sees. At most `KEEP_BYTES` of
    pickles are kept, the least recently used dropped first."""

    KEEP_BYTES = 32 << 20
    SEEN = 100_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[tuple[str, bool]] = set()
        self._kept: dict[tuple[str, bool], bytes] = {}
        self._size = 0

    def parse(self, raw: bytes, digest: str, path: Path, name: str) -> Any:
        key = (digest, path.suffix.lower() == ".json")
        with self._lock:
            kept = self._kept.pop(key, None)
            if kept is not None:
                self._kept[key] = kept  # the most recently used goes last
            again = key in self._seen
            if len(self._seen) >= self.SEEN:
                self._seen.clear()
            self._seen.add(key)
        if kept is not None:
            import pickle

            with _no_gc():
                return pickle.loads(kept)
        data = _parse(_decode(raw, name), path, name)
        if again:
            self._keep(key, data)
        return data

    def _keep(self, key: tuple[str, bool], data: Any) -> None:
        import pickle

        pickled = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        if len(pickled) > self.KEEP_BYTES:
            return
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = pickled
            self._size += len(pickled)
            while self._size > self.KEEP_BYTES:
                oldest = next(iter(self._kept))
                self._size -= len(self._kept.pop(oldest))


_PARSED = _Parsed()


def load_document(path: Path, name: str) -> Document:
    """Read and parse one file; any failure is a SpecError naming it."""
    raw = _read_bytes(path, name)
    sha256 = hashlib.sha256(raw).hexdigest()
    data = _PARSED.parse(raw, sha256, path, name)
    errors, warnings = check_spec_schema(data, name)
    sources: dict[str, str] = {}
    if isinstance(data, dict) and str(data.get("swagger")) == "2.0":
        from . import swagger2  # only for Swagger 2.0 documents

        data, sources, converted = swagger2.convert(data, name)
        warnings = [*warnings, *converted]
    return Document(
        path=path,
        name=name,
        data=data,
        sha256=sha256,
        sources=sources,
        warnings=tuple(warnings),
        schema_errors=tuple(errors),
    )


# -- references -------------------------------------------------------------


def _walk_pointer(
    data: Any, pointer: str, location: Location, near: dict[int, tuple[Any, Nearest]]
) -> Any:
    if pointer in ("", "/"):
        return data
    if not pointer.startswith("/"):
        raise SpecError.at(location, f"'{pointer}' is not a JSON pointer")
    node = data
    for index, raw in enumerate(pointer[1:].split("/")):
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
            raise SpecError.at(
                location,
                f"target '{pointer}' does not exist{_near_target(node, pointer, index, near)}",
            )
    return node


def _near_target(
    node: Any, pointer: str, failed: int, index: dict[int, tuple[Any, Nearest]]
) -> str:
    """`` (did you mean '/a/b'?)`` when the token that failed (the ``failed``-th) is close
    to a key of the node it was looked up in; ``index``: the node's keys, indexed once
    per node (by its id, the node kept alive beside it) for every dangling ref into it."""
    if not isinstance(node, dict):
        return ""
    tokens = pointer[1:].split("/")
    token = tokens[failed].replace("~1", "/").replace("~0", "~")
    kept = index.get(id(node))
    if kept is None or kept[0] is not node:
        kept = index[id(node)] = (node, Nearest(str(key) for key in node))
    near = kept[1].closest(token)
    if near is None:
        return ""
    tokens[failed] = near.replace("~", "~0").replace("/", "~1")
    return f" (did you mean '/{'/'.join(tokens[: failed + 1])}'?)"


REF_ROOT_HINT = "widen it with --ref-root DIR (or ref_root in the config)"


@attrs.define(eq=False, repr=False)
class SpecSet(MutableNode):
    """The root document and every file its ``$ref``s reach, loaded on demand.

    A ``$ref`` may name any file inside the root document's folder, or inside
    ``ref_root`` when one is given (a folder holding the spec's own: Azure's specs reach
    ``../../../../../common-types/``); never one outside it.
    """

    root: Document
    documents: dict[Path, Document] = attrs.field(factory=dict)
    ref_root: Path | None = None
    # Lookups a large multi-file spec repeats thousands of times: a document by its name,
    # and the document a relative ``$ref`` names from a folder (a realpath per call otherwise).
    _by_name: dict[str, Document] = attrs.field(factory=dict, init=False, repr=False)
    _relative: dict[tuple[str, str], Document] = attrs.field(factory=dict, init=False, repr=False)
    _resolved: dict[tuple[str, str], tuple[Any, Location]] = attrs.field(
        factory=dict, init=False, repr=False
    )
    _near: dict[int, tuple[Any, Nearest]] = attrs.field(factory=dict, init=False, repr=False)

    @property
    def folder(self) -> Path:
        return self.root.path.parent

    @property
    def boundary(self) -> Path:
        """The folder ``$ref``s may not leave."""
        return self.ref_root if self.ref_root is not None else self.folder

    def document_at(self, location: Location) -> Document:
        document = self._by_name.get(location.file)
        if document is None or self.documents.get(document.path) is not document:
            for document in self.documents.values():
                if document.name == location.file:
                    break
            else:
                raise KeyError(location.file)
            self._by_name[location.file] = document
        return document

    def add(self, document: Document) -> Document:
        """Record a loaded document (the first of a name is the one ``document_at`` finds)."""
        self.documents[document.path] = document
        self._by_name.setdefault(document.name, document)
        return document

    def relative_name(self, path: Path) -> str:
        """How a file is named in messages: relative to the root document's name."""
        relative = os.path.relpath(path, self.folder)
        return posixpath.normpath(
            posixpath.join(Path(self.root.name).parent.as_posix(), Path(relative).as_posix())
        )

    def source(self, problem: Problem) -> Problem:
        """The problem with its pointer in the document as written (Swagger 2.0 included)."""
        location = problem.location
        try:
            document = self.document_at(location)
        except KeyError:
            return problem
        if not document.sources:
            return problem
        pointer = _original_pointer(location.pointer, document.sources)
        return Problem(Location(location.file, pointer), problem.message)

    def reading_warnings(self) -> list[Problem]:
        """What reading the documents found that the SDK leaves out."""
        return [w for document in self.documents.values() for w in document.warnings]

    def _load_relative(self, base: Document, target: str, at: Location) -> Document:
        # Documents of one folder share their targets: ``../models/x.yml`` from each.
        key = (os.path.dirname(base.path), target)
        found = self._relative.get(key)
        if found is not None:
            return found
        try:
            path = (base.path.parent / unquote(target)).resolve()
            inside = path.is_relative_to(self.boundary)
        except (OSError, ValueError, RuntimeError) as exc:
            raise SpecError.at(at, f"$ref '{target}' is not a usable file path: {exc}") from None
        if not inside:
            which = "--ref-root folder" if self.ref_root is not None else "spec's folder"
            hint = "" if self.ref_root is not None else f"; {REF_ROOT_HINT}"
            raise SpecError.at(at, f"$ref '{target}' points outside the {which}{hint}")
        if path not in self.documents:
            name = self.relative_name(path)
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
            self.add(load_document(path, name))
        found = self._relative[key] = self.documents[path]
        return found

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
        try:
            node = _walk_pointer(document.data, pointer, at, self._near)
        except SpecError as missing:
            shown = _original_pointer(pointer, document.sources)
            if shown == pointer:  # an OpenAPI 3 document: the message and its guess stand
                raise
            raise SpecError.at(at, f"target '{shown}' does not exist") from missing
        return node, Location(document.name, pointer)

    def deref(self, node: Any, at: Location) -> tuple[Any, Location]:
        """Follow ``$ref`` chains until a node that is not a reference.

        Each chain is followed once: every reference met on the way is remembered with
        the chain's end, so a chain of n references costs n steps in all, not n per link.
        """
        if not (isinstance(node, dict) and "$ref" in node):
            return node, at
        ref = node["$ref"]
        if isinstance(ref, str):
            hit = self._resolved.get((at.file, ref))
            if hit is not None:
                return hit
        seen: set[Location] = set()
        passed: list[tuple[str, str]] = []
        while isinstance(node, dict) and "$ref" in node:
            if at in seen:
                raise SpecError.at(at, "$ref cycle: the reference points back to itself")
            seen.add(at)
            ref = node["$ref"]
            if isinstance(ref, str):
                hit = self._resolved.get((at.file, ref))
                if hit is not None:
                    node, at = hit
                    break
                passed.append((at.file, ref))
            node, at = self.resolve(ref, at.child("$ref"))
        for key in passed:
            self._resolved[key] = (node, at)
        return node, at


def load_spec(path: Path, name: str | None = None, ref_root: Path | None = None) -> SpecSet:
    """Load the root document of a spec; referenced files load as they are reached.

    ``ref_root`` (default: :func:`default_ref_root`'s, else none) is a folder holding the
    spec's own that ``$ref``s may reach into; without it they stay in the spec's folder.
    """
    label = name or str(path)
    try:
        resolved = path.resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise SpecError.at(Location(label), f"cannot be read: {exc}") from None
    widened = ref_root if ref_root is not None else _DEFAULT_REF_ROOT[0]
    boundary = None
    if widened is not None:
        try:
            boundary = widened.resolve()
            is_dir = boundary.is_dir()
        except (OSError, ValueError, RuntimeError) as exc:
            raise SpecError.at(
                Location(str(widened)),
                f"cannot be read (the $ref root: --ref-root, ref_root): {exc}",
            ) from None
        if not is_dir:
            raise SpecError.at(
                Location(str(widened)), "is not a folder (the $ref root: --ref-root, ref_root)"
            )
        if not resolved.parent.is_relative_to(boundary):
            raise SpecError.at(
                Location(label), f"is not inside the $ref root {widened} (--ref-root, ref_root)"
            )
    root = load_document(resolved, label)
    spec = SpecSet(root=root, ref_root=boundary)
    spec.add(root)
    return spec


_DEFAULT_REF_ROOT: list[Path | None] = [None]


@contextmanager
def default_ref_root(ref_root: Path | None) -> Iterator[None]:
    """Within the block, :func:`load_spec` widens to ``ref_root`` when not told otherwise
    (for callers that load a spec themselves: ``jobgen serve``)."""
    previous = _DEFAULT_REF_ROOT[0]
    _DEFAULT_REF_ROOT[0] = ref_root
    try:
        yield
    finally:
        _DEFAULT_REF_ROOT[0] = previous
