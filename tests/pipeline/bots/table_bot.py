"""A restaurant's table-booking bot (free text, standard library only) for the ``run``
tests of dates in the chatbot's own words: a domain apart from the dental clinic of
``tests/bots``. ``Conversation(bugs=["loop_written_date"])`` never reads a date written
out ("12 March"), only relative ones ("tomorrow", "next Friday"), and asks again forever."""

from __future__ import annotations

import datetime as dt
import itertools
import re

TODAY = dt.date(2027, 3, 1)
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]  # fmt: skip
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
FALLBACK = "Sorry, I didn't understand. I can book a table or tell you our opening hours."
_refs = itertools.count(1001)


def find_day(text: str, written: bool) -> dt.date | None:
    low = text.lower()
    if written and (m := re.search(rf"\b(\d{{1,2}}) ({'|'.join(MONTHS)})\b", low)):
        return dt.date(TODAY.year, MONTHS.index(m[2]) + 1, int(m[1]))
    if "tomorrow" in low:
        return TODAY + dt.timedelta(days=1)
    if m := re.search(rf"\b(?:next )?({'|'.join(WEEKDAYS)})\b", low):
        return TODAY + dt.timedelta(days=(WEEKDAYS.index(m[1]) - TODAY.weekday()) % 7 or 7)
    return None


class Conversation:
    """One conversation with the table-booking bot."""

    def __init__(self, bugs: list[str] | tuple[str, ...] = ()) -> None:
        self.bugs = frozenset(bugs)
        self.booking: dict[str, object] | None = None

    def respond(self, text: str) -> str:
        low = text.lower()
        if re.search(r"\b(bye|goodbye|no,? thanks?|that's all)\b", low):
            self.booking = None
            return "Thank you, see you soon!"
        if self.booking is None:
            if re.search(r"\b(book|table|reserv\w*)\b", low):
                self.booking = {}
                return "For how many people?"
            if re.search(r"\b(open|hours)\b", low):
                return "We're open every day from 12:00 to 23:00."
            if re.search(r"^(hi|hello|hey)\b", low) or "help" in low:
                return "Hi! I can book a table or tell you our opening hours."
            return FALLBACK
        return self.fill(text)

    def fill(self, text: str) -> str:
        booking = self.booking
        assert booking is not None
        if "people" not in booking:
            if m := re.search(r"\b(\d{1,2})\b", text):
                booking["people"] = int(m[1])
                return "Which day would you like to come?"
            return "Sorry, I didn't get that. For how many people?"
        if "day" not in booking:
            day = find_day(text, written="loop_written_date" not in self.bugs)
            if day is None:
                return "Sorry, I didn't get that. Which day would you like to come?"
            booking["day"] = day
            return "And what name is the booking under?"
        name = " ".join(w.capitalize() for w in re.findall(r"[A-Za-z]+", text)[:3])
        day = booking["day"]
        assert isinstance(day, dt.date)
        self.booking = None
        return (
            f"Done! Your table is booked for {day.strftime('%A, %-d %B %Y')}, "
            f"{booking['people']} people, under {name}. Your reference is T-{next(_refs)}. "
            "Anything else?"
        )
