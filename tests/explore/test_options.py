"""Options and questions read from a chatbot's reply (buttons or announced in text)."""

from __future__ import annotations

import pytest

from sparring.connectors import Button, Reply
from sparring.explore._options import parameter_name, read_offer, text_options


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What size would you like: small, medium or large?", ["small", "medium", "large"]),
        (
            "Which pizza would you like? We have margherita, pepperoni, four cheese and "
            "barbecue chicken, or a custom pizza with the toppings you choose.",
            ["margherita", "pepperoni", "four cheese", "barbecue chicken", "custom pizza"],
        ),
        (
            "Which drink would you like? We have coke, water and beer. Or just say no drinks.",
            ["coke", "water", "beer"],
        ),
        ("Options:\n1. Book\n2. Cancel\n3. Help", ["Book", "Cancel", "Help"]),
        ("Red, green or blue?", ["Red", "green", "blue"]),
        # the same cut to what names each option, in other domains (dental, bank)
        (
            "Would you like a check-up, a cleaning or a whitening with the shade you pick?",
            ["check-up", "cleaning", "whitening"],
        ),
        (
            "Choose a current account, a savings account or a joint account for two people.",
            ["current account", "savings account", "joint account"],
        ),
    ],
)
def test_announced_options_are_read_from_text(text: str, expected: list[str]) -> None:
    assert text_options(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "We are open every day from 11:00 am to 11:00 pm, and until midnight on Fridays and "
        "Saturdays.",
        "I like cats and dogs.",
        "Hello! Welcome to Sparring Pizzeria. What would you like to order today?",
    ],
)
def test_sentences_that_list_nothing_offer_nothing(text: str) -> None:
    assert text_options(text) == []


def test_the_offer_is_read_as_the_user_simulator_reads_it() -> None:
    """A bare alternative and values before "which one" are options to press."""
    assert read_offer(Reply(messages=["Standard or first class?"])).options == (
        "Standard",
        "first class",
    )
    departures = Reply(messages=["Trains leave at 06:45, 09:10 and 16:50. Which one?"])
    assert read_offer(departures).options == ("06:45", "09:10", "16:50")


def test_buttons_win_over_text_and_keep_their_payloads() -> None:
    reply = Reply(
        messages=["What size? small, medium or large"],
        buttons=[Button(text="Small", link="/inform"), Button(text=" "), Button(text="Large")],
    )
    offer = read_offer(reply)
    assert offer.options == ("Small", "Large")
    assert offer.payloads == ("/inform", None)
    assert offer.from_buttons
    assert offer.question == "What size?"


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("What size would you like: small, medium or large?", "size"),
        ("Would you like a drink?", "drink"),
        ("Which toppings do you want on your custom pizza?", "toppings"),
        ("What can I do for you?", "choice"),
        (None, "choice"),
    ],
)
def test_parameter_names_come_from_the_question(question: str | None, name: str) -> None:
    assert parameter_name(question) == name
