"""Values a correct chatbot may change between two runs of the same dialogue, excluded from
every comparison by their type: identifiers (order numbers such as ``C-7`` → ``C-13``,
``#1234``), random ids (uuids, hex codes such as ``44de6a``) and timestamps (a clock time
to the second, an ISO date-time).

A new order gets a new number; that is no bug, and no relation may call it one. What an
identifier is, is ``sparring.values``' to say (``find_values("id", …)``), as for extraction. The
relations compare texts with these values masked (``<id>``, ``<timestamp>``), and EX
never compares identifiers. Other values that vary from run to run (a ready-at time, a
random greeting) are learned from the source replays instead (``_judge``).
"""

from __future__ import annotations

import re
from datetime import date

from sparring.values import find_values

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b")
"""Lower-case hex codes of 6+ characters with digits and letters (``44de6a``)."""
_ISO_DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_CLOCK_SECONDS = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b")

ID = "<id>"
TIMESTAMP = "<timestamp>"


def mask_volatile(text: str) -> str:
    """``text`` with timestamps replaced by ``<timestamp>`` and identifiers and random ids
    by ``<id>`` (see the module docstring)."""
    text = _ISO_DATETIME.sub(TIMESTAMP, text)
    text = _CLOCK_SECONDS.sub(TIMESTAMP, text)
    text = _UUID.sub(ID, text)
    for found in reversed(find_values("id", text, date.min)):  # sparring.values' identifiers
        text = text[: found.start] + ID + text[found.start + len(found.value) :]
    return _HEX.sub(ID, text)
