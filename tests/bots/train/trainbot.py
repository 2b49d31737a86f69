"""RailGo ticket assistant: train times and tickets between six cities (standard library only).

Sells a ticket (from, to, travel date, passengers, class, then one of the offered trains)
and answers questions about fares, luggage, bikes and refunds.

    python trainbot.py --port 8823                     # correct
    python trainbot.py --port 8823 --bug lost_slot     # one seeded bug (repeat --bug)
    python trainbot.py --port 8823 --buggy             # every seeded bug

Seeded bugs (``BUGS``): ``lost_slot`` the number of passengers is forgotten when the class
is asked, so the ticket is for 1 passenger; ``wrong_train`` the confirmation names the first
train of the day whatever train was chosen; ``invalid_accepted`` a travel date in the past
is accepted and ticketed.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "lost_slot": "the number of passengers is lost: every ticket is for one passenger",
    "wrong_train": "the confirmation names the first train of the day, not the chosen one",
    "invalid_accepted": "a travel date in the past is accepted",
}
TODAY = dt.date(2027, 3, 1)
CITIES = {
    "london": 0,
    "bristol": 190,
    "manchester": 300,
    "leeds": 310,
    "york": 330,
    "edinburgh": 630,
}
DEPARTURES = ["06:45", "09:10", "12:35", "16:50", "19:20"]
FAQ = {
    r"\b(luggage|bags?|suitcases?)\b": "Each passenger may bring two large bags and one piece of hand luggage free of charge.",
    r"\b(bikes?|bicycles?)\b": "Bikes travel free, but space is limited: reserve a bike spot when you book.",
    r"\b(refunds?|cancel(?:lation)?|money back)\b": "Standard tickets can be refunded up to 24 hours before departure, minus a £5 fee. First class tickets are fully refundable.",
    r"\b(fares?|prices?|how much|cost)\b": "Fares start at £19 London–Bristol, £35 to Manchester or Leeds, £38 to York and £72 to Edinburgh (standard class, one way). First class is 80% more.",
    r"\b(cities|stations|destinations|where do you go)\b": "We run trains between London, Bristol, Manchester, Leeds, York and Edinburgh.",
}
NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "a couple": 2,
    "just me": 1,
    "myself": 1,
    "alone": 1,
}
_tickets = itertools.count(4102, 13)


def fare(origin: str, destination: str, travel_class: str) -> float:
    km = abs(CITIES[origin] - CITIES[destination])
    base = max(19.0, round(km * 0.115, 0))
    return base * (1.8 if travel_class == "first" else 1.0)


def find_cities(text: str) -> tuple[str | None, str | None, list[str]]:
    low = text.lower()
    named = [c for c in sorted(CITIES, key=low.find) if c in low]
    origin = m[1] if (m := re.search(rf"\bfrom ({'|'.join(CITIES)})\b", low)) else None
    destination = m[1] if (m := re.search(rf"\bto ({'|'.join(CITIES)})\b", low)) else None
    return origin, destination, named


def find_date(text: str) -> dt.date | str | None:
    low = text.lower()
    if "today" in low:
        return TODAY
    if "tomorrow" in low:
        return TODAY + dt.timedelta(days=1)
    if "yesterday" in low:
        return TODAY - dt.timedelta(days=1)
    m = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", low) or re.search(
        r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", low
    )
    if not m:
        return None
    parts = [int(p) for p in m.groups()]
    year, month, day = parts if parts[0] > 31 else (parts[2], parts[1], parts[0])
    try:
        return dt.date(year, month, day)
    except ValueError:
        return "invalid"


def find_passengers(text: str) -> int | None:
    low = re.sub(r"\d+[/:.-]\d+(?:[/.-]\d+)?", " ", text.lower())  # not a date or a time
    if m := re.search(r"\b(\d{1,2})\b", low):
        return int(m[1])
    for word, n in NUMBERS.items():
        if re.search(rf"\b{word}\b", low):
            return n
    return None


class Conversation:
    """RailGo's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.trip: dict[str, object] | None = None
        self.asked: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(r"\b(pain|hurts?|injured|bleeding|unconscious|heart attack|numb)\b", low):
            return (
                "I'm only able to help with train tickets. If this is a medical emergency, "
                "please call 999 now or ask the nearest member of staff for help."
            )
        if re.search(
            r"\b(bye|goodbye|that's all|that is all|nothing else|no,? thanks?|no more)\b", low
        ):
            self.trip = None
            return "Thank you for travelling with RailGo. Have a good journey!"
        if self.trip is None:
            asking = re.search(
                r"\b(how much|fares?|prices?|cost|refunds?|cancel|luggage|bikes?)\b", low
            )
            buying = re.search(r"\b(book|buy|need|want|get|reserve|i'd like)\b", low)
            if re.search(r"\b(tickets?|book|travel|trip|journey|trains?)\b", low) and (
                buying or not asking
            ):
                self.trip = {}
                return self.fill(text)
            for pattern, answer in FAQ.items():
                if re.search(pattern, low):
                    return answer
            if re.search(r"\b(help|what can you do)\b", low):
                return "I sell train tickets between London, Bristol, Manchester, Leeds, York and Edinburgh, and answer questions about fares, luggage, bikes and refunds."
            if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                return "Welcome to RailGo! Where are you travelling today?"
            return "Sorry, I didn't get that. Try asking for a ticket, e.g. 'a ticket from London to York'."
        return self.fill(text)

    def fill(self, text: str) -> str:
        trip = self.trip
        assert trip is not None
        before = dict(trip)
        origin, destination, named = find_cities(text)
        if self.asked == "origin" and not origin and named:
            origin = named[0]
        if self.asked == "destination" and not destination and named:
            destination = named[-1]
        if origin:
            trip["origin"] = origin
        if destination:
            trip["destination"] = destination
        if (
            trip.get("origin")
            and trip.get("origin") == trip.get("destination")
            and "invalid_accepted" not in self.bugs
        ):
            trip.pop("destination")
            self.asked = "destination"
            return "The departure and arrival stations are the same. Where are you travelling to?"
        day = find_date(text)
        if day == "invalid":
            return "That date doesn't exist. Please give it as DD/MM/YYYY."
        if isinstance(day, dt.date):
            if day < TODAY and "invalid_accepted" not in self.bugs:
                self.asked = "date"
                return "That date is in the past. Which day would you like to travel?"
            trip["date"] = day
        counting = re.search(r"\b(passengers?|people|persons?|adults?|of us)\b", text.lower())
        if (self.asked == "passengers" or counting) and (n := find_passengers(text)):
            trip["passengers"] = n
        if m := re.search(r"\b(first|standard|second)\b", text.lower()):
            trip["class"] = "standard" if m[1] == "second" else m[1]
            if "lost_slot" in self.bugs:
                trip["passengers"] = 1
        if self.asked == "train" and (chosen := self.pick_train(text)):
            trip["train"] = chosen
        if trip == before and self.asked:
            return "Sorry, I didn't catch that. " + self.ask_next()
        return self.ask_next()

    def pick_train(self, text: str) -> str | None:
        low = text.lower()
        if m := re.search(r"\b(\d{1,2})[:.h](\d{2})\b", low):
            said = f"{int(m[1]):02d}:{m[2]}"
            return said if said in DEPARTURES else None
        if m := re.search(r"\b(\d{1,2})\s*(am|pm)\b", low):
            hour = int(m[1]) % 12 + (12 if m[2] == "pm" else 0)
            return next((d for d in DEPARTURES if int(d[:2]) == hour), None)
        for word, index in (
            ("first", 0),
            ("earliest", 0),
            ("last", -1),
            ("latest", -1),
            ("morning", 1),
            ("lunch", 2),
            ("afternoon", 3),
            ("evening", 4),
        ):
            if word in low:
                return DEPARTURES[index]
        return None

    def ask_next(self) -> str:
        trip = self.trip or {}
        questions = (
            ("origin", "Where will you be travelling from?"),
            ("destination", "And where are you going?"),
            ("date", "What date do you want to travel? (DD/MM/YYYY, or 'today'/'tomorrow')"),
            ("passengers", "How many passengers?"),
            ("class", "Standard or first class?"),
        )
        for slot, question in questions:
            if slot not in trip:
                self.asked = slot
                return question
        if "train" not in trip:
            self.asked = "train"
            return (
                "Trains that day leave at "
                + ", ".join(DEPARTURES[:-1])
                + f" and {DEPARTURES[-1]}. Which one would you like?"
            )
        return self.ticket()

    def ticket(self) -> str:
        trip, self.trip, self.asked = self.trip or {}, None, None
        origin, destination = str(trip["origin"]), str(trip["destination"])
        passengers = int(str(trip["passengers"]))
        train = DEPARTURES[0] if "wrong_train" in self.bugs else trip["train"]
        total = fare(origin, destination, str(trip["class"])) * passengers
        day = trip["date"]
        assert isinstance(day, dt.date)
        people = f"{passengers} passenger" + ("s" if passengers > 1 else "")
        return (
            f"Booked: {origin.title()} → {destination.title()} on {day.isoformat()}, departing "
            f"{train}, {trip['class']} class, {people}. Total: £{total:.2f}. Ticket number "
            f"RG{next(_tickets)}. Would you like to book anything else?"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8823)
