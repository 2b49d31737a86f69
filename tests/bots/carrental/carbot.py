"""DriveEasy car rental assistant (standard library only).

Reserves a car (pick-up branch, pick-up and return dates, car category, driver's name) and
answers questions about rates, requirements, insurance and fuel.

    python carbot.py --port 8824                       # correct
    python carbot.py --port 8824 --bug crash_van       # one seeded bug (repeat --bug)
    python carbot.py --port 8824 --buggy               # every seeded bug

Seeded bugs (``BUGS``): ``wrong_branch`` the confirmation always names the Airport branch;
``lost_name`` the driver's name is lost, the confirmation says "None"; ``crash_van`` quoting
a van raises an error (HTTP 500).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "wrong_branch": "the confirmation always names the Airport branch",
    "lost_name": "the driver's name is lost: the confirmation says None",
    "crash_van": "choosing a van raises an error (HTTP 500)",
}
TODAY = dt.date(2027, 3, 1)
RATES = {"economy": 39, "compact": 49, "suv": 79, "van": 95}
BRANCHES = {"airport": "Airport", "station": "Central Station", "downtown": "Downtown"}
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
RATE_CARD = (
    "Daily rates: Economy $39, Compact $49, SUV $79 and Van $95, unlimited mileage included."
)
FAQ = {
    r"\b(rates?|prices?|how much|cost|costs)\b": RATE_CARD,
    r"\b(requirements?|licen[cs]e|age|old|documents?|need to bring)\b": "Drivers must be 21 or older, have held a full driving licence for at least a year, and bring a credit card in their name.",
    r"\b(insurance|insured|damage|accident)\b": "Basic insurance is included; full cover with no excess costs $15 a day extra.",
    r"\b(fuel|petrol|gas|tank)\b": "Full to full: you get the car with a full tank and return it full.",
    r"\b(branch|branches|locations?|where)\b": "You can pick up at our Airport, Central Station or Downtown branch.",
}
_refs = itertools.count(30_117, 11)


def find_dates(text: str) -> list[dt.date]:
    """Every date in ``text``: "March 12", "12 Mar", "12/03/2027", "2027-03-12", "tomorrow"."""
    low = text.lower()
    found: list[tuple[int, dt.date]] = []
    month = "(" + "|".join(MONTHS) + r")[a-z]*\.?"
    patterns = [
        (
            rf"\b{month} (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?",
            lambda m: (m[3], MONTHS.index(m[1]) + 1, m[2]),
        ),
        (
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {month}(?:,? (\d{{4}}))?",
            lambda m: (m[3], MONTHS.index(m[2]) + 1, m[1]),
        ),
        (r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", lambda m: (m[3], m[2], m[1])),
        (r"\b(\d{4})-(\d{2})-(\d{2})\b", lambda m: (m[1], m[2], m[3])),
    ]
    for pattern, parts in patterns:
        for m in re.finditer(pattern, low):
            year, month_number, day = parts(m)
            try:
                found.append(
                    (m.start(), dt.date(int(year or TODAY.year), int(month_number), int(day)))
                )
            except ValueError:
                continue
    if m := re.search(r"\btomorrow\b", low):
        found.append((m.start(), TODAY + dt.timedelta(days=1)))
    if found and (m := re.search(r"\bfor (\d{1,2}|a week|one week) (?:days?|nights?)?", low)):
        days = 7 if "week" in m[1] else int(m[1])
        found.append((m.start(), sorted(found)[-1][1] + dt.timedelta(days=days)))
    return [d for _, d in sorted(found)]


def find_name(text: str, asked: bool) -> str | None:
    m = re.search(
        r"(?i:my name is|name is|i'm|i am|driver is|driver will be)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)",
        text,
    )
    if m:
        return m[1]
    if asked:
        words = (
            re.sub(r"(?i)^(it's|it is|the driver is|name:)\s+", "", text.strip())
            .strip(" .!")
            .split()
        )
        if 2 <= len(words) <= 4 and all(re.fullmatch(r"[A-Za-z][A-Za-z'-]*", w) for w in words):
            return " ".join(w.capitalize() for w in words)
    return None


class Conversation:
    """DriveEasy's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.rental: dict[str, object] | None = None
        self.asked: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(r"\b(pain|chest|hurt|injury|injured|bleeding|medical|medicine)\b", low):
            return "That sounds serious. Please contact emergency services (112) straight away."
        if re.search(
            r"\b(bye|goodbye|that's all|that is all|nothing else|no,? thanks?|all good)\b", low
        ):
            self.rental = None
            return "Thanks for choosing DriveEasy. Drive safely!"
        if self.rental is None:
            wants = re.search(r"\b(rent|hire|reserve|reservation|book)\b", low)
            if not wants:
                for pattern, answer in FAQ.items():
                    if re.search(pattern, low):
                        return answer
                if re.search(r"\b(help|what can you do)\b", low):
                    return "I can reserve a rental car and answer questions about rates, driver requirements, insurance and fuel."
                if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                    return "Hi there, welcome to DriveEasy! Looking to rent a car?"
                return "Hmm, I didn't understand that. I can reserve a car or answer questions about rates, requirements, insurance and fuel."
            self.rental = {}
        return self.fill(text)

    def fill(self, text: str) -> str:
        rental = self.rental
        assert rental is not None
        before = dict(rental)
        low = text.lower()
        for key, branch in BRANCHES.items():
            if key in low:
                rental["branch"] = branch
        for category in RATES:
            if re.search(rf"\b{category}s?\b", low):
                rental["category"] = category
        dates = [d for d in find_dates(text) if d > TODAY]
        if find_dates(text) and not dates:
            return "Those dates are in the past. When would you like to pick the car up?"
        if dates and ("pickup" not in rental or self.asked == "pickup"):
            rental["pickup"] = dates.pop(0)
        if dates:
            rental["return"] = dates[-1]
        if isinstance(rental.get("return"), dt.date) and rental["return"] <= rental.get(
            "pickup", TODAY
        ):  # type: ignore[operator]
            rental.pop("return")
            self.asked = "return"
            return (
                "The return date must be after the pick-up date. When will you bring the car back?"
            )
        if name := find_name(text, asked=self.asked == "name"):
            rental["name"] = name
        if rental == before and self.asked:
            return "Sorry, I didn't catch that. " + self.ask_next()
        return self.ask_next()

    def ask_next(self) -> str:
        rental = self.rental or {}
        questions = (
            (
                "branch",
                "Which branch would you like to pick up from: Airport, Central Station or Downtown?",
            ),
            ("pickup", "On which date will you pick the car up?"),
            ("return", "And when will you return it?"),
            ("category", "What kind of car? We have Economy, Compact, SUV and Van."),
            ("name", "Lastly, what is the main driver's full name?"),
        )
        for slot, question in questions:
            if slot not in rental:
                self.asked = slot
                return question
        return self.reserve()

    def reserve(self) -> str:
        rental, self.rental, self.asked = self.rental or {}, None, None
        pickup, back = rental["pickup"], rental["return"]
        assert isinstance(pickup, dt.date) and isinstance(back, dt.date)
        category = str(rental["category"])
        rates = dict(RATES)
        if "crash_van" in self.bugs:
            rates.pop("van")
        days = (back - pickup).days
        total = rates[category] * days
        branch = "Airport" if "wrong_branch" in self.bugs else rental["branch"]
        name = None if "lost_name" in self.bugs else rental["name"]
        label = "SUV" if category == "suv" else category.title()
        return (
            f"Reservation confirmed for {name}: {'an' if label[0] in 'AEIOU' else 'a'} {label} from our {branch} branch, "
            f"{pickup:%a %-d %b} to {back:%a %-d %b %Y} ({days} days), ${total} in total. "
            f"Confirmation code DE-{next(_refs)}. Anything more I can do for you?"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8824)
