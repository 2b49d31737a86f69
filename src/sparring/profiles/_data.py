"""The ``data`` of a goal variable: a list, a numeric range, a date generator or a function.

Forms (SENSEI 1.1.5 ``AskAboutClass.get_variables`` and ``utils/dates.py``):

- a list of values, which may include ``any(<description>)`` items that a model expands
  into more values when conversations are planned;
- a numeric range ``{min, max, step}`` (int or float) or ``{min, max, linspace}`` (float):
  ``step`` lists ``min, min+step, …`` below ``max`` and then ``max`` itself (SENSEI's
  rule, so ``max`` is always included); without ``step`` an int range stops before
  ``max``;
- dates ``{date: {custom, random, set, range, fake}}`` (see ``_dates``);
- a Python function ``{file, function_name, args}`` that returns the list.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictFloat,
    StrictInt,
    Tag,
    field_validator,
    model_validator,
)

ANY_ITEM = re.compile(r"any\((.*?)\)")
"""An ``any(...)`` item: its description is the text inside the parentheses."""

DATE_FORMAT = "%d/%m/%Y"
"""How SENSEI writes generated dates (day/month/year)."""

Number = StrictInt | StrictFloat


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def is_any_item(value: object) -> bool:
    """True for a data item such as ``"any(3 soda drinks)"`` (SENSEI: contains ``any(``)."""
    return isinstance(value, str) and "any(" in value


MAX_VALUES = 100_000
"""Most values one variable's range may list (a range of a billion would fill memory)."""


class RangeData(_Strict):
    """A numeric range: ``min``, ``max`` and either ``step`` or (float only) ``linspace``."""

    min: Number
    max: Number
    step: Number | None = Field(default=None, gt=0)
    linspace: StrictInt | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> RangeData:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        if self.step is not None and self.linspace is not None:
            raise ValueError("give either step or linspace, not both")
        count = self.linspace or math.ceil((self.max - self.min) / (self.step or 1)) + 1
        if count > MAX_VALUES:
            raise ValueError(f"the range gives {count:,} values; at most {MAX_VALUES:,}")
        return self

    def values(self, value_type: Literal["int", "float"]) -> list[int | float]:
        """The listed values, exactly as SENSEI 1.1.5 lists them (see module docstring)."""
        if self.linspace is not None:
            count = self.linspace
            if count == 1:
                return [float(self.min)]
            width = (self.max - self.min) / (count - 1)
            return [*(self.min + i * width for i in range(count - 1)), float(self.max)]
        step = self.step if self.step is not None else 1
        length = max(0, math.ceil((self.max - self.min) / step))
        listed: list[int | float] = [self.min + i * step for i in range(length)]
        if self.step is not None or value_type == "float":
            listed.append(self.max)
        if value_type == "float":
            return [float(v) for v in listed]
        return listed


class FunctionData(_Strict):
    """Values returned by ``function_name`` in the Python ``file`` (path relative to the
    profile), called with ``args``: a list gives positional arguments (its mappings give
    keyword arguments), anything else is the one positional argument (SENSEI's rule)."""

    file: str
    function_name: str
    args: Any = None


class DateRange(_Strict):
    """Dates between ``min`` and ``max`` (``dd/mm/yyyy`` or ISO dates): every
    ``step`` (``day(n)``, ``month(n)`` = 30n days, ``year(n)`` = 365n days,
    ``linspace(n)``), or ``random`` dates in between."""

    min: date
    max: date
    step: (
        Annotated[str, Field(pattern=r"^\s*(day|month|year|linspace)\(\s*\d+\s*\)\s*$")] | None
    ) = None
    random: StrictInt | None = Field(default=None, ge=1)

    @field_validator("min", "max", mode="before")
    @classmethod
    def _parse_day(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return datetime.strptime(value.strip(), DATE_FORMAT).date()
            except ValueError:
                return value  # pydantic then tries ISO and reports
        return value

    @model_validator(mode="after")
    def _complete(self) -> DateRange:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is after max ({self.max})")
        if (self.step is None) == (self.random is None):
            raise ValueError("a date range needs exactly one of step or random")
        return self


class DateSpec(_Strict):
    """SENSEI's date generator: any of ``custom`` (given dates), ``random`` (n dates in
    years 0–3000), ``set`` (``>today(n)``/``<today(n)``: n dates within a year after or
    before today), ``range`` and ``fake`` (n impossible dates, e.g. 45/31/2031)."""

    custom: str | date | list[str | date] | None = None
    random: StrictInt | None = Field(default=None, ge=1)
    set: Annotated[str, Field(pattern=r"^\s*[<>]today\(\s*\d+\s*\)\s*$")] | None = None
    range: DateRange | None = None
    fake: StrictInt | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _something(self) -> DateSpec:
        if all(v is None for v in (self.custom, self.random, self.set, self.range, self.fake)):
            raise ValueError("a date generator needs custom, random, set, range or fake")
        return self


class DateData(_Strict):
    """``data: {date: {...}}``."""

    date: DateSpec


def _data_form(value: Any) -> str | None:
    if isinstance(value, list):
        return "list"
    for form, model in (("range", RangeData), ("dates", DateData), ("function", FunctionData)):
        if isinstance(value, model):
            return form
    if isinstance(value, dict):
        if "file" in value or "function_name" in value:
            return "function"
        if "date" in value:
            return "dates"
        if value.keys() & {"min", "max", "step", "linspace"}:
            return "range"
    return None


VariableData = Annotated[
    Annotated[list[Any], Tag("list"), Field(min_length=1)]
    | Annotated[RangeData, Tag("range")]
    | Annotated[DateData, Tag("dates")]
    | Annotated[FunctionData, Tag("function")],
    Discriminator(
        _data_form,
        custom_error_type="data_form",
        custom_error_message=(
            "data must be a non-empty list, a range (min, max, step or linspace), "
            "dates (date: ...) or a function (file, function_name, args)"
        ),
    ),
]
"""What ``data:`` accepts, told apart by shape."""
