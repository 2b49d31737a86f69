"""The dialogue's knowledge graph (NetworkX), grown utterance by utterance, and the three
kinds of graph elements the analysers exchange as strings.

- an **entity**: its canonical name (``"kite"``, ``"tom"``);
- a **fact**: ``"subject|relation|object"`` (``"tom|buy|kite"``), an edge of the graph;
- a **reference**: ``"he|refers to|tom"`` — what a third-person pronoun (or ``there``)
  picks out at this point of the dialogue. A round that mentions Tom introduces it; a
  question whose ``he`` means Tom needs it. A pronoun with no antecedent needs
  ``"he|refers to|?"``, and an ellipsis with no previous round ``"ellipsis|continues|?"``,
  which nothing introduces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparring.metamorphic._answerability._nlp import Mention

if TYPE_CHECKING:
    import networkx as nx

UNRESOLVED = "?"
REFERS = "refers to"
PRONOUN_CLASSES = ("he", "she", "it", "they", "there")


def fact(subject: str, relation: str, obj: str) -> str:
    """A fact element: ``subject|relation|object``."""
    return f"{subject}|{relation}|{obj}"


def reference(cls: str, name: str) -> str:
    """A reference element: ``he|refers to|tom``."""
    return fact(cls, REFERS, name)


@dataclass(frozen=True, slots=True)
class Antecedent:
    """What a reference resolved to, and in which utterance it was last mentioned."""

    name: str | None
    """None when unresolved, or for a demonstrative pointing at its own utterance."""
    part: int
    """The utterance of the antecedent's latest mention (0 = story, 2r+1 = question of
    round r, 2r+2 = its answer); -1 when unresolved."""


class DialogueGraph:
    """A ``networkx.MultiDiGraph`` of the dialogue's entities (nodes with ``kind``,
    ``gender``, ``plural`` and ``last`` mention ``(part, position)``) and facts (edges keyed
    by relation), with pronoun resolution by recency and agreement."""

    def __init__(self) -> None:
        import networkx as nx

        self.graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()

    def mention(self, m: Mention, part: int) -> None:
        """Add or refresh the node ``m.name``; a typed kind overrides a guessed one."""
        stamp = (part, m.position)
        if m.name not in self.graph:
            self.graph.add_node(
                m.name, kind=m.kind, gender=m.gender, plural=m.plural, typed=m.typed, last=stamp
            )
            return
        node = self.graph.nodes[m.name]
        if node["kind"] == "value" or (m.typed and not node["typed"]):
            node.update(kind=m.kind, typed=True)
        if node["gender"] is None and m.gender is not None:
            node["gender"] = m.gender
        node["last"] = max(node["last"], stamp)

    def touch(self, name: str, part: int, position: int) -> None:
        """Mark ``name`` as mentioned again (a pronoun that resolved to it)."""
        if name in self.graph:
            self.graph.nodes[name]["last"] = max(self.graph.nodes[name]["last"], (part, position))

    def add_fact(self, subject: str, relation: str, obj: str) -> str:
        """Add the edge ``subject -relation-> obj`` (nodes created as values if new)."""
        for name in (subject, obj):
            if name not in self.graph:
                self.graph.add_node(
                    name, kind="value", gender=None, plural=False, typed=False, last=(-1, -1)
                )
        if not self.graph.has_edge(subject, obj, key=relation):
            self.graph.add_edge(subject, obj, key=relation)
        return fact(subject, relation, obj)

    def learn_gender(self, name: str, cls: str) -> None:
        """A node a pronoun resolved to learns from it: ``he``/``she`` make an untyped name
        a person and give a person without one its gender; ``it`` makes a name a thing."""
        node = self.graph.nodes[name]
        if node["kind"] == "name":
            node["kind"] = "person" if cls in ("he", "she") else "thing"
        if node["kind"] == "person" and node["gender"] is None and cls in ("he", "she"):
            node["gender"] = "male" if cls == "he" else "female"

    def compatible(self, name: str, cls: str) -> bool:
        """Whether the node ``name`` agrees with the pronoun class ``cls``."""
        node = self.graph.nodes[name]
        kind, gender, plural = node["kind"], node["gender"], node["plural"]
        if cls in ("he", "she"):
            wanted = "male" if cls == "he" else "female"
            return kind in ("person", "name") and not plural and gender in (None, wanted)
        if cls == "it":
            return kind in ("thing", "place", "name") and not plural
        if cls == "they":
            return bool(plural) and kind != "value"
        if cls == "there":
            return bool(kind == "place")
        return False

    def resolve(self, cls: str, before: tuple[int, int]) -> Antecedent:
        """The latest-mentioned node before ``before`` = ``(part, position)`` that agrees
        with ``cls`` (recency, then agreement: the classic heuristic)."""
        best: tuple[tuple[int, int], str] | None = None
        for name, data in self.graph.nodes(data=True):
            stamp = data["last"]
            if stamp < before and self.compatible(name, cls) and (best is None or stamp > best[0]):
                best = (stamp, name)
        if best is None:
            return Antecedent(None, -1)
        return Antecedent(best[1], best[0][0])

    def references_of(self, name: str) -> list[str]:
        """The reference elements a mention of ``name`` introduces (one per class)."""
        if name not in self.graph:
            return []
        return [reference(cls, name) for cls in PRONOUN_CLASSES if self.compatible(name, cls)]

    def unique_references(self) -> list[str]:
        """References with exactly one candidate in the graph (a story's unambiguous ones)."""
        out: list[str] = []
        for cls in PRONOUN_CLASSES:
            names = [n for n in self.graph.nodes if self.compatible(n, cls)]
            if len(names) == 1:
                out.append(reference(cls, names[0]))
        return out
