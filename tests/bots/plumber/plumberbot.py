"""DripStop Plumbing's booking assistant (standard library only).

Books a plumber's visit (the problem, from a numbered menu; the address; the day; a time
window; a mobile number for the plumber's text) and answers questions about prices, the area
covered, working hours and the guarantee.

    python plumberbot.py --port 8826                          # correct
    python plumberbot.py --port 8826 --bug wrong_window       # one seeded bug (repeat --bug)
    python plumberbot.py --port 8826 --buggy                  # every seeded bug

Seeded bugs (``BUGS``): ``wrong_window`` the confirmation names the window after the chosen
one; ``lost_problem`` once the bot has asked again for the day, the problem reverts to the
first one of the menu (a leaking tap or pipe); ``past_day_accepted`` a day in the past is
booked.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "wrong_window": "the confirmation names the time window after the chosen one",
    "lost_problem": "after the day is asked again, the problem reverts to a leaking tap",
    "past_day_accepted": "a visit on a day in the past is booked",
}
TODAY = dt.date(2027, 3, 1)  # Monday 1 March 2027, fixed so conversations replay
PROBLEMS = [
    ("a leaking tap or pipe", r"\b(leak\w*|drip\w*|tap|pipe)\b"),
    ("a blocked drain or toilet", r"\b(block\w*|clog\w*|drain|toilet|sink)\b"),
    ("a boiler service", r"\b(boiler|heating|radiator|service)\b"),
    ("a general repair", r"\b(something else|other|general|repair)\b"),
]
WINDOWS = [
    ("morning", "between eight and twelve", range(8, 12)),
    ("afternoon", "between twelve and four", range(12, 16)),
    ("evening", "between four and six", range(16, 18)),
]
HOUR_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
AREA = r"\b(leeds|bradford|wakefield|ls\d{1,2}|bd\d{1,2}|wf\d{1,2})\b"
PRICES = (
    "Our prices:\n"
    "- Call-out, including the first half hour: £60\n"
    "- Each extra half hour: £25\n"
    "- Boiler service: £85 flat\n"
    "Parts are charged at cost. Evenings after six and Sundays are double rate."
)
FAQ = {
    r"\b(price|prices|cost|costs|how much|charge|rates?|fee)\b": PRICES,
    r"\b(area|areas|cover|where|come to)\b": "We cover Leeds, Bradford and Wakefield (LS, BD and WF postcodes).",
    r"\b(hours|open|when do you work|weekend|saturday|sunday)\b": (
        "Our plumbers work Monday to Saturday from eight in the morning until six. For a burst "
        "pipe out of hours, ring the emergency number 0113 496 0000."
    ),
    r"\b(guarantee|warranty)\b": "Every repair comes with a twelve-month guarantee on parts and labour.",
}
FALLBACK = "Sorry, I didn't quite get that. I can book a plumber or tell you about prices, the areas we cover and our hours."
MENU = (
    "What seems to be the problem?\n"
    "1) a leaking tap or pipe\n2) a blocked drain or toilet\n3) a boiler service\n4) something else"
)
_jobs = itertools.count(5521, 17)


def nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def parse_day(text: str) -> dt.date | None:
    """ "Thursday the 4th", "the 4th", "4 March", "March 4", "04/03/2027", "2027-03-04",
    "tomorrow", "yesterday", "next Thursday", "Thursday", "in two weeks"."""
    low = text.lower()
    if "tomorrow" in low:
        return TODAY + dt.timedelta(days=1)
    if "yesterday" in low:
        return TODAY - dt.timedelta(days=1)
    if m := re.search(r"\bin (a|one|two|three|\d+) (day|week)s?\b", low):
        n = {"a": 1, "one": 1, "two": 2, "three": 3}.get(m[1]) or int(m[1])
        return TODAY + dt.timedelta(days=n * (7 if m[2] == "week" else 1))
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", low):
        return _day(int(m[1]), int(m[2]), int(m[3]))
    if m := re.search(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", low):
        return _day(int(m[3]), int(m[2]), int(m[1]))
    months = "january|february|march|april|may|june|july|august|september|october|november|december"
    if m := re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({months})\b", low):
        return _day(TODAY.year, months.split("|").index(m[2]) + 1, int(m[1]))
    if m := re.search(rf"\b({months}) (\d{{1,2}})(?:st|nd|rd|th)?\b", low):
        return _day(TODAY.year, months.split("|").index(m[1]) + 1, int(m[2]))
    if m := re.search(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", low):
        return _day(TODAY.year, TODAY.month, int(m[1]))
    if m := re.search(r"\b(last |next )?(" + "|".join(DAYS) + r")\b", low):
        ahead = (DAYS.index(m[2]) - TODAY.weekday()) % 7 or 7
        if m[1] == "last ":
            return TODAY - dt.timedelta(days=7 - ahead)
        return TODAY + dt.timedelta(days=ahead)
    return None


def _day(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def parse_window(text: str) -> int | None:
    """The window (index into WINDOWS) of "morning", "afternoon", "evening", "half past
    four", "three o'clock", "2pm", "14:30"."""
    low = text.lower()
    for i, (name, _, _) in enumerate(WINDOWS):
        if name in low:
            return i
    hour: int | None = None
    if m := re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b", low):
        hour = int(m[1]) % 12 + (12 if m[3] == "pm" else 0)
    elif m := re.search(r"\b(\d{1,2}):(\d{2})\b", low):
        hour = int(m[1])
    elif (m := re.search(r"\b(" + "|".join(HOUR_WORDS) + r")\b", low)) and re.search(
        r"o'clock|\bpast\b|quarter to", low
    ):
        hour = HOUR_WORDS[m[1]] - (1 if "quarter to" in low else 0)
        hour += 12 if hour < 7 else 0  # "three o'clock" in a plumber's day is 15:00
    for i, (_, _, hours) in enumerate(WINDOWS):
        if hour in hours:
            return i
    return None


class Conversation:
    """DripStop's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.job: dict[str, object] | None = None
        self.asked: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(
            r"\b(bye|goodbye|cheers|that's all|nothing else|no,? thanks?|no that's it)\b", low
        ):
            self.job = None
            return "Thanks for calling DripStop. Have a good day!"
        if self.job is None:
            if re.search(r"\b(book|booking|appointment|visit|send|come round|plumber)\b", low):
                self.job = {}
                return self.fill(text)
            for pattern, answer in FAQ.items():
                if re.search(pattern, low):
                    return answer
            if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                return "Hi, you've reached DripStop Plumbing 🔧 How can we help today?"
            return FALLBACK
        return self.fill(text)

    def fill(self, text: str) -> str:
        job, low = self.job, text.lower()
        assert job is not None
        if m := re.fullmatch(r"\s*([1-4])[).]?\s*", low):
            job["problem"] = PROBLEMS[int(m[1]) - 1][0]
        for problem, pattern in PROBLEMS:
            if "problem" not in job and re.search(pattern, low):
                job["problem"] = problem
        if self.asked == "address" or re.search(
            r"\b\d+[a-z]? \w+ (road|street|lane|avenue|close|way|drive)\b", low
        ):
            if not re.search(r"\b\d+[a-z]?\s+\w+", low):
                return "Could you give me the house number and street, please?"
            if not re.search(AREA, low):
                return (
                    "Sorry, we only cover Leeds, Bradford and Wakefield. Is there another address?"
                )
            job["address"] = text.strip(" .").removeprefix("It's ").removeprefix("it's ")
        if self.asked in ("day", "window") or "address" in job:
            day = parse_day(text)
            if day is not None:
                if day <= TODAY and "past_day_accepted" not in self.bugs:
                    return self.day_again(
                        "That day has already gone! Which day would you like instead?"
                    )
                if day.weekday() == 6:
                    return self.day_again("We don't work on Sundays. Could another day suit you?")
                job["day"] = day
        if "day" in job and (window := parse_window(text)) is not None:
            job["window"] = window
        if self.asked == "phone":
            digits = re.sub(r"[^\d+]", "", text)
            if not re.fullmatch(r"(\+44|0)7\d{9}", digits):
                return "That doesn't look like a UK mobile number. Could you type it again, starting with 07?"
            job["phone"] = text.strip(" .")
        return self.next_question()

    def day_again(self, message: str) -> str:
        if "lost_problem" in self.bugs and self.job is not None:
            self.job["problem"] = PROBLEMS[0][0]
        self.asked = "day"
        return message

    def next_question(self) -> str:
        job = self.job or {}
        for slot, question in (
            ("problem", MENU),
            ("address", "What's the address, including the postcode?"),
            ("day", "Which day suits you? Our plumbers work Monday to Saturday."),
            (
                "window",
                "We have three windows that day: morning (8 to 12), afternoon (12 to 4) or evening (4 to 6). Which would you prefer?",
            ),
            (
                "phone",
                "Last thing: a mobile number so the plumber can text you when they're on the way?",
            ),
        ):
            if slot not in job:
                self.asked = slot
                return question
        return self.book()

    def book(self) -> str:
        job, self.job, self.asked = self.job or {}, None, None
        day, window = job["day"], int(job["window"])  # type: ignore[call-overload]
        assert isinstance(day, dt.date)
        if "wrong_window" in self.bugs:
            window = (window + 1) % len(WINDOWS)
        return (
            f"Booked! A plumber will come to {job['address']} on {day:%A} the {nth(day.day)} of "
            f"{day:%B}, {WINDOWS[window][1]}, to look at {job['problem']}. We'll text "
            f"{job['phone']} when they're on the way. Job number: DS-{next(_jobs)}. Is there "
            "anything else?"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8826)
