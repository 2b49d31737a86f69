"""A chatbot's confirmation read back against the values the user gave, offline.

A task bot that confirms or summarises ("Your booking is confirmed: a double room for Alice
Smith, checking in on 12/03/2027", "So a large pepperoni, is that right?") states values
the user gave earlier, one per slot. ``compare_confirmation(text, given)`` finds, for each
slot, what the turn states and compares it *typed*, never as raw strings:

- money by amount (and currency when both sides state one): ``$80`` = ``80 USD``;
- numbers by value, digits or words (``2`` = ``two``), only beside the slot's own name
  ("2 guests", "guests: 2"), since a lone number may be any figure (a reference, a price);
- dates by day and month (and year when both state one; a numeric date whose day and month
  can be read either way matches either reading): ``12/03/2027`` = ``12 March 2027``;
  relative dates ("tomorrow") against ``reference``;
- times across 12/24-hour clocks (``5 PM`` = ``17:00``; a bare ``5:00`` is 5:00 or 17:00);
- options and other text by normalised text (case, accents, punctuation, a plural ``s``).

Each slot gets one ``SlotOutcome``: ``agrees``; ``differs`` (the turn states another value
of the slot: one of the slot's other ``options``, or the one value of its kind in a sentence
that reads values back, or a ``label: value`` pair); ``empty`` (the turn states it as
``None``/``null``/``undefined``/``N/A``, an empty ``label:``, or a template left unfilled,
``{name}``, ``{{name}}``, ``${name}``); ``not_stated``; and ``cannot_tell`` when several
candidates could be the slot's and nothing says which: the comparison abstains rather than
guesses which value belongs to which slot. Candidates count only in *read-back sentences*
(a sentence with a confirmation cue, a ``label:`` or one of the user's values), so a
question or an offer after the summary ("Would you like cola, water or beer?") states none.

``is_confirmation(text, act)`` says whether a chatbot turn confirms or summarises: its
dialogue act is ``confirmation`` (``sparring.dialogue_acts``) or a sentence carries a
generic confirmation cue ("confirmed", "your order:", "you have booked", "summary").

Source: the user's check of the system's ``confirm`` act against its goal constraints in
agenda-based user simulation (Schatzmann et al., NAACL 2007, §3: a wrong confirmation is
negated), and SENSEI-check's confirmation rules (Gómez-Abajo et al., 2025, §4), here
without a rule per bot. Used by the confirmation oracle (``check``'s
``confirmation_mismatches``), the agenda user simulator and breakdown detection.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, time
from enum import StrEnum
from typing import Any

from sparring.dialogue_acts import DialogueAct
from sparring.values import Money, find_values

__all__ = [
    "ConfirmationCheck",
    "GivenValue",
    "SlotOutcome",
    "SlotReading",
    "compare_confirmation",
    "is_confirmation",
]


class SlotOutcome(StrEnum):
    """What a confirmation says about one slot (module docstring)."""

    AGREES = "agrees"
    DIFFERS = "differs"
    EMPTY = "empty"
    NOT_STATED = "not_stated"
    CANNOT_TELL = "cannot_tell"


@dataclass(frozen=True)
class GivenValue:
    """A value the user gave for ``slot``: ``value`` as said (a list for a slot with
    several values, e.g. toppings); ``kind`` one of ``money``, ``number``, ``date``,
    ``time``, ``text`` (``None``: told from the value; ``int``/``float`` read as
    ``number``, other names as ``None``); ``options`` the slot's alternatives (e.g.
    ``("single", "double", "suite")``), which let a differing option be seen; ``turn`` the
    0-based turn that gave it."""

    slot: str
    value: str | Sequence[str]
    kind: str | None = None
    options: Sequence[str] = ()
    turn: int | None = None


@dataclass(frozen=True)
class SlotReading:
    """One slot as the confirmation states it: ``given`` the user's value (a list joined
    with ``, ``), ``stated`` what the turn states for it (``None`` when not stated or when it
    cannot tell), ``turn`` the confirmation's 0-based turn, ``reason`` a sentence."""

    slot: str
    outcome: SlotOutcome
    given: str
    stated: str | None
    kind: str
    turn: int | None
    reason: str


@dataclass(frozen=True)
class ConfirmationCheck:
    """The comparison of one confirmation turn (``text``, 0-based ``turn``) with the user's
    values: one reading per slot, and ``unattributed`` empty markers (``None``, ``{x}``)
    the turn states that no slot could be tied to."""

    text: str
    turn: int | None
    readings: tuple[SlotReading, ...]
    unattributed: tuple[str, ...] = field(default=())

    @property
    def mismatches(self) -> tuple[SlotReading, ...]:
        """The readings that differ from the user's value or state it empty."""
        bad = (SlotOutcome.DIFFERS, SlotOutcome.EMPTY)
        return tuple(r for r in self.readings if r.outcome in bad)

    @property
    def abstained(self) -> tuple[SlotReading, ...]:
        """The readings where it could not tell which stated value is the slot's."""
        return tuple(r for r in self.readings if r.outcome is SlotOutcome.CANNOT_TELL)

    @property
    def compared(self) -> tuple[SlotReading, ...]:
        """The readings that decided (agrees, differs or empty)."""
        decided = (SlotOutcome.AGREES, SlotOutcome.DIFFERS, SlotOutcome.EMPTY)
        return tuple(r for r in self.readings if r.outcome in decided)


_SENTENCE = re.compile(r"[^.?!\n]+(?:[.?!]+|$)|\n")
_CUES = re.compile(
    r"\b(?:confirm(?:s|ed|ing|ation)?|summary|to summari[sz]e|recap|"
    r"(?:your|the) (?:booking|order|reservation|appointment|request|ticket|purchase|details|"
    r"selection|choice|cart|basket)s?\b[^.?!]{0,40}?(?:\bis\b|\bare\b|\bhas been\b|\bwill be\b|:)|"
    r"you(?:'ve| have)? (?:chosen|selected|ordered|booked|requested|asked for|picked|reserved)|"
    r"(?:i|we)(?:'ve| have)? (?:booked|reserved|ordered|scheduled|registered|placed|added|noted)|"
    r"(?:booked|reserved|scheduled|registered|ordered) (?:for|on|at|under|from)|"
    r"here (?:is|are) your)",
    re.IGNORECASE,
)
_EMPTY_WORD = re.compile(r"(?<![\w'])(?:None|null|NULL|Null|undefined|NaN|nil|N/A)(?!\w| of\b)")
_TEMPLATE = re.compile(r"\{\{\s*(\w+)\s*\}\}|\$\{\s*(\w+)\s*\}|\{\s*(\w+)\s*\}|%\((\w+)\)s")
_NUMBER_WORDS = re.findall(
    r"\w+", "zero one two three four five six seven eight nine ten eleven twelve"
)
_DATE_STOP = re.compile(r"(?<=\d)\.(?=\s|$)")
_NUMERIC_DATE = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
_YEAR = re.compile(r"^[^.?!\n]{0,16}?(?:\b(?:19|20)\d{2}\b|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})")
_KINDS = {"int": "number", "float": "number", "number": "number", "money": "money"}
_KINDS |= {"date": "date", "time": "time", "text": "text"}


def _fold(text: str) -> str:
    """``text`` lower-cased and without accents, of the same length (offsets hold)."""
    out = []
    for char in text.lower():
        base = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        out.append(base if len(base) == 1 else char)
    return "".join(out)


def _phrase(value: str) -> re.Pattern[str] | None:
    """A pattern for ``value``'s words in folded text: any punctuation between them, a
    plural ``s``/``es`` on each; ``None`` for a value without words."""
    words = re.findall(r"\w+", _fold(value))
    if not words:
        return None
    body = r"\W+".join(re.escape(w.removesuffix("s")) + r"(?:e?s)?" for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)")


def _slot_words(slot: str) -> list[str]:
    """The words of a slot's name that can label it ("check_in_date" → check in date, date)."""
    words = [w for w in re.split(r"[\W_]+", _fold(slot)) if w and not w.isdigit()]
    return [" ".join(words), words[-1]] if len(words) > 1 else words


def is_confirmation(text: str, act: DialogueAct | str | None = None) -> bool:
    """Whether a chatbot turn confirms or summarises: its dialogue act (``act``, as
    ``sparring.dialogue_acts.classify_dialogue_act`` gives it) is ``confirmation``, or a
    sentence carries a generic confirmation cue (module docstring). Never raises."""
    return act == DialogueAct.CONFIRMATION or _CUES.search(text) is not None


def compare_confirmation(
    text: str,
    given: Sequence[GivenValue] | Mapping[str, Any],
    *,
    turn: int | None = None,
    reference: date | None = None,
) -> ConfirmationCheck:
    """Compare the values a confirmation turn states (``text``) with the user's (``given``:
    ``GivenValue``s, or a mapping slot → value). ``reference`` is the date relative dates
    are counted from (default today); ``turn`` is recorded on each reading. One reading
    per slot, in order (module docstring for the outcomes). Never raises."""
    values = [
        v if isinstance(v, GivenValue) else GivenValue(str(k), _as_value(v))
        for k, v in (given.items() if isinstance(given, Mapping) else enumerate(given))
    ]
    reading = _Reading(text, reference or date.today(), turn)
    return reading.run([v for v in values if _texts(v.value)])


def _as_value(value: Any) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else str(value)


def _texts(value: str | Sequence[str]) -> list[str]:
    items = [value] if isinstance(value, str) else list(value)
    return [str(v).strip() for v in items if str(v).strip()]


class _Reading:
    """One comparison: the folded text with what was claimed blanked out."""

    def __init__(self, text: str, reference: date, turn: int | None) -> None:
        self.text, self.reference, self.turn = text, reference, turn
        self.work = _fold(text)
        self.sentences = [(m.start(), m.end()) for m in _SENTENCE.finditer(text)]
        self.readback: set[int] = set()  # sentence indices that read values back

    def run(self, values: list[GivenValue]) -> ConfirmationCheck:
        for index, (start, end) in enumerate(self.sentences):
            if _CUES.search(self.text[start:end]) or self._label_in(start, end, values):
                self.readback.add(index)
        results: dict[str, SlotReading] = {}
        # longest values first, so "double deluxe" claims its words before "double"
        for value in sorted(values, key=lambda v: -max(len(t) for t in _texts(v.value))):
            if self._literal(value):
                results[value.slot] = self._make(value, SlotOutcome.AGREES, _joined(value))
        for value in values:
            if value.slot not in results and (typed := self._typed_agree(value)) is not None:
                results[value.slot] = self._make(value, SlotOutcome.AGREES, typed)
        for value in values:  # a list agrees only without options nobody asked for
            listed = not isinstance(value.value, str) and value.slot in results
            if listed and (extra := self._other_options(value)):
                results[value.slot] = self._make(value, SlotOutcome.DIFFERS, ", ".join(extra))
        empties, unattributed = self._empties(values, results)
        for value in values:
            if value.slot in results:
                continue
            results[value.slot] = empties.get(value.slot) or self._differs(value)
        readings = tuple(results[v.slot] for v in values)
        return ConfirmationCheck(self.text, self.turn, readings, tuple(unattributed))

    # -- agreement -----------------------------------------------------------------------

    def _literal(self, value: GivenValue) -> bool:
        """Every item of the value is written in the text; their spans are claimed, and
        the sentences they are in read values back."""
        spans = []
        for item in _texts(value.value):
            pattern = _phrase(item)
            match = pattern.search(self.work) if pattern else None
            if match is None:
                return False
            spans.append(match.span())
        for start, end in spans:
            self._claim(start, end)
        return True

    def _blank(self, start: int, end: int) -> None:
        self.work = self.work[:start] + " " * (end - start) + self.work[end:]

    def _claim(self, start: int, end: int) -> None:
        self._blank(start, end)
        self.readback.update(i for i, (s, e) in enumerate(self.sentences) if s <= start < e)

    def _typed_agree(self, value: GivenValue) -> str | None:
        kind = _kind(value, self.reference)
        wanted = _readings(kind, _joined(value), self.reference)
        if not wanted:
            return None
        for start, stated in self._candidates(kind, value):
            if _agree(kind, wanted, _readings_of(kind, stated, self._at(start), self.reference)):
                self._claim(start, start + 1)
                return str(_show(stated))
        return None

    # -- candidates ----------------------------------------------------------------------

    def _candidates(self, kind: str, value: GivenValue) -> list[tuple[int, Any]]:
        """Values of ``kind`` in the read-back sentences and not claimed: ``(offset,
        value)``; numbers and money only beside a word of the slot's name."""
        source = _DATE_STOP.sub(" ", self.text) if kind == "date" else self.text
        search = {"number": "float"}.get(kind, kind)
        found = [
            (c.start, c.value)
            for c in find_values(search, source, self.reference)
            if self.work[c.start] != " " and self._in_readback(c.start)
        ]
        if kind in ("number", "money"):
            found = [(s, v) for s, v in found if self._labelled(s, value.slot)]
        return found

    def _in_readback(self, offset: int) -> bool:
        return any(s <= offset < e for i, (s, e) in enumerate(self.sentences) if i in self.readback)

    def _labelled(self, offset: int, slot: str) -> bool:
        """A word of the slot's name within two words before or after ``offset``."""
        before = " ".join(re.findall(r"\w+", self.text[:offset].lower())[-2:])
        after = " ".join(re.findall(r"\w+", self.text[offset:].lower())[1:3])
        return any(
            re.search(rf"\b{re.escape(w.removesuffix('s'))}", f"{before} {after}")
            for w in _slot_words(slot)
        )

    def _label_in(self, start: int, end: int, values: list[GivenValue]) -> bool:
        piece = _fold(self.text[start:end])
        return any(
            re.search(rf"\b{re.escape(w)}\s*[:=]", piece)
            for v in values
            for w in _slot_words(v.slot)
        )

    def _label_value(self, slot: str) -> tuple[int, str] | None:
        """``label: value`` for the slot: the offset and the text up to ``,;.`` or a line."""
        for word in _slot_words(slot):
            match = re.search(rf"\b{re.escape(word)}\s*[:=][ \t]*([^,;\n]*?)(?=[,;\n]|\.\s|\.?$)",
                              self.work)  # fmt: skip
            if match:
                return match.start(1), self.text[match.start(1) : match.end(1)].strip()
        return None

    def _at(self, offset: int) -> str:
        return self.text[offset : offset + 24]

    # -- differences ---------------------------------------------------------------------

    def _differs(self, value: GivenValue) -> SlotReading:
        labelled = self._label_value(value.slot)
        if labelled is not None and labelled[1] and not _EMPTY_WORD.fullmatch(labelled[1]):
            stated, said = (
                set(re.findall(r"\w+", _fold(t))) for t in (labelled[1], _joined(value))
            )
            if stated <= said or said <= stated:  # "Alice" for "Alice Smith"
                return self._make(value, SlotOutcome.AGREES, labelled[1])
            return self._make(value, SlotOutcome.DIFFERS, labelled[1], "the label")
        kind = _kind(value, self.reference)
        if kind == "text":
            others = self._other_options(value)
        else:
            others = [str(_show(v)) for _, v in self._candidates(kind, value)]
        if not others:
            return self._make(value, SlotOutcome.NOT_STATED, None)
        if len(others) > 1 and isinstance(value.value, str):
            return self._make(value, SlotOutcome.CANNOT_TELL, None, ", ".join(others))
        return self._make(value, SlotOutcome.DIFFERS, ", ".join(others))

    def _other_options(self, value: GivenValue) -> list[str]:
        given = {_fold(t) for t in _texts(value.value)}
        found = []
        for option in sorted(value.options, key=len, reverse=True):
            pattern = _phrase(option)
            match = pattern.search(self.work) if pattern and _fold(option) not in given else None
            if match and self._in_readback(match.start()):
                found.append(option)
                self._blank(*match.span())
        return found

    def _empties(
        self, values: list[GivenValue], results: Mapping[str, SlotReading]
    ) -> tuple[dict[str, SlotReading], list[str]]:
        """Slots stated empty: a template naming them, an empty ``label:``, or a bare
        ``None``/``null`` when exactly one slot is otherwise unstated."""
        open_values = [v for v in values if v.slot not in results]
        found: dict[str, SlotReading] = {}
        markers = []
        for match in _TEMPLATE.finditer(self.text):
            name = next(g for g in match.groups() if g)
            slot = next((v for v in open_values if _same_name(v.slot, name)), None)
            if slot is not None:
                found[slot.slot] = self._make(slot, SlotOutcome.EMPTY, match.group())
            else:
                markers.append(match.group())
        for v in open_values:
            labelled = self._label_value(v.slot)
            if labelled is not None and (not labelled[1] or _EMPTY_WORD.fullmatch(labelled[1])):
                found.setdefault(v.slot, self._make(v, SlotOutcome.EMPTY, labelled[1] or ""))
        bare = [m.group() for m in _EMPTY_WORD.finditer(self.text) if self._in_readback(m.start())]
        unstated = [
            v for v in open_values if v.slot not in found and self._label_value(v.slot) is None
        ]
        if bare and len(unstated) == 1:
            found[unstated[0].slot] = self._make(unstated[0], SlotOutcome.EMPTY, bare[0])
        elif bare and not found:
            markers.extend(bare)
        return found, markers

    def _make(
        self, value: GivenValue, outcome: SlotOutcome, stated: str | None, how: str = ""
    ) -> SlotReading:
        given = _joined(value)
        kind = _kind(value, self.reference)
        reason = {
            SlotOutcome.AGREES: f"{value.slot}: the confirmation states {stated!r}, as given",
            SlotOutcome.DIFFERS: f"{value.slot}: the user gave {given!r}, the confirmation "
            f"states {stated!r}" + (f" (after {how})" if how else ""),
            SlotOutcome.EMPTY: f"{value.slot}: the user gave {given!r}, the confirmation "
            f"states it empty ({stated!r})",
            SlotOutcome.NOT_STATED: f"{value.slot}: not stated in the confirmation",
            SlotOutcome.CANNOT_TELL: f"{value.slot}: cannot tell which of {how} is its value",
        }[outcome]
        return SlotReading(value.slot, outcome, given, stated, kind, self.turn, reason)


def _joined(value: GivenValue) -> str:
    return ", ".join(_texts(value.value))


def _same_name(slot: str, name: str) -> bool:
    a, b = (re.sub(r"[\W_]+", "", _fold(x)) for x in (slot, name))
    return bool(a and b) and (a in b or b in a)


# -- typed values ---------------------------------------------------------------------------


def _kind(value: GivenValue, reference: date) -> str:
    """The kind of the user's value: the declared one, else told from the value (money,
    date, time, number, else text); a list's items are text."""
    declared = _KINDS.get((value.kind or "").lower())
    if declared:
        return declared
    if not isinstance(value.value, str):
        return "text"
    said = value.value.strip()
    if find_values("money", said, reference):
        return "money"
    if find_values("date", _DATE_STOP.sub(" ", said), reference):
        return "date"
    if find_values("time", said, reference) and re.search(r"\d|noon|midnight", said, re.I):
        return "time"
    if re.fullmatch(r"[-+]?\d+(?:[.,]\d+)?", said) or said.lower() in _NUMBER_WORDS:
        return "number"
    return "text"


def _readings(kind: str, said: str, reference: date) -> set[Any]:
    """The readings of the user's value of ``kind`` (several for an ambiguous date/time)."""
    if kind not in ("money", "number", "date", "time"):
        return set()
    source = _DATE_STOP.sub(" ", said) if kind == "date" else said
    found = find_values({"number": "float"}.get(kind, kind), source, reference)
    if not found:
        return set()
    return _readings_of(kind, found[0].value, said[found[0].start :], reference)


def _readings_of(kind: str, value: Any, written: str, reference: date) -> set[Any]:
    """A found value's readings: a date as ``(year or None, month, day)`` both ways when
    its day and month can swap; a bare ``H:MM`` time as ``H`` and ``H+12``; money as
    ``(amount in cents, currency)`` and ``(amount in cents, None)``."""
    if kind == "date" and isinstance(value, date):
        year = value.year if _YEAR.match(written) else None
        out = {(year, value.month, value.day)}
        if _NUMERIC_DATE.match(written) and value.day <= 12:
            out.add((year, value.day, value.month))
        return out
    if kind == "time" and isinstance(value, time):
        clock = re.match(r"\s*\d{1,2}:\d{2}(?!:?\d*\s*[ap]\.?\s?m)", written, re.I)
        hours = {value.hour} | ({(value.hour + 12) % 24} if clock and value.hour <= 12 else set())
        return {(h, value.minute) for h in hours}
    if kind == "money" and isinstance(value, Money):
        return {(round(value.amount * 100), value.currency)}
    if kind == "number" and isinstance(value, int | float):
        return {round(float(value), 6)}
    return set()


def _agree(kind: str, wanted: set[Any], stated: set[Any]) -> bool:
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


def _show(value: Any) -> Any:
    """A found value as a reading quotes it: ISO dates and times, whole numbers bare."""
    if isinstance(value, date | time):
        return value.isoformat()
    return int(value) if isinstance(value, float) and value.is_integer() else value
