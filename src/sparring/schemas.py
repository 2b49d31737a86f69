"""The JSON Schemas of the files users write, by name (``sparring schema NAME``).

The owning packages register their formats — ``profile`` (``sparring.profiles``),
``chatbot`` (``sparring.connectors``), ``rules`` (``sparring.check``), ``model`` (the
explored functionality model, ``sparring.explore``) — and third-party
packages add theirs through the entry-point group ``sparring.schemas``
(``name = "package.module:ModelOrCallable"``)::

    register_schema("rules", rules_schema)      # a callable returning a schema
    register_schema("profile", Profile)         # or a Pydantic model class
    json_schema("profile")                      # {"$schema": ..., "properties": ...}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from pydantic import BaseModel

from sparring.errors import UnknownName
from sparring.registry import Registry

SchemaSource = type[BaseModel] | Callable[[], dict[str, Any]]
"""A Pydantic model class, or a callable returning a JSON Schema (a dict)."""

ENTRY_POINT_GROUP = "sparring.schemas"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class UnknownSchema(UnknownName):
    """No schema is registered under ``name`` (a ``UserInputError``)."""

    template = "no {kind} named {name!r}{hint}; known: {available}"


SCHEMAS: Registry[SchemaSource] = Registry(
    "schema",
    group=ENTRY_POINT_GROUP,
    builtins=(
        "sparring.profiles",
        "sparring.connectors",
        "sparring.check",
        "sparring.explore",
        "sparring.evaluate",
        "sparring.adversarial",
    ),
    unknown=UnknownSchema,
)
"""Every file format's schema source by name."""


def register_schema(name: str, source: SchemaSource, *, replace: bool = False) -> None:
    """Make ``json_schema(name)`` (and ``sparring schema NAME``) give ``source``'s schema.

    Raises ``DuplicateName`` when ``name`` is taken and ``replace`` is false.
    """
    SCHEMAS.register(name, source, replace=replace)


def schema_names() -> list[str]:
    """Every registered schema name (plug-ins included), sorted."""
    return SCHEMAS.names()


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12, keys by alias) registered as ``name``.

    Raises ``UnknownSchema`` (a ``UserInputError``) naming the known schemas.
    """
    source = SCHEMAS.get(name)
    if isinstance(source, type) and issubclass(source, BaseModel):
        schema = source.model_json_schema(by_alias=True)
    else:
        schema = cast(Callable[[], dict[str, Any]], source)()
    return {"$schema": JSON_SCHEMA_DIALECT, **schema}
