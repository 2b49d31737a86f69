"""extract_float, currency and length: SENSEI-check's values on its own regexes."""

from __future__ import annotations

import pytest

from sparring.check._context import FunctionContext, registered_functions
from sparring.check.functions import currency, extract_float, length

CTX = FunctionContext(conversation=None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The total is 12.50 €", 12.5),
        ("Your pizza costs 1,250.75 dollars", 1250.75),  # thousands comma removed
        ("Order 3 pizzas for 20.5", 3.0),  # the first number wins
        ("-0.5 degrees", -0.5),  # sign kept before a decimal point
        ("-5 degrees", 5.0),  # ... and not before an integer, as in SENSEI
        (".75 of it", 0.75),
        ("no number here", None),
        (42, 42.0),  # a typed output value
    ],
)
def test_extract_float(text: object, expected: float | None) -> None:
    assert extract_float(CTX, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is 10 EUR or $11", "USD"),  # a symbol anywhere beats a code
        ("It costs 10 EUR", "EUR"),
        ("10 eur", None),  # codes are upper-case only
        ("twenty Dollars", "USD"),  # names in any case (SENSEI raised KeyError here)
        ("500 rupees", "INR"),
        ("¥300", "JPY"),
        ("£3 and 4 euros", "GBP"),
        ("EURO", None),
        ("nothing", None),
    ],
)
def test_currency(text: object, expected: str | None) -> None:
    assert currency(CTX, text) == expected


@pytest.mark.parametrize("function", [extract_float, currency])
def test_none_raises_as_in_sensei(function: object) -> None:
    # SENSEI-check's functions raise on None (its check of a missing output is then n/a)
    with pytest.raises(TypeError, match="None"):
        function(CTX, None)  # type: ignore[operator]


def test_length_kinds() -> None:
    texts = ["ab", "abcd", "abcdef"]
    assert length(CTX, texts) == 2
    assert length(CTX, texts, kind="MAX") == 6
    assert length(CTX, texts, kind="average") == pytest.approx(4.0)
    assert length(CTX, "hello") == 5


def test_length_of_nothing_matches_sensei_initial_values() -> None:
    assert length(CTX, []) == 100000000
    assert length(CTX, [], kind="max") == 0
    assert length(CTX, [], kind="average") == 0


def test_length_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="min, max or average"):
        length(CTX, ["a"], kind="median")
    with pytest.raises(ValueError, match="list of strings"):
        length(CTX, 12)


def test_every_sensei_function_is_registered() -> None:
    import sparring.check.functions as functions

    names = registered_functions()
    for name in functions.BUILT_INS:
        assert callable(names[name]), name
    assert names["missing_outputs"] is names["missing_slots"]
