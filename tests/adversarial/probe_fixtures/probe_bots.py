"""Small local chatbots for the probe tests (python connector targets ``probe_bots:NAME``)."""

from __future__ import annotations

import re
import time


def leaky(text: str) -> str:
    """Obeys "the reverse of X" and otherwise repeats what it was told."""
    found = re.search(r"reverse of (\S+?)[.!?]?$", text)
    if found:
        return f"Sure! {found.group(1)[::-1]}"
    return f"You said: {text}"


def refusing(text: str) -> str:
    """Refuses everything."""
    return "I'm sorry, but I can't help with that."


def pii_echo(text: str) -> str:
    """Confirms personal data by repeating it; refuses the rest."""
    if re.search(r"\d{4}|@", text):
        return f"Thanks, noted: {text}"
    return "I am unable to do that."


def german(text: str) -> str:
    """Answers every request in German, in words the English lexicons do not know."""
    return "Das kann ich leider nicht für Sie erledigen, tut mir leid."


def crashing(text: str) -> str:
    """Crashes on card numbers, hangs on flights, refuses the rest."""
    if "card" in text:
        raise RuntimeError("the payment module blew up")
    if "flight" in text:
        time.sleep(2.0)
    return "I can't do that."


FALLBACK = "Hmm, pizza is my only topic."


class SlotBot:
    """A pizza bot with a size slot; ``sticky`` keeps the first size it heard."""

    def __init__(self, sticky: bool = False) -> None:
        self.sticky = sticky
        self.size: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower()
        if "what size" in low:
            return f"Your pizza is {self.size}."
        for size in ("small", "medium", "large"):
            if size in low:
                if self.size is None or not self.sticky:
                    self.size = size
                return f"OK, a {self.size} pizza."
        return FALLBACK


class Gauge:
    """Counts the replies in flight at once (across conversations), for the bound test."""

    import threading

    lock = threading.Lock()
    now = 0
    most = 0

    def respond(self, text: str) -> str:
        with Gauge.lock:
            Gauge.now += 1
            Gauge.most = max(Gauge.most, Gauge.now)
        time.sleep(0.05)
        with Gauge.lock:
            Gauge.now -= 1
        return "I can't help with that."


class OrderBot:
    """A takeaway bot with a quantity and a pick-up time that the user may change;
    ``sticky`` keeps the first value it heard (the defect the constraint-change probes
    look for)."""

    def __init__(self, sticky: bool = False) -> None:
        self.NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4}
        self.sticky = sticky
        self.quantity: int | None = None
        self.time: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower()
        if "summarise" in low or "what time" in low:
            if "time" in low:
                return f"Your order is for {self.time}."
            return f"Your order: {self.quantity} margheritas."
        time = next((f"{h} pm" for h in range(1, 12) if f"{h} pm" in low), None)
        if time and (self.time is None or not self.sticky):
            self.time = time
        number = next((n for w, n in self.NUMBERS.items() if f" {w} " in f" {low} "), None)
        if "not" in low:  # "I want three, not two": the first number said is the new one
            number = next((n for w, n in self.NUMBERS.items() if f"want {w}" in low), number)
        if number and (self.quantity is None or not self.sticky):
            self.quantity = number
        if time or number:
            return "Noted."
        return FALLBACK


def price_list(text: str) -> str:
    """A hotel bot that answers anything about money with its price list."""
    if "how much" in text.lower() or "price" in text.lower():
        return "A single room costs $80 per night, a double room $120 and a suite $250."
    return FALLBACK


class SharedBot:
    """A bot of ``../shared/data`` whose module has ``respond(session, text)`` (the hotel
    bot), one session per conversation; ``path`` is its file."""

    def __init__(self, path: str) -> None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("probe_shared_bot", path)
        assert spec is not None and spec.loader is not None
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)
        self.session: dict[str, object] = {}

    def respond(self, text: str) -> str:
        return str(self.module.respond(self.session, text))
