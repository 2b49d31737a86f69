"""Text from outside (bot replies, user files, model output) made safe to print.

``escape(text)`` is the one helper every console print of such text goes through: it
drops terminal control sequences — ANSI CSI (``ESC [ … m``: colours, cursor moves,
screen clears), OSC (``ESC ] … BEL``: window titles, hyperlinks), other ``ESC`` sequences,
every C0/C1 control character except newline and tab, and the bidirectional overrides
and isolates (U+202A–U+202E, U+2066–U+2069: "Trojan Source" reordering, a reply that
shows "$99" as "99$" or hides words; issue 36) — and then escapes Rich markup
(``[bold]``, ``[/]``, ``[link=…]``), so a reply can neither drive the terminal nor break
or restyle the console output (issue 26, defect 15).
"""

from __future__ import annotations

import re

from rich.markup import escape as escape_markup

from sparring._redact import redact_text

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: ESC [ parameters intermediates final
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: ESC ] … BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC: ESC P … ST
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence (or a lone ESC)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other C0 and C1 controls, DEL (keeps \t and \n)
    r"|[\u202a-\u202e\u2066-\u2069]"  # bidirectional embeddings, overrides and isolates
)


def strip_control(text: str) -> str:
    """``text`` without terminal control sequences or control characters (``\\n`` and
    ``\\t`` kept); a carriage return is removed too, so it cannot overwrite a line."""
    return _SEQUENCES.sub("", text)


def escape(text: object) -> str:
    """``str(text)`` safe to print with Rich: secrets redacted (``sparring._redact``),
    control sequences stripped, markup escaped."""
    return escape_markup(strip_control(redact_text(str(text))))
