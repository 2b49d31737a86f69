"""Typed output values in a rule's namespace: a time, date or money output compares as a value.

An extracted output is stored as text in a fixed form (``sparring.values.format_value``:
a time as ``HH:MM:SS`` like SENSEI, a date as ISO ``YYYY-MM-DD``, money as ``"11.50 USD"``),
while a rule's author writes the value as people do: ``appointment_time == '11:00'``,
``departure_time == departure`` (a goal variable ``"4:50 pm"``), ``total == '$25'``. As raw
strings these differ; as values they are equal. ``typed_output(kind, value)`` wraps such an
output in ``TypedText``: still a ``str`` (``'11:00' in appointment_time``, ``.split(':')``,
``str(...)`` and every string function behave as before), whose ``==``/``!=`` compare with
``sparring.values.same_value`` (times across 12/24-hour clocks and with or without seconds,
dates in any writing, money by amount and currency). Texts no parser reads as one value of
the kind compare as text (``same_value``'s rule), so nothing that was equal before becomes
unequal.

The hash is the text's own: ``'11:00' in {appointment_time}`` and dictionary keys still
match only the identical text (a hash cannot follow typed equality across writings).
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from sparring.values import Money, same_value

TYPED_KINDS = frozenset({"time", "date", "money"})
"""The output kinds stored as text whose values compare typed."""


class TypedText(str):
    """An output value stored as text that compares as a value of ``kind`` (module
    docstring); ``kind`` is one of ``TYPED_KINDS``."""

    kind: str

    def __new__(cls, text: str, kind: str) -> TypedText:
        made = super().__new__(cls, text)
        made.kind = kind
        return made

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str.__eq__(self, other) or same_value(self.kind, str(self), str(other))
        if isinstance(other, date | time | Money):
            return same_value(self.kind, str(self), other)
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __reduce__(self) -> tuple[Any, ...]:
        return (TypedText, (str(self), self.kind))


def typed_output(kind: str, value: Any) -> Any:
    """``value`` as a rule sees it: a ``TypedText`` for a text value of a kind in
    ``TYPED_KINDS``, else ``value`` unchanged."""
    if kind in TYPED_KINDS and isinstance(value, str) and type(value) is str:
        return TypedText(value, kind)
    return value
