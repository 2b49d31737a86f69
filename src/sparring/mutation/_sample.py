"""Choosing the mutants: every location of every operator for a kind of project, a seeded
sample of them, and one mutant rebuilt from its id.

The sample is stable: the candidates are sorted by mutant id before
``random.Random(seed).sample`` draws, so the same project, operators and seed give the same
mutants on every machine and on resume.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

from sparring.errors import UserInputError
from sparring.mutation._model import (
    Location,
    Mutant,
    MutationOperator,
    ProjectKind,
    mutant_id,
    unified_diff,
)
from sparring.mutation._registry import OPERATORS, operators_for


def candidates(
    project: Path, operators: Sequence[MutationOperator]
) -> list[tuple[MutationOperator, Location]]:
    """Every (operator, location) pair, sorted by mutant id (duplicates dropped)."""
    found: dict[str, tuple[MutationOperator, Location]] = {}
    for operator in operators:
        for location in operator.locations(project):
            found.setdefault(mutant_id(operator.name, location), (operator, location))
    return [found[key] for key in sorted(found)]


def make_mutant(project: Path, operator: MutationOperator, location: Location) -> Mutant:
    """Apply ``operator`` at ``location``: the mutant with its files and diff. Raises
    ``ValueError`` when the operator no longer applies there."""
    files, description = operator.apply(project, location)
    return Mutant(
        id=mutant_id(operator.name, location),
        operator=operator.name,
        location=location,
        description=description,
        diff=unified_diff(project, files),
        files=files,
    )


def sample_mutants(
    project: Path | str,
    kind: ProjectKind,
    sample: int | None = None,
    seed: int = 0,
    operators: Sequence[MutationOperator] | None = None,
    keep: Callable[[Location], bool] | None = None,
) -> list[Mutant]:
    """``sample`` mutants (``None``: all) of ``project``, drawn with ``seed`` from the
    locations of ``operators`` (default: the registered operators for ``kind``) that
    ``keep`` accepts (default: all), in id order. A location an operator then refuses
    (``ValueError``) is skipped. Raises ``UserInputError`` when no operator applies
    anywhere, or ``keep`` accepts no location."""
    project = Path(project)
    chosen_ops = list(operators) if operators is not None else operators_for(kind)
    pairs = candidates(project, chosen_ops)
    if not pairs:
        names = ", ".join(op.name for op in chosen_ops) or "none registered"
        raise UserInputError(
            f"no mutation operator applies to {project} (kind {kind}; operators: {names})"
        )
    if keep is not None:
        pairs = [(operator, location) for operator, location in pairs if keep(location)]
        if not pairs:
            raise UserInputError(f"no mutant location of {project} is exercised by the tests")
    if sample is not None and sample < len(pairs):
        pairs = sorted(random.Random(seed).sample(pairs, sample), key=_pair_id)
    mutants = []
    for operator, location in pairs:
        try:
            mutants.append(make_mutant(project, operator, location))
        except ValueError:
            continue
    return mutants


def apply_mutant(
    project: Path | str, id: str, operators: Sequence[MutationOperator] | None = None
) -> Mutant:
    """Rebuild the mutant ``id`` (``<operator>@<file>#<key>``) from the original project.
    ``operators`` (default: the registry) are looked up by name. Raises ``UserInputError``
    for an unknown operator or a location it no longer finds."""
    project = Path(project)
    name, _, tag = id.partition("@")
    by_name = {op.name: op for op in operators} if operators is not None else None
    operator = by_name.get(name) if by_name is not None else OPERATORS.find(name)
    if operator is None:
        raise UserInputError(f"mutant {id!r}: no mutation operator named {name!r}")
    for location in operator.locations(project):
        if location.tag() == tag:
            try:
                return make_mutant(project, operator, location)
            except ValueError as exc:
                raise UserInputError(f"mutant {id!r} no longer applies: {exc}") from exc
    raise UserInputError(f"mutant {id!r}: {name} finds no location {tag!r} in {project}")


def _pair_id(pair: tuple[MutationOperator, Location]) -> str:
    return mutant_id(pair[0].name, pair[1])
