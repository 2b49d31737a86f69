"""Planning: the conversations a profile asks for, with every variable picked in advance.

Source: de Lara et al., "Automated End-to-End Testing for Conversational Agents", §4
(Table 2: how ``forward``, ``another`` and ``random`` pick values across conversations),
and SENSEI 1.1.5 ``VarGenerators`` / ``RoleData.get_conversation_number``. SENSEI draws
the values while the conversations run; sparring draws them all first, from a seed, so a
plan is reproducible and can be shown, stored and re-run.

Per conversation ``i`` (0-based):

- ``default()`` — the whole list; ``random()`` — one value; ``random(n)`` — ``n``
  distinct values (at most the list); ``random(rand)`` — 1…len distinct values;
- ``another()`` / ``another(n)`` — the next value (or group of ``n``) of a shuffled list,
  reshuffled when used up, so values do not repeat before all have been used;
- ``forward()`` alone — ``list[i % len]``; a forward chain — its ``i``-th combination
  (cycling); ``pairwise()`` — the ``i``-th pairwise row (cycling).

A pick is kept as SENSEI 1.1.5 records it (``ask_about_metadata`` in
``user_sim/cli/sensei_chat.py``), which is what its rules read: a selector that picks
several values (``random(n)``, ``random(rand)``, ``another(n)``) gives a list, except that
a pick of exactly one value is that value alone; ``default()`` gives the whole list, even
of one value; ``another()`` gives a one-element list, as SENSEI's ``another_generator``
yields ``[sample]`` and its rules index it (``number_artworks[0]``, ``hour[0]`` in the
published photography and veterinary rules); every other selector gives one value.

Interaction styles (``random:`` resolved) and ``random steps`` are drawn per conversation.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from sparring.errors import Problem, UserInputError
from sparring.profiles._checks import PLACEHOLDER
from sparring.profiles._combinations import (
    chain_row,
    forward_chains,
    forward_count,
    pairwise_names,
    pairwise_rows,
)
from sparring.profiles._conversation import MAX_PLANNED, GoalStyle
from sparring.profiles._data import MAX_VALUES, DateData, RangeData
from sparring.profiles._dates import date_values
from sparring.profiles._loader import locate
from sparring.profiles._model import Profile, Variable
from sparring.profiles._selectors import Selector
from sparring.profiles._values import variable_values
from sparring.types import TextModel

Picker = Callable[[int], Any]


class PlannedConversation(BaseModel):
    """One conversation to run.

    ``variables`` maps each variable to its pick as SENSEI records it (see the module
    docstring: a list for ``default()`` and for several values picked by ``random(n)``,
    ``random(rand)``, ``another(n)``; otherwise one value); ``goals`` are the
    goal texts with ``{{variables}}`` filled; ``interaction_styles`` are names or
    ``{"change language": [...]}``; ``goal_style`` has ``random steps`` resolved.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    variables: dict[str, Any]
    goals: list[str]
    interaction_styles: list[str | dict[str, list[str]]]
    goal_style: GoalStyle


async def plan_conversations(
    profile: Profile, *, seed: int, model: TextModel | None = None, today: date | None = None
) -> list[PlannedConversation]:
    """Plan ``profile``'s conversations (see module docstring); the same ``seed`` (and
    ``today``, used by relative date generators) gives the same plan.

    ``model`` writes the values of ``any(...)`` items (one call per item, module
    ``variable_generator``). Raises ``UserInputError`` located in the profile when an
    ``any(...)`` item has no model (the message names ``--model``), when a generator
    function fails or returns unsuitable values, or when the number of conversations
    comes to 0 or to more than ``MAX_PLANNED`` (the message names the profile and the
    count; checked before any conversation is built); ``ModelError``/``BudgetExceeded``
    from the model call.
    """
    today = today or date.today()
    variables = profile.variables
    values: dict[str, list[Any]] = {}
    for variable in variables:
        rng = _rng(seed, "data", variable.name)
        values[variable.name] = await variable_values(profile, variable, rng, today, model)
    selectors = {v.name: v.function for v in variables}
    chains = forward_chains(selectors)
    chained = {name for chain in chains for name in chain}
    group = pairwise_names(selectors, values)
    _check_pairwise_size(profile, group, values)
    rows = pairwise_rows(group, values)
    count = _conversation_count(profile, forward_count(chains, values), len(rows))
    pickers = {
        name: _picker(selector, values[name], _rng(seed, "pick", name))
        for name, selector in selectors.items()
        if name not in chained and selector.kind != "pairwise"
    }
    plans: list[PlannedConversation] = []
    for index in range(count):
        picked = {name: pick(index) for name, pick in pickers.items()}
        for chain in chains:
            picked.update(zip(chain, chain_row(chain, values, index), strict=True))
        if rows:
            picked.update(zip(group, rows[index % len(rows)], strict=True))
        ordered = {v.name: picked[v.name] for v in variables}
        rng = _rng(seed, "conversation", str(index))
        plans.append(
            PlannedConversation(
                index=index,
                variables=ordered,
                goals=fill_goals(profile.goal_templates, ordered),
                interaction_styles=profile.conversation.styles_for(rng),
                goal_style=profile.conversation.goal_style.resolve(rng),
            )
        )
    return plans


def fill_goals(templates: Sequence[str], picked: Mapping[str, Any]) -> list[str]:
    """Goal texts with each ``{{name}}`` replaced by its pick (lists joined with ", ")."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        return render_value(picked[name]) if name in picked else match.group(0)

    return [PLACEHOLDER.sub(replace, template) for template in templates]


def render_value(value: Any) -> str:
    """A pick as text: lists joined with ", " (as SENSEI joins them)."""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _rng(seed: int, purpose: str, name: str) -> random.Random:
    return random.Random(f"{seed}:{purpose}:{name}")


def plan_size_problems(profile: Profile, today: date | None = None) -> list[Problem]:
    """The plan-size limits checked without a model or a generator file (for ``validate``):
    value lists are counted as written (an ``any(...)`` item or a generator counts as one
    value), so the counts are lower bounds and a problem found here is certain."""
    today = today or date.today()
    values = {v.name: _known_values(v, today) for v in profile.variables}
    selectors = {v.name: v.function for v in profile.variables}
    group = pairwise_names(selectors, values)
    number = profile.conversation.number
    try:
        _check_pairwise_size(profile, group, values)
        if not isinstance(number, int):
            forward = forward_count(forward_chains(selectors), values)
            pairwise = len(values[group[0]]) * len(values[group[1]]) if len(group) > 1 else 0
            _check_plan_size(profile, number.count(forward, pairwise), forward, pairwise)
    except UserInputError as exc:
        return exc.problems
    return []


def planned_count(profile: Profile, today: date | None = None) -> int:
    """How many conversations ``profile`` plans, counted without a model or a generator
    file, so before any work: ``conversation.number`` when it is a number, else the
    combinations it names with value lists counted as written (an ``any(...)`` item or a
    generator counts as one value: a lower bound). What a server's quota checks."""
    number = profile.conversation.number
    if isinstance(number, int):
        return number
    today = today or date.today()
    values = {v.name: _known_values(v, today) for v in profile.variables}
    selectors = {v.name: v.function for v in profile.variables}
    group = pairwise_names(selectors, values)
    forward = forward_count(forward_chains(selectors), values)
    pairwise = len(values[group[0]]) * len(values[group[1]]) if len(group) > 1 else 0
    return int(number.count(forward, pairwise))


def _known_values(variable: Variable, today: date) -> Sequence[Any]:
    data = variable.data
    if isinstance(data, RangeData):
        return data.values("int" if variable.type == "int" else "float")
    if isinstance(data, DateData):
        return date_values(data.date, random.Random(0), today)
    return data if isinstance(data, list) and data else [None]


def _check_plan_size(profile: Profile, count: int, forward: int, pairwise: int) -> None:
    if count > MAX_PLANNED:
        raise UserInputError(
            locate(
                profile,
                ("conversation", "number"),
                f"profile '{profile.name}' plans {count:,} conversations with number "
                f"'{profile.conversation.number}' (forward combinations: {forward:,}, "
                f"pairwise combinations: {pairwise:,}); at most {MAX_PLANNED:,} per "
                "profile: give a smaller number or fraction, or fewer values",
            )
        )


def _check_pairwise_size(
    profile: Profile, group: Sequence[str], values: Mapping[str, Sequence[Any]]
) -> None:
    """Refuse a pairwise group whose rows (at least the product of its two longest value
    lists) would exceed ``MAX_VALUES``, before allpairspy lists them."""
    if len(group) >= 2 and len(values[group[0]]) * len(values[group[1]]) > MAX_VALUES:
        rows = len(values[group[0]]) * len(values[group[1]])
        raise UserInputError(
            locate(
                profile,
                ("user", "goals"),
                f"profile '{profile.name}': the pairwise variables {group[0]} and "
                f"{group[1]} give at least {rows:,} combinations; at most {MAX_VALUES:,}",
            )
        )


def _conversation_count(profile: Profile, forward: int, pairwise: int) -> int:
    number = profile.conversation.number
    if isinstance(number, int):
        return number
    count = number.count(forward, pairwise)
    _check_plan_size(profile, count, forward, pairwise)
    if count < 1:
        raise UserInputError(
            locate(
                profile,
                ("conversation", "number"),
                f"number '{number}' gives 0 conversations (forward combinations: {forward}, "
                f"pairwise combinations: {pairwise})",
            )
        )
    return count


def _picker(selector: Selector, values: list[Any], rng: random.Random) -> Picker:
    if selector.kind == "default":
        return lambda _: list(values)
    if selector.kind == "forward":  # a forward() variable in no chain
        return lambda index: values[index % len(values)]
    if selector.kind == "another":
        batches = _shuffled_batches(values, rng, selector.count)
        return lambda _: _as_recorded(next(batches)) if selector.count else [next(batches)]
    if selector.random_count:
        return lambda _: _as_recorded(rng.sample(values, rng.randint(1, len(values))))
    if selector.count is not None:
        count = min(selector.count, len(values))
        return lambda _: _as_recorded(rng.sample(values, count))
    return lambda _: rng.choice(values)


def _as_recorded(picked: list[Any]) -> Any:
    """Several picked values as SENSEI 1.1.5 records them: one value alone, else the list."""
    return picked[0] if len(picked) == 1 else picked


def _shuffled_batches(values: list[Any], rng: random.Random, size: int | None) -> Iterator[Any]:
    while True:
        order = list(values)
        rng.shuffle(order)
        if size is None:
            yield from order
        else:
            for start in range(0, len(order), size):
                yield order[start : start + size]
