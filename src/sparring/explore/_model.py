"""The functionality model an exploration builds (``model.json``, ``sparring schema model``).

After TRACER (Sotillo del Horno, "Automated Exploration and Profiling of Conversational
Agents", 2025, §3.3–3.5): a chatbot is a set of *functionalities* (nodes), each with the
*parameters* a user must give (with the *options* the bot offers) and the *outputs* the bot
gives back, ordered into a workflow DAG by ``parents``. Both strategies (LLM sessions and
the offline crawler) build this same model; each node records which one built it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sparring.schemas import register_schema
from sparring.types import ModelUsage, Strategy

if TYPE_CHECKING:
    import networkx as nx

MODEL_SCHEMA_VERSION = 1
"""Version of ``model.json`` this sparring writes."""

FREE_ANSWER_EVIDENCE = "an answer to a free question"
"""The evidence of a node the crawler reached by answering a free question."""

BotType = Literal["transactional", "informational", "unknown"]
"""TRACER's classification (§3.5): a transactional bot completes tasks that need the
user's input in order (orders, bookings); an informational bot answers independent
questions."""

ValueType = Literal["string", "int", "float", "money", "date", "time", "boolean"]
"""The type of a parameter's values or an output, as profiles spell it."""


def node_id(name: str) -> str:
    """A functionality's id from its name: lower snake case of letters and digits
    (``"Order pizza!"`` → ``order_pizza``); ``functionality`` when nothing is left."""
    slug = re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")
    return slug or "functionality"


class Parameter(BaseModel):
    """Something the user gives for a functionality (TRACER's parameter).

    ``options`` are the values the chatbot offered (buttons or an enumeration in its
    text), verbatim; empty when the bot takes free input. ``question`` is the bot's
    utterance that asked for it, when one was seen; ``examples`` free answers the bot
    accepted for it during the exploration (it moved on without refusing); ``leads``
    which of them led to which next functionality (its id): a partial answer makes a
    form ask for what it lacks, the whole answer reaches its end. ``said_back`` is false
    when the bot took a free answer without stating it in its reply (ALICE takes "Alex
    Smith" and goes on with small talk): no reply can be counted on to show such a value,
    so a profile's goal for it is the value alone, met by any answer. ``stated`` are
    values in the chatbot's own words, also among ``examples``: a date its confirmation
    stated for an answer it took ("2 March 2027"), or that date in the format its
    question asked for ("02/03/2027" for "DD/MM/YYYY"); a chatbot that refuses one of these
    is at fault (check's ``task_steps_missing(stated)``).
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    options: list[str] = Field(default_factory=list)
    type: ValueType = "string"
    question: str | None = None
    examples: list[str] = Field(default_factory=list)
    leads: dict[str, list[str]] = Field(default_factory=dict)
    said_back: bool = True
    stated: list[str] = Field(default_factory=list)


class Output(BaseModel):
    """Something the chatbot gives back (a price, an order id, opening hours)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    type: ValueType = "string"
    example: str | None = None


class Functionality(BaseModel):
    """One node of the model: what the user can do, its inputs, outputs and place in the
    workflow. ``parents`` are ids of nodes that come before it (empty: a starting point);
    ``children`` are derived from every node's ``parents`` when the model is validated.

    ``utterances`` are user messages that reached it (button texts the crawler pressed or
    the explorer's messages), ``sessions`` the ids of the exploration conversations that
    saw it, ``strategy`` which strategy built it, ``evidence`` how it was found (a button,
    options listed in a reply, a capability listed in the greeting or the fallback, a
    common request, an answer to a free question, the bot's definition…).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    description: str = ""
    parameters: list[Parameter] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)
    parents: list[str] = Field(default_factory=list)
    children: list[str] = Field(default_factory=list)
    category: str | None = None
    utterances: list[str] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    strategy: Strategy = Strategy.OFFLINE
    evidence: list[str] = Field(default_factory=list)

    def parameter(self, name: str) -> Parameter | None:
        """The parameter called ``name`` (case-insensitive), or ``None``."""
        wanted = name.lower()
        return next((p for p in self.parameters if p.name.lower() == wanted), None)


class ExplorationModel(BaseModel):
    """What an exploration learnt about a chatbot (``model.json``).

    ``languages`` are ISO 639-1 codes the bot answered in; ``fallback`` its message for
    what it did not understand (``None`` when none was seen); ``greeting`` what it says
    when a conversation opens (or to the first "Hello"; ``None`` when unknown).
    ``complete`` is false when the exploration was cut short (a model error, Ctrl-C, the
    bot going down): the model holds what was learnt until then and ``notes`` say why.
    ``usage`` is tokens and cost (US dollars) per module; ``sessions`` and ``turns``
    count the exploration conversations and their user turns.

    Validation derives ``children`` from ``parents`` and raises ``ValueError`` for a
    parent that is not a node, a duplicate id or a cycle.
    """

    model_config = ConfigDict(extra="forbid")
    SCHEMA_KEY: ClassVar[str] = "model"

    schema_version: int = MODEL_SCHEMA_VERSION
    chatbot: str = ""
    languages: list[str] = Field(default_factory=list)
    fallback: str | None = None
    greeting: str | None = None
    synonyms: dict[str, list[str]] = Field(default_factory=dict)
    """Value → the words the bot takes for it, from its definition (``--project``: a Rasa
    project's entity synonyms); the generated profiles carry those of their values."""
    bot_type: BotType = "unknown"
    functionalities: list[Functionality] = Field(default_factory=list)
    strategy: Strategy = Strategy.OFFLINE
    complete: bool = True
    notes: list[str] = Field(default_factory=list)
    sessions: int = 0
    turns: int = 0
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @model_validator(mode="after")
    def _link(self) -> ExplorationModel:
        ids = [f.id for f in self.functionalities]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate functionality ids: {', '.join(duplicates)}")
        known = set(ids)
        children: dict[str, list[str]] = {i: [] for i in ids}
        for node in self.functionalities:
            for parent in node.parents:
                if parent not in known:
                    raise ValueError(f"{node.id}: parent {parent!r} is not a functionality")
                if node.id not in children[parent]:
                    children[parent].append(node.id)
        for node in self.functionalities:
            node.children = children[node.id]
        cycle = _cycle(self.graph())
        if cycle:
            raise ValueError(f"the workflow has a cycle: {' -> '.join(cycle)}")
        return self

    def node(self, node_id: str) -> Functionality:
        """The node with ``node_id``; ``KeyError`` when there is none."""
        for node in self.functionalities:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def transaction_ids(self) -> list[str]:
        """Names of the identifiers the bot hands out at the end of a task (``order_id``,
        ``booking_reference``): outputs named as ids on a node that has parameters or comes
        after one. A new task should get a new one, so ``run`` checks them with
        ``is_unique``; an id in an answer that asks nothing (a product code) is not one."""
        asked: set[str] = set()
        for node_id in _topological(self.graph()):
            node = self.node(node_id)
            if node.parameters or any(parent in asked for parent in node.parents):
                asked.add(node.id)
        names = {
            output.name
            for node in self.functionalities
            if node.id in asked
            for output in node.outputs
            if _names_a_task_id(output.name)
        }
        return sorted(names)

    def roots(self) -> list[Functionality]:
        """Nodes without parents, in model order."""
        return [f for f in self.functionalities if not f.parents]

    def graph(self) -> nx.DiGraph[str]:
        """The workflow as a NetworkX ``DiGraph`` (node ids; edges parent → child; each
        node's ``data`` attribute is its ``Functionality``)."""
        import networkx as nx

        graph: nx.DiGraph[str] = nx.DiGraph()
        for node in self.functionalities:
            graph.add_node(node.id, data=node)
        for node in self.functionalities:
            for parent in node.parents:
                graph.add_edge(parent, node.id)
        return graph


_ID_WORDS = frozenset({"id", "number", "no", "code", "reference", "ref"})
_NOT_THE_TASK = frozenset(
    [
        "phone",
        "mobile",
        "telephone",
        "contact",
        "card",
        "house",
        "street",
        "zip",
        "postal",
        "post",
        "account",
        "member",
        "customer",
        "user",
        "client",
        "product",
        "item",
        "model",
        "sku",
        "promo",
        "discount",
        "coupon",
    ]
)
"""Ids of the person, a thing or an offer, the same for every task that names it."""


def _names_a_task_id(name: str) -> bool:
    words = name.lower().replace("-", "_").replace(" ", "_").split("_")
    return words[-1] in _ID_WORDS and not _NOT_THE_TASK & set(words)


def _topological(graph: nx.DiGraph[str]) -> list[str]:
    import networkx as nx

    return [str(node) for node in nx.topological_sort(graph)]


def _cycle(graph: nx.DiGraph[str]) -> list[str]:
    import networkx as nx

    try:
        edges = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return []
    return [str(a) for a, _ in edges] + [str(edges[0][0])]


register_schema("model", ExplorationModel)
