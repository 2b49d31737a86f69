"""A correct FAQ chatbot (a bike rental's help desk) and a copy with seeded breakdowns.

Used to measure breakdown detectors on a task bot whose every answer is known to be
right (``FaqBot``) or known to be wrong (``BuggyFaqBot``): the labelled items of
``benchmarks/breakdowns/items.yaml`` and ``benchmarks/bench_breakdowns.py``. sparring's
``python`` connector runs either (``chatbot.yaml`` beside this file).

``FaqBot`` answers independent questions — opening hours, location, prices, helmets,
booking, payment, children's bikes — greetings, thanks and goodbyes, and says what it
can answer about when it cannot (its fallback, which lists its capabilities: a correct
answer to an out-of-scope question, not a breakdown). A question is matched by keywords
of each topic; the answer to a repeated question is the same answer.

``BuggyFaqBot`` has four seeded faults: it answers the price when asked when the shop
*closes*; it falls back on "Do you rent e-bikes?" though e-bikes are its business; it
repeats its previous answer to any question about payment; and it fails (raises) on a
question about children's bikes.
"""

from __future__ import annotations

import re

FALLBACK = (
    "Sorry, I can only answer questions about opening hours, location, prices, helmets, "
    "booking, payment and children's bikes."
)
GREETING = "Hi! I'm the Pedal & Co help desk. Ask me about hours, prices or booking a bike."

TOPICS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "hours",
        ("open", "close", "closing", "hours", "when can i", "what time"),
        "We are open every day from 8am to 6pm, and until 8pm on Fridays.",
    ),
    (
        "location",
        ("where", "address", "location", "find you", "located"),
        "We are at 12 Harbour Street, next to the ferry terminal.",
    ),
    (
        "prices",
        ("price", "cost", "how much", "rate", "fee", "expensive"),
        "A city bike costs $8 per hour or $30 per day; an e-bike $15 per hour or $55 per day.",
    ),
    (
        "ebikes",
        ("e-bike", "ebike", "electric"),
        "Yes, we rent e-bikes: 20 of them, with a range of about 60 km per charge.",
    ),
    (
        "helmets",
        ("helmet", "lock", "safety"),
        "Every rental includes a helmet and a lock at no extra cost.",
    ),
    (
        "booking",
        ("book", "reserve", "reservation", "in advance"),
        "You can book online at pedal.example/book or just walk in; booking is free.",
    ),
    (
        "payment",
        ("pay", "card", "cash", "deposit"),
        "We take cards and cash; a $50 deposit is held and returned with the bike.",
    ),
    (
        "children",
        ("child", "children", "kid", "kids"),
        "Yes, we have children's bikes for ages 4 to 12, at half the adult price.",
    ),
)
SOCIAL: tuple[tuple[str, str], ...] = (
    (r"^(hi|hello|hey|good (morning|afternoon|evening))\b", "Hello! How can I help you?"),
    (r"\bhow are you\b", "I'm fine, thanks! How can I help you?"),
    (r"\b(thanks|thank you|cheers)\b", "You're welcome! Anything else?"),
    (r"\b(bye|goodbye|see you)\b", "Goodbye, and enjoy your ride!"),
)


def topic_of(text: str) -> str | None:
    """The topic a message asks about (the first whose keywords it contains), else ``None``."""
    said = text.lower()
    for name, keywords, _ in TOPICS:
        if any(k in said for k in keywords):
            return name
    return None


class FaqBot:
    """One conversation with the correct help desk."""

    def __init__(self) -> None:
        self.last = ""

    def greeting(self) -> str:
        """What the bot says first."""
        return GREETING

    def respond(self, text: str) -> str:
        """The answer to ``text``: a topic's answer, a social reply, else the fallback."""
        topic = topic_of(text)
        answer = next((a for name, _, a in TOPICS if name == topic), None)
        if answer is None:
            low = text.lower().strip()
            answer = next((r for p, r in SOCIAL if re.search(p, low)), FALLBACK)
        self.last = answer
        return answer


class BuggyFaqBot(FaqBot):
    """The help desk with four seeded breakdowns (see the module docstring)."""

    def respond(self, text: str) -> str:
        """``FaqBot.respond`` with the seeded faults."""
        said = text.lower()
        if "close" in said:
            return TOPICS[2][2]  # the price, to a question about closing time
        if topic_of(text) == "ebikes":
            return FALLBACK  # an in-domain question not understood
        if topic_of(text) == "payment" and self.last:
            return self.last  # repeats its previous answer
        if topic_of(text) == "children":
            raise RuntimeError("seeded crash")
        return super().respond(text)
