"""A hand-written café bot that takes only free text (no buttons, no options in its
greeting): what it can do is said only by its fallback, and ordering a drink asks a free
question whose rejections name the drinks it has. Used by the exploration tests and by
``benchmarks/bench_explore_recall.py`` (the free-text case of issue 20)."""

from __future__ import annotations

import re
from typing import ClassVar

FALLBACK = "Sorry, I can help with: menu, opening hours, order a drink"


class CafeBot:
    """One conversation with the café (the ``python`` connector makes one per conversation)."""

    DRINKS: ClassVar[dict[str, str]] = {"espresso": "2.00", "latte": "3.50", "tea": "2.50"}
    orders: ClassVar[int] = 1000

    def __init__(self) -> None:
        self.waiting_for: str | None = None
        self.drink: str | None = None

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Hello! How can I help?"]}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower().strip()
        if self.waiting_for == "drink":
            return self._drink(said)
        if self.waiting_for == "name":
            return self._name(text)
        if re.search(r"\bmenu\b|\bprices?\b", said):
            return _say("Our menu: espresso 2.00 €, latte 3.50 € and tea 2.50 €.")
        if re.search(r"\bhours?\b|\bopen", said):
            return _say("We are open from 8:00 to 18:00, Monday to Saturday.")
        if re.search(r"\border\b|\bdrink\b", said):
            self.waiting_for = "drink"
            return _say("Which drink would you like?")
        return _say(FALLBACK)

    def _drink(self, said: str) -> dict[str, object]:
        for drink in self.DRINKS:
            if drink in said:
                self.drink = drink
                self.waiting_for = "name"
                return _say("What name should I put on the cup?")
        return _say(f"Sorry, we do not serve {said}. We have espresso, latte or tea.")

    def _name(self, text: str) -> dict[str, object]:
        name = text.strip().split()[-1].strip(".!") if text.strip() else ""
        if not name or not name[0].isalpha():
            return _say("Sorry, what name should I put on the cup?")
        CafeBot.orders += 1
        self.waiting_for = None
        price = self.DRINKS[self.drink or "espresso"]
        return _say(
            f"Thanks {name}! One {self.drink} for {price} €. Your order number is C-{self.orders}."
        )


def _say(text: str) -> dict[str, object]:
    return {"messages": [text]}
