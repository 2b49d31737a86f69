"""Placeholder values: what a generated profile holds where nothing better was seen.

``explore`` writes them (a variable with no values seen becomes "drink of my choice"; a
question of unknown kind is answered once with the crawler's ``FILLER``). They stand for
"any value": the offline user never sends one as written — it takes a value from the
bot's own words (an option it lists) or asks what the bot has.
"""

from __future__ import annotations

from typing import Any

FILLER = "the usual, please"
"""The crawler's answer to a question of unknown kind."""

_SUFFIX = " of my choice"


def placeholder(words: str) -> str:
    """The placeholder value of a variable about ``words`` ("drink of my choice")."""
    return f"{words}{_SUFFIX}"


def placeholder_words(value: Any) -> str | None:
    """What a placeholder stands for ("drink" for "drink of my choice", ``""`` for the
    ``FILLER``); ``None`` when ``value`` is no placeholder (case and spacing aside)."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.lower().split())
    if text == FILLER:
        return ""
    if text.endswith(_SUFFIX) and len(text) > len(_SUFFIX):
        return text[: -len(_SUFFIX)]
    return None


def is_placeholder(value: Any) -> bool:
    """Whether ``value`` is a placeholder written by ``placeholder`` or the ``FILLER``."""
    return placeholder_words(value) is not None
