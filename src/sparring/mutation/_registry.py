"""The mutation operators by name: built-in operators register themselves with
``@mutation_operator``; plug-ins come through the entry-point group
``sparring.mutation_operators`` (``name = "package.module:OperatorClassOrInstance"``)."""

from __future__ import annotations

from typing import TypeVar

from sparring.mutation._model import MutationOperator, ProjectKind
from sparring.registry import Registry

ENTRY_POINT_GROUP = "sparring.mutation_operators"

OPERATORS: Registry[MutationOperator] = Registry(
    "mutation operator",
    group=ENTRY_POINT_GROUP,
    builtins=("sparring.mutation._operators",),
)
"""Every mutation operator by name."""

OperatorClass = TypeVar("OperatorClass", bound=type)


def mutation_operator(cls: OperatorClass) -> OperatorClass:
    """Class decorator: register an instance of ``cls`` under its ``name``. Raises
    ``DuplicateName`` when the name is taken."""
    instance = cls()
    OPERATORS.register(instance.name, instance)
    return cls


def operators_for(kind: ProjectKind) -> list[MutationOperator]:
    """The operators that apply to ``kind`` projects, sorted by name."""
    return [op for name, op in sorted(OPERATORS.items().items()) if op.kind == kind]
