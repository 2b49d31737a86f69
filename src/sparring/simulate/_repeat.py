"""Repeats (``simulate --repeat K``): each planned conversation run K times.

Every repeat keeps the plan's variables *and its seed*, so the user simulator behaves the
same as long as the chatbot answers the same: differences between repeats come from the
chatbot (a bot that picks among alternative answers, an LLM at temperature > 0), which is
what repeats are for. Repeat ids are ``<plan id>#<r>`` (r from 0); records carry ``plan``
and ``repeat``, which ``check`` groups to compute pass^k and flaky conversations
(``sparring.check._flaky``).
"""

from __future__ import annotations

from dataclasses import replace

from sparring.simulate._spec import ConversationSpec

REPEAT_SEPARATOR = "#"


def repeat_specs(specs: list[ConversationSpec], repeat: int) -> list[ConversationSpec]:
    """``specs`` with each one ``repeat`` times in a row (ids ``<id>#<r>``, same seed).
    ``repeat == 1`` returns the specs unchanged. Raises ``ValueError`` below 1."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    if repeat == 1:
        return list(specs)
    return [
        replace(spec, id=f"{spec.id}{REPEAT_SEPARATOR}{r}", plan=spec.id, repeat=r)
        for spec in specs
        for r in range(repeat)
    ]
