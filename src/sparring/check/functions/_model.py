"""The LLM strategy's one call: a SENSEI-check prompt, a structured reply, evidence kept.

SENSEI-check asks gpt-4o (o4-mini for ``only_talks_about``) in free text and compares the
reply with ``YES``/``True``; sparring sends the same prompt to the configured model with a
Pydantic schema, so a reply is either a validated object or a ``ModelError`` (the evaluator
reports the rule as ``unscored``), never a silent pass or fail.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from pydantic import BaseModel

from sparring.check._context import FunctionContext
from sparring.errors import ModelError, ModelRequired
from sparring.results import Evidence
from sparring.types import Strategy

T = TypeVar("T", bound=BaseModel)

MODULE = "check"
"""The module name model costs are booked under."""


def ask_model(
    context: FunctionContext,
    function: str,
    prompt: str,
    schema: type[T],
    turns: list[int] | None = None,
) -> T:
    """Send ``prompt`` (one user message) to ``context.model`` and return the validated
    ``schema`` object; an ``Evidence`` with prompt, raw reply and cost (US dollars) is
    appended to ``context.evidence`` whether the call succeeds or not.

    Raises ``ModelRequired`` when no model is configured and ``ModelError`` when the call
    fails or its reply never validates.
    """
    model = context.model
    if model is None:
        raise ModelRequired(function)
    evidence = Evidence(function=function, strategy=Strategy.LLM, prompt=prompt, turns=turns or [])
    context.evidence.append(evidence)
    call = model.generate([{"role": "user", "content": prompt}], schema, module=MODULE)
    try:
        generation = context.wait(call) if context.wait is not None else asyncio.run(call)
    except ModelError as exc:
        evidence.reply = exc.raw
        evidence.reason = str(exc)
        raise
    evidence.reply = generation.text
    evidence.cost = generation.cost
    parsed = generation.parsed
    if not isinstance(parsed, schema):  # pragma: no cover - the model validates it
        raise ModelError(f"{function}: reply is not a {schema.__name__}", raw=generation.text)
    reason = getattr(parsed, "reason", None)
    evidence.reason = reason if isinstance(reason, str) and reason else None
    return parsed
