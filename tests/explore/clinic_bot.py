"""A free-text clinic written like the third-party veterinary bot: its booking question asks
for the date, the time and the service at once and lists the services — one of which
("Prices") is no service but another request that leaves the form — then its form asks for
whatever the answer lacked. Tests import it by path (the python connector's ``target``)."""

from __future__ import annotations

import re

_DAY = re.compile(r"\b(monday|tuesday|friday|tomorrow)\b", re.I)
_TIME = re.compile(r"\b(\d{1,2}(?::\d\d)?\s*[ap]m|\d{1,2}:\d\d|noon)\b", re.I)
_SERVICE = re.compile(r"\b(vaccination|check-up)\b", re.I)
HOURS = "We're open from 9 AM to 6 PM every weekday."
PRICES = "A visit costs between $50 and $60."
ASK_ALL = (
    "Of course. Could you give me the date, the time and the service you need? "
    "The services we offer are Prices, Vaccination and Check-up."
)


class Clinic:
    def __init__(self) -> None:
        self.slots: dict[str, str] = {}
        self.booking = False

    def greeting(self) -> dict[str, object]:
        return {"messages": ["Welcome to the clinic. What can I do for you?"]}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if re.search(r"\b(?:price|prices|cost)\b", said):
            self.booking = False
            return {"messages": [PRICES]}
        if re.search(r"\b(?:open|hours)\b", said):
            return {"messages": [HOURS]}
        if re.search(r"\b(?:appointment|book)\b", said):
            self.booking, self.slots = True, {}
            if not (_DAY.search(said) or _TIME.search(said) or _SERVICE.search(said)):
                return {"messages": [ASK_ALL]}
        if not self.booking:
            return {"messages": ["Sorry, I did not understand that."]}
        for name, pattern in (("date", _DAY), ("time", _TIME), ("service", _SERVICE)):
            found = pattern.search(text)
            if found:
                self.slots[name] = found.group(1)
        for name, question in (
            ("date", "What day do you want the appointment?"),
            ("time", "What time?"),
            ("service", "What service do you need? (Vaccination, Check-up)"),
        ):
            if name not in self.slots:
                return {"messages": [question]}
        self.booking = False
        s = self.slots
        return {"messages": [f"Booked: {s['service']} on {s['date']} at {s['time']}. See you!"]}
