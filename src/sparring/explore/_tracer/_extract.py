"""Functionality extraction from one session, and the session-local merge.

After TRACER ``analysis/functionality_extraction.py`` (Sotillo del Horno, 2025, ch. 4):
one model call per session reads the numbered transcript and returns the functionalities
the chatbot showed (name, description, parameters with options, outputs) and which user
messages reached each. Options are then re-spelt as the chatbot offered them, and nodes
of the same id found in the one session are merged (TRACER groups by normalised name
and asks the model; a name that normalises to the same id is the same node here, without
a call).
"""

from __future__ import annotations

import re

from sparring.conversations import Turn
from sparring.explore._model import Functionality, Parameter, node_id
from sparring.explore._tracer._calls import Asker, chat
from sparring.explore._tracer._explorer import Outcome
from sparring.explore._tracer._nodes import Node, combine, unite_outputs, unite_parameters, verbatim
from sparring.explore._tracer._prompts_analysis import EXTRACT, extract_user
from sparring.explore._tracer._schemas import ExtractedFunctionality, Extraction
from sparring.types import Strategy


def transcript(turns: list[Turn]) -> str:
    """The session as numbered text: ``U1 USER: …`` lines and ``CHATBOT: …`` lines (with
    buttons in SENSEI's rendering)."""
    lines: list[str] = []
    number = 0
    for turn in turns:
        if turn.role == "user":
            number += 1
            lines.append(f"U{number} USER: {turn.text}")
        else:
            lines.append(f"CHATBOT: {turn.text}")
    return "\n".join(lines)


def _user_messages(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns if t.role == "user"]


async def extract(asker: Asker, outcome: Outcome) -> list[Node]:
    """The nodes of ``outcome``'s session, merged by id (session-local merge), in the
    order the model listed them; none (and no call) when the chatbot answered nothing.

    Raises ``StepFailed`` (step ``extract``) when the model fails."""
    if not outcome.answered:
        return []
    messages = chat("extract", EXTRACT, extract_user(transcript(outcome.turns), outcome.focus))
    result = await asker.ask("extract", outcome.name, messages, Extraction)
    nodes = [_node(f, outcome) for f in result.functionalities if f.name.strip()]
    return local_merge(nodes)


def local_merge(nodes: list[Node]) -> list[Node]:
    """Nodes with the same id combined into the first of them (order kept)."""
    by_id: dict[str, Node] = {}
    for node in nodes:
        if node.id in by_id:
            combine(by_id[node.id], node)
        else:
            by_id[node.id] = node
    return list(by_id.values())


def _node(found: ExtractedFunctionality, outcome: Outcome) -> Node:
    users = _user_messages(outcome.turns)
    turns = sorted({t for t in found.user_turns if 1 <= t <= len(users)})
    offered = [b.text for t in outcome.turns for b in t.buttons]
    said = [m for t in outcome.turns if t.role == "assistant" for m in t.messages]
    parameters = [
        _verbatim_options(p.to_parameter(), offered, said)
        for p in found.parameters
        if p.name.strip()
    ]
    fn = Functionality(
        id=node_id(found.name),
        name=found.name.strip(),
        description=found.description.strip(),
        parameters=unite_parameters([], parameters),
        outputs=unite_outputs([], [o.to_output() for o in found.outputs if o.name.strip()]),
        utterances=list(dict.fromkeys(users[t - 1] for t in turns)),
        sessions=[outcome.record_id],
        strategy=Strategy.LLM,
        evidence=["extracted by the model from an exploration session"],
    )
    return Node(
        fn,
        first_turn={outcome.record_id: turns[0]} if turns else {},
        found_while=outcome.focus.id if outcome.focus else None,
    )


def _verbatim_options(param: Parameter, offered: list[str], said: list[str]) -> Parameter:
    """Options re-spelt as offered. The bot message that enumerates them is read first:
    the one naming most of them, closest together ("Small, Medium or Large" before "small
    pizzas cost 8 €, medium 10 € …")."""

    def rank(text: str) -> tuple[int, int]:
        spans = [m.span() for o in param.options if (m := _find(o, text))]
        if not spans:
            return (0, 0)
        return (-len(spans), max(e for _, e in spans) - min(b for b, _ in spans))

    ranked = sorted(said, key=rank)
    options = list(dict.fromkeys(verbatim(o, offered, ranked) for o in param.options))
    return param.model_copy(update={"options": options})


def _find(option: str, text: str) -> re.Match[str] | None:
    return re.search(rf"(?<!\w){re.escape(option.strip())}(?!\w)", text, re.IGNORECASE)
