"""The offline user never sends a generated profile's placeholder ("drink of my choice",
the crawler's "the usual, please") and answers a question its profile says nothing about
with a value from the bot's own words — not with a value it already gave."""

from __future__ import annotations

import random

from sparring.connectors import Reply
from sparring.profiles import is_placeholder, placeholder, placeholder_words
from sparring.simulate import AgendaSimulator, run_conversation
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector, value_said

DRINKS = ("coke", "water", "sprite")


class NoButtonPizzeria:
    """A correct bot without buttons: it names its drinks only when asked what it has or
    when it cannot use the answer; a custom pizza's toppings are listed in the question."""

    def __init__(self) -> None:
        self.state = "start"

    def __call__(self, text: str, turn: int) -> Reply:
        low = text.lower()
        if self.state == "toppings":
            if any(t in low for t in ("mushrooms", "onions", "olives")):
                self.state = "drink"
                return Reply(messages=["Noted. What would you like to drink?"])
            return Reply(messages=[self._toppings()])
        if self.state == "drink":
            drink = next((d for d in DRINKS if d in low), None)
            if drink:
                return Reply(messages=[f"Your order is confirmed: a custom pizza and a {drink}."])
            return Reply(messages=["We have coke, water and sprite. What would you like to drink?"])
        if "custom" in low:
            self.state = "toppings"
            return Reply(messages=[self._toppings()])
        if "order" in low:
            return Reply(
                messages=["Which pizza would you like? We have margherita or custom pizza."]
            )
        return Reply(messages=["Sorry, I did not understand."])

    @staticmethod
    def _toppings() -> str:
        return ("Which toppings would you like on your custom pizza? You can choose mushrooms, "
                "onions or olives.")  # fmt: skip


def _spec(drink: str) -> ConversationSpec:
    return ConversationSpec(
        id="order/0", profile="order",
        goals=("I want to place an order", "pizza Custom pizza", f"drink {drink}"),
        goal_templates=("I want to place an order", "pizza {{pizza}}", "drink {{drink}}"),
        variables={"pizza": "Custom pizza", "drink": drink},
        alternatives={"pizza": ["Margherita", "Custom pizza"], "drink": [drink]},
        fallback="Sorry, I did not understand.",
        stop=StopCondition("all_answered", limit=12),
    )  # fmt: skip


async def test_a_placeholder_is_never_sent_and_the_bots_own_values_are_used() -> None:
    spec = _spec(placeholder("drink"))
    record = await run_conversation(
        spec, FakeConnector(NoButtonPizzeria()), AgendaSimulator(spec, random.Random(0))
    )
    users = [t.text for t in record.turns if t.role == "user"]
    assert not [u for u in users if "of my choice" in u or is_placeholder(u)], users
    said = [value_said(u) for u in users]
    # the toppings question names the pizza: it is not sent again
    assert [u.lower() for u in said].count("custom pizza") == 1, users
    assert {"mushrooms", "onions", "olives"} & set(said)  # a topping the bot offered
    drinks = [d for d in said if d in ("coke", "water", "sprite")]  # one the bot named
    assert len(drinks) == 1, users
    assert record.errors == [], record.errors
    replies = [t.text for t in record.turns if t.role == "assistant"]
    assert f"Your order is confirmed: a custom pizza and a {drinks[0]}." in replies


async def test_a_placeholder_the_bot_offers_nothing_for_is_asked_about_never_sent() -> None:
    def mute(text: str, turn: int) -> Reply:
        return Reply(messages=["What would you like to drink?"])

    spec = ConversationSpec(
        id="d/0", profile="d", goals=("drink drink of my choice",),
        goal_templates=("drink {{drink}}",), variables={"drink": "drink of my choice"},
        stop=StopCondition("all_answered", limit=6),
    )  # fmt: skip
    record = await run_conversation(spec, FakeConnector(mute), AgendaSimulator(spec))
    users = [t.text for t in record.turns if t.role == "user"]
    assert not [u for u in users if "of my choice" in u], users
    assert users[1] == "What drink do you have?"
    assert record.errors  # never a completed goal (the bot repeats itself: 1002)


def test_placeholder_words() -> None:
    assert placeholder_words("Drink of my choice") == "drink"
    assert placeholder_words("the usual,  please") == ""
    assert placeholder_words("Coke") is None and placeholder_words(3) is None
