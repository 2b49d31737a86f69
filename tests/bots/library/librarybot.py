"""Maple Street Library's chat assistant (standard library only).

Places holds on books (title, branch, collection day, member number), renews loans and
answers questions about opening hours, late fees, membership and the branches.

    python librarybot.py --port 8825                        # correct
    python librarybot.py --port 8825 --bug wrong_day        # one seeded bug (repeat --bug)
    python librarybot.py --port 8825 --buggy                # every seeded bug

Seeded bugs (``BUGS``): ``wrong_day`` the hold's confirmation names the day after the one
asked for; ``lost_branch`` once the bot has had to ask again for anything, the chosen branch
is forgotten and the hold goes to the main library; ``sunday_accepted`` a collection day on a
Sunday, when every branch is closed, is accepted.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "wrong_day": "the hold's confirmation names the day after the one asked for",
    "lost_branch": "after any re-ask the chosen branch is forgotten (the hold goes to Maple Street)",
    "sunday_accepted": "a collection day on a Sunday (every branch closed) is accepted",
}
TODAY = dt.date(2027, 3, 1)  # a Monday; the calendar is fixed so conversations replay
READY = TODAY + dt.timedelta(days=2)  # a hold takes two days to reach a branch
BRANCHES = ["Maple Street", "Riverside", "Hillcrest"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
NUMBER_WORDS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
LOANS = [("The Hobbit", dt.date(2027, 3, 4)), ("Atomic Habits", dt.date(2027, 3, 8))]
FALLBACK = (
    "Oops, I'm not sure what you mean. You can ask me to reserve a book, renew your loans, "
    "or about our opening hours, fees and membership."
)
HOURS = (
    "All three branches open Monday to Friday from nine till half past six, and Saturdays "
    "from ten till four. We're closed on Sundays."
)
FEES = (
    "Borrowing is free. Late returns cost 20p per book per day, up to £5 a book; a "
    "replacement card is £3 and a lost book is charged at its shelf price."
)
MEMBERSHIP = (
    "Anyone who lives, works or studies in the county can join for free: bring a photo ID "
    "and a proof of address to any branch and you'll get your card on the spot."
)
BRANCH_LIST = "We have three branches:\n• Maple Street (the main library)\n• Riverside\n• Hillcrest"
FAQ = {
    r"\b(open|opening|hours|close|closing|closed)\b": HOURS,
    r"\b(fees?|fines?|late|cost|costs|price|prices|charge)\b": FEES,
    r"\b(join|membership|sign up|register|card)\b": MEMBERSHIP,
    r"\b(branch|branches|where|locations?|address)\b": BRANCH_LIST,
}
_holds = itertools.count(3417, 13)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def say_day(day: dt.date) -> str:
    """Tuesday the 9th of March."""
    return f"{day:%A} the {ordinal(day.day)} of {day:%B}"


def read_day(text: str) -> dt.date | None:
    """A day from "Tuesday the 9th", "the 9th", "9 March", "March 9", "12/03", "next Friday",
    "tomorrow", "in two weeks", "in 3 days"."""
    low = text.lower()
    if m := re.search(r"\bin (\d+|one|a|two|three|four|five|six) (day|week)s?\b", low):
        count = int(m[1]) if m[1].isdigit() else NUMBER_WORDS[m[1]]
        return TODAY + dt.timedelta(days=count * (7 if m[2] == "week" else 1))
    if re.search(r"\btomorrow\b", low):
        return TODAY + dt.timedelta(days=1)
    if m := re.search(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}))?\b", low):
        return _date(int(m[3] or TODAY.year), int(m[2]), int(m[1]))
    month = "(" + "|".join(MONTHS) + r")[a-z]*"
    if m := re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {month}\b", low):
        return _date(TODAY.year, MONTHS.index(m[2]) + 1, int(m[1]))
    if m := re.search(rf"\b{month} (?:the )?(\d{{1,2}})(?:st|nd|rd|th)?\b", low):
        return _date(TODAY.year, MONTHS.index(m[1]) + 1, int(m[2]))
    if m := re.search(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", low):
        return _date(TODAY.year, TODAY.month, int(m[1]))
    if m := re.search(r"\b(next |this )?(" + "|".join(WEEKDAYS) + r")\b", low):
        ahead = (WEEKDAYS.index(m[2]) - TODAY.weekday()) % 7 or 7
        return TODAY + dt.timedelta(days=ahead + (7 if m[1] == "next " and ahead < 7 else 0))
    return None


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


class Conversation:
    """The library's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.task: str | None = None
        self.hold: dict[str, object] = {}
        self.member: str | None = None
        self.asked: str | None = None
        self.reasked = False

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(r"\b(bye|goodbye|that's all|that's it|nothing else|no,? thanks?)\b", low):
            self.task, self.hold = None, {}
            return "Happy reading, and see you soon at the library!"
        if self.task is None:
            if re.search(r"\b(reserve|hold|request|order)\b", low):
                self.task, self.asked = "hold", None
                return self.fill_hold(text)
            if re.search(r"\b(renew|extend|more time)\b", low):
                self.task, self.asked = "renew", "member"
                return "No problem! What's your six-digit member number?"
            for pattern, answer in FAQ.items():
                if re.search(pattern, low):
                    return answer
            if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                return "Hello and welcome to Maple Street Library! Would you like to reserve a book or renew your loans?"
            return FALLBACK
        if self.task == "renew":
            return self.renew(text)
        return self.fill_hold(text)

    def fill_hold(self, text: str) -> str:
        hold, low = self.hold, text.lower()
        if self.asked == "title":
            title = re.sub(r"(?i)^(it's|it is|the book is|i'd like|i want|please,?)\s+", "", text)
            hold["title"] = title.strip(" .!\"'").title()
        elif m := re.search(r"[\"“']([^\"”']{2,60})[\"”']", text):
            hold["title"] = m[1].title()
        for branch in BRANCHES:
            if branch.lower() in low:
                hold["branch"] = branch
        wants_day = self.asked == "day" or ("title" in hold and "branch" in hold)
        if wants_day and (error := self.take_day(text)):
            return error
        if self.asked == "member":
            digits = re.sub(r"\D", "", text)
            if len(digits) != 6:
                return self.reask(
                    "Hmm, member numbers have six digits, like 204518. Could you check the back of your card?"
                )
            self.member = digits
        if self.asked and self.asked not in hold and not (self.asked == "member" and self.member):
            return self.reask(f"Sorry, I didn't get that. {self.question()}")
        return self.question()

    def take_day(self, text: str) -> str | None:
        day = read_day(text)
        if day is None:
            return None
        if day < TODAY:
            return self.reask("That day has already passed. When would you like to collect it?")
        if day.weekday() == 6 and "sunday_accepted" not in self.bugs:
            return self.reask("We're closed on Sundays, I'm afraid. Which other day works for you?")
        if day < READY:
            return self.reask(
                f"It can't reach the branch before {say_day(READY)}. Which day from then on?"
            )
        self.hold["day"] = day
        return None

    def reask(self, message: str) -> str:
        self.reasked = True
        return message

    def question(self) -> str:
        for slot, question in (
            ("title", "Sure! What's the title of the book you'd like to reserve?"),
            (
                "branch",
                f"Lovely choice. Which branch should we send it to?\n{BRANCH_LIST.split(':', 1)[1].strip()}",
            ),
            (
                "day",
                f"And when would you like to collect it? It can be ready from {say_day(READY)}.",
            ),
        ):
            if slot not in self.hold:
                self.asked = slot
                return question
        if self.member is None:
            self.asked = "member"
            return "Last thing: your member number, please (six digits, on the back of your card)."
        return self.confirm()

    def confirm(self) -> str:
        hold, member = self.hold, self.member
        self.task, self.hold, self.asked = None, {}, None
        day = hold["day"]
        assert isinstance(day, dt.date)
        if "wrong_day" in self.bugs:
            day += dt.timedelta(days=1)
        branch = "Maple Street" if "lost_branch" in self.bugs and self.reasked else hold["branch"]
        return (
            f'All done! "{hold["title"]}" will be waiting for you at the {branch} branch from '
            f"{say_day(day)}, and we'll keep it for seven days. Member {member}, your hold "
            f"reference is HLD-{next(_holds)}. Anything else I can do for you today?"
        )

    def renew(self, text: str) -> str:
        low = text.lower()
        if self.asked == "member":
            digits = re.sub(r"\D", "", text)
            if len(digits) != 6:
                return "Member numbers have six digits, like 204518. Could you check your card?"
            self.member, self.asked = digits, "which"
            listing = "\n".join(
                f"{i}. {title} (due {say_day(due)})" for i, (title, due) in enumerate(LOANS, 1)
            )
            return f"You have two books on loan:\n{listing}\nWhich one shall I renew, or both?"
        chosen = [
            (title, due)
            for i, (title, due) in enumerate(LOANS, 1)
            if title.lower() in low
            or re.search(rf"\b({i}|{['first', 'second'][i - 1]})\b", low)
            or re.search(r"\b(both|all|each)\b", low)
        ]
        if not chosen:
            return "Sorry, which one? Say 1, 2 or both."
        self.task, self.asked = None, None
        done = " ".join(
            f"{title} is now due back on {say_day(due + dt.timedelta(days=14))}."
            for title, due in chosen
        )
        return f"Renewed! {done} Is there anything else you need?"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8825)
