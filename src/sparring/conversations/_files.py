"""Reading and writing the files behind records: YAML documents with located errors,
atomic writes (``sparring._atomic``, re-exported), natural ordering of file names.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from sparring._json import read_user_json
from sparring._yaml import SAFE_LOADER, check_yaml_limits, read_yaml_text
from sparring.errors import ConfigError, Problem, validation_problems

M = TypeVar("M", bound=BaseModel)


_SafeBase = SAFE_LOADER

_NUMPY = "tag:yaml.org,2002:python/object/apply:numpy."
_STRUCT_CODES = {
    ("f", 2): "e", ("f", 4): "f", ("f", 8): "d",
    ("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "q",
    ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "Q", ("b", 1): "?",
}  # fmt: skip


class _Loader(_SafeBase):  # type: ignore[valid-type,misc]
    """PyYAML's safe loader that also reads the numpy scalars SENSEI's files carry
    (``total_cost($): !!python/object/apply:numpy.core.multiarray.scalar [dtype, !!binary]``,
    written by ``yaml.dump`` of a ``numpy.float64``) as plain ``float``/``int``/``bool``,
    decoding the bytes with ``struct``: nothing is imported or constructed. Any other
    ``python/`` tag stays an error, as in the safe loader."""


def _binary_text(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    """A ``!!binary`` value outside a numpy scalar, kept as the base64 text it was written
    as: a record is JSON, which has no bytes."""
    return "".join(str(loader.construct_scalar(node)).split())  # type: ignore[arg-type]


def _numpy_scalar(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if not suffix.endswith("multiarray.scalar") or not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"unsupported numpy tag {node.tag!r}", node.start_mark
        )
    if len(node.value) != 2:
        raise yaml.constructor.ConstructorError(
            None, None, "a numpy scalar is [dtype, bytes]", node.start_mark
        )
    dtype, data = node.value
    code, order = _numpy_dtype(dtype)
    raw = loader.construct_yaml_binary(data) if data.tag.endswith(":binary") else None
    fmt = _STRUCT_CODES.get((code[:1], int(code[1:] or 0))) if code[1:].isdigit() else None
    if fmt is None or not isinstance(raw, bytes) or len(raw) != struct.calcsize(fmt):
        raise yaml.constructor.ConstructorError(
            None, None, f"unsupported numpy scalar of type {code!r}", node.start_mark
        )
    return struct.unpack((">" if order == ">" else "<") + fmt, raw)[0]


def _numpy_dtype(node: yaml.Node) -> tuple[str, str]:
    """``(type code such as 'f8', byte order)`` of a dumped ``numpy.dtype`` node."""
    args: yaml.Node | None = node
    state: yaml.Node | None = None
    if isinstance(node, yaml.MappingNode):
        found = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        args, state = found.get("args"), found.get("state")
    code = ""
    first = args.value[0] if isinstance(args, yaml.SequenceNode) and args.value else None
    if isinstance(first, yaml.ScalarNode):
        code = str(first.value)
    order = "<"
    if isinstance(state, yaml.SequenceNode) and len(state.value) > 1:
        order = str(getattr(state.value[1], "value", "<"))
    return code, order


_Loader.add_multi_constructor(_NUMPY, _numpy_scalar)
_Loader.add_constructor("tag:yaml.org,2002:binary", _binary_text)


def load_yaml_text(text: str) -> Any:
    """The first YAML document of ``text`` as plain data, read as ``read_yaml_documents``
    reads (numpy scalars as numbers, ``!!binary`` as its base64 text); call
    ``sparring._yaml.read_yaml_text`` and ``check_yaml_limits`` first. Raises
    ``yaml.YAMLError``."""
    return yaml.load(text, Loader=_Loader)


def finite_number(value: Any) -> float | None:
    """A number read from another tool's file as a float: ``None`` for anything else, and
    for NaN, an infinity or an integer past the float range (``.inf``, ``1e400`` in a
    hand-edited file), which no duration, latency or cost can be."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders ``2_x`` before ``10_x``."""
    parts = re.split(r"(\d+)", text)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def read_yaml_documents(path: Path) -> tuple[str, list[Any]]:
    """Read every YAML document of ``path``; return the text and the documents.

    Raises ``ConfigError`` naming the file (and the line, where YAML gives one) when the
    file cannot be read or parsed, or exceeds a limit of ``sparring._yaml``.
    """
    text = read_yaml_text(path)
    check_yaml_limits(path, text)
    try:
        return text, list(yaml.load_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        message = f"invalid YAML: {exc.problem or exc}"
        raise ConfigError(Problem(str(path), line, "", message)) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(Problem(str(path), None, "", f"invalid YAML: {exc}")) from exc


def locate_yaml(text: str, document: int, keys: Sequence[str | int]) -> int | None:
    """The 1-based line of ``keys`` (mapping keys, sequence indices) inside document
    number ``document`` of ``text``; the deepest line found, ``None`` if none."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.YAMLError:
        return None
    if document >= len(nodes) or nodes[document] is None:
        return None
    node: yaml.Node = nodes[document]
    line: int | None = node.start_mark.line + 1
    for key in keys:
        child = _child(node, key)
        if child is None:
            break
        node = child
        line = node.start_mark.line + 1
    return line


def _child(node: yaml.Node, key: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                found: yaml.Node = value_node
                return found
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        child: yaml.Node = node.value[key]
        return child
    return None


def read_json_model(path: Path, model: type[M]) -> M:
    """Validate the JSON file ``path`` as ``model``.

    Raises ``ConfigError`` naming the file, the line of a JSON syntax error, or the key of
    each field that does not validate.
    """
    data = read_json(path)
    check_schema_version(path, data, model)
    return validate_model(path, data, model)


def check_schema_version(path: Path, data: Any, model: type[BaseModel]) -> None:
    """Refuse a file whose ``schema_version`` this sparring cannot read.

    ``model``'s ``schema_version`` default is the version written; its class attribute
    ``OLDEST_SCHEMA_VERSION`` (default: the same) the oldest it still reads. Models without
    a ``schema_version`` field, and data without the key, pass. Raises ``ConfigError``
    naming the file, the key and both versions.
    """
    field = model.model_fields.get("schema_version")
    if field is None or not isinstance(data, dict) or "schema_version" not in data:
        return
    found, current = data["schema_version"], field.default
    oldest = getattr(model, "OLDEST_SCHEMA_VERSION", current)
    if not isinstance(found, int) or isinstance(found, bool):
        message = f"schema_version must be an integer, not {found!r}"
    elif found > current:
        message = (
            f"schema_version {found} is newer than this sparring reads ({current}): "
            f"the file was written by a newer sparring; upgrade sparring to read it"
        )
    elif found < oldest:
        message = (
            f"schema_version {found} is older than this sparring reads ({oldest} to "
            f"{current}): re-create the file with this sparring"
        )
    else:
        return
    raise ConfigError(Problem(str(path), None, "schema_version", f"{model.__name__} {message}"))


def read_json(path: Path) -> Any:
    """Parse the JSON file ``path``. Raises ``ConfigError`` (file, line of a syntax error)
    for a file that is not a regular file, over 64 MiB, not JSON, nested deeper than 100
    levels or holding a number Python cannot read (``sparring._json.read_user_json``)."""
    return read_user_json(path)


def validate_model(path: Path, data: Any, model: type[M]) -> M:
    """``model.model_validate(data)``, with errors turned into a located ``ConfigError``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_problems(exc, str(path), what=model.__name__)) from exc
