"""Typed values in chatbot text (``sparring.values``): items with one value each, value
equality across writings, street addresses."""

from __future__ import annotations

from datetime import date, time

import pytest

from sparring.values import (
    Money,
    Synonyms,
    find_values,
    identifier_after,
    item_values,
    same_value,
    states_value,
)

TODAY = date(2026, 11, 28)
PRICES = "A single room costs $80 per night, a double room $120 and a suite $250."


def test_item_values_pairs_each_item_with_its_own_value() -> None:
    items = item_values("money", PRICES, TODAY)
    assert [v.value.amount for _, v in items] == [80.0, 120.0, 250.0]
    assert ["single" in label for label, _ in items] == [True, False, False]
    assert "suite" in items[2][0] and "double" in items[1][0]
    assert PRICES[items[2][1].start :].startswith("$250")


def test_item_values_in_a_terse_list_and_a_label_before_its_value() -> None:
    items = item_values("money", "single $80, double $120, suite $250", TODAY)
    assert [(label, v.value) for label, v in items] == [
        ("single", Money(80.0, "USD")),
        ("double", Money(120.0, "USD")),
        ("suite", Money(250.0, "USD")),
    ]
    items = item_values("time", "Weekdays: 9:00 to close; the weekend, 10 am", TODAY)
    assert [v.value for _, v in items] == [time(9), time(10)]


@pytest.mark.parametrize(
    "text",
    [
        "The total is $1,200.50 and delivery is free.",  # one value: no list
        "Your pizza costs $12. Thank you!",
        "Two pizzas and a drink come to $27.50 in total.",
    ],
)
def test_item_values_is_empty_when_the_text_lists_no_items(text: str) -> None:
    assert item_values("money", text, TODAY) == []


@pytest.mark.parametrize(
    ("kind", "a", "b", "same"),
    [
        ("time", "5:00 PM", "17:00", True),
        ("time", "5 pm", "17:00:00", True),
        ("time", time(9, 30), "9:30 am", True),
        ("time", "5 pm", "5 am", False),
        ("date", "29-11-2026", "November 29th, 2026", True),
        ("date", "11/29/2026", "2026-11-29", True),
        ("date", "tomorrow", "29/11/2026", True),
        ("date", "29-11-2026", "30-11-2026", False),
        ("money", "$80", "80.00 USD", True),
        ("money", "80 €", "80.00 USD", False),
        ("money", "1200.0$", "$1,200", True),
        ("int", "3", 3, True),
        ("string", "Double Room", "double  room", True),
        ("string", "double", "single", False),
        ("string", "check-up", "Checkup", True),
        ("string", "check-up", "check ups", True),
        ("string", "Two rooms", "2 room", True),
        ("string", "check-up", "check-in", False),
        ("string", "box", "boxes", True),
        ("int", "two", 2, True),
        ("time", "half past four", "16:30", True),
        ("time", "half past four", "4:30 am", True),
        ("time", "three o'clock", "3:00 PM", True),
        ("time", "three o'clock", "4 pm", False),
        ("time", "quarter to five", "16:45", True),
        ("time", "ten o'clock at night", "10 am", False),
        ("time", "half past one in the afternoon", "13:30", True),
    ],
)
def test_same_value_compares_values_not_writings(
    kind: str, a: object, b: object, same: bool
) -> None:
    assert same_value(kind, a, b, TODAY) is same


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "Please visit our shop at 23 Main Street, NY. Your order ID is 44de6a.",
            "23 Main Street, NY",
        ),
        ("We are at 221B Baker St. in London", "221B Baker St."),
        ("Find us in Calle Mayor 5, Madrid", "Calle Mayor 5"),
    ],
)
def test_street_addresses(text: str, address: str) -> None:
    assert [c.value for c in find_values("address", text, TODAY)] == [address]


def test_no_address_in_plain_numbers() -> None:
    assert find_values("address", "We have 3 rooms and 2 suites on 4 floors.", TODAY) == []


@pytest.mark.parametrize(
    ("value", "text", "stated"),
    [
        ("check-up", "Your checkup is booked.", True),
        ("Check up", "We do 2 check-ups a year.", True),
        ("17:00", "See you at 5 pm.", True),
        ("noon", "See you at 11:00.", False),
        ("2", "A table for two.", True),
        ("2", "A table for three.", False),
        ("12/03/2027", "on 12 March 2027", True),
        ("London", "to Londonderry", False),
        ("cat", "any category", False),
    ],
)
def test_states_value_reads_a_value_in_any_surface_form(
    value: str, text: str, stated: bool
) -> None:
    assert states_value(value, text, TODAY) is stated


VOCABULARY = Synonyms.of(
    {
        "Physical examination": ["check-up", "check"],
        "SUV": ["4x4", "off-roader"],
        "4x4": ["four-wheel drive"],  # shares a word with SUV's group: merged
    }
)


@pytest.mark.parametrize(
    ("value", "text", "stated"),
    [
        ("Check up", "for physical examination. See you then!", True),
        ("check-up", "for vaccination. See you then!", False),
        ("off-roader", "You have booked an SUV.", True),
        ("four wheel drive", "You have booked an SUV.", True),
        ("off-roader", "You have booked a van.", False),
    ],
)
def test_a_value_is_stated_in_a_word_the_chatbot_takes_for_it(
    value: str, text: str, stated: bool
) -> None:
    assert states_value(value, text, TODAY, VOCABULARY) is stated
    assert states_value(value, text, TODAY) is False  # no vocabulary: only its own words


def test_synonyms_compare_by_surface_form_and_only_within_a_group() -> None:
    assert same_value("string", "checkups", "Physical Examination", synonyms=VOCABULARY)
    assert not same_value("string", "check-up", "SUV", synonyms=VOCABULARY)
    assert VOCABULARY.named_in("Monday check-up") == ("Physical examination", "check-up", "check")
    assert Synonyms.of({"x": ["X", "?"]}).groups == ()  # one surface form: no group


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Order PZ-4821 is on its way, ticket #88 too.", ["PZ-4821", "#88"]),
        ("Your booking number is 5531. Check-in at 3 pm.", ["5531"]),
        ("Train IC-204 leaves at 06:45 from platform 2.", ["IC-204"]),
        ("We open at 9 am, 2 rooms left.", []),
    ],
)
def test_identifiers_are_read_in_one_place(text: str, ids: list[str]) -> None:
    """The identifiers extraction reads and metamorphic relations mask: codes with a
    capital, ``#`` numbers and numbers an identifier's label names (a pizzeria, a hotel,
    a train); a clock time or a count is none."""
    assert [c.value for c in find_values("id", text, TODAY)] == ids


def test_the_identifier_a_label_names() -> None:
    text = "Ticket number rg4102. Order #1234"
    assert identifier_after(text, text.index(" rg")) == "rg4102"
    assert identifier_after(text, text.index(" #")) == "1234"
    assert identifier_after("Your order is ready", 10) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Come at three o'clock", [time(3)]),
        ("half past four", [time(4, 30)]),
        ("a quarter past 10 in the morning", [time(10, 15)]),
        ("quarter to five in the evening", [time(16, 45)]),
        ("at 3 o'clock pm", [time(15)]),
        ("one of them, past the station", []),
    ],
)
def test_spoken_times_of_day(text: str, found: list[time]) -> None:
    """Times said in words (the plumber bot's customers): the hour as said, in the
    afternoon when the words after it say so; the comparison reads both halves of a day."""
    assert [c.value for c in find_values("time", text, TODAY)] == found
