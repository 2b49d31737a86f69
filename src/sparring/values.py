"""Typed values in chatbot text: the parsers behind output data extraction.

``find_values(kind, text, reference)`` finds every value of an output kind (a profile
output type's, ``sparring.profiles.value_kind``: ``int``, ``float``, ``money``, ``bool``,
``time``, ``date``, ``email``, ``phone``) in a text, with its offset; ``format_value``
gives the form stored on the conversation record:

- ``money``: the string ``"<amount with 2 decimals> <ISO 4217 code>"`` (``"11.50 USD"``;
  ``$`` is read as USD), or the amount alone when the currency is unknown. Rules read it
  with ``extract_float``/``currency``; ``parse_money`` gives the ``Money`` behind it.
- ``time``: ``HH:MM:SS`` like SENSEI, or the output's format (strftime, ``%H:%M``, or in
  words, ``hh:mm``); a duration such as "15 minutes" becomes ``00:15:00``. ``date``: ISO
  ``YYYY-MM-DD`` (what ``str(date)`` gives in SENSEI rules) or the output's format
  (``%d/%m/%Y`` or ``dd/mm/yyyy``); "today"/"tomorrow"/weekdays are resolved
  against ``reference``; numeric dates are read month first unless that is impossible
  (dateutil's rule: ``6/11/2024`` is June 11, ``25/12/2024`` December 25).
- ``int``/``float``/``bool``: Python values; ``email``/``phone``: the text as written;
  ``address``: a street address as written ("23 Main Street, NY"); ``id``: an identifier
  as written — a code of letters and digits with a capital (``PZ-4821``, ``A1B2``), a
  number marked ``#88`` or named by an identifier's label ("order number 1234").
  ``identifier_after`` reads the code a label names ("Ticket number RG4102" → RG4102),
  where any token with a digit is one. The one reading of identifiers: extraction reads
  them after their label, the metamorphic relations mask them (a new order, a new number).

``item_values`` reads a list of items with one value each ("A single room costs $80 per
night, a double room $120 and a suite $250"): each item's words with its value, so a
caller can take the value of the item it asked about rather than the first one.
``same_value`` compares two values of one kind as values ("5:00 PM" equals "17:00",
"29-11-2026" equals "November 29th, 2026", "$80" equals "80.00 USD"), and text by its
surface form ("check-up" equals "checkup", "Check up" and "check-ups"; "two rooms" equals
"2 rooms"); ``states_value`` says whether a text states a value in any of those forms.
Both take the chatbot's ``Synonyms`` where it has them: words it takes for one value (a
Rasa project's entity synonyms, "check-up" for "Physical examination"), so a value stated
in the chatbot's own word is the user's value.

Every pattern here is a regular expression without nested quantifiers over the same
characters: matching is linear in the text's length (no catastrophic backtracking).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from dateutil import parser as date_parser
from price_parser import Price

__all__ = [
    "DATE_STOP",
    "Candidate",
    "Money",
    "Synonyms",
    "agree",
    "find_values",
    "format_value",
    "identifier_after",
    "item_values",
    "parse_money",
    "readings",
    "readings_of",
    "same_value",
    "states_value",
]


@dataclass(frozen=True)
class Money:
    """An amount of money; ``currency`` is an ISO 4217 code (``None`` when not stated)."""

    amount: float
    currency: str | None = None

    def __str__(self) -> str:
        return f"{self.amount:.2f} {self.currency}" if self.currency else f"{self.amount:.2f}"


@dataclass(frozen=True)
class Candidate:
    """A value found in a text; ``start`` is its character offset, ``text`` the words that
    gave it as written (dates; empty for the other kinds)."""

    start: int
    value: Any
    text: str = ""


_NUM = r"\d{1,3}(?:[.,]\d{3}){1,8}(?:[.,]\d{1,2})?|\d{1,24}(?:[.,]\d{1,12})?"
"""A number as written (``1,250.50``, ``12.5``, ``3``); at most 24 digits before the decimal
mark, so a run of thousands of digits in a reply is no value (and costs linear time to
pass over, not the quadratic time of parsing each of its tails)."""
_SYM = r"US\$|C\$|A\$|R\$|[$€£¥₹]"
_CODES = r"USD|EUR|GBP|JPY|INR|CHF|CAD|AUD|MXN|BRL|CNY"
_MONEY = re.compile(
    rf"(?:{_SYM}|\b(?:{_CODES})\b)\s?(?:{_NUM})"
    rf"|(?<![\w.])(?:{_NUM})\s?(?:{_SYM}|(?:{_CODES}|(?i:dollars?|euros?|pounds?|yen|rupees?))\b)"
)
_ISO = {"$": "USD", "us$": "USD", "dollar": "USD", "dollars": "USD", "€": "EUR", "euro": "EUR"}
_ISO |= {"euros": "EUR", "£": "GBP", "pound": "GBP", "pounds": "GBP", "¥": "JPY", "yen": "JPY"}
_ISO |= {"₹": "INR", "rupee": "INR", "rupees": "INR", "c$": "CAD", "a$": "AUD", "r$": "BRL"}
_WORD_NUMBERS = {
    w: n
    for n, w in enumerate(
        re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve")
    )
} | {"a": 1, "an": 1, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "half an": 0.5}
_NUMBER = re.compile(
    rf"(?<![\w.,])[-+]?(?:{_NUM})(?!\w|[.,]\d)|\b(?:{'|'.join(list(_WORD_NUMBERS)[:13])})\b", re.I
)
_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_SPOKEN_HOUR = rf"(?:{_HOUR_WORDS}|1[0-2]|0?[1-9])"
_CLOCK = re.compile(
    r"(?<![\w:])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>[ap])\.?\s?m\b\.?"
    r"|(?<![\w:])(?P<h2>\d{1,2}):(?P<m2>\d{2})(?::(?P<s2>\d{2}))?(?![\d:])"
    r"|\b(?P<noon>noon|midday|midnight)\b"
    rf"|\b(?:(?P<part>half|quarter)\s+past|(?P<to>quarter)\s+to)\s+(?P<sh>{_SPOKEN_HOUR})\b"
    rf"(?:\s*o'?clock\b)?|\b(?P<oh>{_SPOKEN_HOUR})\s*o'?clock\b",
    re.I,
)
"""A time of day: "4 pm", "4:30 PM", "16:30", noon; spoken, "half past four", "quarter to
five", "three o'clock" (hours 1–12, morning or afternoon: ``readings_of`` reads both)."""
_SPOKEN_PART = re.compile(
    r"\s*(?:(?P<ap>[ap])\.?\s?m\b|in the (?P<pm>afternoon|evening)|(?P<night>at night)"
    r"|in the (?P<am>morning))",
    re.I,
)
"""What a spoken time may say of its half of the day, right after it."""
_UNITS = {"h": 3600, "ho": 3600, "hr": 3600, "m": 60, "mi": 60, "s": 1, "se": 1}
_DURATION = re.compile(
    r"(?:\b|(?<=\d))(?P<n>\d{1,9}(?:[.,]\d{1,9})?|"
    rf"{'|'.join(sorted(_WORD_NUMBERS, key=len)[::-1])})"
    r"\s*(?P<u>hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
    r"(?:\s*(?:and\s*)?(?P<n2>\d{1,9})\s*(?P<u2>minutes?|mins?|seconds?|secs?)\b)?",
    re.I,
)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|(?<![\d/.-])\d{1,2}(?P<sep>[/.-])\d{1,2}(?P=sep)\d{2,4}(?![\d/.-])"
    rf"|\b(?:(?:{'|'.join(_WEEKDAYS)}),?\s+)?(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"(?:{_MONTHS})\b\.?|(?:{_MONTHS})\.?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\b)(?:,?\s+\d{{4}})?",
    re.I,
)
_RELATIVE = re.compile(
    rf"\b(?:(?:the\s+)?day after tomorrow|today|tomorrow|yesterday"
    rf"|(?:next|this|on)\s+(?P<wd>{'|'.join(_WEEKDAYS)}))\b",
    re.I,
)
_NO = re.compile(
    r"\b(?:no|not|nope|cannot|can't|don't|doesn't|isn't|aren't|unavailable"
    r"|unfortunately|never|false)\b",
    re.I,
)
_YES = re.compile(
    r"\b(?:yes|yeah|yep|sure|correct|indeed|confirmed|available|certainly"
    r"|of course|absolutely|true)\b",
    re.I,
)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""An e-mail address; it starts where a run of its characters starts (the lookbehind), so a
long run with no ``@`` is passed over once, not once per character."""
_STREET_TYPES = (
    r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|place|pl|square|sq|"
    r"plaza|court|ct|highway|hwy|parkway|pkwy|terrace|alley|row|close|crescent"
)
_ADDRESS = re.compile(
    rf"(?<![\w.,])\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'’-]*\.?\s+){{0,4}}(?i:{_STREET_TYPES})\b\.?"
    r"(?:,\s*[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})?(?:,?\s+\d{5}(?:-\d{4})?)?"
    rf"|\b(?i:calle|avenida|plaza|paseo|rue|via|strasse)\s+(?:[A-Z][\w'’-]*\s+){{0,3}}\d{{1,5}}\b"
)
"""A street address: house number, up to four capitalised words, a street type, then an
optional town and postcode ("23 Main Street, NY", "10 Downing St., London"); or the
continental order ("Calle Mayor 5")."""
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{5,}\d(?!\w)")


_CODE_ID = re.compile(
    r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"
)
"""A code anywhere: letters and digits, a capital among them (``PZ-4821``, ``C-7``)."""
_LABELLED_ID = re.compile(
    r"\b(?:order|ticket|booking|reference|confirmation|receipt|case|tracking|id|number|no\.?)"
    r"(?:\s(?:number|no\.?|id|code))?:?\s(?:is\s)?(#?\d[\d-]*)\b",
    re.I,
)
"""A plain number an identifier's label names ("order number 1234")."""
_HASH_ID = re.compile(r"#\d+\b")
_ID_AFTER = re.compile(r"\s+#?([A-Za-z]{0,6}-?\d[\w-]*)(?=[\s.,;!?]|$)")


def _find_ids(text: str) -> list[Candidate]:
    """Identifiers in ``text`` (module docstring), in order, none overlapping another."""
    spans = [(m.start(1), m.group(1)) for m in _LABELLED_ID.finditer(text)]
    spans += [(m.start(), m.group()) for p in (_HASH_ID, _CODE_ID) for m in p.finditer(text)]
    out: list[Candidate] = []
    end = -1
    for start, said in sorted(spans, key=lambda s: (s[0], -len(s[1]))):
        if start >= end:
            out.append(Candidate(start, said))
            end = start + len(said)
    return out


def identifier_after(text: str, at: int) -> str | None:
    """The identifier written right after offset ``at`` (after spaces and a ``#``), as a
    label names it ("Ticket number RG4102." → ``RG4102``, "order #1234" → ``1234``): any
    token of letters and digits with a digit in it; ``None`` when none follows."""
    found = _ID_AFTER.match(text, at)
    return found.group(1) if found else None


def parse_money(text: str) -> Money | None:
    """The first amount of money in ``text`` (``"11.5$"``, ``"$12.50"``, ``"12,50 €"``,
    ``"USD 7"``, ``"3 euros"``), or a bare number as an amount without currency."""
    found = _find_money(text)
    if found:
        money: Money = found[0].value
        return money
    number = _find_numbers(text)
    return Money(float(number[0].value)) if number else None


def _find_money(text: str) -> list[Candidate]:
    out = []
    for match in _MONEY.finditer(text):
        amount = Price.fromstring(match.group()).amount_float
        symbol = re.sub(_NUM, "", match.group()).strip()
        currency = _ISO.get(symbol.lower(), symbol.upper() or None)
        if amount is not None:
            out.append(Candidate(match.start(), Money(amount, currency)))
    return out


def _find_numbers(text: str) -> list[Candidate]:
    out = []
    for match in _NUMBER.finditer(text):
        token = match.group()
        if token.lower() in _WORD_NUMBERS:
            out.append(Candidate(match.start(), _WORD_NUMBERS[token.lower()]))
            continue
        amount = Price.fromstring(token.lstrip("+-")).amount_float
        if amount is not None:
            out.append(Candidate(match.start(), -amount if token[0] == "-" else amount))
    return out


def _find_times(text: str, *, clock: bool = True, duration: bool = True) -> list[Candidate]:
    out = []
    for m in _CLOCK.finditer(text) if clock else ():
        if m.group("noon"):
            hour, minute, second = (0 if m.group("noon").lower() == "midnight" else 12), 0, 0
        elif m.group("ap"):
            hour, minute, second = int(m.group("h")) % 12, int(m.group("m") or 0), 0
            hour += 12 if m.group("ap").lower() == "p" else 0
        elif m.group("sh") or m.group("oh"):
            hour, minute, second = _spoken_clock(m, text), 0, 0
            minute = {"half": 30, "quarter": 15}.get((m.group("part") or "").lower(), 0)
            if m.group("to"):
                hour, minute = (hour - 1) % 24, 45
        else:
            hour, minute, second = int(m.group("h2")), int(m.group("m2")), int(m.group("s2") or 0)
        if hour < 24 and minute < 60 and second < 60:
            out.append(Candidate(m.start(), time(hour, minute, second)))
    for m in _DURATION.finditer(text) if duration else ():
        seconds = _seconds(m.group("n"), m.group("u"))
        seconds += _seconds(m.group("n2"), m.group("u2")) if m.group("n2") else 0
        if 0 < seconds < 86400:
            out.append(Candidate(m.start(), (datetime.min + timedelta(seconds=seconds)).time()))
    return sorted(out, key=lambda c: c.start)


def _spoken_clock(match: re.Match[str], text: str) -> int:
    """The hour (0–23) of a spoken time: its hour word or digits, in the afternoon when the
    words after it say so ("pm", "in the evening"), else as said (1–12)."""
    said = (match.group("sh") or match.group("oh")).lower()
    hour = int(said) if said.isdigit() else _HOUR_WORDS.split("|").index(said) + 1
    half = _SPOKEN_PART.match(text, match.end())
    if half and (
        half.group("pm") or half.group("night") or (half.group("ap") or "").lower() == "p"
    ):
        return hour % 12 + 12
    return hour % 12 if half and (half.group("am") or half.group("ap")) else hour


def _seconds(number: str, unit: str) -> float:
    amount = _WORD_NUMBERS.get(number.lower())
    value = float(number.replace(",", ".")) if amount is None else amount
    return value * _UNITS.get(unit.lower()[:2], _UNITS[unit.lower()[0]])


def _find_dates(text: str, reference: date) -> list[Candidate]:
    out, taken = [], []
    default = datetime(reference.year, reference.month, reference.day)
    for m in _DATE.finditer(text):
        try:
            parsed = date_parser.parse(m.group(), default=default, fuzzy=True).date()
        except (ValueError, OverflowError):
            continue
        if m.group("sep") and parsed.day <= 12 and parsed.day != parsed.month:
            # "08-07-2025": 7 August or 8 July; the reading nearer the reference date wins
            swapped = parsed.replace(month=parsed.day, day=parsed.month)
            if abs((swapped - reference).days) < abs((parsed - reference).days):
                parsed = swapped
        out.append(Candidate(m.start(), parsed, m.group()))
        taken.append(m.span())
    for m in _RELATIVE.finditer(text):
        if any(m.start() < end and m.end() > start for start, end in taken):
            continue
        word = m.group().lower()
        if m.group("wd"):
            ahead = (_WEEKDAYS.index(m.group("wd").lower()) - reference.weekday()) % 7 or 7
        else:
            ahead = 2 if "after" in word else {"today": 0, "tomorrow": 1}.get(word, -1)
        out.append(Candidate(m.start(), reference + timedelta(days=ahead), m.group()))
    return sorted(out, key=lambda c: c.start)


def find_values(kind: str, text: str, reference: date) -> list[Candidate]:
    """Every value of ``kind`` in ``text``, in order (``string`` has none; ``clock`` and
    ``duration`` are the two halves of ``time``: "at 11:00 AM" and "30 minutes"). A numeric date
    whose day and month could be read either way ("08-07-2025") is the reading nearer
    ``reference``, the date relative days are counted from."""
    if kind == "money":
        return _find_money(text)
    if kind in ("int", "float"):
        found = _find_numbers(text)
        if kind == "float":
            return [Candidate(c.start, float(c.value)) for c in found]
        return [Candidate(c.start, int(c.value)) for c in found if float(c.value).is_integer()]
    if kind == "time":
        return _find_times(text)
    if kind in ("clock", "duration"):
        return _find_times(text, clock=kind == "clock", duration=kind == "duration")
    if kind == "date":
        return _find_dates(text, reference)
    if kind == "id":
        return _find_ids(text)
    if kind in ("email", "phone", "address"):
        pattern = {"email": _EMAIL, "phone": _PHONE, "address": _ADDRESS}[kind]
        return [Candidate(m.start(), m.group()) for m in pattern.finditer(text)]
    if kind == "bool":
        cue = _NO.search(text) or _YES.search(text)
        return [Candidate(cue.start(), _NO.search(text) is None)] if cue else []
    return []


def format_value(kind: str, value: Any, fmt: str | None) -> Any:
    """The stored form of a found value (module docstring). ``fmt`` is the output's
    format: a strftime format (``%d/%m/%Y``) or one in words (``dd/mm/yyyy``, ``hh:mm``);
    one with neither gives the default form."""
    if kind == "money":
        return str(value)
    pattern = _strftime_format(kind, fmt) if fmt else None
    if kind == "time":
        return value.strftime(pattern or "%H:%M:%S")
    if kind == "date":
        return value.strftime(pattern) if pattern else value.isoformat()
    return value


_FORMAT_WORDS = re.compile(r"yyyy|yy|dd|hh|mm|ss", re.I)


def _strftime_format(kind: str, fmt: str) -> str | None:
    """``fmt`` as a strftime format (``mm`` is minutes in a time, the month in a date);
    ``None`` when it is neither a strftime format nor one in words."""
    if "%" in fmt:
        return fmt
    words = {"yyyy": "%Y", "yy": "%y", "dd": "%d", "hh": "%H", "ss": "%S"}
    words["mm"] = "%M" if kind == "time" else "%m"
    translated = _FORMAT_WORDS.sub(lambda m: words[m.group().lower()], fmt)
    return translated if translated != fmt else None


DATE_STOP = re.compile(r"(?<=\d)\.(?=\s|$)")
"""A full stop after a number that ends a sentence ("on 12.03.") is no part of a date."""
_NUMERIC_DATE = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
_YEAR = re.compile(r"^[^.?!\n]{0,16}?(?:\b(?:19|20)\d{2}\b|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})")
_RELATIVE_DAY = re.compile(
    r"\b(?:today|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)
_NEXT_WEEKDAY = re.compile(
    r"\bnext\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.IGNORECASE
)


_ITEM_BREAK = re.compile(r"[;\n]|,(?!\d)|\s(?:and|or|while|whereas|but)\s", re.I)
"""Where one item of a written list ends: a semicolon, a comma not inside a number, a
conjunction."""
_LABEL_WORD = re.compile(r"[^\W\d_]+")


def item_values(kind: str, text: str, reference: date) -> list[tuple[str, Candidate]]:
    """The items of a list that gives one value of ``kind`` each, in order: (the item's
    words without its value, the value with its offset in ``text``). "A single room costs
    $80 per night, a double room $120 and a suite $250." gives ``("A single room costs per
    night", $80)``, ``("a double room", $120)``, ``("a suite", $250)``. A part with no
    value is the label of the next part with one ("the single, $80"); empty when fewer
    than two items carry a value. Never raises; linear in ``len(text)``."""
    items: list[tuple[str, Candidate]] = []
    start, pending = 0, ""
    breaks = [m.start() for m in _ITEM_BREAK.finditer(text)] + [len(text)]
    for end in breaks:
        part = text[start:end]
        found = find_values(kind, part, reference)
        if len(found) == 1:
            label = " ".join(_LABEL_WORD.findall(pending + " " + part))
            items.append((label, Candidate(start + found[0].start, found[0].value)))
            pending = ""
        elif not found:
            pending += " " + part
        else:  # several values in one part: a list this reader does not split
            return []
        start = end
    return items if len(items) >= 2 else []


@dataclass(frozen=True)
class Synonyms:
    """Groups of words a chatbot takes for one value, compared by surface form
    (``surface_words``): a Rasa project's entity synonyms (``synonym:`` blocks,
    ``[check-up]{"entity": "service", "value": "Physical examination"}``) make "check-up",
    "Check up" and "Physical examination" one service. ``Synonyms.of`` builds them from
    value → its synonyms; groups sharing a word are merged. Source: Rasa's
    ``EntitySynonymMapper`` (rasa.nlu.extractors.entity_synonyms), which maps each synonym
    to its value before the bot's actions see it."""

    groups: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, Iterable[str]]) -> Synonyms:
        """The groups of ``mapping`` (value → the words taken for it), merged where they
        share a word; words without letters or digits are left out."""
        merged: list[tuple[set[str], list[str]]] = []
        for value, words in mapping.items():
            members = [w for w in (value, *words) if _text(w)]
            forms = {_text(w) for w in members}
            touching = [g for g in merged if g[0] & forms]
            for group in touching:
                merged.remove(group)
                forms |= group[0]
                members = group[1] + [m for m in members if m not in group[1]]
            if len(forms) > 1:
                merged.append((forms, members))
        return cls(tuple(tuple(members) for _, members in merged))

    def equivalents(self, value: Any) -> tuple[str, ...]:
        """The other words of the group ``value`` is a word of (by surface form); ``()``
        when it is in none."""
        form = _text(value)
        for group in self.groups:
            if form and any(_text(w) == form for w in group):
                return tuple(w for w in group if _text(w) != form)
        return ()

    def named_in(self, value: Any) -> tuple[str, ...]:
        """The words of every group one of whose words ``value`` states (``states_value``):
        "Physical examination" … for "Monday check-up"."""
        return tuple(
            w for group in self.groups if any(states_value(m, str(value)) for m in group)
            for w in group
        )  # fmt: skip

    def __bool__(self) -> bool:
        return bool(self.groups)


def same_value(
    kind: str, a: Any, b: Any, reference: date | None = None, synonyms: Synonyms | None = None
) -> bool:
    """Whether ``a`` and ``b`` (texts or values) state the same value of ``kind``: one
    reading of each agrees (``readings``, ``agree``): times across 12- and 24-hour clocks
    ("5:00 PM" = "17:00" = "17:00:00" = ``time(17)``; a bare "5:00" is 5:00 or 17:00),
    dates in any writing ("29-11-2026" = "November 29th, 2026"; a numeric day-month order
    that could be read either way matches under both; a year only one side states is not
    compared), money by amount and currency (a missing currency matches any), numbers by
    value (written as digits or in words); other kinds and values no parser reads as one
    value compare by their surface form: case, hyphens, spaces and punctuation between
    words, a plural ending and numbers in words do not count ("check-up" = "Checkup" =
    "check ups"; ``surface_form``), and a word ``synonyms`` takes for the other's value
    is the same ("check-up" = "Physical examination"). ``reference`` resolves relative
    dates (default: today)."""
    when = reference or date.today()
    read = _READING_KINDS.get(kind)
    if read is not None:
        left, right = (_value_readings(kind, read, v, when) for v in (a, b))
        if left and right:
            return agree(read, left, right)
    if _text(a) == _text(b):
        return True
    words = synonyms.equivalents(a) if synonyms is not None else ()
    return _text(b) in {_text(w) for w in words}


_READING_KINDS = {"int": "number", "float": "number", "number": "number"}
_READING_KINDS |= {"money": "money", "date": "date", "time": "time"}


def _value_readings(kind: str, read: str, value: Any, reference: date) -> set[Any]:
    """The readings (of kind ``read``) of a typed value, or of a text that states one
    value of ``kind`` (``_typed``); empty when a parser reads none or several."""
    one = _typed({"number": "float"}.get(kind, kind), value, reference)
    if one is None:
        return set()
    if isinstance(value, str):
        return readings(read, value, reference)  # as written: a bare H:MM, a year left out
    written = one.isoformat() if isinstance(one, date) else ""
    return readings_of(read, one, written, reference)


def _typed(kind: str, value: Any, reference: date) -> Any:
    """``value`` as a value of ``kind``: itself when already typed, else the one value a
    parser reads in its text (``None`` when it reads none or several)."""
    if kind == "money" and isinstance(value, Money):
        return value
    if kind == "time" and isinstance(value, time):
        return value
    if kind == "date" and isinstance(value, date):
        return value.date() if isinstance(value, datetime) else value
    if kind in ("int", "float") and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if kind == "money":
        return parse_money(str(value))
    if kind not in ("time", "date", "int", "float"):
        return None
    source = DATE_STOP.sub(" ", str(value)) if kind == "date" else str(value)
    found = {c.value for c in find_values(kind, source, reference)}
    return found.pop() if len(found) == 1 else None


def readings(kind: str, said: str, reference: date) -> set[Any]:
    """The readings of the user's value of ``kind`` (several for an ambiguous date/time:
    "next Monday" is the coming Monday or the one a week later, as people say both)."""
    if kind not in ("money", "number", "date", "time"):
        return set()
    source = DATE_STOP.sub(" ", said) if kind == "date" else said
    found = find_values({"number": "float"}.get(kind, kind), source, reference)
    if not found:
        return set()
    value, written = found[0].value, said[found[0].start :]
    out = readings_of(kind, value, written, reference)
    if kind == "date" and isinstance(value, date) and _RELATIVE_DAY.search(said):
        out = {(value.year, value.month, value.day)}  # resolved: its year is known
        if _NEXT_WEEKDAY.search(said):  # "next Monday": the coming one or the one after
            later = value + timedelta(days=7)
            out.add((later.year, later.month, later.day))
    return out


def readings_of(kind: str, value: Any, written: str, reference: date) -> set[Any]:
    """A found value's readings: a date as ``(year or None, month, day)`` both ways when
    its day and month can swap; a bare ``H:MM`` time as ``H`` and ``H+12`` (not
    ``HH:MM:SS``, the stored 24-hour form); money as
    ``(amount in cents, currency)`` and ``(amount in cents, None)``."""
    if kind == "date" and isinstance(value, date):
        year = value.year if _YEAR.match(written) else None
        out = {(year, value.month, value.day)}
        if _NUMERIC_DATE.match(written) and value.day <= 12:
            out.add((year, value.day, value.month))
        return out
    if kind == "time" and isinstance(value, time):
        bare = re.match(r"\s*\d{1,2}:\d{2}(?!:\d|\d*\s*[ap]\.?\s?m)", written, re.I)
        clock = bool(bare) or _bare_spoken(written)
        hours = {value.hour} | ({(value.hour + 12) % 24} if clock and value.hour <= 12 else set())
        return {(h, value.minute) for h in hours}
    if kind == "money" and isinstance(value, Money):
        return {(round(value.amount * 100), value.currency)}
    if kind == "number" and isinstance(value, int | float):
        return {round(float(value), 6)}
    return set()


def _bare_spoken(written: str) -> bool:
    """Whether ``written`` starts with a spoken time that does not say its half of the day
    ("three o'clock", "half past four": 3:00 or 15:00, as people say both)."""
    match = _CLOCK.match(written.lstrip())
    return bool(
        match
        and (match.group("sh") or match.group("oh"))
        and not _SPOKEN_PART.match(written.lstrip(), match.end())
    )


def agree(kind: str, wanted: set[Any], stated: set[Any]) -> bool:
    """Whether a reading of the user's value and one of the stated value are the same: a
    year or currency that one side does not state is not compared."""
    if kind not in ("date", "money"):
        return bool(wanted & stated)
    same, loose = (slice(1, 3), 0) if kind == "date" else (slice(0, 1), 1)
    return any(
        a[same] == b[same] and (a[loose] is None or b[loose] is None or a[loose] == b[loose])
        for a in wanted
        for b in stated
    )


def _text(value: Any) -> str:
    return "".join(surface_words(str(value)))


_SURFACE_WORD = re.compile(r"[^\W_]+")
_SIBILANT = ("ss", "x", "z", "ch", "sh")
MAX_STATED_TEXT = 8192
"""Characters of a text ``states_value`` reads (the start of a long reply: a chatbot states
the values of a task near them, and the reading stays bounded)."""


def surface_words(text: str) -> list[str]:
    """The words of ``text`` in one surface form: case-folded, split at any non-letter or
    digit, a plural ending dropped ("ups" → "up", "batteries" → "battery", "boxes" →
    "box"), numbers up to twelve in words as digits. Linear in ``len(text)``."""
    out = []
    for word in _SURFACE_WORD.findall(text.casefold()):
        number = _WORD_NUMBERS.get(word)
        if number is not None and word not in ("a", "an"):
            out.append(str(number))
        elif len(word) > 3 and word.endswith("ies"):
            out.append(word[:-3] + "y")
        elif len(word) > 3 and word.endswith("es") and word[:-2].endswith(_SIBILANT):
            out.append(word[:-2])
        elif len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            out.append(word[:-1])
        else:
            out.append(word)
    return out


def states_value(
    value: Any, text: str, reference: date | None = None, synonyms: Synonyms | None = None
) -> bool:
    """Whether ``text`` states ``value`` in some surface form (``same_value``): a time,
    a date or a number that reads as one (``value`` "17:00" in "at 5 pm", "2" in "for
    two guests"), else the value's words run together in consecutive words of the text
    ("check-up" in "your checkup is booked", "Check up" in "2 check-ups"), or a word
    ``synonyms`` takes for it ("check-up" in "for physical examination"). Reads the
    first ``MAX_STATED_TEXT`` characters of ``text``; linear in their length times the
    number of the value's words. Never raises."""
    if synonyms and any(states_value(w, text, reference) for w in synonyms.equivalents(value)):
        return True
    when = reference or date.today()
    text = text[:MAX_STATED_TEXT]
    for kind in ("time", "date", "int"):
        wanted = _typed(kind, value, when)
        if wanted is not None and (kind != "int" or _is_number(str(value))):
            return any(
                same_value(kind, wanted, c.value, when) for c in find_values(kind, text, when)
            )
    target = _text(value)
    if not target:
        return False
    words = surface_words(text)
    for start in range(len(words)):
        joined, end = "", start
        while end < len(words) and len(joined) < len(target):
            joined += words[end]
            end += 1
        if joined == target:
            return True
    return False


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number alone (digits or one number word)."""
    found = _find_numbers(text)
    return len(found) == 1 and len(surface_words(text)) == 1
