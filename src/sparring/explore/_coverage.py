"""Black-box coverage: which discovered functionalities, parameters and option values a
run's conversations exercised (``coverage.json``; after TRACER's coverage analysis,
thesis chapter 6, measured on the conversations instead of the bot's code).

- a **functionality** is covered when a chatbot turn says what the node's bot turn said
  (its description: the bot's words when the node was found; similarity ≥ ``SIMILAR``) or
  asks one of its parameters' questions, or a user turn says one of its utterances;
- a **parameter** is covered when its question was asked (or, for a parameter without a
  recorded question, when one of its options was said);
- an **option value** is covered when a user turn contains it (case-insensitive, whole
  words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, utils

from sparring.conversations import ConversationRecord, read_json_model
from sparring.explore._model import ExplorationModel, Functionality

COVERAGE_SCHEMA_VERSION = 1
COVERAGE_FILE = "coverage.json"
"""The coverage file at the top of a tested run."""
SIMILAR = 0.8
"""Similarity (0..1) at which a chatbot sentence counts as the node's."""


class ParameterCoverage(BaseModel):
    """One parameter: covered or not, and its option values covered (of ``options``)."""

    name: str
    covered: bool
    options: list[str] = Field(default_factory=list)
    covered_options: list[str] = Field(default_factory=list)


class FunctionalityCoverage(BaseModel):
    """One node: covered or not, by which conversations, and its parameters."""

    id: str
    name: str
    covered: bool
    conversations: list[str] = Field(default_factory=list)
    parameters: list[ParameterCoverage] = Field(default_factory=list)


class Coverage(BaseModel):
    """Coverage of a model by a run: per node, and the three shares in [0, 1]
    (``None`` when there is nothing to cover)."""

    schema_version: int = COVERAGE_SCHEMA_VERSION
    conversations: int = 0
    functionalities: list[FunctionalityCoverage] = Field(default_factory=list)
    functionality_share: float | None = None
    parameter_share: float | None = None
    option_share: float | None = None

    @property
    def covered_ids(self) -> set[str]:
        """Ids of the covered functionalities."""
        return {f.id for f in self.functionalities if f.covered}


def coverage(model: ExplorationModel, records: Iterable[ConversationRecord]) -> Coverage:
    """How much of ``model`` the conversations ``records`` exercised (module docstring)."""
    conversations = list(records)
    nodes = [_node(node, conversations) for node in model.functionalities]
    parameters = [p for n in nodes for p in n.parameters]
    options = [o for p in parameters for o in p.options]
    return Coverage(
        conversations=len(conversations),
        functionalities=nodes,
        functionality_share=_share(sum(n.covered for n in nodes), len(nodes)),
        parameter_share=_share(sum(p.covered for p in parameters), len(parameters)),
        option_share=_share(sum(len(p.covered_options) for p in parameters), len(options)),
    )


def _node(node: Functionality, conversations: list[ConversationRecord]) -> FunctionalityCoverage:
    covering = [c.id for c in conversations if _covers(node, c)]
    parameters = []
    for parameter in node.parameters:
        said_options = [
            o for o in parameter.options if any(_user_said(c, o) for c in conversations)
        ]
        if parameter.question:
            asked = any(_bot_said(c, parameter.question) for c in conversations)
        else:
            asked = bool(said_options)
        parameters.append(
            ParameterCoverage(
                name=parameter.name,
                covered=asked,
                options=list(parameter.options),
                covered_options=said_options,
            )
        )
    return FunctionalityCoverage(
        id=node.id,
        name=node.name,
        covered=bool(covering),
        conversations=covering,
        parameters=parameters,
    )


def _covers(node: Functionality, record: ConversationRecord) -> bool:
    said = [node.description] + [p.question for p in node.parameters if p.question]
    if any(_bot_said(record, s) for s in said if s):
        return True
    return any(_user_said(record, u, whole=True) for u in node.utterances)


def _bot_said(record: ConversationRecord, sentence: str) -> bool:
    for turn in record.turns:
        if turn.role != "assistant":
            continue
        text = "\n".join(turn.messages) or turn.text
        if sentence.lower() in text.lower():
            return True
        if fuzz.partial_ratio(sentence, text, processor=utils.default_process) >= SIMILAR * 100:
            return True
    return False


def _user_said(record: ConversationRecord, phrase: str, *, whole: bool = False) -> bool:
    wanted = phrase.strip().lower()
    if not wanted:
        return False
    pattern = re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")
    for turn in record.turns:
        if turn.role != "user":
            continue
        text = turn.text.strip().lower()
        if (whole and text == wanted) or (not whole and pattern.search(text)):
            return True
    return False


def _share(covered: int, total: int) -> float | None:
    return covered / total if total else None


def read_coverage(run: Path) -> Coverage | None:
    """The ``coverage.json`` of a run directory, or ``None`` when it has none. Raises
    ``ConfigError`` (file, key) when the file does not validate."""
    path = Path(run) / COVERAGE_FILE
    if not path.is_file():
        return None
    return read_json_model(path, Coverage)
