"""Model-free text functions of SENSEI-check: ``extract_float``, ``currency``, ``length``.

Source: SENSEI-check (``user_sim/metamorphic/rule_utils.py`` in user-simulator 1.1.5);
the regular expressions are SENSEI's, so values match its results.
"""

from __future__ import annotations

import re

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import as_texts

_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d)")
_FLOAT = re.compile(r"[-+]?\d*\.\d+|\d+")


@rule_function("extract_float")
def extract_float(context: FunctionContext, string: object) -> float | None:
    """The first number in ``string`` as a float (``None`` when there is none).

    Commas between digits are read as thousands separators (``"1,250.50 $"`` → 1250.5).
    As in SENSEI-check, a sign is kept only before a decimal point (``"-5"`` → 5.0,
    ``"-0.5"`` → -0.5). A non-string value (an output already typed as a number) is read
    through ``str()``.

    Raises ``TypeError`` for ``None`` (an output the chatbot never gave), as SENSEI-check's
    does; an oracle reading such an output is then *not applicable* (``Runner.judge``).
    """
    _require_value(string, "extract_float")
    cleaned = _THOUSANDS_COMMA.sub("", str(string))
    match = _FLOAT.search(cleaned)
    return float(match.group()) if match else None


def _require_value(value: object, function: str) -> None:
    if value is None:
        raise TypeError(f"{function}() was given None (a value that was never collected)")


_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_SYMBOL = re.compile(r"[$€£¥₹]")
_ABBREVIATION = re.compile(r"\b(USD|EUR|GBP|JPY|INR)\b")
_NAMES = {"dollars": "USD", "euros": "EUR", "pounds": "GBP", "yen": "JPY", "rupees": "INR"}
_NAME = re.compile(r"\b(dollars|euros|pounds|yen|rupees)\b", re.IGNORECASE)


@rule_function("currency")
def currency(context: FunctionContext, string: object) -> str | None:
    """The first currency in ``string`` as an ISO code (``USD``, ``EUR``, ``GBP``, ``JPY``,
    ``INR``), or ``None``.

    Tried in SENSEI-check's order: a symbol (``$ € £ ¥ ₹``) anywhere, then an upper-case
    code, then a plural name (``dollars``, ``euros``, ``pounds``, ``yen``, ``rupees``, any
    case; SENSEI raises ``KeyError`` on ``"Dollars"``, sparring maps it). Raises
    ``TypeError`` for ``None``, as ``extract_float`` does.
    """
    _require_value(string, "currency")
    text = str(string)
    if symbol := _SYMBOL.search(text):
        return _SYMBOLS[symbol.group()]
    if code := _ABBREVIATION.search(text):
        return code.group()
    if name := _NAME.search(text):
        return _NAMES[name.group().lower()]
    return None


@rule_function("length")
def length(context: FunctionContext, item: object, kind: str = "min") -> float:
    """The ``min``, ``max`` or ``average`` length (characters) of a string or list of
    strings (e.g. ``length(chatbot_phrases, kind='average') < 2000``).

    As in SENSEI-check, ``min`` of an empty list is 100000000 and ``max`` is 0; ``average``
    of an empty list is 0. ``average`` is the arithmetic mean (SENSEI's running formula
    ``(current + x) / n`` is not one beyond two items). Raises ``ValueError`` for another
    ``kind`` or an item that is neither a string nor a list.
    """
    texts = as_texts(item, "length")
    kind = kind.lower()
    sizes = [len(text) for text in texts]
    if kind == "min":
        return min(sizes, default=100000000)
    if kind == "max":
        return max(sizes, default=0)
    if kind == "average":
        return sum(sizes) / len(sizes) if sizes else 0
    raise ValueError(f"length(): expecting one of min, max or average, but got {kind!r}")
