"""Rasa 1.x/2.x Markdown training data, line by line.

NLU files have sections ``## intent:name``, ``## synonym:value``, ``## regex:name`` and
``## lookup:name`` whose items are ``- text`` lines; story files have ``## story name``
sections (``>> rule name`` in Rasa 2.x) whose steps are ``* intent{…}`` user turns and
``  - action`` bot turns (``  - slot{…}``, ``  - form{…}`` are events, ``> name``
checkpoints).
"""

from __future__ import annotations

import re

from sparring.rasa_project._model import (
    Dialogue,
    Example,
    NluBlock,
    Step,
    TrainingFile,
    is_blank,
    trim_end,
)

_NLU_HEADER = re.compile(r"^##\s*(intent|synonym|regex|lookup)\s*:\s*(.+?)\s*$")
_STORY_HEADER = re.compile(r"^(##|>>)\s*(.*?)\s*$")
_ITEM = re.compile(r"^\s*[-*+]\s+(.*?)\s*$")
_USER = re.compile(r"^\s*\*\s*(.+?)\s*$")
_BOT = re.compile(r"^\s*-\s*(.+?)\s*$")
_FORM = re.compile(r"^\s*-\s*(?:form|active_loop)\s*\{\s*\"name\"\s*:\s*(?:\"([^\"]+)\"|null)")


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``##``/``>>`` section, without trailing blank lines."""
    starts = [number for number, line in enumerate(lines) if _STORY_HEADER.match(line)]
    bounds = [*starts, len(lines)]
    return [(start, trim_end(lines, start, bounds[i + 1])) for i, start in enumerate(starts)]


def _step(number: int, line: str) -> Step | None:
    if is_blank(line) or line.lstrip().startswith("<!--"):
        return None
    user = _USER.match(line)
    if user:
        name = re.sub(r"\{.*?\}", "", user.group(1)).strip()  # entities dropped
        return Step("intent", name, number, number + 1)
    bot = _BOT.match(line)
    if bot and "{" not in bot.group(1):
        return Step("action", bot.group(1), number, number + 1)
    form = _FORM.match(line)
    if form:  # Rasa 1.x's form{"name": …}: the active loop
        return Step("active_loop", form.group(1) or "null", number, number + 1)
    return Step("other", line.strip(), number, number + 1)


def read_training(path: str, text: str) -> TrainingFile:
    """The NLU blocks, stories and rules of a Markdown training-data file."""
    lines = text.splitlines()
    blocks: list[NluBlock] = []
    dialogues: list[Dialogue] = []
    for start, end in _sections(lines):
        nlu = _NLU_HEADER.match(lines[start])
        if nlu:
            examples = tuple(
                Example(number, match.start(1), match.group(1))
                for number in range(start + 1, end)
                if (match := _ITEM.match(lines[number]))
            )
            blocks.append(NluBlock(nlu.group(1), nlu.group(2), start, end, examples))
            continue
        header = _STORY_HEADER.match(lines[start])
        assert header is not None
        kind = "rule" if header.group(1) == ">>" else "story"
        steps = tuple(
            step
            for number in range(start + 1, end)
            if (step := _step(number, lines[number])) is not None
        )
        dialogues.append(Dialogue(kind, header.group(2), start, end, steps))
    return TrainingFile(path, text, tuple(blocks), tuple(dialogues))
