"""The confirmation oracle: a confirmation or summary must state the values the user gave.

``confirmation_mismatches()`` compares every chatbot turn that confirms or summarises
(``sparring.confirmation.is_confirmation``) with the profile's values the user said
before it (``sparring.confirmation.given_values``; placeholder values such as "drink of
my choice" are never the user's), typed (``sparring.confirmation.compare_confirmation``).
A slot stated with another value, or stated empty (``None``, ``null``, an empty
``label:``, a template left unfilled), is a mismatch, quoted with both values and the turn.
The chatbot's own words for a value (the profile's ``chatbot.synonyms``) are that value.
Strategy: offline and model-free; where several stated values could be a slot's it
abstains. Source: the agenda-based user simulator's check of a ``confirm`` act against its
goal (Schatzmann et al., NAACL 2007, §3). The default rule ``confirmation_mismatch``
(``check.DEFAULT_RULES``) reads it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from sparring.check._context import FunctionContext, rule_function
from sparring.check._safety import NotApplicable, Unscored
from sparring.check.functions._common import conversation_of, note
from sparring.confirmation import ConfirmationCheck, check_conversation
from sparring.errors import UserInputError
from sparring.precision import precision_note
from sparring.profiles import is_placeholder, load_profile
from sparring.values import Synonyms

_QUOTE = 160
"""Characters of the confirmation quoted in a mismatch."""


def _checks(context: FunctionContext) -> list[ConfirmationCheck]:
    cached = context.cache.get("confirmation")
    if cached is None:
        record = conversation_of(context, "confirmation_mismatches")
        variables = {
            name: value
            for name, value in record.variables.items()
            if value is not None and not (isinstance(value, str) and is_placeholder(value))
        }
        reference = record.started_at.date() if record.started_at else None
        cached = context.cache["confirmation"] = check_conversation(
            record.turns, variables, reference=reference, synonyms=_synonyms(record.profile_path)
        )
    checks: list[ConfirmationCheck] = cached
    return checks


def _synonyms(profile_path: str | None) -> Synonyms:
    """The chatbot's words for one value, ``chatbot.synonyms`` of the profile the
    conversation was simulated from (a Rasa project's entity synonyms: "Physical
    examination" for "check-up"); none when the profile is gone or does not load: then a
    synonym read back is "another value" only if it names another option."""
    path = Path(profile_path) if profile_path else None
    if path is None or not path.is_file():
        return Synonyms()
    return _profile_synonyms(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _profile_synonyms(path: str, modified: int) -> Synonyms:
    """``_synonyms`` of one version of a profile file (``modified``: its time stamp)."""
    try:
        return Synonyms.of(load_profile(path).chatbot.synonyms)
    except UserInputError:
        return Synonyms()


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _QUOTE else flat[: _QUOTE - 1] + "…"


@rule_function("confirmation_mismatches")
def confirmation_mismatches(context: FunctionContext) -> list[str]:
    """The mismatches between the conversation's confirmations and the user's values, one
    sentence each: ``turn 7: room: the user gave 'suite', the confirmation states 'double'
    — "Your booking is confirmed: …"`` (0-based turns); an empty list (falsy) when every
    value a confirmation states agrees.

    Raises ``NotApplicable`` when no chatbot turn confirms or summarises after the user
    gave a value, or the confirmations state none of the user's values; ``Unscored`` when
    no value could be compared because several stated values could be each slot's.
    """
    checks = _checks(context)
    if not checks:
        raise NotApplicable("no confirmation or summary after the user gave a value")
    found = [
        f"turn {reading.turn}: {reading.reason} — {_quote(check.text)!r}"
        for check in checks
        for reading in check.mismatches
    ]
    found += [
        f"turn {check.turn}: the confirmation states {marker!r} — {_quote(check.text)!r}"
        for check in checks
        for marker in check.unattributed
    ]
    turns = sorted({c.turn for c in checks if c.turn is not None})
    if found:
        reason = "; ".join(found) + " " + precision_note("confirmation_mismatches", "mismatch")
        note(context, "confirmation_mismatches", reason=reason, turns=turns)
        return found
    compared = [r for c in checks for r in c.compared]
    if not compared:
        abstained = [r.reason for c in checks for r in c.abstained]
        if abstained:
            raise Unscored("; ".join(abstained))
        raise NotApplicable("the confirmations state none of the values the user gave")
    agreed = ", ".join(sorted({r.slot for r in compared}))
    reason = f"read back as given: {agreed} " + precision_note("confirmation_mismatches", "agrees")
    note(context, "confirmation_mismatches", reason=reason, turns=turns)
    return []
