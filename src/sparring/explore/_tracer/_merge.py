"""The global node set and the global merge of each session's nodes into it.

After TRACER ``_analyze_session_and_update_nodes`` and ``is_duplicate_functionality``
(Sotillo del Horno, 2025, ch. 4): a new node whose id is already known is the same node
(TRACER: exact name match); the remaining new nodes are checked against the known ones by
the model in ONE call per session (TRACER asks once per new node); a duplicate is merged
into the known node (parameters and outputs combined, see ``_nodes.combine``), the rest
are added. Sessions merge in session order, so the result does not depend on which
concurrent session finished first.
"""

from __future__ import annotations

from sparring.explore._model import Functionality, node_id
from sparring.explore._tracer._calls import Asker, chat
from sparring.explore._tracer._nodes import Node, combine
from sparring.explore._tracer._prompts_analysis import MERGE, merge_user
from sparring.explore._tracer._schemas import MergeDecision, MergeGroup


class Graph:
    """The nodes found so far, in discovery order (``nodes``: id → ``Node``)."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}

    def functionalities(self) -> list[Functionality]:
        """Copies of the nodes' functionalities, in order."""
        return [n.fn.model_copy(deep=True) for n in self.nodes.values()]

    def absorb(self, target: str, other: str) -> None:
        """Merge node ``other`` into node ``target`` and drop ``other``."""
        combine(self.nodes[target], self.nodes.pop(other))
        for node in self.nodes.values():
            if node.found_while == other:
                node.found_while = target

    def rename(self, old: str, name: str, description: str) -> str:
        """Give node ``old`` a canonical ``name`` (and ``description`` when not empty);
        its id follows the name unless another node has that id. Returns the id."""
        node = self.nodes[old]
        new = node_id(name)
        if new != old and new in self.nodes:
            new = old
        node.fn.name = name.strip() or node.fn.name
        node.fn.description = description.strip() or node.fn.description
        if new != old:
            node.fn.id = new
            self.nodes = {(new if k == old else k): v for k, v in self.nodes.items()}
            for other in self.nodes.values():
                if other.found_while == old:
                    other.found_while = new
        return new

    def apply_groups(self, groups: list[MergeGroup]) -> list[str]:
        """Merge each group (known ids, each used once, at least two) into its first
        node and give it the group's name; returns a note per merge."""
        notes: list[str] = []
        used: set[str] = set()
        for group in groups:
            ids = [i for i in dict.fromkeys(group.ids) if i in self.nodes and i not in used]
            if len(ids) < 2:
                continue
            used.update(ids)
            for other in ids[1:]:
                self.absorb(ids[0], other)
            kept = self.rename(ids[0], group.name, group.description)
            used.add(kept)
            notes.append(f"consolidated {', '.join(ids)} into {kept}")
        return notes


async def merge_session(asker: Asker, graph: Graph, found: list[Node], where: str) -> list[str]:
    """Merge ``found`` (one session's nodes, already merged locally) into ``graph``;
    returns the ids of the nodes added (the others merged into known nodes).

    The model is asked only when new ids remain and ``graph`` is not empty. Nothing in
    ``graph`` changes before that call, so a ``StepFailed`` leaves it as it was."""
    fresh = [n for n in found if n.id not in graph.nodes]
    duplicates: dict[str, str] = {}
    if fresh and graph.nodes:
        messages = chat(
            "merge",
            MERGE,
            merge_user(
                [n.fn for n in graph.nodes.values()],
                [n.fn for n in fresh],
            ),
        )
        decision = await asker.ask("merge", where, messages, MergeDecision)
        fresh_ids = {n.id for n in fresh}
        duplicates = {
            d.new: d.existing
            for d in decision.duplicates
            if d.new in fresh_ids and d.existing in graph.nodes
        }
    added: list[str] = []
    for node in found:
        target = node.id if node.id in graph.nodes else duplicates.get(node.id)
        if target is not None:
            combine(graph.nodes[target], node)
        else:
            graph.nodes[node.id] = node
            added.append(node.id)
    return added
