"""Goal variables of generated profiles: data sources, matching, typed definitions and
``forward`` chains.

After TRACER (Sotillo del Horno, 2025, §4.2; ``variable_definition.py``): a ``{{variable}}``
of a goal is matched to a *data source* — a parameter's options, or an output whose
example lists choices — and takes those options plus, when a model wrote one, a value
outside them (a value the chatbot did not suggest, to test its robustness). Offline no
outside value is made up: generated profiles must reach the bot's confirmation
(``all_answered``), and a generic "another size" only tests that the bot rejects
nonsense; a variable no source matches gets
values generated for its type (strings, ``int``/``float`` ranges, dates). Every variable
walks its values with ``forward()``; with ``nested_forward`` they are chained
(``a: forward(b)``, ``b: forward(c)``, …) so that a profile walks their combinations
(TRACER's ``--nested-forward``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from sparring.explore._model import ExplorationModel, Parameter, node_id
from sparring.explore._profiles import VariableDraft
from sparring.profiles import is_any_item, placeholder

VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
"""A ``{{variable}}`` in a goal text."""

_INT = re.compile(r"^[+-]?\d+$")
_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b|\bor\b)\s*")

_FREE_INPUT: dict[str, list[str]] = {
    "name": ["Jon Doe", "Ana García"],
    "email": ["jon.doe@example.com", "ana@example.org"],
    "phone": ["600123456", "+34 911 234 567"],
    "address": ["12 Baker Street", "Calle Mayor 5"],
    "city": ["Madrid", "London"],
    "time": ["09:00", "13:30", "18:45", "03:00"],
    "hour": ["09:00", "13:30", "18:45", "03:00"],
}
"""Offline values for free inputs no source matches, by a word of the variable's name."""

_DATE_WORDS = ("date", "day", "fecha", "dia")
_NUMBER_WORDS = ("number", "quantity", "amount", "count", "cantidad", "numero", "how_many")


@dataclass(frozen=True)
class DataSource:
    """Values the chatbot offered for something: ``name``, ``options``, ``type``
    (a ``ValueType``) and ``origin`` (``"parameter order_pizza.size"``)."""

    name: str
    options: list[str]
    type: str
    origin: str


@dataclass
class VariableDef:
    """A variable as written into a profile: ``{name: {function, type, data}}``.

    ``count`` is how many values ``forward()`` walks; ``source`` says where the values
    came from (a data source's origin, ``model`` or ``generated``).
    """

    name: str
    type: str
    data: list[Any] | dict[str, Any]
    count: int
    source: str
    function: str = "forward()"
    notes: list[str] = field(default_factory=list)

    def item(self) -> dict[str, Any]:
        """The goal item: ``{name: {function, type, data}}``."""
        return {self.name: {"function": self.function, "type": self.type, "data": self.data}}


def data_sources(model: ExplorationModel, node_ids: list[str]) -> list[DataSource]:
    """The data sources of the nodes ``node_ids`` first, then of every other node:
    parameters with options, and outputs whose ``example`` lists two or more choices."""
    order = [model.node(i) for i in node_ids]
    order += [f for f in model.functionalities if f.id not in node_ids]
    found: list[DataSource] = []
    for node in order:
        for parameter in node.parameters:
            options = clean_options(parameter.options)
            if options:
                origin = f"parameter {node.id}.{parameter.name}"
                found.append(DataSource(parameter.name, options, parameter.type, origin))
        for output in node.outputs:
            choices = clean_options(_SPLIT.split(output.example or ""))
            if len(choices) >= 2:
                origin = f"output {node.id}.{output.name}"
                found.append(DataSource(output.name, choices, output.type, origin))
    return found


def clean_options(options: list[str]) -> list[str]:
    """Options stripped, without empties, case-insensitive duplicates or ``any(...)``
    items (which a profile would read as a request to a model)."""
    seen: set[str] = set()
    kept = []
    for option in options:
        text = " ".join(str(option).split())
        if text and text.lower() not in seen and not is_any_item(text):
            seen.add(text.lower())
            kept.append(text)
    return kept


def match_source(name: str, sources: list[DataSource]) -> DataSource | None:
    """The data source for variable ``name``: the first whose name equals it (as ids),
    else the first whose name words are all in the variable's or the other way round
    (``pizza_size`` ↔ ``size``); ``None`` when none fits (TRACER asks a model; a wrong
    match is worse than none, so only names decide here)."""
    wanted = node_id(name)
    for source in sources:
        if node_id(source.name) == wanted:
            return source
    words = set(wanted.split("_"))
    for source in sources:
        theirs = set(node_id(source.name).split("_"))
        if theirs <= words or words <= theirs:
            return source
    return None


def define_variable(
    name: str,
    source: DataSource | None,
    draft: VariableDraft | None,
    parameter: Parameter | None,
    language: str,
) -> VariableDef:
    """The definition of variable ``name``.

    With a ``source``: its options (the draft's cleaned options when a model gave some)
    plus the draft's outside value when it has one (none is made up offline). Without:
    the draft's values or range, else the free answers the bot accepted during the
    exploration (``Parameter.examples``), else values generated from the parameter's type
    or the name (``int`` range 1–5, dates after today plus one impossible date, common
    free inputs, else a placeholder).
    """
    if source is not None:
        options = clean_options(draft.options) if draft and draft.options else source.options
        outside = draft.outside if draft and draft.outside else None
        return _from_options(name, options, outside, source.origin)
    if draft is not None:
        made = _from_draft(name, draft)
        if made is not None:
            return made
    if parameter is not None and parameter.examples:
        examples = list(parameter.examples)
        return VariableDef(name, "string", examples, len(examples), "accepted by the bot")
    kind = parameter.type if parameter is not None else _kind_from_name(name)
    return generated_variable(name, kind)


def _from_options(name: str, options: list[str], outside: str | None, origin: str) -> VariableDef:
    if all(_INT.match(o) for o in options):
        numbers = [int(o) for o in options]
        extra = [int(outside)] if outside and _INT.match(outside) else []
        data: list[Any] = [*numbers, *[e for e in extra if e not in numbers]]
        return VariableDef(name, "int", data, len(data), origin)
    known = {o.lower() for o in options}
    texts = [*options, *([outside] if outside and outside.lower() not in known else [])]
    return VariableDef(name, "string", texts, len(texts), origin)


def _from_draft(name: str, draft: VariableDraft) -> VariableDef | None:
    options = clean_options(draft.options)
    if draft.type in ("int", "float") and not options:
        if draft.min is None or draft.max is None:
            return None
        step = draft.step if draft.step is not None else 1
        cast = int if draft.type == "int" else float
        data = {"min": cast(draft.min), "max": cast(draft.max), "step": cast(step)}
        count = int((draft.max - draft.min) / step) + 1 if step > 0 else 1
        return VariableDef(name, draft.type, data, max(count, 1), "model")
    if not options:
        return None
    values: list[Any] = [_number(o, draft.type) for o in options]  # the loader checks them
    extra = [draft.outside] if draft.outside and draft.outside not in options else []
    data_list = [*values, *extra]
    return VariableDef(name, draft.type, data_list, len(data_list), "model")


def _number(text: str, kind: str) -> Any:
    try:
        return int(text) if kind == "int" else float(text) if kind == "float" else text
    except ValueError:
        return text


def _kind_from_name(name: str) -> str:
    low = name.lower()
    if any(w in low for w in _DATE_WORDS):
        return "date"
    if any(w in low for w in _NUMBER_WORDS):
        return "int"
    return "string"


def generated_variable(name: str, kind: str) -> VariableDef:
    """Values for a variable with no data source, by type (``ValueType``): ``int`` 1–5,
    ``float``/``money`` 5–50 by 5, ``date`` three dates within a year after today plus one
    impossible date, ``boolean`` yes/no, ``time`` and common free inputs (name, e-mail,
    phone, …) from a small table, anything else one placeholder value (noted)."""
    if kind == "int":
        return VariableDef(name, "int", {"min": 1, "max": 5, "step": 1}, 5, "generated")
    if kind in ("float", "money"):
        data: dict[str, Any] = {"min": 5.0, "max": 50.0, "step": 5.0}
        return VariableDef(name, "float", data, 10, "generated")
    if kind == "date":
        dates = {"date": {"set": ">today(3)", "fake": 1}}
        return VariableDef(name, "date", dates, 4, "generated")
    if kind == "boolean":
        return VariableDef(name, "string", ["yes", "no"], 2, "generated")
    words = node_id(name).split("_")
    for word in [*words, "time" if kind == "time" else ""]:
        if word in _FREE_INPUT:
            values = list(_FREE_INPUT[word])
            return VariableDef(name, "string", values, len(values), "generated")
    note = f"{name}: no values were seen; a placeholder value was written"
    value = placeholder(" ".join(words))
    return VariableDef(name, "string", [value], 1, "generated", notes=[note])


def chain_forward(variables: list[VariableDef]) -> None:
    """Nest ``variables`` in the given order (TRACER's ``--nested-forward``): each one
    ``forward(next)``, the last ``forward()``; the first changes slowest. TRACER chains
    them alphabetically; here the order is the workflow's, so an earlier choice is the
    outer loop."""
    for current, following in pairwise(variables):
        current.function = f"forward({following.name})"
    if variables:
        variables[-1].function = "forward()"


def goal_variables(goals: list[str]) -> list[str]:
    """The ``{{variables}}`` of ``goals``, each once, in order of first use."""
    names: list[str] = []
    for goal in goals:
        for name in VARIABLE.findall(goal):
            if name not in names:
                names.append(name)
    return names
