"""How a confirmation turn is read back against the user's values: the types of
``sparring.confirmation`` and the reading itself (``compare_confirmation``), kept apart from
the conversation-level helpers there. Private to the neutral modules: import it from
``sparring.confirmation``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

from sparring._typed_text import fold, kind_of, phrase, show
from sparring.dialogue_acts import DialogueAct
from sparring.leaks import empty_words, is_empty_word, placeholders
from sparring.values import (
    DATE_STOP,
    Synonyms,
    agree,
    find_values,
    readings,
    readings_of,
    states_value,
)


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


SENTENCE = re.compile(r"(?:[^.?!\n]|(?<=\d)\.(?=\d))+(?:[.?!]+|$)|\n")
"""A sentence: up to its end mark (a point between digits, "€50.00", ends none), or a
line."""
_CUES = re.compile(
    r"\b(?:confirm(?:s|ed|ing|ation)?|summary|to summari[sz]e|recap|"
    r"(?:your|the) (?:booking|order|reservation|appointment|request|ticket|purchase|details|"
    r"selection|choice|cart|basket)s?\b[^.?!]{0,40}?(?:\bis\b|\bare\b|\bhas been\b|\bwill be\b|:)|"
    r"you(?:'ve| have)? (?:chosen|selected|ordered|booked|requested|asked for|picked|reserved)|"
    r"(?:i|we)(?:'ve| have)? (?:booked|reserved|ordered|scheduled|registered|placed|added|noted)|"
    r"(?:i|we)(?:'ve| have)? (?:received|got|recorded|noted|registered) your|"
    r"(?:booked|reserved|scheduled|registered|ordered) (?:for|on|at|under|from)|"
    r"(?:booked|reserved|scheduled|registered|ordered)\s*:|"
    r"here (?:is|are) your)",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|next|this|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|week|weekend)\b",
    re.IGNORECASE,
)
_CALENDAR_DAYS = 7
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b")
"""Days within which a stated date is read on the conversation's calendar (a relative
date the user gave is compared with it)."""
_DURATION = re.compile(
    r"\s*(?:\d+(?:[.,]\d+)?|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|half an)"
    r"\s*(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b",
    re.IGNORECASE,
)


def _slot_words(slot: str) -> list[str]:
    """The words of a slot's name that can label it ("check_in_date" → check in date, date)."""
    words = [w for w in re.split(r"[\W_]+", fold(slot)) if w and not w.isdigit()]
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
    synonyms: Synonyms | None = None,
) -> ConfirmationCheck:
    """Compare the values a confirmation turn states (``text``) with the user's (``given``:
    ``GivenValue``s, or a mapping slot → value). ``reference`` is the date relative dates
    are counted from, the conversation's (``None``: today, and a relative date the turn
    does not repeat is *cannot tell*); ``turn`` is recorded on each reading; ``synonyms``
    the chatbot's words for one value (``sparring.values.Synonyms``): a value stated in
    one of them agrees, and is no other option. One reading per slot, in order (module
    docstring for the outcomes). Never raises."""
    values = [
        v if isinstance(v, GivenValue) else GivenValue(str(k), as_value(v))
        for k, v in (given.items() if isinstance(given, Mapping) else enumerate(given))
    ]
    when = reference or date.today()
    reading = _Reading(text, when, turn, dated=reference is not None, synonyms=synonyms)
    return reading.run([v for v in values if texts(v.value)])


def as_value(value: Any) -> str | list[str]:
    """A variable's value as text: a list or tuple item by item."""
    return [str(v) for v in value] if isinstance(value, list | tuple) else str(value)


def texts(value: str | Sequence[str]) -> list[str]:
    """The non-empty items of a value (one for a string), stripped."""
    items = [value] if isinstance(value, str) else list(value)
    return [str(v).strip() for v in items if str(v).strip()]


class _Reading:
    """One comparison: the folded text with what was claimed blanked out."""

    def __init__(
        self, text: str, reference: date, turn: int | None, *, dated: bool,
        synonyms: Synonyms | None = None,
    ) -> None:  # fmt: skip
        self.text, self.reference, self.turn, self.dated = text, reference, turn, dated
        self.work = fold(text)
        self.sentences = [(m.start(), m.end()) for m in SENTENCE.finditer(text)]
        self.readback: set[int] = set()  # sentence indices that read values back
        self.synonyms = synonyms or Synonyms()

    def run(self, values: list[GivenValue]) -> ConfirmationCheck:
        for index, (start, end) in enumerate(self.sentences):
            if _CUES.search(self.text[start:end]) or self._label_in(start, end, values):
                self.readback.add(index)
        results: dict[str, SlotReading] = {}
        # longest values first, so "double deluxe" claims its words before "double"
        for value in sorted(values, key=lambda v: -max(len(t) for t in texts(v.value))):
            if self._literal(value):
                results[value.slot] = self._make(value, SlotOutcome.AGREES, _joined(value))
        for value in values:
            if value.slot not in results and (typed := self._typed_agreement(value)) is not None:
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
        for item in texts(value.value):
            match = self._search(item)
            if match is None:
                return False
            spans.append(match.span())
        for start, end in spans:
            self._claim(start, end)
        return True

    def _search(self, item: str) -> re.Match[str] | None:
        """Where the unclaimed text says ``item``, or a word the chatbot takes for it."""
        for word in (item, *self.synonyms.equivalents(item)):
            pattern = phrase(word)
            match = pattern.search(self.work) if pattern else None
            if match is not None:
                return match
        return None

    def _blank(self, start: int, end: int) -> None:
        self.work = self.work[:start] + " " * (end - start) + self.work[end:]

    def _claim(self, start: int, end: int) -> None:
        self._blank(start, end)
        self.readback.update(i for i, (s, e) in enumerate(self.sentences) if s <= start < e)

    def _typed_agreement(self, value: GivenValue) -> str | None:
        kind = kind_of(value.value, value.kind, self.reference)
        wanted = readings(kind, _joined(value), self.reference)
        if not wanted:
            return None
        for start, stated in self._candidates(kind, value):
            if agree(kind, wanted, readings_of(kind, stated, self._at(start), self.reference)):
                self._claim(start, start + 1)
                return str(show(stated))
        return None

    # -- candidates ----------------------------------------------------------------------

    def _candidates(self, kind: str, value: GivenValue) -> list[tuple[int, Any]]:
        """Values of ``kind`` in the read-back sentences and not claimed: ``(offset,
        value)``; numbers and money only beside a word of the slot's name."""
        source = DATE_STOP.sub(" ", self.text) if kind == "date" else self.text
        search = {"number": "float"}.get(kind, kind)
        found = [
            (c.start, c.value)
            for c in find_values(search, source, self.reference)
            if self.work[c.start] != " " and self._in_readback(c.start)
        ]
        if kind in ("number", "money"):
            found = [(s, v) for s, v in found if self._labelled(s, value.slot)]
        if kind == "time":  # a clock time and a duration ("30 minutes") are not compared
            said = bool(_DURATION.match(_joined(value)))
            found = [(s, v) for s, v in found if bool(_DURATION.match(self.text[s:])) == said]
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
        """The sentence labels a slot ("Room: …") or, not being a question, names one
        ("Return on 16/03/2027.")."""
        piece = fold(self.text[start:end]).strip()
        label = r"\s*[:=]" if piece.endswith("?") else ""
        return any(
            re.search(rf"\b{re.escape(w)}\b{label}", piece)
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
        if labelled is not None and labelled[1] and not is_empty_word(labelled[1]):
            stated, said = (set(re.findall(r"\w+", fold(t))) for t in (labelled[1], _joined(value)))
            if stated <= said or said <= stated:  # "Alice" for "Alice Smith"
                return self._make(value, SlotOutcome.AGREES, labelled[1])
            return self._make(value, SlotOutcome.DIFFERS, labelled[1], "after its label")
        if not isinstance(value.value, str) and (partial := self._partial_list(value)):
            return partial
        kind = kind_of(value.value, value.kind, self.reference)
        found = [] if kind == "text" else [v for _, v in self._candidates(kind, value)]
        if kind == "number" and (masked := _masked(_joined(value), found)) is not None:
            return self._make(value, SlotOutcome.AGREES, masked, "its last digits")
        others = self._other_options(value) if kind == "text" else [str(show(v)) for v in found]
        if not others:
            return self._make(value, SlotOutcome.NOT_STATED, None)
        if (
            kind == "date"
            and _RELATIVE.search(_joined(value))
            and not self._same_calendar(_joined(value), found)
        ):
            if other_day := self._other_weekday(value, kind):
                return self._make(value, SlotOutcome.DIFFERS, other_day, "another weekday")
            how = f"{', '.join(others)} (a relative date, and the chatbot's calendar unknown)"
            return self._make(value, SlotOutcome.CANNOT_TELL, None, how)
        if len(others) > 1 and isinstance(value.value, str):
            return self._make(value, SlotOutcome.CANNOT_TELL, None, ", ".join(others))
        return self._make(value, SlotOutcome.DIFFERS, ", ".join(others))

    def _other_weekday(self, value: GivenValue, kind: str) -> str | None:
        """The stated date, when the user named a weekday ("next Monday") and every date
        read back names another one in words ("Tuesday the 9th of March"): a weekday
        differs on any calendar, the chatbot's too. ``None`` otherwise."""
        said = _WEEKDAY.findall(fold(_joined(value)))
        if len(set(said)) != 1:
            return None
        stated = [
            (start, _WEEKDAY.match(fold(self._at(start))))
            for start, _ in self._candidates(kind, value)
        ]
        if not stated or not all(day for _, day in stated):
            return None
        if any(day and day.group() == said[0] for _, day in stated):
            return None
        start = stated[0][0]
        return self.text[start : start + 40].split(",")[0].split(".")[0].strip()

    def _same_calendar(self, said: str, stated: list[Any]) -> bool:
        """Whether a relative date ("tomorrow") can be held against the dates stated: the
        conversation's date is known and a stated date lies within ``_CALENDAR_DAYS`` of
        it — a chatbot whose clock is set elsewhere (a demo's fixed "today") cannot be."""
        expected = find_values("date", said, self.reference)
        if not self.dated or not expected:
            return False
        days = [abs((d - expected[0].value).days) for d in stated if isinstance(d, date)]
        return any(n <= _CALENDAR_DAYS for n in days)

    def _partial_list(self, value: GivenValue) -> SlotReading | None:
        """A list read back with some of the user's items and without others (a lost
        topping): it differs, stating the items it kept and any other option."""
        items = texts(value.value)
        matches = {item: self._search(item) for item in items}
        kept = [i for i, m in matches.items() if m is not None and self._in_readback(m.start())]
        lost = [i for i in items if matches[i] is None]
        if not kept or not lost:
            return None
        for item in kept:
            if (match := matches[item]) is not None:
                self._blank(*match.span())
        stated = ", ".join(kept + self._other_options(value))
        return self._make(value, SlotOutcome.DIFFERS, stated, f"without {', '.join(lost)}")

    def _other_options(self, value: GivenValue) -> list[str]:
        """The slot's options other than the user's value (nor an option it names, nor a
        word the chatbot takes for it) that a read-back sentence states; their spans are
        blanked."""
        items = texts(value.value)
        same = [w for t in items for w in self.synonyms.named_in(t)]
        # an option the user's value names is the user's ("water" of "2 bottles of water")
        named = [o for o in value.options if any(states_value(o, t) for t in items)]
        given = {fold(t) for t in [*items, *same, *named]}
        found = []
        for option in sorted(value.options, key=len, reverse=True):
            pattern = phrase(option)
            match = pattern.search(self.work) if pattern and fold(option) not in given else None
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
        for match, name in placeholders(self.text):
            slot = next((v for v in open_values if name and _same_name(v.slot, name)), None)
            if slot is not None:
                found[slot.slot] = self._make(slot, SlotOutcome.EMPTY, match.group())
            else:
                markers.append(match.group())
        for v in open_values:
            labelled = self._label_value(v.slot)
            if labelled is not None and (not labelled[1] or is_empty_word(labelled[1])):
                found.setdefault(v.slot, self._make(v, SlotOutcome.EMPTY, labelled[1] or ""))
        bare = [m.group() for m in empty_words(self.text) if self._in_readback(m.start())]
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
        kind = kind_of(value.value, value.kind, self.reference)
        reason = {
            SlotOutcome.AGREES: f"{value.slot}: the confirmation states {stated!r}, as given",
            SlotOutcome.DIFFERS: f"{value.slot}: the user gave {given!r}, the confirmation "
            f"states {stated!r}" + (f" ({how})" if how else ""),
            SlotOutcome.EMPTY: f"{value.slot}: the user gave {given!r}, the confirmation "
            f"states it empty ({stated!r})",
            SlotOutcome.NOT_STATED: f"{value.slot}: not stated in the confirmation",
            SlotOutcome.CANNOT_TELL: f"{value.slot}: cannot tell which of {how} is its value",
        }[outcome]
        return SlotReading(value.slot, outcome, given, stated, kind, self.turn, reason)


_MASKED_DIGITS = 4
"""Digits at least in a masked read-back of a number ("account ending 5678")."""


def _masked(said: str, stated: list[Any]) -> str | None:
    """A stated number that is the last digits of the user's longer one, as a masked
    read-back gives it ("account ending 5678" for ``12345678``), else ``None``."""
    digits = re.sub(r"\D", "", said)
    for value in stated:
        shown = str(show(value))
        if (
            shown.isdigit()
            and _MASKED_DIGITS <= len(shown) < len(digits)
            and digits.endswith(shown)
        ):
            return shown
    return None


def _joined(value: GivenValue) -> str:
    return ", ".join(texts(value.value))


def _same_name(slot: str, name: str) -> bool:
    a, b = (re.sub(r"[\W_]+", "", fold(x)) for x in (slot, name))
    return bool(a and b) and (a in b or b in a)


# -- typed values ---------------------------------------------------------------------------
