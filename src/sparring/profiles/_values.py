"""Turning each variable's ``data`` into its list of values when conversations are planned:
ranges and literal lists, dates (seeded), generator functions and ``any(...)`` items,
which a model expands (SENSEI 1.1.5 ``AskAboutClass.get_any_items``).
"""

from __future__ import annotations

import json
import random
import re
from datetime import date
from pathlib import Path
from typing import Any

from sparring._policy import current_policy
from sparring._regex import PatternTimeout
from sparring.errors import UserInputError
from sparring.profiles._data import (
    ANY_ITEM,
    DATE_FORMAT,
    DateData,
    FunctionData,
    RangeData,
    is_any_item,
)
from sparring.profiles._dates import date_values
from sparring.profiles._functions import call_generator, find_function_file
from sparring.profiles._loader import locate
from sparring.profiles._model import Profile, Variable
from sparring.profiles._types import CustomType
from sparring.profiles._variables import check_data_type
from sparring.types import TextModel

ANY_SYSTEM_PROMPT = (
    "You write lists of example values used to test a chatbot. Answer with a JSON array "
    "of strings and nothing else."
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


async def variable_values(
    profile: Profile, variable: Variable, rng: random.Random, today: date, model: TextModel | None
) -> list[Any]:
    """All values ``variable`` can take. Raises ``UserInputError`` (located in the profile)
    when ``any(...)`` needs a model and none is given, or when generated values do not
    suit the variable's type; ``ModelError`` when the model call fails."""
    key = ("user", "goals", variable.goal_index, variable.name, "data")
    data = variable.data
    if isinstance(data, RangeData):
        return data.values("int" if variable.type == "int" else "float")
    if isinstance(data, DateData):
        values: list[Any] = date_values(data.date, rng, today)
    elif isinstance(data, FunctionData):
        values = _generated(profile, data, key)
    else:
        values = [
            _as_text_date(v) if variable.type == "date" else v for v in data if not is_any_item(v)
        ]
        wishes = [v for v in data if is_any_item(v)]
        if wishes:
            values += await _any_values(profile, variable, wishes, values, model)
    _check_values(profile, variable, values, key)
    return values


def _as_text_date(value: Any) -> Any:
    return value.strftime(DATE_FORMAT) if isinstance(value, date) else value


def _generated(profile: Profile, data: FunctionData, key: tuple[str | int, ...]) -> list[Any]:
    where = locate(profile, (*key, "file"), "")
    feature = "a generator function (data: {file, function_name})"
    current_policy().require_code(feature, where.file, where.line, where.key)
    folder = profile.source.parent if profile.source else Path.cwd()
    path = find_function_file(data.file, folder)
    if path is None:
        raise UserInputError(
            locate(profile, (*key, "file"), f"generator file '{data.file}' not found")
        )
    try:
        return call_generator(path, data.function_name, data.args, folder)
    except ValueError as exc:
        raise UserInputError(locate(profile, key, str(exc))) from exc


def _check_values(
    profile: Profile, variable: Variable, values: list[Any], key: tuple[str | int, ...]
) -> None:
    if not values:
        raise UserInputError(locate(profile, key, f"variable '{variable.name}' has no values"))
    try:
        check_data_type(variable.type, values, profile.custom_types)
    except ValueError as exc:
        raise UserInputError(locate(profile, key, f"generated values: {exc}")) from exc


async def _any_values(
    profile: Profile,
    variable: Variable,
    wishes: list[str],
    existing: list[Any],
    model: TextModel | None,
) -> list[Any]:
    if model is None:
        key = ("user", "goals", variable.goal_index, variable.name, "data")
        raise UserInputError(
            locate(
                profile,
                key,
                f"'{wishes[0]}' asks a model to write values for '{variable.name}', but no "
                "model is set: give one with --model (e.g. --model gpt-4o-mini)",
            )
        )
    custom = profile.custom_types.get(variable.type)
    made: list[Any] = []
    for wish in wishes:
        request = "; ".join(ANY_ITEM.findall(wish)) or wish
        if custom is not None:
            request += (
                f". Each value is {custom.type_description} and fully matches the regular "
                f"expression {custom.format}"
            )
        avoid = ", ".join(str(v) for v in [*existing, *made]) or "nothing"
        messages = [
            {"role": "system", "content": ANY_SYSTEM_PROMPT},
            {"role": "user", "content": f"A list of: {request}. Leave out: {avoid}."},
        ]
        reply = await model.generate(messages, module="variable_generator")
        for item in parse_value_list(reply.text):
            fits = custom is None or _fits(custom, item)
            if fits and item not in existing and item not in made:
                made.append(item)
    return made


def _fits(custom: CustomType, item: str) -> bool:
    """Whether a model's ``item`` fully matches the type's format; a value whose check
    runs out of time is left out (it cannot be shown to be of the type)."""
    try:
        return bool(custom.matches(item))
    except PatternTimeout:
        return False


def parse_value_list(text: str) -> list[str]:
    """Values from a model's reply: a JSON array (or ``{"answer": [...]}``), else one per
    line with bullets and numbering removed."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        parsed = json.loads(body)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("answer"), list):
        parsed = parsed["answer"]
    if isinstance(parsed, list):
        return [str(item).strip() for item in parsed if str(item).strip()]
    lines = (_BULLET.sub("", line).strip().strip('"') for line in body.splitlines())
    return [line for line in lines if line]
