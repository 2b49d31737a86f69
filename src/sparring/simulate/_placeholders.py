"""Placeholder values in a generated profile ("drink of my choice", the crawler's "the
usual, please", ``sparring.profiles.is_placeholder``): the agenda user never sends one as
written. A goal made only of placeholders asks what the bot has ("What drink do you
have?"), or is dropped when it names nothing; a placeholder the bot asks for is replaced
by an option the bot itself offers, else the user asks once what there is."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from sparring.profiles import placeholder_words
from sparring.simulate._goals import Goal
from sparring.simulate._matching import best_option


def ask_for_options(words: str) -> str:
    """The user's question for the values of ``words`` ("What drink do you have?")."""
    return f"What {words} do you have?" if words else "What do you have?"


def adapt_goal(goal: Goal, values: Mapping[str, Any]) -> str | None:
    """Adapt ``goal`` whose every variable holds a placeholder: it becomes a question for
    the bot's options (met by any answer); a goal of the bare filler, with nothing to
    ask, is done at once. Returns a note when the goal changed, else ``None``."""
    if not goal.variables:
        if placeholder_words(goal.text) is None:
            return None
        words: list[str] = [""]
    else:
        found = [placeholder_words(values.get(name)) for name in sorted(goal.variables)]
        if any(w is None for w in found):
            return None
        words = [w for w in found if w is not None]
    named = [w for w in words if w]
    if not named:
        goal.status, goal.evidence = "done", "a placeholder: nothing to say"
        return f"goal {goal.text!r} is a placeholder with nothing to ask: not sent"
    goal.utterances = [ask_for_options(" and ".join(named))]
    goal.question = True
    return f"goal {goal.text!r} holds placeholders: asks {goal.utterances[0]!r} instead"


def offered_value(
    options: list[str],
    tried: Iterable[str],
    taken: Iterable[Any] = (),
    rng: random.Random | None = None,
) -> str | None:
    """An option the bot offered that was not tried for this question and is no value of
    another variable ("mushrooms" for the toppings, not the pizza again): the first, or
    with ``rng`` one drawn from it (the user's free choice, reproducible by its seed)."""
    skip = {str(t).strip().lower() for t in tried}
    others = [t for t in taken if t is not None]
    free = [
        option
        for option in options
        if option.strip().lower() not in skip
        and not any(best_option(value, [option]) is not None for value in others)
    ]
    if not free:
        return None
    return rng.choice(free) if rng is not None else free[0]
