"""Black-box coverage: which discovered functionalities, parameters and option values a
run's conversations exercised (``coverage.json``; after TRACER's coverage analysis,
thesis chapter 6, measured on the conversations instead of the bot's code).

- a **functionality** is covered (*completed*, not mentioned) when a chatbot turn says
  what the node's bot turn said (its description: the bot's words when the node was found;
  similarity ≥ ``SIMILAR``) or asks one of its parameters' questions — a user turn that
  only names the functionality does not count — or when the conversation completed a node
  that comes after it in the workflow (``parents``: the step was passed, its value given
  before the bot asked);
- the **greeting** (a node whose bot turn is the greeting, or the fallback) is listed but
  left out of the shares: every conversation opens with it;
- a **parameter** is covered when its question was asked (or, for a parameter without a
  recorded question, when one of its options was said);
- an **option value** is covered when a user turn contains it (case-insensitive, whole
  words).

``Coverage.untested`` is the run's *no verdict* rule: fewer than ``ENOUGH``
functionalities beyond the greeting, or no conversation that completed one of them, means
nothing was tested beyond the greeting, whatever the rules said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, utils

from sparring.conversations import ConversationRecord, job_result_file, read_json_model
from sparring.explore._model import ExplorationModel, Functionality

_DIGITS = re.compile(r"\d+")
COVERAGE_SCHEMA_VERSION = 1
COVERAGE = "coverage"
"""The coverage result's name in a tested run's ``results`` slot."""
COVERAGE_FILE = f"results/{COVERAGE}.json"
"""The coverage file of a tested run, relative to it (runs before 0.3: at its root)."""
SIMILAR = 0.8
"""Similarity (0..1) at which a chatbot sentence counts as the node's."""
MIN_QUOTE = 12
"""Characters a node's sentence needs to count as quoted from the greeting."""
ENOUGH = 2
"""Functionalities beyond the greeting an exploration must find for a run to test
anything (fewer: *no verdict*)."""
NEXT_STEP = (
    "explore with a model (--model), or seed the exploration with the bot's definition "
    "(--project DIR) or its help pages (--docs DIR)"
)
"""What the user can do about a run that tested nothing."""


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
    greeting: bool = False
    conversations: list[str] = Field(default_factory=list)
    parameters: list[ParameterCoverage] = Field(default_factory=list)


class Coverage(BaseModel):
    """Coverage of a model by a run: per node, the three shares in [0, 1] over the
    functionalities beyond the greeting (``None`` when there is nothing to cover), and
    ``untested``: why the run tested nothing beyond the greeting, with the next step
    (``None`` when it did test something)."""

    schema_version: int = COVERAGE_SCHEMA_VERSION
    conversations: int = 0
    functionalities: list[FunctionalityCoverage] = Field(default_factory=list)
    functionality_share: float | None = None
    parameter_share: float | None = None
    option_share: float | None = None
    untested: str | None = None

    @property
    def covered_ids(self) -> set[str]:
        """Ids of the covered functionalities."""
        return {f.id for f in self.functionalities if f.covered}


def coverage(model: ExplorationModel, records: Iterable[ConversationRecord]) -> Coverage:
    """How much of ``model`` the conversations ``records`` exercised (module docstring)."""
    conversations = list(records)
    nodes = [
        _node(node, conversations, _is_greeting(model, node)) for node in model.functionalities
    ]
    _passed_through(model, nodes)
    tasks = [n for n in nodes if not n.greeting]
    parameters = [p for n in tasks for p in n.parameters]
    options = [o for p in parameters for o in p.options]
    return Coverage(
        conversations=len(conversations),
        functionalities=nodes,
        functionality_share=_share(sum(n.covered for n in tasks), len(tasks)),
        parameter_share=_share(sum(p.covered for p in parameters), len(parameters)),
        option_share=_share(sum(len(p.covered_options) for p in parameters), len(options)),
        untested=untested_reason(len(tasks), sum(n.covered for n in tasks), len(conversations)),
    )


def untested_reason(found: int, completed: int, conversations: int) -> str | None:
    """Why a run tested nothing beyond the greeting (``None`` when it did): ``found``
    functionalities beyond the greeting in the model, ``completed`` of them reached by the
    ``conversations``."""
    if found < ENOUGH:
        return (
            f"nothing tested beyond the greeting: the exploration found {found} "
            f"functionalit{'y' if found == 1 else 'ies'} beyond the greeting (fewer than "
            f"{ENOUGH}); {NEXT_STEP}"
        )
    if completed == 0:
        return (
            f"nothing tested beyond the greeting: none of the {conversations} conversations "
            f"completed any of the {found} functionalities explored; {NEXT_STEP}"
        )
    return None


def _passed_through(model: ExplorationModel, nodes: list[FunctionalityCoverage]) -> None:
    """A step before one a conversation completed was passed in it: the nodes a covered
    node comes after (``parents``, transitively) are covered by its conversations too
    (the user gave a step's value before the bot asked it: "What day?" never came, yet
    the confirmation states the day). The greeting is left as it is."""
    by_id = {n.id: n for n in nodes}
    parents = {f.id: f.parents for f in model.functionalities}
    for node in [n for n in nodes if n.covered]:
        seen: set[str] = set()
        stack = list(parents.get(node.id, []))
        while stack:
            ancestor = by_id.get(stack.pop())
            if ancestor is None or ancestor.id in seen or ancestor.greeting:
                continue
            seen.add(ancestor.id)
            ancestor.covered = True
            ancestor.conversations = sorted({*ancestor.conversations, *node.conversations})
            stack.extend(parents.get(ancestor.id, []))


def _is_greeting(model: ExplorationModel, node: Functionality) -> bool:
    """Whether ``node`` is only the bot's greeting (or its fallback) seen again: the
    start node, or a node whose bot sentence is (in) the greeting or the fallback."""
    if node.id == "greeting" or not node.description.strip():
        return True
    said = node.description.strip().lower()
    for text in (model.greeting, model.fallback):
        if not text:
            continue
        similar = fuzz.ratio(said, text, processor=utils.default_process) >= SIMILAR * 100
        if similar or (len(said) >= MIN_QUOTE and said in text.lower()):
            return True
    return False


def _node(
    node: Functionality, conversations: list[ConversationRecord], greeting: bool
) -> FunctionalityCoverage:
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
        greeting=greeting,
        conversations=covering,
        parameters=parameters,
    )


def _covers(node: Functionality, record: ConversationRecord) -> bool:
    said = [node.description] + [p.question for p in node.parameters if p.question]
    return any(_bot_said(record, s) for s in said if s)


def _bot_said(record: ConversationRecord, sentence: str) -> bool:
    for turn in record.turns:
        if turn.role != "assistant":
            continue
        text = _DIGITS.sub("#", "\n".join(turn.messages) or turn.text)
        said = _DIGITS.sub("#", sentence)
        if said.lower() in text.lower():
            return True
        if fuzz.partial_ratio(said, text, processor=utils.default_process) >= SIMILAR * 100:
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
    path = job_result_file(run, COVERAGE)
    if not path.is_file():
        return None
    return read_json_model(path, Coverage)
