"""Regular expressions from user files (rules, probe suites), run with a time limit.

A pattern such as ``(.*.*)*XYZ`` backtracks for minutes on a short text; Python's ``re``
cannot be interrupted, so such patterns run on the ``regex`` package (compatible with
``re`` in its default ``V0`` mode), whose matching takes a ``timeout``:

- ``compile_pattern(pattern)`` compiles (case-insensitive by default); raises
  ``ValueError`` with the reason for an invalid pattern.
- ``search(compiled, text, timeout)`` is ``compiled.search(text)`` that raises
  ``PatternTimeout`` (a ``ValueError``) after ``timeout`` seconds; ``fullmatch`` likewise.

Every pattern a user writes goes through here: rules, probe suites and oracles, custom
types' ``format:`` (``sparring.profiles.CustomType``), the scripted chatbot's rules.

A rule function that raises gives the rule an *error* verdict, never a pass (issue 26,
defect 16).
"""

from __future__ import annotations

import regex

DEFAULT_TIMEOUT = 2.0
"""Seconds a pattern may run on one text when the caller has no limit of its own (the
default of ``check --timeout``)."""


class PatternTimeout(ValueError):
    """A user's regular expression ran longer than its time limit."""


def compile_pattern(pattern: str, *, ignore_case: bool = True) -> regex.Pattern[str]:
    """``pattern`` compiled by ``regex`` (``re``-compatible ``V0``); ``ValueError`` when
    it is not a valid regular expression."""
    flags = regex.V0 | (regex.IGNORECASE if ignore_case else 0)
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None


def search(
    compiled: regex.Pattern[str], text: str, timeout: float = DEFAULT_TIMEOUT
) -> regex.Match[str] | None:
    """The first match of ``compiled`` in ``text``, or ``None``; raises ``PatternTimeout``
    when matching takes longer than ``timeout`` seconds."""
    try:
        return compiled.search(text, timeout=timeout)
    except TimeoutError:
        raise PatternTimeout(
            f"the regular expression {compiled.pattern!r} ran longer than {timeout:g} s on "
            f"a {len(text):,}-character text (catastrophic backtracking?)"
        ) from None


def fullmatch(
    compiled: regex.Pattern[str], text: str, timeout: float = DEFAULT_TIMEOUT
) -> regex.Match[str] | None:
    """``compiled.fullmatch(text)``, or ``None``; raises ``PatternTimeout`` when matching
    takes longer than ``timeout`` seconds."""
    try:
        return compiled.fullmatch(text, timeout=timeout)
    except TimeoutError:
        raise PatternTimeout(
            f"the regular expression {compiled.pattern!r} ran longer than {timeout:g} s on "
            f"{text[:60]!r} (catastrophic backtracking?)"
        ) from None
