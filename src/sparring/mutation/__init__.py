"""sparring.mutation: mutation testing of chatbots — inject one fault per mutant, run the
same profiles and rules against every mutant, count the mutants killed (SENSEI §7.1;
TRACER's thesis, chapter 6)."""

from sparring.mutation._model import (
    Location,
    Mutant,
    MutationOperator,
    ProjectKind,
    mutant_id,
    unified_diff,
)
from sparring.mutation._registry import (
    ENTRY_POINT_GROUP,
    OPERATORS,
    mutation_operator,
    operators_for,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "OPERATORS",
    "Location",
    "Mutant",
    "MutationOperator",
    "ProjectKind",
    "mutant_id",
    "mutation_operator",
    "operators_for",
    "unified_diff",
]
