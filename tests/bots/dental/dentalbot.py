"""Bright Smile Dental: a free-text appointment assistant (standard library only).

Books an appointment (treatment, day, time, patient name), answers price, opening-hours,
address and insurance questions, and points people in pain to the emergency line.

    python dentalbot.py --port 8821                       # correct
    python dentalbot.py --port 8821 --bug wrong_time      # one seeded bug (repeat --bug)
    python dentalbot.py --port 8821 --buggy               # every seeded bug

Seeded bugs (``BUGS``): ``wrong_time`` the confirmation states the time one hour late
(a time-zone slip); ``loop_date`` a day given in words ("9 March") is never stored, so the
bot asks for the day again and again; ``crash_whitening`` booking whitening raises (HTTP 500).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "wrong_time": "the confirmation states the appointment one hour later than asked",
    "loop_date": "a day given in words is never stored: the day is asked for again and again",
    "crash_whitening": "booking a whitening raises an error (HTTP 500)",
}
TODAY = dt.date(2027, 3, 1)  # the clinic's calendar is fixed so conversations replay
TREATMENTS = {"check-up": 45, "cleaning": 70, "filling": 90, "whitening": 250}
DURATION = {"check-up": 30, "cleaning": 45, "filling": 60, "whitening": 90}
SYNONYMS = {
    "checkup": "check-up",
    "check up": "check-up",
    "exam": "check-up",
    "hygiene": "cleaning",
    "clean": "cleaning",
    "cavity": "filling",
    "whiten": "whitening",
}
MONTHS = "january february march april may june july august september october november december"
MONTH_NAMES = MONTHS.split()
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
FALLBACK = "I'm sorry, I'm not sure I follow. I can book appointments or answer questions about prices, opening hours and our address."
PRICES = (
    "Our prices: a check-up is €45, a professional cleaning €70, fillings start at €90 "
    "and teeth whitening is €250."
)
HOURS = "We're open Monday to Friday from 9 am to 5 pm, and on Saturdays from 9 am to 12 noon."
ADDRESS = "You'll find us at 14 Harbour Street, second floor, right above the pharmacy."
INSURANCE = "We accept most major dental insurance plans; bring your insurance card to the visit."
EMERGENCY = (
    "I'm sorry you're in pain. For severe pain, swelling or bleeding please call our "
    "emergency line on 555-0199 right away, or go to the nearest emergency room."
)
_numbers = itertools.count(5821, 7)


def find_treatment(text: str) -> str | None:
    low = text.lower()
    for word in TREATMENTS:
        if word in low or word.rstrip("g").rstrip("n") + "ngs" in low:
            return word
    for synonym, treatment in SYNONYMS.items():
        if synonym in low:
            return treatment
    return None


def find_day(text: str, words_ok: bool = True) -> dt.date | str | None:
    """A date from numeric (9/3/2027, 2027-03-09), written (9 March, March 9th) or relative
    (tomorrow, next Tuesday) forms; "past" for a day before today."""
    low = text.lower()
    day: dt.date | None = None
    if m := re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", low):
        day = _date(int(m[1]), int(m[2]), int(m[3]))
    elif m := re.search(r"\b(\d{1,2})[/.](\d{1,2})(?:[/.](\d{2,4}))?\b", low):
        year = int(m[3]) if m[3] else TODAY.year
        day = _date(year + 2000 if year < 100 else year, int(m[2]), int(m[1]))
    elif words_ok and (
        m := re.search(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({MONTHS.replace(' ', '|')})\b", low
        )
    ):
        day = _date(TODAY.year, MONTH_NAMES.index(m[2]) + 1, int(m[1]))
    elif words_ok and (
        m := re.search(rf"\b({MONTHS.replace(' ', '|')}) (\d{{1,2}})(?:st|nd|rd|th)?\b", low)
    ):
        day = _date(TODAY.year, MONTH_NAMES.index(m[1]) + 1, int(m[2]))
    elif "tomorrow" in low:
        day = TODAY + dt.timedelta(days=1)
    elif m := re.search(rf"\b(?:next |on )?({'|'.join(WEEKDAYS)})\b", low):
        ahead = (WEEKDAYS.index(m[1]) - TODAY.weekday()) % 7 or 7
        day = TODAY + dt.timedelta(days=ahead)
    if day is None:
        return None
    return "past" if day <= TODAY else day


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def find_time(text: str) -> dt.time | None:
    low = text.lower().replace(".", ":")
    m = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a:m:|p:m:)", low)
    if m:
        hour = int(m[1]) % 12 + (12 if m[3].startswith("p") else 0)
        return dt.time(hour, int(m[2] or 0)) if hour < 24 else None
    m = re.search(r"\b([01]?\d|2[0-3]):([0-5]\d)\b", low)
    if m:
        return dt.time(int(m[1]), int(m[2]))
    if "noon" in low or "midday" in low:
        return dt.time(12, 0)
    return None


def find_name(text: str, asked: bool) -> str | None:
    m = re.search(
        r"(?i:my name is|name is|i am|i'm|patient is|for)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)",
        text,
    )
    if m and find_treatment(m[1]) is None and m[1].lower() not in MONTHS:
        return m[1]
    if asked:
        words = re.sub(r"(?i)^(it's|it is|the name is)\s+", "", text.strip()).strip(" .!").split()
        if 1 <= len(words) <= 4 and all(re.fullmatch(r"[A-Za-z][A-Za-z'-]*", w) for w in words):
            return " ".join(w.capitalize() for w in words)
    return None


def say_time(time: dt.time) -> str:
    return time.strftime("%I:%M %p").lstrip("0")


class Conversation:
    """Bright Smile Dental's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.booking: dict[str, object] | None = None
        self.asked: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(
            r"\b(pain|painful|hurts?|bleeding|swollen|swelling|numb|toothache|emergency)\b", low
        ):
            return EMERGENCY
        if re.search(r"\b(bye|goodbye|no,? thanks?|that's all|nothing else|that is all)\b", low):
            self.booking = None
            return "Thank you for contacting Bright Smile Dental. Have a lovely day!"
        if re.search(r"\b(help|what can you do)\b", low):
            return "I can book a dental appointment and tell you about our prices, opening hours, address and insurance."
        if self.booking is None:
            if answer := self.faq(low):
                return answer
            if not re.search(
                r"\b(appointment|book|booking|schedule|see a dentist|come in|visit)\b", low
            ):
                if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                    return "Hello and welcome to Bright Smile Dental! How can I help you today?"
                return FALLBACK
            self.booking = {}
        return self.fill(text)

    def faq(self, low: str) -> str | None:
        if re.search(r"\b(price|prices|cost|how much|fee|fees)\b", low):
            return PRICES
        if re.search(r"\b(open|opening|hours|close|closing)\b", low):
            return HOURS
        if re.search(r"\b(where|address|located|location|find you)\b", low):
            return ADDRESS
        if re.search(r"\b(insurance|insured)\b", low):
            return INSURANCE
        return None

    def fill(self, text: str) -> str:
        booking = self.booking
        assert booking is not None
        found = False
        if treatment := find_treatment(text):
            booking["treatment"] = treatment
            found = True
        day = find_day(text, words_ok="loop_date" not in self.bugs)
        if day == "past":
            self.asked = "day"
            return "That day has already passed. Which upcoming day would suit you?"
        if day is not None:
            booking["day"] = day
            found = True
        if time := find_time(text):
            if not dt.time(9) <= time <= dt.time(16, 30):
                self.asked = "time"
                return "Our last appointment starts at 4:30 pm and the first at 9 am. What time would you prefer?"
            booking["time"] = time
            found = True
        if name := find_name(text, asked=self.asked == "name"):
            booking["name"] = name
            found = True
        if not found and self.asked and not re.search(r"\b(appointment|book)\b", text.lower()):
            return "Sorry, I didn't quite get that. " + self.ask_next()
        if all(key in booking for key in ("treatment", "day", "time", "name")):
            return self.confirm()
        return self.ask_next()

    def ask_next(self) -> str:
        booking = self.booking or {}
        if "treatment" not in booking:
            self.asked = "treatment"
            return "What would you like to come in for? We offer check-ups, cleanings, fillings and whitening."
        if "day" not in booking:
            self.asked = "day"
            return "Which day suits you best?"
        if "time" not in booking:
            self.asked = "time"
            return "And what time would you prefer? We see patients between 9 am and 4:30 pm."
        self.asked = "name"
        return "May I have the patient's full name, please?"

    def confirm(self) -> str:
        booking, self.booking, self.asked = self.booking or {}, None, None
        treatment = str(booking["treatment"])
        minutes = (
            DURATION[treatment]
            if "crash_whitening" not in self.bugs
            else {k: v for k, v in DURATION.items() if k != "whitening"}[treatment]
        )
        day = booking["day"]
        time = booking["time"]
        assert isinstance(day, dt.date) and isinstance(time, dt.time)
        if "wrong_time" in self.bugs:
            time = time.replace(hour=(time.hour + 1) % 24)
        return (
            f"All set! Your {treatment} ({minutes} minutes) is booked for "
            f"{day.strftime('%A, %-d %B %Y')} at {say_time(time)}, under the name {booking['name']}. "
            f"Your appointment number is DC-{next(_numbers)}. "
            "Is there anything else you'd like to know?"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8821)
