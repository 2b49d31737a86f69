"""Refinement after the sessions: consolidation, classification, workflow inference and
categories (Sotillo del Horno, 2025, ch. 5; TRACER ``merge_similar_functionalities``,
``chatbot_classification``, ``workflow_builder``).

The model proposes; the code keeps the model a DAG of known nodes:

- parents that are not nodes, or the node itself, are dropped;
- edges seen in the conversations (the parent reached before the child in a session) are
  added first, and an edge that would close a cycle is dropped (noted);
- for an informational bot the workflow is conservative: an edge is kept only when the
  parent came before the child in every session that reached the child, and in at least
  ``INFORMATIONAL_EVIDENCE`` sessions; every other proposed edge is dropped (noted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sparring.explore._model import BotType
from sparring.explore._tracer import _prompts_analysis as prompts
from sparring.explore._tracer._calls import Asker, chat
from sparring.explore._tracer._explorer import Outcome
from sparring.explore._tracer._extract import transcript
from sparring.explore._tracer._merge import Graph
from sparring.explore._tracer._schemas import Categories, Classification, Consolidation, Workflow

if TYPE_CHECKING:
    import networkx as nx

INFORMATIONAL_EVIDENCE = 2
"""Sessions that must show a parent before its child for an informational bot's link."""

SNIPPET_CHARS = 1500
"""Characters of one session shown to the refinement steps (head and tail; TRACER's)."""

SNIPPETS_CHARS = 7000
"""Characters of all sessions shown to the refinement steps (TRACER's limit)."""


def snippets(outcomes: Sequence[Outcome]) -> str:
    """The sessions' transcripts, each cut to ``SNIPPET_CHARS`` (head … tail), until
    ``SNIPPETS_CHARS`` are used."""
    parts: list[str] = []
    total = 0
    for outcome in outcomes:
        text = transcript(outcome.turns)
        if len(text) > SNIPPET_CHARS:
            half = SNIPPET_CHARS // 2
            text = f"{text[:half]}\n…\n{text[-half:]}"
        if total + len(text) > SNIPPETS_CHARS:
            break
        parts.append(f"--- {outcome.record_id} ---\n{text}")
        total += len(text)
    return "\n".join(parts) or "(no conversations)"


async def consolidate(asker: Asker, graph: Graph) -> list[str]:
    """Merge the groups of nodes the model finds to be one functionality; notes."""
    if len(graph.nodes) < 2:
        return []
    user = f"FUNCTIONALITIES:\n{prompts.describe(graph.functionalities())}"
    reply = await asker.ask(
        "consolidate", "refinement", chat("consolidate", prompts.CONSOLIDATE, user), Consolidation
    )
    return graph.apply_groups(reply.groups)


async def classify(asker: Asker, graph: Graph, outcomes: Sequence[Outcome]) -> BotType:
    """Transactional or informational; ``unknown`` without nodes."""
    if not graph.nodes:
        return "unknown"
    user = prompts.nodes_and_snippets(graph.functionalities(), snippets(outcomes))
    reply = await asker.ask(
        "classify", "refinement", chat("classify", prompts.CLASSIFY, user), Classification
    )
    return reply.bot_type


async def infer_workflow(
    asker: Asker, graph: Graph, outcomes: Sequence[Outcome], bot_type: BotType
) -> list[str]:
    """Set every node's ``parents`` from the model's workflow (see the module docstring);
    returns notes on dropped links."""
    if not graph.nodes:
        return []
    system = (
        prompts.WORKFLOW_TRANSACTIONAL
        if bot_type == "transactional"
        else prompts.WORKFLOW_INFORMATIONAL
    )
    user = prompts.nodes_and_snippets(graph.functionalities(), snippets(outcomes))
    reply = await asker.ask("workflow", "refinement", chat("workflow", system, user), Workflow)
    return apply_workflow(graph, reply, conservative=bot_type != "transactional")


def _observed(graph: Graph, parent: str, child: str) -> tuple[int, int]:
    """(sessions where ``parent`` came before ``child``, sessions that reached ``child``)."""
    first = graph.nodes[parent].first_turn
    reached = graph.nodes[child].first_turn
    before = sum(1 for s, turn in reached.items() if s in first and first[s] < turn)
    return before, len(reached)


def apply_workflow(graph: Graph, workflow: Workflow, *, conservative: bool) -> list[str]:
    """Set parents from ``workflow`` (rules in the module docstring); returns notes."""
    import networkx as nx

    notes: list[str] = []
    proposed: list[tuple[str, str]] = []
    for item in workflow.nodes:
        if item.id not in graph.nodes:
            continue
        for parent in dict.fromkeys(item.parents):
            if parent == item.id or parent not in graph.nodes:
                notes.append(f"workflow: dropped unknown parent {parent!r} of {item.id}")
            else:
                proposed.append((parent, item.id))
    kept: list[tuple[str, str]] = []
    for parent, child in proposed:
        before, reached = _observed(graph, parent, child)
        if conservative and (before < reached or before < INFORMATIONAL_EVIDENCE):
            notes.append(f"workflow: dropped unsupported link {parent} -> {child}")
        else:
            kept.append((parent, child))
    kept.sort(key=lambda edge: _observed(graph, *edge)[0] == 0)  # stable: evidence first
    dag: nx.DiGraph[str] = nx.DiGraph()
    dag.add_nodes_from(graph.nodes)
    for node in graph.nodes.values():
        node.fn.parents = []
    for parent, child in kept:
        if nx.has_path(dag, child, parent):
            notes.append(f"workflow: dropped {parent} -> {child} (it would close a cycle)")
            continue
        dag.add_edge(parent, child)
    for node_id in graph.nodes:
        parents = set(dag.predecessors(node_id))
        graph.nodes[node_id].fn.parents = [p for p in graph.nodes if p in parents]
    return notes


async def categorise(asker: Asker, graph: Graph) -> None:
    """Give every node the display category the model assigns (``None`` if it gives
    none)."""
    if not graph.nodes:
        return
    user = prompts.describe(graph.functionalities(), details=False)
    reply = await asker.ask(
        "categories", "refinement", chat("categories", prompts.CATEGORIES, user), Categories
    )
    for item in reply.categories:
        if item.id in graph.nodes and item.category.strip():
            graph.nodes[item.id].fn.category = item.category.strip()
