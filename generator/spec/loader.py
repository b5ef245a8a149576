"""Read OpenAPI documents from disk and resolve their ``$ref``s.

Documents are untrusted text. Reading guards against the classic traps: bytes that
are not UTF-8, YAML alias bombs, nesting deep enough to exhaust the stack, and
``$ref``s that climb out of the spec's folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import attrs
import yaml

from ..problems import Location, SpecError

__all__ = ["MAX_DEPTH", "MAX_NODES", "Document", "SpecSet", "load_document", "load_spec"]

MAX_DEPTH = 400
MAX_NODES = 5_000_000

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@attrs.frozen
class Document:
    """One parsed file: where it lives, how errors name it, and its content."""

    path: Path
    name: str
    data: Any
    sha256: str = ""


def _read_bytes(path: Path, name: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise SpecError.at(Location(name), "file not found") from None
    except IsADirectoryError:
        raise SpecError.at(Location(name), "is a directory, not a spec file") from None
    except OSError as exc:
        raise SpecError.at(Location(name), f"cannot be read: {exc.strerror}") from None


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError.at(
            Location(name), f"is not UTF-8 text (byte {exc.start}, line {line})"
        ) from None


def _check_yaml_graph(node: yaml.Node, name: str) -> None:
    """Refuse documents whose alias expansion or depth would be unbounded."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk: a deep document must not exhaust Python's stack.
    stack: list[tuple[yaml.Node, int, bool]] = [(node, 1, False)]
    on_path: set[int] = set()
    while stack:
        current, depth, done = stack.pop()
        key = id(current)
        if done:
            on_path.discard(key)
            total = 1
            for child in _children(current):
                total += sizes.get(id(child), 0)
            if total > MAX_NODES:
                raise SpecError.at(
                    Location(name),
                    f"expands to more than {MAX_NODES:,} nodes through YAML aliases",
                )
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise SpecError.at(Location(name), "contains a recursive YAML alias")
        if depth > MAX_DEPTH:
            mark = current.start_mark
            raise SpecError.at(
                Location(name),
                f"nests deeper than {MAX_DEPTH} levels (line {mark.line + 1})",
            )
        on_path.add(key)
        stack.append((current, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(current))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _parse_yaml(text: str, name: str) -> Any:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_graph(node, name)
        return loader.construct_document(node)  # type: ignore[no-untyped-call]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise SpecError.at(Location(name), f"is not valid YAML: {exc.problem}{where}") from None
    except yaml.YAMLError as exc:
        raise SpecError.at(Location(name), f"is not valid YAML: {exc}") from None
    finally:
        loader.dispose()  # type: ignore[no-untyped-call]


def _check_depth(data: Any, name: str) -> None:
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SpecError.at(Location(name), f"nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value)


def _parse(text: str, path: Path, name: str) -> Any:
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError.at(
                Location(name),
                f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            ) from None
        except RecursionError:
            raise SpecError.at(Location(name), f"nests deeper than {MAX_DEPTH} levels") from None
        _check_depth(data, name)
        return data
    return _parse_yaml(text, name)


def load_document(path: Path, name: str) -> Document:
    """Read and parse one file; any failure is a SpecError naming it."""
    raw = _read_bytes(path, name)
    data = _parse(_decode(raw, name), path, name)
    return Document(path=path, name=name, data=data, sha256=hashlib.sha256(raw).hexdigest())


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
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
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
        path = (base.path.parent / unquote(target)).resolve()
        if not path.is_relative_to(self.folder):
            raise SpecError.at(at, f"$ref '{target}' points outside the spec's folder")
        if path not in self.documents:
            name = str(Path(self.root.name).parent / path.relative_to(self.folder))
            if not path.exists():
                raise SpecError.at(at, f"$ref '{target}': file {name} not found")
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
    root = load_document(path.resolve(), name or str(path))
    spec = SpecSet(root=root)
    spec.documents[root.path] = root
    return spec
