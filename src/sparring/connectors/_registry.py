"""The connector registry: names → factories with their params models.

Built-in connectors register themselves with ``@connector("name")``; third-party packages
add theirs through the entry-point group ``sparring.connectors`` (the entry point names a
``@connector``-decorated factory, or a module that defines one). Both are loaded lazily,
on the first lookup, so importing ``sparring.connectors`` stays cheap (``sparring.registry``).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sparring.connectors._base import Connector, ConnectorContext, ConnectorParams
from sparring.errors import UnknownName
from sparring.registry import Registry

ENTRY_POINT_GROUP = "sparring.connectors"

_BUILTIN_MODULES = (
    "sparring.connectors._rasa",
    "sparring.connectors._taskyto",
    "sparring.connectors._rest",
    "sparring.connectors._openai",
    "sparring.connectors._python",
    "sparring.connectors._scripted",
    "sparring.connectors._dialogflow",
    "sparring.connectors._directline",
    "sparring.connectors._botpress",
    "sparring.connectors._lex",
)

P = TypeVar("P", bound=ConnectorParams)
Factory = Callable[[P, ConnectorContext], Connector]


@dataclass(frozen=True)
class ConnectorSpec:
    """A registered connector: its ``name``, ``factory(params, context)``, params model,
    a one-line ``description`` and whether it ``runs_code`` (the user's Python, in this
    process: refused where the execution policy refuses code, ``sparring._policy``)."""

    name: str
    factory: Callable[[Any, ConnectorContext], Connector]
    params_model: type[ConnectorParams]
    description: str
    runs_code: bool = False


class UnknownConnector(UnknownName):
    """No connector is registered (built in or by entry point) under ``name``.

    ``available`` lists the connectors, ``suggestions`` the close names and ``reason``
    says why a plug-in of that name failed to load, when one did. A ``UserInputError``
    (and a ``LookupError``).
    """


def _adopt(name: str, loaded: Any) -> ConnectorSpec:
    spec = getattr(loaded, "__sparring_connector__", None)
    if not isinstance(spec, ConnectorSpec):
        raise TypeError(f"{loaded!r} registered no connector (decorate it with @connector)")
    return spec


CONNECTORS: Registry[ConnectorSpec] = Registry(
    "connector",
    group=ENTRY_POINT_GROUP,
    builtins=_BUILTIN_MODULES,
    adopt=_adopt,
    unknown=UnknownConnector,
)
"""Every connector by name. Tests use ``CONNECTORS.override(...)``/``snapshot()``."""


def connector(
    name: str,
    *,
    params: type[P] | None = None,
    description: str | None = None,
    replace: bool = False,
    runs_code: bool = False,
) -> Callable[[Factory[P]], Factory[P]]:
    """Register a connector factory under ``name``.

    The factory is called as ``factory(params, context)`` and returns a ``Connector``.
    ``params`` defaults to the annotation of the factory's first parameter (a
    ``ConnectorParams`` subclass); ``description`` to the first line of its docstring;
    ``runs_code`` says the connector runs the user's code in this process.
    Raises ``TypeError`` when no params model can be found, ``DuplicateName`` when
    ``name`` is taken by another factory and ``replace`` is false.
    """

    def register(factory: Factory[P]) -> Factory[P]:
        existing = CONNECTORS.peek(name)
        if existing is not None and existing.factory is factory:
            return factory
        model = params or _params_annotation(factory)
        doc_lines = (inspect.getdoc(factory) or "").strip().splitlines()
        text = description or (doc_lines[0] if doc_lines else "")
        spec = ConnectorSpec(
            name=name, factory=factory, params_model=model, description=text, runs_code=runs_code
        )
        CONNECTORS.register(name, spec, replace=replace)
        factory.__sparring_connector__ = spec  # type: ignore[attr-defined]
        return factory

    return register


def _params_annotation(factory: Callable[..., Any]) -> type[ConnectorParams]:
    try:
        hints = typing.get_type_hints(factory)
    except NameError:  # a name only defined locally: params= must be given
        hints = {}
    first = next(iter(inspect.signature(factory).parameters), None)
    model = hints.get(first) if first else None
    if not (isinstance(model, type) and issubclass(model, ConnectorParams)):
        raise TypeError(
            f"{factory.__qualname__}: annotate its first parameter with a ConnectorParams "
            "subclass, or pass params= to @connector"
        )
    return model


def get_connector(name: str) -> ConnectorSpec:
    """The connector registered under ``name`` (an entry-point plug-in is loaded now if
    needed). Raises ``UnknownConnector`` naming the available ones, the close ones, or why
    the plug-in of that name failed to load."""
    return CONNECTORS.get(name)


def available_connectors() -> dict[str, ConnectorSpec]:
    """Every connector, built in and from entry points, by name (sorted).

    An entry point that fails to load is left out, logged, and listed by
    ``CONNECTORS.failures()``.
    """
    return CONNECTORS.items()
