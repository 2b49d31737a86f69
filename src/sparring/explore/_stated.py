"""Values in the chatbot's own words: a date its confirmation stated, offered back to it.

The offline crawler answers a question for a date with words from a small lexicon
("tomorrow", "next Monday", "December 12th") and keeps those the bot took
(``Parameter.examples``). A bot that takes "tomorrow" but loops on a date written out
passes every profile built from those alone. So each date parameter also gets the date a
confirmation of the exploration stated, written as the bot wrote it ("2 March 2027" of
"Tuesday, 2 March 2027"), or, when the bot's question names a format ("DD/MM/YYYY"), in
that format: a value the bot has shown it can take, in words it used or asked for. Its
refusal is the bot's fault, not the profile's (``Parameter.stated``, read by check's
``task_steps_missing``). Only where the flow asks for one date and the confirmation states
one: with two (a pick-up and a return date) nothing says which slot the stated date filled,
and the pick-up date given as the return date is rightly refused.

Source: the paraphrase (rephrasing) perturbations of Liu et al., "Testing the Robustness of
Task-Oriented Dialogue Systems" (2021, §3), restricted to phrasings the system produced
itself so that a refusal is evidence, not noise.
"""

from __future__ import annotations

import re
from datetime import date

from sparring.confirmation import is_confirmation
from sparring.dialogue_acts import classify_dialogue_act
from sparring.explore._crawl import Crawl
from sparring.explore._model import Functionality
from sparring.explore._options import FORMAT_MASK
from sparring.values import find_values, format_value

_DIGIT = re.compile(r"\d")
_YEAR = re.compile(r"\b\d{4}\b")
_WEEKDAY = re.compile(r"^[a-z]+day\b,?\s*", re.I)
"""A weekday before the date ("Tuesday, 2 March 2027"): the date is the rest, and a bot
may read the weekday alone ("next Tuesday") where it cannot read the date."""


def add_stated_dates(crawl: Crawl, nodes: list[Functionality]) -> None:
    """Give the date parameter of ``nodes`` (the one whose accepted answers include a date;
    nothing when there are several) the first date a confirmation of the crawl stated, in
    the bot's words or in the format its question asked for, in ``stated`` and at the end
    of ``examples`` (when not there yet, case-insensitive) and of the ``leads`` that hold
    a date the bot took (it leads where they led). No confirmation stating a date: nothing
    changes."""
    today = date.today()
    dated = [
        p
        for node in nodes
        for p in node.parameters
        if any(find_values("date", e, today) for e in p.examples)
    ]
    stated = _confirmed_dates(crawl)
    if not stated or len(dated) != 1:
        return
    written, day = stated[0]
    for parameter in dated:
        mask = _format_asked(parameter.question)
        if mask and not _YEAR.search(written):
            continue  # "2 March" in another format needs the year the bot meant
        value = str(format_value("date", day, mask)) if mask else written
        if value.lower() not in {e.lower() for e in parameter.examples}:
            parameter.examples.append(value)
            for led in parameter.leads.values():  # where the dates it took led
                if any(find_values("date", e, today) for e in led):
                    led.append(value)
        parameter.stated.append(value)


def _confirmed_dates(crawl: Crawl) -> list[tuple[str, date]]:
    """The date stated by each of the crawl's confirmations that states one (not the
    fallback), as written and as a date, in the order the states were found. Only dates
    written with a number ("2 March 2027", "2027-03-02"), without the weekday before them:
    "today" is the bot's today, which this machine's clock need not share."""
    found: list[tuple[str, date]] = []
    for state in crawl.states.values():
        if state.fallback or not is_confirmation(state.text, classify_dialogue_act(state.text)):
            continue
        dates = find_values("date", state.text, date.today())
        written = [c for c in dates if _DIGIT.search(c.text) and isinstance(c.value, date)]
        if len({c.value for c in dates}) == 1 and written:
            found.append((_WEEKDAY.sub("", written[0].text.strip()), written[0].value))
    return found


def _format_asked(question: str | None) -> str | None:
    """The date format a question names ("… (DD/MM/YYYY, or 'today')" → ``DD/MM/YYYY``)."""
    for word in (question or "").replace("(", " ").replace(")", " ").replace(",", " ").split():
        if FORMAT_MASK.fullmatch(word) and any(c in word.lower() for c in "dmy"):
            return word.strip(".;:")
    return None
