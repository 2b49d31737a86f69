"""Profile generation, shared types: scenarios, generated profiles, offline grouping and
writing profile files.

After TRACER (Sotillo del Horno, "Automated Exploration and Profiling of Conversational
Agents", 2025, §4.2): functionalities are grouped into realistic user *scenarios*, each
functionality in at least one; each scenario becomes one SENSEI profile. A ``Scenario``
carries what a model wrote for it (goals, context, variable definitions, output
descriptions); empty parts are filled by the deterministic assembly (``_assemble``).
Offline, scenarios follow the workflow graph (``offline_scenarios``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from sparring.conversations import atomic_write
from sparring.explore._model import ExplorationModel, Functionality, node_id
from sparring.types import Strategy

OFFLINE_NOTE = "offline: no context or phrasing written by a model"
"""The note every offline-assembled profile carries (also written as a YAML comment)."""

INVALID_SUFFIX = ".yaml.invalid"
"""File suffix ``write_profiles`` gives a profile that still fails validation, so that
``sparring validate`` and ``simulate`` on the folder skip it."""


class VariableDraft(BaseModel):
    """A goal variable as a model defines it (TRACER's variable definition, §4.2).

    ``options`` are the values (cleaned options of a data source, or values the model
    made up); ``outside`` one plausible value the chatbot does not offer (robustness);
    ``min``/``max``/``step`` a numeric range for ``int``/``float`` variables without
    options. The assembly turns it into SENSEI's ``{function, type, data}``.
    """

    name: str
    type: Literal["string", "int", "float", "date"] = "string"
    options: list[str] = Field(default_factory=list)
    outside: str | None = None
    min: float | None = None
    max: float | None = None
    step: float | None = None


class OutputDraft(BaseModel):
    """One output data item a profile expects back: ``type`` as profiles spell it
    (``string``, ``int``, ``float``, ``money``, ``date``, ``time``, ``bool``, …)."""

    name: str
    type: str = "string"
    description: str = ""


class Scenario(BaseModel):
    """One user scenario: the functionalities (node ids) one profile covers.

    ``goals`` (texts with ``{{variables}}``), ``context`` (sentences for the user
    simulator), ``variables`` and ``outputs`` are what a model wrote; left empty, the
    assembly derives goals and outputs from the nodes and writes no context.
    """

    name: str
    role: str
    functionalities: list[str]
    goals: list[str] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)
    variables: list[VariableDraft] = Field(default_factory=list)
    outputs: list[OutputDraft] = Field(default_factory=list)
    strategy: Strategy = Strategy.OFFLINE
    notes: list[str] = Field(default_factory=list)


class GeneratedProfile(BaseModel):
    """A generated profile document.

    ``name`` is the file stem; ``text`` the YAML; ``functionalities`` the node ids it
    covers; ``repairs`` how many times a model repaired it after a validation error;
    ``valid`` whether sparring's loader accepts ``text``; ``problems`` the loader's errors
    (``<name>.yaml:<line> [<key>]: <message>``), also listed in ``notes``; ``cost`` the US
    dollars this profile's own model calls cost (the shared grouping call is not included).
    """

    name: str
    text: str
    strategy: Strategy
    functionalities: list[str]
    repairs: int = 0
    valid: bool = True
    notes: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    cost: float = 0.0


def offline_scenarios(model: ExplorationModel) -> list[Scenario]:
    """Scenarios read off the workflow graph, with no model.

    Transactional (and unknown) bots: root-to-leaf workflow paths, built for each node
    not yet covered (its path runs back through parents and on through children,
    preferring uncovered ones), so every functionality is in at least one and each path
    adds one. Informational bots: one scenario per root with its descendants, roots of
    the same ``category`` together. Model order decides ties, so the result is stable.
    """
    if not model.functionalities:
        return []
    informational = model.bot_type == "informational"
    groups = _root_groups(model) if informational else _covering_paths(model)
    names: set[str] = set()
    scenarios = []
    for group in groups:
        nodes = [model.node(i) for i in group]
        scenarios.append(
            Scenario(
                name=unique_name(_scenario_name(nodes), names),
                role=_role(nodes),
                functionalities=group,
            )
        )
    return scenarios


def _covering_paths(model: ExplorationModel) -> list[list[str]]:
    covered: set[str] = set()
    paths: list[list[str]] = []
    for node in model.functionalities:
        if node.id in covered:
            continue
        path = [node.id]
        current = node
        while current.parents:
            current = model.node(_prefer(current.parents, covered, path))
            path.insert(0, current.id)
        current = node
        while current.children:
            current = model.node(_prefer(current.children, covered, path))
            path.append(current.id)
        covered.update(path)
        paths.append(path)
    return paths


def _prefer(ids: list[str], covered: set[str], path: list[str]) -> str:
    fresh = [i for i in ids if i not in covered and i not in path]
    return fresh[0] if fresh else ids[0]


def _root_groups(model: ExplorationModel) -> list[list[str]]:
    import networkx as nx

    graph = model.graph()
    groups: dict[str, list[str]] = {}
    for root in model.roots():
        below = nx.descendants(graph, root.id)
        group = groups.setdefault(root.category or root.id, [])
        for member in [root.id, *(f.id for f in model.functionalities if f.id in below)]:
            if member not in group:
                group.append(member)
    return list(groups.values())


def _scenario_name(nodes: list[Functionality]) -> str:
    if len(nodes) == 1:
        return nodes[0].name
    return f"{nodes[0].name} to {nodes[-1].name}"


def _role(nodes: list[Functionality]) -> str:
    steps = ", then ".join(n.name for n in nodes)
    return f"You are a user of this chatbot. What you want to do: {steps}."


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name 2``, ``name 3``… when its file stem is taken; added to ``taken``."""
    candidate, number = name, 2
    while profile_stem(candidate) in {profile_stem(t) for t in taken}:
        candidate, number = f"{name} {number}", number + 1
    taken.add(candidate)
    return candidate


def profile_stem(name: str) -> str:
    """A profile's file stem from its scenario name (``"Order pizza"`` → ``order_pizza``)."""
    return node_id(name)[:80].strip("_") or "profile"


def write_profiles(profiles: Iterable[GeneratedProfile], folder: Path | str) -> list[Path]:
    """Write each profile to ``folder/<name>.yaml`` atomically; return the paths.

    A profile with ``valid=False`` is written as ``<name>.yaml.invalid`` (kept for
    inspection, skipped by ``sparring validate`` and ``simulate`` on the folder). The
    folder is created when missing; a file of the same name is replaced. Raises
    ``OSError`` when a file cannot be written.
    """
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for profile in profiles:
        suffix = ".yaml" if profile.valid else INVALID_SUFFIX
        path = target / f"{profile.name}{suffix}"
        atomic_write(path, profile.text)
        written.append(path)
    return written
