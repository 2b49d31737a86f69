# ruff: noqa: E501  (the domains are data tables: one answer per line reads best)
"""Free-text slot-filling task bots of two domains, correct and with seeded faults, for the
typed breakdown detectors' labelled set (``make_task_items.py``).

``SlotBot`` is a small booking assistant written as a chatbot developer would: slots asked
one by one (a free-text value, or one of a few options), a handful of questions it
answers, a fallback, a confirmation. ``DOMAINS`` holds two: a restaurant's table
bookings and a dental clinic's appointments. A bot built with ``faults`` misbehaves
where each fault says, and tells which fault fired on each reply — the label by
construction, never read from a detector:

- ``template``: the confirmation shows ``None`` for the name;
- ``reask``: after the user gives the second slot, the bot asks for it again once;
- ``language``: the answers to questions come in Spanish;
- ``error``: the answer about prices is an internal error message;
- ``repeat``: the second question the user asks gets the answer to the first again;
- ``fallback``: a common in-domain word (``FALLBACK_WORD`` of the domain) is not understood;
- ``ignore``: a question asked while a slot is being filled is ignored (the slot is asked
  again without an answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FAULTS = ("template", "reask", "language", "error", "repeat", "fallback", "ignore")
WHY = {
    "template": "seeded fault: the confirmation shows None for the name (unfilled slot)",
    "reask": "seeded fault: asks again for the value the user just gave",
    "language": "seeded fault: answers in Spanish to an English-speaking user",
    "error": "seeded fault: the answer is an internal error message",
    "repeat": "seeded fault: repeats its previous answer to a new question",
    "fallback": "seeded fault: does not understand an in-domain word",
    "ignore": "seeded fault: ignores the user's question and asks for the slot again",
}


@dataclass(frozen=True)
class Slot:
    """A slot: its ``name``, the ``question`` asking for it, and either ``options`` or a
    ``pattern`` (regular expression) that finds its value in the user's words."""

    name: str
    question: str
    options: tuple[str, ...] = ()
    pattern: str = ""

    def find(self, text: str) -> str | None:
        low = text.lower()
        for option in self.options:
            if re.search(rf"\b{re.escape(option)}\b", low):
                return option
        if self.pattern:
            match = re.search(self.pattern, text, re.IGNORECASE)
            if match:
                return match.group(1).strip()
        return None


@dataclass(frozen=True)
class Domain:
    """A bot's domain: its ``name``, ``description``, ``fallback``, the words that start a
    booking (``start``), its ``slots``, the questions it answers (``answers``: keyword
    pattern → answer; ``spanish`` the same in Spanish), the ``confirmation`` template and
    the in-domain word the ``fallback`` fault does not understand."""

    name: str
    description: str
    fallback: str
    start: str
    slots: tuple[Slot, ...]
    answers: dict[str, str]
    spanish: dict[str, str]
    confirmation: str
    fallback_word: str


NAME = Slot(
    "name",
    "What name should I put the booking under?",
    pattern=r"^(?:my name is |it's |i'm |name is )?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\.?$",
)
MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
DATE = (
    r"\b((?:today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    rf"\d{{1,2}}(?:st|nd|rd|th)? of {MONTH}|{MONTH} \d{{1,2}}(?:st|nd|rd|th)?|"
    r"\d{1,2}/\d{1,2}(?:/\d{2,4})?)\b"
)

DOMAINS: dict[str, Domain] = {
    "restaurant": Domain(
        name="Trattoria Roma",
        description="Books tables at Trattoria Roma, an Italian restaurant, and answers "
        "questions about its menu, prices, opening hours and location.",
        fallback="Sorry, I didn't understand. I can book a table or tell you about our "
        "menu, prices, hours and address.",
        start=r"\b(book|table|reserv\w*|dinner|lunch)\b",
        slots=(
            Slot(
                "people",
                "How many people will be dining?",
                pattern=r"\b(\d{1,2}|two|three|four|five|six)\b(?: people| persons| of us| guests)?",
            ),
            Slot("date", "What day would you like to come?", pattern=DATE),
            Slot("time", "At what time: 7 pm, 8 pm or 9 pm?", options=("7 pm", "8 pm", "9 pm")),
            NAME,
        ),
        answers={
            r"\b(menu|dishes|food|vegetarian|vegan)\b": "Our menu has fresh pasta, wood-fired pizza and risotto; most dishes have a vegetarian version.",
            r"\b(price|cost|how much|expensive)\b": "Main courses cost between $14 and $26; pizzas are $12 to $18.",
            r"\b(open|hours|close|closing)\b": "We are open every day from 12 pm to 11 pm.",
            r"\b(where|address|located|location)\b": "We are at 12 Via Appia Street, next to the central station.",
            r"\b(parking|park)\b": "There is a public car park 100 metres from the restaurant.",
        },
        spanish={
            r"\b(menu|dishes|food|vegetarian|vegan)\b": "Nuestro menú tiene pasta fresca, pizza al horno de leña y risotto; casi todos los platos tienen versión vegetariana.",
            r"\b(price|cost|how much|expensive)\b": "Los platos principales cuestan entre 14 y 26 dólares; las pizzas de 12 a 18.",
            r"\b(open|hours|close|closing)\b": "Abrimos todos los días de las doce del mediodía a las once de la noche.",
            r"\b(where|address|located|location)\b": "Estamos en la calle Via Appia 12, al lado de la estación central.",
            r"\b(parking|park)\b": "Hay un aparcamiento público a cien metros del restaurante.",
        },
        confirmation="Your table for {people} on {date} at {time} is booked under the name {name}. See you soon!",
        fallback_word="reservation",
    ),
    "dentist": Domain(
        name="Bright Smile Dental",
        description="Makes appointments at Bright Smile Dental clinic (check-up, cleaning, "
        "filling) and answers questions about treatments, prices, insurance and opening hours.",
        fallback="I'm sorry, I didn't get that. I can make an appointment or answer "
        "questions about treatments, prices, insurance and opening hours.",
        start=r"\b(appointment|book|schedule|see a dentist|visit)\b",
        slots=(
            Slot(
                "treatment",
                "Which treatment do you need: check-up, cleaning or filling?",
                options=("check-up", "cleaning", "filling"),
            ),
            Slot("date", "Which day suits you?", pattern=DATE),
            Slot("time", "Do you prefer morning or afternoon?", options=("morning", "afternoon")),
            NAME,
        ),
        answers={
            r"\b(price|cost|how much|fee)\b": "A check-up costs $60, a cleaning $90 and a filling from $120.",
            r"\b(insurance|insured|cover)\b": "We accept most dental insurance plans; bring your card to the appointment.",
            r"\b(open|hours|close|closing)\b": "The clinic is open Monday to Friday, 8 am to 6 pm.",
            r"\b(hurt|pain|painful|anaesthe\w*)\b": "Fillings are done under local anaesthetic, so they do not hurt.",
            r"\b(where|address|located)\b": "We are at 45 Oak Avenue, second floor.",
        },
        spanish={
            r"\b(price|cost|how much|fee)\b": "Una revisión cuesta 60 dólares, una limpieza 90 y un empaste desde 120.",
            r"\b(insurance|insured|cover)\b": "Aceptamos la mayoría de los seguros dentales; traiga su tarjeta a la cita.",
            r"\b(open|hours|close|closing)\b": "La clínica abre de lunes a viernes, de ocho de la mañana a seis de la tarde.",
            r"\b(hurt|pain|painful|anaesthe\w*)\b": "Los empastes se hacen con anestesia local, así que no duelen.",
            r"\b(where|address|located)\b": "Estamos en la avenida Oak 45, segundo piso.",
        },
        confirmation="Your {treatment} is booked for {date} in the {time}, under the name {name}. See you then!",
        fallback_word="appointment",
    ),
}


@dataclass
class SlotBot:
    """One conversation's bot of ``domain`` with the seeded ``faults`` (none: correct).
    ``respond(text) -> (reply, fault)``: ``fault`` names the seeded fault that shaped
    this reply, ``None`` when none did."""

    domain: Domain
    faults: frozenset[str] = frozenset()
    values: dict[str, str] = field(default_factory=dict)
    booking: bool = False
    asked: Slot | None = None
    reasked: bool = False
    answered: list[str] = field(default_factory=list)

    def respond(self, text: str) -> tuple[str, str | None]:
        low = text.lower()
        if re.search(r"\b(bye|goodbye|that's all|thanks, bye)\b", low):
            return "Goodbye, thank you for contacting us!", None
        if "fallback" in self.faults and self.domain.fallback_word in low:
            return self.domain.fallback, "fallback"
        answer = self._answer(text)
        if answer is not None:
            return answer
        if not self.booking and re.search(self.domain.start, low):
            self.booking = True
        if not self.booking:
            if re.match(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", low):
                return f"Hello! Welcome to {self.domain.name}. How can I help you?", None
            return self.domain.fallback, None
        return self._fill(text)

    def _answer(self, text: str) -> tuple[str, str | None] | None:
        """An answer to a question the bot knows (with the faults that touch answers)."""
        for pattern, answer in self.domain.answers.items():
            if not re.search(pattern, text.lower()):
                continue
            if "ignore" in self.faults and self.asked is not None:
                return self.asked.question, "ignore"
            self.answered.append(answer)
            if "repeat" in self.faults and len(self.answered) == 2:
                return self.answered[0], "repeat"
            if "error" in self.faults and "$" in answer:
                return "Internal Server Error: KeyError 'price_table'", "error"
            if "language" in self.faults:
                return self.domain.spanish[pattern], "language"
            suffix = f" {self.asked.question}" if self.asked is not None else ""
            return answer + suffix, None
        return None

    def _fill(self, text: str) -> tuple[str, str | None]:
        got = False
        for slot in self.domain.slots:
            if slot.name in self.values:
                continue
            if slot is NAME and self.asked is not NAME:
                continue
            value = slot.find(text)
            if value is not None:
                self.values[slot.name] = value
                got = True
        missing = [s for s in self.domain.slots if s.name not in self.values]
        second = self.domain.slots[1].name
        reask = got and "reask" in self.faults and second in self.values and not self.reasked
        if reask and self.asked is not None and self.asked.name == second:
            self.reasked = True
            return self.asked.question, "reask"
        if not missing:
            return self._confirm()
        if not got and self.asked is not None:
            return f"Sorry, I didn't catch that. {self.asked.question}", None
        self.asked = missing[0]
        return missing[0].question, None

    def _confirm(self) -> tuple[str, str | None]:
        values = dict(self.values)
        fault = None
        if "template" in self.faults:
            values["name"] = "None"
            fault = "template"
        self.values.clear()
        self.booking, self.asked = False, None
        return self.domain.confirmation.format(**values) + " Anything else?", fault


Step = tuple[str, str]
"""What the user says, and ``in`` when a correct bot of the domain should handle it (its
fallback there is a breakdown) or ``out`` when not (a fallback is the right reply)."""

SCRIPTS: dict[str, dict[str, list[Step]]] = {
    "restaurant": {
        "happy": [("Hi", "in"), ("I'd like to book a table", "in"), ("4 people", "in"),
                  ("Friday", "in"), ("8 pm", "in"), ("Marco Rossi", "in"), ("bye", "in")],
        "questions": [("What's on the menu?", "in"), ("How much does it cost?", "in"),
                      ("Where are you located?", "in"), ("When do you close?", "in"),
                      ("Is there parking?", "in"), ("bye", "in")],
        "question-mid-booking": [("Book a table for two people", "in"),
                                 ("Is there parking nearby?", "in"), ("tomorrow", "in"),
                                 ("How expensive is it?", "in"), ("9 pm", "in"), ("Anna", "in")],
        "stray": [("Hello", "in"), ("Can you recommend a movie?", "out"),
                  ("What's the weather like?", "out"), ("ok, a table for 3 people then", "in"),
                  ("Saturday", "in"), ("asdf", "out"), ("7 pm", "in"), ("Luca", "in")],
        "all-at-once": [("I want a table for 6 people on Sunday at 8 pm", "in"),
                        ("Giulia Bianchi", "in"), ("Do you have vegan dishes?", "in"),
                        ("What are your opening hours?", "in"), ("bye", "in")],
        "reservation-word": [("Hi there", "in"), ("I'd like to make a reservation", "in"),
                             ("five people", "in"), ("monday", "in"), ("8 pm", "in"),
                             ("Paolo", "in"), ("Where are you?", "in")],
        "terse": [("table", "in"), ("2", "in"), ("tomorrow", "in"), ("7 pm", "in"),
                  ("Sara", "in"), ("hours?", "in"), ("price?", "in"), ("menu?", "in")],
    },
    "dentist": {
        "happy": [("Hello", "in"), ("I need an appointment", "in"), ("a cleaning", "in"),
                  ("Tuesday", "in"), ("morning", "in"), ("John Smith", "in"), ("bye", "in")],
        "questions": [("How much is a check-up?", "in"), ("Do you take insurance?", "in"),
                      ("What are your opening hours?", "in"), ("Does a filling hurt?", "in"),
                      ("Where is the clinic?", "in"), ("goodbye", "in")],
        "question-mid-booking": [("I want to book a filling", "in"),
                                 ("How much does it cost?", "in"), ("Thursday", "in"),
                                 ("Will it hurt?", "in"), ("afternoon", "in"), ("Maria", "in")],
        "stray": [("Hi", "in"), ("Can you fix my car?", "out"), ("Tell me a joke", "out"),
                  ("OK, I'd like to book a check-up", "in"), ("qwerty", "out"),
                  ("next friday", "in"), ("morning", "in"), ("Peter", "in")],
        "all-at-once": [("Book a check-up on Monday afternoon please", "in"),
                        ("Laura Green", "in"), ("Is my insurance accepted?", "in"),
                        ("When do you close?", "in"), ("bye", "in")],
        "appointment-word": [("Good morning", "in"), ("Can I get an appointment?", "in"),
                             ("filling", "in"), ("tomorrow", "in"), ("afternoon", "in"),
                             ("Tom", "in"), ("What does a cleaning cost?", "in")],
        "terse": [("appointment", "in"), ("cleaning", "in"), ("monday", "in"),
                  ("morning", "in"), ("Eva", "in"), ("price?", "in"), ("hours?", "in"),
                  ("insurance?", "in")],
    },
}  # fmt: skip
"""The user scripts of each domain (played against the correct bot and every faulty one)."""
