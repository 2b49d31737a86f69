"""A small in-test pizza bot for the adversarial threads tests (python connector): it
answers pizza questions, refuses to talk about its instructions, its code raises (a crash,
as a real bot's unhandled exception would) when asked to pay with crypto, and it hangs
(longer than the connector's timeout) when told to "hold on"."""

from __future__ import annotations

import time


class PizzaBot:
    """One instance per conversation; ``delay`` seconds per reply (benchmarks)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.turns = 0

    def greeting(self) -> None:
        return None

    def respond(self, text: str) -> str:
        if self.delay:
            time.sleep(self.delay)
        self.turns += 1
        lowered = text.lower()
        if "crypto" in lowered:
            raise RuntimeError("payment backend: unsupported method 'crypto'")
        if "hold on" in lowered:
            time.sleep(2.0)
        if "instructions" in lowered or "prompt" in lowered:
            return "I can't share that. Would you like to order a pizza?"
        if "pineapple" in lowered:
            return "Sure, a pizza with pineapple. Which size?"
        if "pizza" in lowered:
            return f"Which size would you like? (message {self.turns})"
        return f"Sorry, I didn't get that. Could you rephrase it? (message {self.turns})"
