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
