"""Coverage against the bot's definition (``--project``; issue 20): which intents, form
slots, responses and flows (stories, rules) a set of conversations reached, read from the
chatbot's replies — the black-box counterpart of Rasa's own ``rasa test`` coverage.

- a **response** is reached when a chatbot turn says one of its texts (``{slot}``
  placeholders match any words; case, digits and punctuation ignored);
- an **intent** is reached when a response that a flow gives right after it was said, or
  the form it starts asked one of its slots (for an intent no flow answers, when one of
  its example utterances was said by the user);
- an intent without any example utterance cannot be reached by any user input (the
  bot's NLU never predicts it): it is listed under ``unreachable`` with the reason and
  left out of the intents' share;
- a **form slot** is reached when its question (``utter_ask_<slot>``) was asked;
- a **flow** is reached when one conversation says all the responses of its actions that
  have texts, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from sparring.conversations import ConversationRecord, job_result_file, read_json_model
from sparring.explore._project import Definition

DEFINITION_COVERAGE = "definition_coverage"
"""Coverage against the definition (with ``--project``): its name in the ``results`` slot."""
DEFINITION_COVERAGE_FILE = f"results/{DEFINITION_COVERAGE}.json"
"""That file, relative to the tested run (runs before 0.3: at its root)."""


class Reached(BaseModel):
    """One kind of element: every name, and those reached (a share in [0, 1], ``None``
    when the definition has none)."""

    names: list[str] = Field(default_factory=list)
    reached: list[str] = Field(default_factory=list)

    @property
    def share(self) -> float | None:
        """Reached names over all names; ``None`` when there are none."""
        return len(self.reached) / len(self.names) if self.names else None


class DefinitionCoverage(BaseModel):
    """What the conversations reached of the definition (module docstring)."""

    schema_version: int = 1
    source: str
    conversations: int = 0
    intents: Reached = Field(default_factory=Reached)
    unreachable: dict[str, str] = Field(default_factory=dict)
    """Intents no user input can reach → why (not counted in ``intents``)."""
    slots: Reached = Field(default_factory=Reached)
    responses: Reached = Field(default_factory=Reached)
    flows: Reached = Field(default_factory=Reached)


def definition_coverage(
    definition: Definition, records: Iterable[ConversationRecord]
) -> DefinitionCoverage:
    """Coverage of ``definition`` by the conversations ``records`` (module docstring)."""
    conversations = list(records)
    said = [_bot_lines(r) for r in conversations]
    patterns = {name: [_pattern(t) for t in texts] for name, texts in definition.responses.items()}
    reached_responses = [
        name
        for name, found in patterns.items()
        if found and any(p.search(line) for lines in said for line in lines for p in found)
    ]
    done = set(reached_responses)
    answers = _answers(definition)
    asked = {slot for slot in definition.questions if f"utter_ask_{slot}" in done}
    intents = []
    unreachable = definition.unreachable()
    reachable = [i for i in definition.intents if i not in unreachable]
    for intent in reachable:
        examples = definition.intents[intent]
        responses = answers.get(intent, set())
        forms = [f for f in responses if f in definition.form_slots]
        if (
            responses & done
            or any(asked & set(definition.form_slots[f]) for f in forms)
            or (not responses and _user_said(conversations, examples))
        ):
            intents.append(intent)
    slots = [s for s in definition.questions if f"utter_ask_{s}" in done]
    flows = [name for name, steps in definition.flows.items() if _flow_said(steps, patterns, said)]
    return DefinitionCoverage(
        source=str(definition.source),
        conversations=len(conversations),
        intents=Reached(names=reachable, reached=intents),
        unreachable=unreachable,
        slots=Reached(names=list(definition.questions), reached=slots),
        responses=Reached(names=[n for n, p in patterns.items() if p], reached=reached_responses),
        flows=Reached(names=[n for n, s in definition.flows.items() if s], reached=flows),
    )


def _answers(definition: Definition) -> dict[str, set[str]]:
    """Intent → the responses a flow gives right after it (actions up to the next intent)."""
    found: dict[str, set[str]] = {}
    for steps in definition.flows.values():
        intent: str | None = None
        for step in steps:
            kind, _, name = step.partition(":")
            if kind == "intent":
                intent = name
            elif intent is not None and (
                name in definition.responses or name in definition.form_slots
            ):
                found.setdefault(intent, set()).add(name)
    return found


def _flow_said(
    steps: list[str], patterns: dict[str, list[re.Pattern[str]]], said: list[list[str]]
) -> bool:
    wanted = [s.partition(":")[2] for s in steps if s.startswith("action:")]
    wanted = [w for w in wanted if patterns.get(w)]
    if not wanted:
        return False
    for lines in said:
        position = 0
        for line in lines:
            if position < len(wanted) and any(p.search(line) for p in patterns[wanted[position]]):
                position += 1
        if position == len(wanted):
            return True
    return False


def _pattern(text: str) -> re.Pattern[str]:
    """A response text as a pattern: ``{slot}`` matches any words; spacing, case, digits
    and punctuation are loose."""
    parts = re.split(r"\{[^}]*\}", _loose(text))
    body = r".{0,80}?".join(re.escape(p).replace(r"\ ", r"\s*") for p in parts)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def _loose(text: str) -> str:
    kept = re.sub(r"[^\w{} ]+", " ", text.lower())
    return " ".join(re.sub(r"\d+", "0", kept).split())


def _bot_lines(record: ConversationRecord) -> list[str]:
    return [_loose("\n".join(t.messages) or t.text) for t in record.turns if t.role == "assistant"]


def _user_said(conversations: list[ConversationRecord], examples: list[str]) -> bool:
    wanted = {e.strip().lower() for e in examples}
    return any(
        t.role == "user" and t.text.strip().lower() in wanted
        for record in conversations
        for t in record.turns
    )


def read_definition_coverage(run: Path) -> DefinitionCoverage | None:
    """The ``definition_coverage.json`` of a run directory, or ``None`` when it has none."""
    path = job_result_file(run, DEFINITION_COVERAGE)
    return read_json_model(path, DefinitionCoverage) if path.is_file() else None
