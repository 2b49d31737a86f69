"""Northbank's online assistant: card and branch FAQ plus money transfers (standard library only).

Answers questions about lost or stolen cards, branch opening hours, transfer fees, the
savings rate and card limits, and sends a transfer (amount, recipient, account number,
execution day) after the customer says yes to a summary.

    python bankbot.py --port 8822                      # correct
    python bankbot.py --port 8822 --bug repeated_ref   # one seeded bug (repeat --bug)
    python bankbot.py --port 8822 --buggy              # every seeded bug

Seeded bugs (``BUGS``): ``repeated_ref`` every transfer gets the reference NB-TRX-100000;
``wrong_faq`` a question about branch opening hours is answered with the card-blocking
text; ``template_leak`` the final message shows its template (``{amount}``, ``{recipient}``).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import sys
from pathlib import Path

BUGS = {
    "repeated_ref": "every transfer gets the same reference",
    "wrong_faq": "the branch opening hours question is answered with the card-blocking text",
    "template_leak": "the transfer's final message shows its unfilled template",
}
TODAY = dt.date(2027, 3, 1)
LIMIT = 5000.0
FAQ = {
    "card": (
        "If your card is lost or stolen, freeze it straight away in the app under Cards > "
        "Freeze card, or call us 24/7 on 0800 123 456. A replacement arrives in 3 to 5 working days."
    ),
    "hours": (
        "Our branches are open Monday to Friday, 9:00–16:30. The Main Square branch also opens "
        "on Saturdays, 10:00–13:00."
    ),
    "fees": (
        "Transfers within the euro area are free. International transfers cost €5 each, "
        "and express transfers €2.50 extra."
    ),
    "savings": "The Northbank Saver account currently pays 2.1% interest a year, paid monthly.",
    "limit": f"You can send up to €{LIMIT:,.0f} a day online; for more, visit a branch.",
}
FAQ_PATTERNS = {
    "card": r"\b(lost|stolen|block|freeze|card)\b",
    "hours": r"\b(open|opening|hours|branch|branches|closed)\b",
    "fees": r"\b(fee|fees|charge|charges|cost)\b",
    "savings": r"\b(interest|savings?|saver|rate)\b",
    "limit": r"\b(limit|maximum|max)\b",
}
FALLBACK = "Sorry, I can't help with that here. I can answer questions about cards, branches, fees and savings, or make a transfer."
_refs = itertools.count(100_000, 37)


def find_amount(text: str, asked: bool) -> float | None:
    """An amount in euros: "€1,200.50", "250 euros", "EUR 80"; a bare number only when asked."""
    low = text.lower()
    number = r"(-?\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|-?\d+(?:\.\d{1,2})?)"
    m = re.search(rf"(?:€|eur)\s*{number}", low) or re.search(
        rf"{number}\s*(?:€|eur\b|euros?\b)", low
    )
    if m is None and asked:
        m = re.fullmatch(rf"\D*{number}\D*", low)
    return float(m[1].replace(",", "")) if m else None


def find_account(text: str) -> str | None:
    m = re.search(r"\b(\d{4})[ -]?(\d{4})\b", text)
    return m[1] + m[2] if m else None


def find_day(text: str) -> dt.date | None:
    low = text.lower()
    if re.search(r"\b(today|now|right away|asap|immediately)\b", low):
        return TODAY
    if "tomorrow" in low:
        return TODAY + dt.timedelta(days=1)
    if m := re.search(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\b", low):
        try:
            return dt.date(int(m[3]), int(m[2]), int(m[1]))
        except ValueError:
            return None
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", low):
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    return None


def find_recipient(text: str, asked: bool) -> str | None:
    m = re.search(
        r"\b(?i:to|recipient is|pay|send it to)\s+([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)+)", text
    )
    if m:
        return m[1]
    if asked:
        words = (
            re.sub(r"(?i)^(it's|it is|to|the recipient is)\s+", "", text.strip())
            .strip(" .!")
            .split()
        )
        if 1 <= len(words) <= 4 and all(re.fullmatch(r"[A-Za-z][A-Za-z'-]*", w) for w in words):
            return " ".join(w.capitalize() for w in words)
    return None


class Conversation:
    """Northbank's assistant, one conversation."""

    def __init__(self, bugs: frozenset[str] | list[str] = frozenset()) -> None:
        self.bugs = frozenset(bugs)
        self.transfer: dict[str, object] | None = None
        self.asked: str | None = None

    def respond(self, text: str) -> str:
        low = text.lower().strip()
        if re.search(r"\b(bye|goodbye|that's all|that is all|nothing else|no,? thanks?)\b", low):
            self.transfer, self.asked = None, None
            return "Thanks for banking with Northbank. Goodbye!"
        if self.asked == "confirm":
            return self.confirmed(low)
        if self.transfer is None:
            if re.search(r"\b(transfer|send money|send|pay|payment)\b", low) and not re.search(
                r"\b(fee|fees|cost|charge|limit)\b", low
            ):
                self.transfer = {}
                return self.fill(text)
            if answer := self.faq(low):
                return answer
            if re.search(r"\b(help|what can you do)\b", low):
                return "I can help with lost or stolen cards, branch opening hours, fees, savings rates, and I can make a transfer for you."
            if re.search(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                return "Hi, I'm Northbank's assistant. What can I do for you?"
            return FALLBACK
        return self.fill(text)

    def faq(self, low: str) -> str | None:
        for topic, pattern in FAQ_PATTERNS.items():
            if re.search(pattern, low):
                if topic == "hours" and "wrong_faq" in self.bugs:
                    return FAQ["card"]
                return FAQ[topic]
        return None

    def fill(self, text: str) -> str:
        transfer = self.transfer
        assert transfer is not None
        before = dict(transfer)
        if "amount" not in transfer:
            amount = find_amount(text, asked=self.asked == "amount")
            if amount is not None:
                if amount <= 0:
                    return "The amount has to be more than zero. How much would you like to send?"
                if amount > LIMIT:
                    return f"Online transfers are limited to €{LIMIT:,.0f} a day. How much would you like to send?"
                transfer["amount"] = amount
        if account := find_account(text):
            transfer["account"] = account
        if day := find_day(text):
            if day < TODAY:
                return "That date is in the past. When should the transfer go out?"
            transfer["day"] = day
        if (
            recipient := find_recipient(text, asked=self.asked == "recipient")
        ) and "recipient" not in transfer:
            transfer["recipient"] = recipient
        if transfer == before and self.asked is not None:
            if answer := self.faq(text.lower()):
                return answer + " Now, back to your transfer: " + self.ask_next()
            return "Sorry, I didn't catch that. " + self.ask_next()
        return self.ask_next()

    def ask_next(self) -> str:
        transfer = self.transfer or {}
        for slot, question in (
            ("amount", "How much would you like to send?"),
            ("recipient", "Who is the money for? Please give the recipient's full name."),
            ("account", "What's the recipient's 8-digit account number?"),
            ("day", "When should it go out: today, tomorrow, or on a date (DD/MM/YYYY)?"),
        ):
            if slot not in transfer:
                self.asked = slot
                return question
        self.asked = "confirm"
        day = transfer["day"]
        assert isinstance(day, dt.date) and isinstance(transfer["amount"], float)
        when = "today" if day == TODAY else day.strftime("on %d %b %Y")
        return (
            f"Please check: €{transfer['amount']:,.2f} to {transfer['recipient']}, account "
            f"ending {str(transfer['account'])[-4:]}, {when}. Shall I send it? (yes/no)"
        )

    def confirmed(self, low: str) -> str:
        transfer, self.transfer = self.transfer or {}, None
        self.asked = None
        if re.search(r"\b(no|cancel|stop|don't)\b", low):
            return "No problem, the transfer has been cancelled. Anything else?"
        if not re.search(r"\b(yes|yep|sure|ok|okay|go ahead|confirm|correct|send it)\b", low):
            self.transfer, self.asked = transfer, "confirm"
            return "Please answer yes to send the transfer or no to cancel it."
        ref = 100_000 if "repeated_ref" in self.bugs else next(_refs)
        amount = f"€{transfer['amount']:,.2f}"
        message = "Done! {amount} is on its way to {recipient}. Reference: NB-TRX-{ref}."
        if "template_leak" not in self.bugs:
            message = message.format(amount=amount, recipient=transfer["recipient"], ref=ref)
        else:
            message = message.replace("{ref}", str(ref))
        return message + " Can I help you with something else today?"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _server import main

    main(Conversation, BUGS, default_port=8822)
