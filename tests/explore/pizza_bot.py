"""A small stateful pizzeria for exploration tests, run in process by the ``python``
connector (``target: pizza_bot:PizzaBot``).

``style="buttons"`` offers its choices as buttons; ``style="text"`` announces them in its
text ("You can choose: small, medium or large."), like bots without buttons. The flow::

    greeting ─► order a pizza ─► pizza type ─► size ─► drink ─► confirmation (price, order id)
             │                 └► custom ─► toppings (free text) ─► size ─► drink ─► …
             ├► prices            (informational: the price list)
             └► opening hours     (informational)

Anything else gets the fallback ``Sorry, I didn't understand that.``; "hi", "hello",
"menu" or "start" go back to the greeting.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

FALLBACK = "Sorry, I didn't understand that."
PIZZAS = ["Margherita", "Pepperoni", "Hawaiian"]
SIZES = ["Small", "Medium", "Large"]
DRINKS = ["Coke", "Water", "No drink"]
PRICES = {"small": 8.0, "medium": 10.0, "large": 12.0}
_ORDER_IDS = itertools.count(1001)


class PizzaBot:
    """One conversation with the pizzeria (see the module docstring)."""

    def __init__(self, style: str = "buttons") -> None:
        self.style = style
        self.state = "start"
        self.order: dict[str, str] = {}

    def greeting(self) -> dict[str, Any]:
        """What the bot says before the first user message."""
        return self._menu()

    def respond(self, text: str) -> dict[str, Any]:
        """The bot's answer to ``text`` (messages and buttons)."""
        said = text.strip().lower()
        if re.search(r"\b(hi|hello|menu|start)\b", said):
            self.state, self.order = "start", {}
            return self._menu()
        if "opening" in said or "hours" in said or "open" in said:
            return self._say("We are open every day from 12:00 to 23:00.")
        if "price" in said and self.state == "start":
            return self._say("Small pizzas cost 8.00 €, medium 10.00 € and large 12.00 €.")
        if self.state == "start" and ("order" in said or "pizza" in said):
            self.state = "pizza"
            return self._ask("Which pizza would you like?", [*PIZZAS, "Custom"])
        if self.state == "pizza":
            if "custom" in said:
                self.state = "toppings"
                return self._say("Which toppings do you want on your custom pizza?")
            pizza = _pick(said, PIZZAS)
            if pizza:
                self.order["pizza"] = pizza
                self.state = "size"
                return self._ask("What size do you want?", SIZES)
        elif self.state == "toppings" and said:
            self.order["pizza"] = f"custom pizza with {text.strip()}"
            self.state = "size"
            return self._ask("What size do you want?", SIZES)
        elif self.state == "size":
            size = _pick(said, SIZES)
            if size:
                self.order["size"] = size
                self.state = "drink"
                return self._ask("Would you like a drink?", DRINKS)
        elif self.state == "drink":
            drink = _pick(said, DRINKS) or ("No drink" if said in {"no", "none"} else None)
            if drink:
                price = PRICES[self.order["size"].lower()] + (0 if drink == "No drink" else 2)
                self.state, order_id = "start", next(_ORDER_IDS)
                return self._say(
                    f"Your order: a {self.order['size'].lower()} {self.order['pizza'].lower()}"
                    f" with {drink.lower()}. The total is {price:.2f} €. Your order id is"
                    f" PZ{order_id}."
                )
        return self._say(FALLBACK)

    def _menu(self) -> dict[str, Any]:
        return self._ask(
            "Welcome to Mini Pizza! What can I do for you?",
            ["Order a pizza", "Prices", "Opening hours"],
        )

    def _ask(self, question: str, options: list[str]) -> dict[str, Any]:
        if self.style == "buttons":
            return {
                "messages": [question],
                "buttons": [{"text": o, "link": f"/{o.lower()}"} for o in options],
            }
        listed = ", ".join(options[:-1]) + f" or {options[-1]}"
        return {"messages": [f"{question} You can choose: {listed}."]}

    @staticmethod
    def _say(text: str) -> dict[str, Any]:
        return {"messages": [text]}


def _pick(said: str, options: list[str]) -> str | None:
    return next((o for o in options if o.lower() in said), None)
