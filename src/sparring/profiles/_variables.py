"""Goal variables: ``{name: {function, type, data}}`` items of ``user.goals``.

A variable's ``data`` must suit its ``type`` (SENSEI 1.1.5 ``AskAboutClass``):

- ``string`` — a list of strings (``any(...)`` items allowed), dates or a function;
- ``int`` — a list of whole numbers, or a range with whole ``min``/``max``/``step``;
- ``float`` — a list of numbers, or a range with ``step`` or ``linspace``;
- ``date`` — a list of dates (``dd/mm/yyyy`` strings or ISO dates) or a date generator;
- a custom type (``types/*.yml``) — strings that fully match its ``format``, ``any(...)``
  items, dates or a function.

Values that only exist when conversations are planned (functions, ``any(...)``, random
dates) are checked then.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from sparring._regex import PatternTimeout
from sparring.profiles._data import (
    DateData,
    FunctionData,
    RangeData,
    VariableData,
    is_any_item,
)
from sparring.profiles._selectors import (
    DEFAULT_SELECTOR,
    SELECTOR_FORMS,
    SELECTOR_PATTERN,
    Selector,
    parse_selector,
)
from sparring.profiles._types import VARIABLE_TYPES, CustomType, builtin_types

SelectorField = Annotated[
    Selector,
    PlainValidator(parse_selector),
    PlainSerializer(str, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": SELECTOR_PATTERN,
            "description": f"How the value is picked: {', '.join(SELECTOR_FORMS)}.",
        }
    ),
]


class VariableSpec(BaseModel):
    """One goal variable: its selector (``function``), ``type`` and ``data``."""

    model_config = ConfigDict(extra="forbid")

    function: SelectorField = DEFAULT_SELECTOR
    type: str
    data: VariableData

    @field_validator("type")
    @classmethod
    def _type_name(cls, value: str) -> str:
        name = value.strip()
        return "string" if name == "str" else name

    @model_validator(mode="after")
    def _data_fits_type(self, info: ValidationInfo) -> VariableSpec:
        context = info.context if isinstance(info.context, dict) else {}
        custom: dict[str, CustomType] = context.get("custom_types") or builtin_types()
        check_data_type(self.type, self.data, custom)
        return self


def check_data_type(type_name: str, data: Any, custom: dict[str, CustomType]) -> None:
    """Raise ``ValueError`` when ``data`` cannot hold values of ``type_name``."""
    if type_name not in VARIABLE_TYPES and type_name not in custom:
        known = ", ".join(sorted(custom)) or "none"
        raise ValueError(
            f"unknown type '{type_name}': use string, int, float, date or a custom type "
            f"from types/*.yml (custom types found: {known})"
        )
    if isinstance(data, RangeData):
        _check_range(type_name, data)
    elif isinstance(data, DateData):
        if type_name in ("int", "float"):
            raise ValueError(
                f"a date generator makes text values; type '{type_name}' cannot hold them"
            )
    elif isinstance(data, list):
        _check_items(type_name, data, custom.get(type_name))
    elif not isinstance(data, FunctionData):  # pragma: no cover - the union is closed
        raise ValueError("unsupported data")


def _check_range(type_name: str, data: RangeData) -> None:
    if type_name not in ("int", "float"):
        raise ValueError(
            f"a range (min/max) makes numbers; use type int or float, not '{type_name}'"
        )
    if type_name == "int":
        if data.linspace is not None:
            raise ValueError("linspace is for type float; an int range takes step")
        for key in ("min", "max", "step"):
            value = getattr(data, key)
            if value is not None and not isinstance(value, int):
                raise ValueError(f"an int range needs whole numbers, but {key} is {value}")
    elif data.step is None and data.linspace is None:
        raise ValueError("a float range needs step or linspace")


def _check_items(type_name: str, items: list[Any], custom: CustomType | None) -> None:
    literal = [item for item in items if not is_any_item(item)]
    if type_name in ("int", "float") and len(literal) < len(items):
        raise ValueError("any() can only make string or custom-type values")
    for item in literal:
        problem = _item_problem(type_name, item, custom)
        if problem:
            raise ValueError(problem)


def _item_problem(type_name: str, item: Any, custom: CustomType | None) -> str | None:
    if isinstance(item, bool) and type_name in ("int", "float"):
        return f"item {item!r} is a boolean, not a number"
    if type_name == "int" and not isinstance(item, int):
        return f"item {item!r} is not a whole number"
    if type_name == "float" and not isinstance(item, int | float):
        return f"item {item!r} is not a number"
    if type_name == "string" and not isinstance(item, str):
        return f"item {item!r} is not text (quote it to use it as text)"
    if type_name == "date" and not isinstance(item, str | date):
        return f"item {item!r} is not a date"
    if custom is None:
        return None
    try:
        if not custom.matches(item):
            return (
                f"item {item!r} does not match the format of type '{custom.name}' ({custom.format})"
            )
    except PatternTimeout as exc:
        return f"item {item!r}: the format of type '{custom.name}' cannot be checked: {exc}"
    return None
