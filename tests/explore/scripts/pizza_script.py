"""A scripted model for exploring the test pizzeria (``tests/explore/pizza_bot.py``).

``pizza_responder(messages)`` answers each step of the LLM exploration, recognised by the
first line of the system prompt (``sparring explore step: <step>``), the way a good model
would for this bot, with a few deliberate slips the strategy must catch:

- the explorer writes options in the wrong case or quoted (``prices``, ``"Large"``) and
  once impersonates the bot ("How can I help you today?") in the general session;
- in the opening-hours session it asks about delivery (a fallback), the rephrasing fails
  too, and it finishes when told to abandon the topic;
- extraction names the order step ``place_pizza_order`` in the order session (the global
  merge must find it is ``order_pizza``) and spells options in other cases;
- the workflow names an unknown parent and closes a cycle, which must be dropped.

``failing_at(step, marker)`` wraps the responder to raise ``ModelError`` at one step when
the call's user message contains ``marker``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from sparring.errors import ModelError

FALLBACK = "Sorry, I didn't understand that."
CORRECTION_MARK = "[sparring] Your last message read like the CHATBOT"
ABANDON_MARK = "[sparring] The chatbot failed to understand"
IMPERSONATION = "How can I help you today?"

Messages = list[dict[str, str]]


def step_of(messages: Messages) -> str:
    """The step named on the first line of the system prompt."""
    first = messages[0]["content"].splitlines()[0]
    return first.split(":", 1)[1].strip()


def say(message: str) -> dict[str, Any]:
    return {"message": message, "done": False}


DONE = {"message": "", "done": True}


def _last_bot(messages: Messages) -> str:
    for m in reversed(messages):
        if m["role"] == "user" and not m["content"].startswith(("[sparring]", "(The chatbot")):
            return m["content"]
    return ""


def explorer(messages: Messages) -> dict[str, Any]:
    """The explorer's next message, by the session's focus and the bot's last message."""
    focus = messages[0]["content"].split("FOCUS:", 1)[1]
    last = messages[-1]["content"]
    if last.startswith(CORRECTION_MARK):
        return say("Opening hours")
    if last.startswith(ABANDON_MARK):
        return DONE
    bot = _last_bot(messages)
    welcome = "Welcome to Mini Pizza" in bot
    if "'show_prices'" in focus:
        return say("Prices") if welcome else DONE
    if "'show_opening_hours'" in focus:
        if welcome:
            return say("Opening hours")
        return say("Do you deliver?") if "We are open" in bot else DONE
    if "'order_pizza'" in focus:
        plan = {
            "Welcome to Mini Pizza": "order a pizza",
            "Which pizza": "Custom",
            "Which toppings": "ham and mushrooms",
            "What size": "Small",
            "Would you like a drink": "No drink",
        }
        return next((say(v) for k, v in plan.items() if k in bot), DONE)
    if "'choose_custom_toppings'" in focus:
        plan = {"Welcome to Mini Pizza": "Order a pizza", "Which pizza": "Custom"}
        plan["Which toppings"] = "olives"
        return next((say(v) for k, v in plan.items() if k in bot), DONE)
    if "Already discovered" in focus or "Use the functionality" in focus:
        return DONE
    plan = {
        "Welcome to Mini Pizza": "prices",
        "Small pizzas cost": IMPERSONATION,
        "We are open": "Order a pizza",
        "Which pizza": "margherita",
        "What size": '"Large"',
        "Would you like a drink": "Coke",
    }
    return next((say(v) for k, v in plan.items() if k in bot), DONE)


def bot_lines(transcript: str) -> list[tuple[int, str]]:
    """(number of the last user message before it, text) for each chatbot line."""
    out: list[tuple[int, str]] = []
    user = 0
    for line in transcript.splitlines():
        found = re.match(r"U(\d+) USER:", line)
        if found:
            user = int(found.group(1))
        elif line.startswith("CHATBOT:"):
            out.append((user, line))
    return out


def _fn(name: str, description: str, turn: int, **more: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "user_turns": [turn], **more}


def extraction(messages: Messages) -> dict[str, Any]:
    """The functionalities in the transcript, as a model would list them."""
    text = messages[-1]["content"]
    focus = re.search(r"This session explored '(\w+)'", text)
    bot = bot_lines(text)

    def turn(marker: str) -> int | None:
        return next((u for u, line in bot if marker in line and u > 0), None)

    found: list[dict[str, Any]] = []
    if (t := turn("Small pizzas cost")) is not None:
        price = {"name": "price_list", "type": "currency", "example": "8.00 €"}  # a synonym
        found.append(_fn("show_prices", "Tells the price of each size.", t, outputs=[price]))
    if (t := turn("We are open")) is not None:
        hours = {"name": "opening_hours", "description": "Days and hours", "example": "12-23"}
        found.append(_fn("show_opening_hours", "Tells when it is open.", t, outputs=[hours]))
    if (t := turn("Which pizza")) is not None:
        branch = focus is not None and focus.group(1) == "order_pizza"
        name = "place_pizza_order" if branch else "order_pizza"
        options = ["margherita", "Custom"] if branch else ["Margherita", "Pepperoni", "Hawaiian"]
        kind = {"name": "pizza_type", "options": options, "question": "Which pizza?"}
        found.append(_fn(name, "Starts an order: asks which pizza.", t, parameters=[kind]))
    if (t := turn("Which toppings")) is not None:
        toppings = {"name": "toppings", "description": "free text"}
        found.append(_fn("choose_custom_toppings", "Asks for toppings.", t, parameters=[toppings]))
    if (t := turn("What size")) is not None:
        size = {"name": "size", "options": ["small", "MEDIUM", "Large"], "required": True}
        found.append(_fn("choose_pizza_size", "Asks for the size.", t, parameters=[size]))
    if (t := turn("Would you like a drink")) is not None:
        drink = {"name": "drink", "options": ["Coke", "Water", "No drink"]}
        found.append(_fn("choose_drink", "Offers a drink.", t, parameters=[drink]))
    if (t := turn("Your order:")) is not None:
        outputs = [
            {"name": "total_price", "type": "money", "example": "14.00 €"},
            {"name": "order_id", "example": "PZ1001"},
        ]
        found.append(_fn("confirm_order", "Confirms with price and id.", t, outputs=outputs))
    return {"functionalities": found}


def merge(messages: Messages) -> dict[str, Any]:
    """``place_pizza_order`` is ``order_pizza``; everything else is new."""
    new_part = messages[-1]["content"].split("NEW:", 1)[1]
    ids = [json.loads(line)["id"] for line in new_part.strip().splitlines()]
    duplicates = [{"new": i, "existing": "order_pizza"} for i in ids if i == "place_pizza_order"]
    return {"duplicates": duplicates}


WORKFLOW = {
    "order_pizza": ["confirm_order"],  # closes a cycle: must be dropped
    "choose_custom_toppings": ["order_pizza"],
    "choose_pizza_size": ["order_pizza", "choose_custom_toppings"],
    "choose_drink": ["choose_pizza_size", "ghost_step"],  # unknown parent: dropped
    "confirm_order": ["choose_drink"],
}

CATEGORIES = {"show_prices": "Information", "show_opening_hours": "Information"}


def ids_in(messages: Messages) -> list[str]:
    return re.findall(r'\{"id": "(\w+)"', messages[-1]["content"])


def pizza_responder(messages: Messages) -> Any:
    """The scripted model's answer to one call (see the module docstring)."""
    step = step_of(messages)
    if step == "probe":
        return {"languages": ["en"], "is_fallback": True, "fallback": FALLBACK}
    if step == "explorer":
        return explorer(messages)
    if step == "rephrase":
        return {"message": "Delivery?"}
    if step == "extract":
        return extraction(messages)
    if step == "merge":
        return merge(messages)
    if step == "consolidate":
        return {"groups": []}
    if step == "classify":
        kind = "transactional" if "Which pizza" in messages[-1]["content"] else "informational"
        return {"bot_type": kind, "reason": "guided order"}
    if step == "workflow":
        return {"nodes": [{"id": i, "parents": WORKFLOW.get(i, [])} for i in ids_in(messages)]}
    if step == "categories":
        ids = ids_in(messages)
        return {"categories": [{"id": i, "category": CATEGORIES.get(i, "Ordering")} for i in ids]}
    raise AssertionError(f"unexpected step {step!r}")


def failing_at(
    step: str, marker: str, responder: Callable[[Messages], Any] = pizza_responder
) -> Callable[[Messages], Any]:
    """``responder``, raising ``ModelError`` at ``step`` when the last message has
    ``marker``."""

    def respond(messages: Messages) -> Any:
        if step_of(messages) == step and marker in messages[-1]["content"]:
            raise ModelError(f"scripted failure at {step}")
        return responder(messages)

    return respond
