"""Prompts of the analysis steps: extraction, global merge, consolidation,
classification, workflow inference and categories (after TRACER's
``functionality_extraction_prompts``, ``functionality_refinement_prompts``,
``classification_prompts`` and ``workflow_prompts``)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sparring.explore._model import Functionality

EXTRACT = """\
You analyse one conversation between a user (U1, U2, … number the user's messages) and a
chatbot, and list the chatbot's FUNCTIONALITIES seen in it: concrete steps the chatbot
performs or information it gives, towards a user's goal.
- Chatbot-centric: what the chatbot does or provides; never steps that only describe
  what the user says. No meta functionalities ("list capabilities", greetings) unless
  choosing among listed options is a required step of a task. Nothing about failures
  (fallbacks).
- Distinct paths get distinct functionalities (a standard item and a custom item).
- General snake_case names for the action ("prompt_for_size", not
  "prompt_for_large_size"); instance values belong in parameters.
- parameters: what the chatbot asks the user to give for this step; "options" are the
  choices it offered for it, copied exactly as the chatbot wrote them (buttons or an
  enumeration in its text); empty when input is free. "question": the chatbot's words
  that asked. "type": string, int, float, money, date, time or boolean.
- outputs: information the chatbot gives (a price, an order id, opening hours), named by
  what it is, with an "example" value from the conversation.
- A step that shows options and asks to choose in the same turn is ONE functionality
  with a parameter; showing in one turn and asking in another are two.
- user_turns: the numbers of the user messages that led the chatbot to this step.
Reply with JSON: "functionalities" (a list; empty when there is nothing new)."""


def extract_user(transcript: str, focus: Functionality | None) -> str:
    """The extraction call's user message: the focus (branch exploration) and the
    numbered transcript."""
    context = f"This session explored '{focus.name}': {focus.description}\n\n" if focus else ""
    return f"{context}CONVERSATION:\n{transcript}"


MERGE = """\
Decide which NEW functionalities of a chatbot are the same as an EXISTING one: the same
action or capability from the user's point of view, even if named or described
differently. Different actions (informing vs asking for input), different workflow
paths or different objects are NOT the same. When in doubt, they are different.
Reply with JSON: "duplicates", a list of {"new": <new id>, "existing": <existing id>}
(ids exactly as given); leave out every new functionality that is distinct."""

CONSOLIDATE = """\
Here are all functionalities found while exploring a chatbot. Find groups that are the
same core function (they differ only in wording or in values handled as parameters) and
give each group one canonical snake_case name and description. Keep separate: different
actions, distinct workflow paths, different objects. Default: keep separate.
Reply with JSON: "groups", a list of {"ids": [...], "name": ..., "description": ...};
an empty list when nothing should merge."""

CLASSIFY = """\
Classify a chatbot's primary interaction style from its functionalities and
conversations:
- transactional: it guides the user through a multi-step process with an order of
  steps, choices and a goal (ordering, booking, filling a form);
- informational: it answers independent questions; topics need no particular order.
Reply with JSON: "bot_type" ("transactional" or "informational") and "reason"."""

_WORKFLOW_COMMON = """\
Each functionality's "parents" are the ids of the steps that must be completed
IMMEDIATELY before it. A step without parents is an entry point. Meta interactions
(greeting, "what can you do", help) are entry points. Never give a step a parent only
because it came later in one conversation: the parent must be needed for the child.
Reply with JSON: "nodes", a list of {"id": ..., "parents": [...]} with every id given."""

WORKFLOW_TRANSACTIONAL = f"""\
You model the workflow of a TRANSACTIONAL chatbot from its functionalities and
conversations: sequences (a step that only happens after another, e.g. choosing a size
after choosing a product), branches (mutually exclusive choices leading to different
next steps) and joins (different paths reaching the same next step: give it several
parents).
{_WORKFLOW_COMMON}"""

WORKFLOW_INFORMATIONAL = f"""\
You model the interaction flow of an INFORMATIONAL chatbot (questions and answers on
independent topics) from its functionalities and conversations. By default every
functionality is an entry point (no parents). Give a parent ONLY when the chatbot forces
the order explicitly and consistently across several conversations.
{_WORKFLOW_COMMON}"""

CATEGORIES = """\
Group a chatbot's functionalities into a few display categories (short titles such as
"Ordering" or "Information"); related steps of one workflow share a category.
Reply with JSON: "categories", a list of {"id": ..., "category": ...} with every id."""


def describe(nodes: Sequence[Functionality], *, details: bool = True) -> str:
    """Nodes as JSON lines for a prompt: id, name, description (and, with ``details``,
    parameter names with options and output names)."""
    lines = []
    for node in nodes:
        item: dict[str, object] = {
            "id": node.id,
            "name": node.name,
            "description": node.description,
        }
        if details:
            item["parameters"] = [
                f"{p.name} ({'/'.join(p.options)})" if p.options else p.name
                for p in node.parameters
            ]
            item["outputs"] = [o.name for o in node.outputs]
        lines.append(json.dumps(item, ensure_ascii=False))
    return "\n".join(lines)


def merge_user(existing: Sequence[Functionality], new: Sequence[Functionality]) -> str:
    """The global merge call's user message."""
    return f"EXISTING:\n{describe(existing)}\n\nNEW:\n{describe(new)}"


def nodes_and_snippets(nodes: Sequence[Functionality], snippets: str) -> str:
    """User message of the refinement calls: the nodes and conversation snippets."""
    return f"FUNCTIONALITIES:\n{describe(nodes)}\n\nCONVERSATIONS:\n{snippets}"
