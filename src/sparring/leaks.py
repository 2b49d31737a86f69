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
``${…}`` / ``%s`` / ``%(name)s`` placeholders; ``[object Object]``.

The same markers read inside a confirmation (``sparring.confirmation``: a slot stated
empty) come from here too: ``placeholders`` (each with the slot name it leaves unfilled),
``empty_words`` and ``is_empty_word`` (the words a program prints for a missing value,
``None``, ``null``, ``undefined``, ``NaN``, ``nil``, ``N/A``: in a read-back sentence or
after a label they are a value stated empty, whatever the pronoun rule above says).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_NONE = re.compile(
    r"(?<![.!?]\s)(?<!^)(?<![\w-])None(?![\w-])"
    r"(?!\s+(?:of|at all|left|is|are|was|were|needed|available|yet|whatsoever|other)\b)",
    re.MULTILINE,
)
_NULLISH = re.compile(r"(?<![\w-])(?:null|undefined|NaN)(?![\w-])(?!\s+and\s+void)")
_PLACEHOLDER = re.compile(
    r"\{\{[^{}]{0,40}\}\}|\$\{[^{}]{0,40}\}|(?<![\w{])\{[A-Za-z_][\w.]{0,30}\}(?!\})|"
    r"(?<![\w{])\{\d\}|(?<![%\w])%[sd](?!\w)|(?<![%\w])%\(\w{1,30}\)[sd]|\[object Object\]"
)
_NAME = re.compile(r"[A-Za-z_]\w*")
_EMPTY_WORD = re.compile(r"(?<![\w'])(?:None|null|NULL|Null|undefined|NaN|nil|N/A)(?!\w| of\b)")


def template_leak(text: str) -> str | None:
    """The first unfilled or null slot shown in ``text`` (the matched span), else
    ``None``. See the module docstring for what counts."""
    found = [m for p in (_PLACEHOLDER, _NULLISH, _NONE) if (m := p.search(text))]
    if not found:
        return None
    return min(found, key=lambda m: m.start()).group(0)


def placeholders(text: str) -> Iterator[tuple[re.Match[str], str | None]]:
    """Each unfilled placeholder in ``text`` (``{{ name }}``, ``${name}``, ``{name}``,
    ``%(name)s``, ``{0}``, ``%s``, ``[object Object]``) with the name of the slot it
    leaves unfilled (``None`` when it names none), in order."""
    for match in _PLACEHOLDER.finditer(text):
        said = match.group()
        braced = said.startswith(("{", "${", "%("))
        name = _NAME.match(said.strip("{}$%() ")) if braced else None
        yield match, (name.group() if name is not None else None)


def empty_words(text: str) -> Iterator[re.Match[str]]:
    """Each word a program prints for a missing value in ``text`` (``None``, ``null``,
    ``undefined``, ``NaN``, ``nil``, ``N/A``; not "None of")."""
    return _EMPTY_WORD.finditer(text)


def is_empty_word(text: str) -> bool:
    """Whether ``text`` is only such a word (a label's value: "Toppings: None")."""
    return _EMPTY_WORD.fullmatch(text.strip()) is not None
