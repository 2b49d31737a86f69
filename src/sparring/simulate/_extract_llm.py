"""Output data extraction with a model: SENSEI's method (``user_sim/data_extraction.py``).

The whole conversation goes to a model with a schema built from the outputs' types (read
by ``sparring.profiles.read_output_type``); a value is reported only when the chatbot
states or confirms it. Answers are normalised to the forms the offline strategy stores
(``sparring.values``): money as ``"11.50 USD"``, times, dates, e-mail addresses
and phone numbers as found in the answer, formats applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from sparring.conversations import OutputValue, Turn
from sparring.errors import ModelError
from sparring.profiles import OutputType, value_kind
from sparring.simulate._extract import OutputSpecs, read_output_specs
from sparring.values import find_values, format_value, parse_money

if TYPE_CHECKING:
    from sparring.llm import Meter, Model

__all__ = ["extract_outputs_llm", "output_schema"]

_SYSTEM = (
    "You read a conversation between a user and a chatbot and extract the data requested "
    "by the JSON fields. Report a value only when the chatbot itself states or confirms it "
    "in the conversation; otherwise give null. Never guess."
)
_HINTS = {
    "money": "The amount with the currency used in the conversation, e.g. '11.50 USD'.",
    "time": "A time as HH:MM:SS; a duration such as '15 minutes' as 00:15:00.",
    "date": "A date as YYYY-MM-DD.",
    "email": "An e-mail address.",
    "phone": "A telephone number.",
    "string": "Only the requested information, concisely, without additional context.",
}
_ANNOTATIONS: dict[str, Any] = {"int": int | None, "float": float | None, "bool": bool | None}
_LIST_ANNOTATIONS: dict[str, Any] = {
    "int": list[int] | None,
    "float": list[float] | None,
    "bool": list[bool] | None,
}


def output_schema(outputs: Sequence[tuple[str, OutputType, str]]) -> type[BaseModel]:
    """A Pydantic model with one optional field per output (alias = output name).

    Times and dates are asked in ISO form whatever the output's format: the answer is
    parsed and re-formatted here, so ``date(%d/%m/%Y)`` cannot be misread as mm/dd."""
    fields: dict[str, Any] = {}
    for index, (name, otype, description) in enumerate(outputs):
        kind = value_kind(otype)
        table = _LIST_ANNOTATIONS if otype.is_list else _ANNOTATIONS
        default = list[str] | None if otype.is_list else str | None
        hint = _HINTS.get(kind, "")
        fields[f"field_{index}"] = (
            table.get(kind, default),
            Field(default=None, alias=name, description=f"{description}. {hint}".strip()),
        )
    config = ConfigDict(populate_by_name=True)
    model: type[BaseModel] = create_model("OutputData", __config__=config, **fields)
    return model


async def extract_outputs_llm(
    outputs: OutputSpecs, turns: Sequence[Turn], model: Model, meter: Meter | None = None
) -> dict[str, OutputValue]:
    """Fill every output with one model call (SENSEI's data extraction, one call for all).

    The model answers a schema with a typed, optional field per output; its values are
    then normalised like the offline ones (money → ``"11.50 USD"``, times, dates, with
    the output's format). Returns output name → ``OutputValue`` with ``strategy="llm"``
    and ``evidence`` the raw answer when normalising changed it. On a
    ``ModelError`` every output gets ``value=None`` and the error as ``evidence`` — nothing
    is invented. ``BudgetExceeded`` from ``meter`` propagates.
    """
    specs = read_output_specs(outputs)
    if not specs:
        return {}
    schema = output_schema(specs)
    transcript = "\n".join(
        f"{'User' if t.role == 'user' else 'Assistant'}: {t.sensei_text}" for t in turns
    )
    messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": transcript}]
    try:
        generation = await model.generate(
            messages, schema=schema, module="output_extraction", meter=meter
        )
        if not isinstance(generation.parsed, schema):
            raise ModelError("the model returned no parsed output data", raw=generation.text)
    except ModelError as exc:
        return {
            name: OutputValue(type=otype.name, strategy="llm", evidence=f"model error: {exc}")
            for name, otype, _ in specs
        }
    answers = generation.parsed.model_dump()
    result: dict[str, OutputValue] = {}
    today = date.today()
    for index, (name, otype, _) in enumerate(specs):
        raw = answers.get(f"field_{index}")
        value = _normalise(value_kind(otype), otype.element.format, raw, today)
        evidence = f"model answered {raw!r}" if value != raw else None
        result[name] = OutputValue(value=value, type=otype.name, strategy="llm", evidence=evidence)
    return result


def _normalise(kind: str, fmt: str | None, raw: Any, today: date) -> Any:
    """A model answer in the stored form of ``kind`` (each item of a list); text that
    does not parse is kept as the model wrote it."""
    if raw is None:
        return None
    if isinstance(raw, list):
        return [_normalise(kind, fmt, item, today) for item in raw]
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if kind == "money":
        money = parse_money(text)
        return str(money) if money is not None else text
    if kind in ("time", "date", "email", "phone"):
        found = find_values(kind, text, today)
        return format_value(kind, found[0].value, fmt) if found else text
    return text
