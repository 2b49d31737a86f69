"""Template leaks: chatbot replies that show an unfilled or null slot.

A chatbot that fills its answers from templates shows a defect when a slot is empty:
"Thanks None! We'll contact you very soon" (Python's ``None``), "Hello {name}",
"Your total is $undefined", "[object Object]", "NaN minutes", "{{ order_id }}". The runner
checks every chatbot reply and records the first leak of a conversation as a generic
failure (code 1004, ``template_leak``) with its turn; the conversation goes on. On by
default; ``--no-template-check`` (``SimulateSettings.template_check``) turns it off.
``evaluate``'s typed breakdown detectors label such a turn too (a neutral module: both
stages read it).

What counts (case-sensitive where English uses the word): ``None`` as a word that is not
the English pronoun (not at the start of a sentence, not before "of", "at all", "left",
"is/are/was/were", "needed", "available", "yet", "whatsoever"); ``null``, ``undefined``,
``NaN`` as whole tokens (not "null and void"); ``{name}`` / ``{0}`` / ``{{ … }}`` /
``${…}`` / ``%s`` placeholders; ``[object Object]``.
"""

from __future__ import annotations

import re

_NONE = re.compile(
    r"(?<![.!?]\s)(?<!^)(?<![\w-])None(?![\w-])"
    r"(?!\s+(?:of|at all|left|is|are|was|were|needed|available|yet|whatsoever|other)\b)",
    re.MULTILINE,
)
_NULLISH = re.compile(r"(?<![\w-])(?:null|undefined|NaN)(?![\w-])(?!\s+and\s+void)")
_PLACEHOLDER = re.compile(
    r"\{\{[^{}]{0,40}\}\}|\$\{[^{}]{0,40}\}|(?<![\w{])\{[A-Za-z_][\w.]{0,30}\}(?!\})|"
    r"(?<![\w{])\{\d\}|(?<![%\w])%[sd](?!\w)|\[object Object\]"
)


def template_leak(text: str) -> str | None:
    """The first unfilled or null slot shown in ``text`` (the matched span), else
    ``None``. See the module docstring for what counts."""
    found = [m for p in (_PLACEHOLDER, _NULLISH, _NONE) if (m := p.search(text))]
    if not found:
        return None
    return min(found, key=lambda m: m.start()).group(0)
