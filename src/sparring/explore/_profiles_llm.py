"""LLM profile generation: a model groups functionalities into scenarios and writes each
profile's goals, context, variable definitions and output descriptions; the
deterministic assembly (``_assemble``) builds the YAML; sparring's loader validates it
and, on errors, the model repairs it a bounded number of times.

After TRACER (Sotillo del Horno, 2025, §4.2; ``profile_generation.py`` and
``profile_builder.validate_and_fix_profile``), with three differences: replies are
structured (Pydantic schemas), a functionality the model's grouping leaves out is still
covered (by the offline scenario for it), and a model error in one profile falls back to
the offline assembly for that profile instead of losing it.
"""

from __future__ import annotations

import re

from sparring.errors import BudgetExceeded, ModelError
from sparring.explore._assemble import (
    assemble_profile,
    assemble_profiles,
    language_name,
    parameters_by_variable,
    profile_header,
    validate_text,
    variable_sources,
)
from sparring.explore._model import ExplorationModel, node_id
from sparring.explore._profiles import (
    GeneratedProfile,
    Scenario,
    offline_scenarios,
    unique_name,
)
from sparring.explore._profiles_prompts import (
    ConversationDraft,
    ScenarioPlan,
    VariablesDraft,
    conversation_messages,
    grouping_messages,
    repair_messages,
    variables_messages,
)
from sparring.jobs import gather_bounded
from sparring.types import Strategy, TextModel

MODULE = "explore.profiles"
"""The ``module`` tag of every model call of profile generation."""

_FENCE = re.compile(r"```(?:ya?ml)?[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)


async def generate_profiles(
    model: ExplorationModel,
    llm: TextModel | None,
    *,
    seed: int = 0,
    nested_forward: bool = False,
    max_repairs: int = 2,
    concurrency: int = 4,
) -> list[GeneratedProfile]:
    """Profiles for the chatbot ``model`` describes (TRACER §4.2).

    With ``llm`` ``None``: the offline assembly (``assemble_profiles``). With a model:
    one grouping call, then per scenario a goals/context/outputs call and (when the
    goals have ``{{variables}}``) a variable-definition call, the deterministic assembly,
    validation, and up to ``max_repairs`` repair calls while the loader finds errors.
    Scenarios are generated concurrently, at most ``min(concurrency, llm.concurrency)``
    at once. Every call passes ``module="explore.profiles"``.

    Never raises for the model: a ``ModelError`` or ``BudgetExceeded`` in the grouping
    makes every scenario offline; in one profile, that profile is assembled offline;
    either is said in ``notes``. A profile still invalid after the repairs is returned
    with ``valid=False`` and its problems in ``notes``. Returns profiles in scenario order.
    """
    if llm is None:
        return assemble_profiles(model, seed=seed, nested_forward=nested_forward)
    if not model.functionalities:
        return []
    scenarios = await _scenarios(model, llm)
    calls = (_profile(model, llm, s, seed, nested_forward, max_repairs) for s in scenarios)
    return await gather_bounded(calls, min(concurrency, llm.concurrency))


async def _scenarios(model: ExplorationModel, llm: TextModel) -> list[Scenario]:
    """The model's grouping, every functionality covered; offline scenarios when the
    model fails."""
    language = language_name(model.languages)
    try:
        reply = await llm.generate(grouping_messages(model, language), ScenarioPlan, module=MODULE)
    except (ModelError, BudgetExceeded) as exc:
        note = f"model error while grouping ({exc}); scenarios follow the workflow instead"
        return [s.model_copy(update={"notes": [note]}) for s in offline_scenarios(model)]
    plan: ScenarioPlan = reply.parsed
    ids = {f.id for f in model.functionalities}
    by_name = {node_id(f.name): f.id for f in model.functionalities}
    taken: set[str] = set()
    scenarios = []
    for draft in plan.scenarios:
        known = []
        for ref in draft.functionalities:
            found = ref if ref in ids else by_name.get(node_id(ref))
            if found is not None and found not in known:
                known.append(found)
        unknown = [r for r in draft.functionalities if r not in ids and node_id(r) not in by_name]
        if not known:
            continue
        notes = (
            [f"the model named unknown functionalities: {', '.join(unknown)}"] if unknown else []
        )
        name = unique_name(draft.name, taken)
        scenarios.append(Scenario(name=name, role=draft.role, functionalities=known, notes=notes))
    return scenarios + _left_out(model, scenarios, taken)


def _left_out(
    model: ExplorationModel, scenarios: list[Scenario], taken: set[str]
) -> list[Scenario]:
    covered = {i for s in scenarios for i in s.functionalities}
    added = []
    for scenario in offline_scenarios(model):
        missing = [i for i in scenario.functionalities if i not in covered]
        if missing:
            covered.update(scenario.functionalities)
            note = f"the model's grouping left out {', '.join(missing)}; covered by this path"
            name = unique_name(scenario.name, taken)
            added.append(scenario.model_copy(update={"name": name, "notes": [note]}))
    return added


async def _profile(
    model: ExplorationModel,
    llm: TextModel,
    scenario: Scenario,
    seed: int,
    nested_forward: bool,
    max_repairs: int,
) -> GeneratedProfile:
    try:
        written, cost = await _write(model, llm, scenario)
        profile = assemble_profile(model, written, seed=seed, nested_forward=nested_forward)
        profile.cost = cost
        return await _repair(model, llm, written, profile, max_repairs)
    except (ModelError, BudgetExceeded) as exc:
        offline = scenario.model_copy(update={"strategy": Strategy.OFFLINE})
        profile = assemble_profile(model, offline, seed=seed, nested_forward=nested_forward)
        profile.notes.insert(0, f"model error ({exc}); assembled offline instead")
        return profile


async def _write(
    model: ExplorationModel, llm: TextModel, scenario: Scenario
) -> tuple[Scenario, float]:
    """The scenario with the model's goals, context, outputs and variable definitions."""
    language = language_name(model.languages)
    reply = await llm.generate(
        conversation_messages(model, scenario, language), ConversationDraft, module=MODULE
    )
    draft: ConversationDraft = reply.parsed
    cost = reply.cost
    written = scenario.model_copy(
        update={
            "goals": [g.strip() for g in draft.goals if g.strip()],
            "context": [c.strip() for c in draft.context if c.strip()],
            "outputs": draft.outputs,
            "strategy": Strategy.LLM,
        }
    )
    nodes = [model.node(i) for i in scenario.functionalities]
    found = variable_sources(model, written, written.goals, parameters_by_variable(nodes))
    if found:
        sources = {name: source for name, (source, _) in found.items()}
        answer = await llm.generate(
            variables_messages(written, sources, language), VariablesDraft, module=MODULE
        )
        cost += answer.cost
        defined: VariablesDraft = answer.parsed
        written = written.model_copy(update={"variables": defined.variables})
    return written, cost


async def _repair(
    model: ExplorationModel,
    llm: TextModel,
    scenario: Scenario,
    profile: GeneratedProfile,
    max_repairs: int,
) -> GeneratedProfile:
    """Validate; while the loader finds errors and repairs are left, show the model the
    YAML and the problems and validate its repaired YAML."""
    problems = list(profile.problems)
    notes = [n for n in profile.notes if n not in problems]
    text, cost, repairs = profile.text, profile.cost, 0
    while problems and repairs < max_repairs:
        reply = await llm.generate(repair_messages(text, problems), module=MODULE)
        repairs += 1
        cost += reply.cost
        text = profile_header(model, scenario) + _strip(reply.text)
        problems = validate_text(text, profile.name)
    if repairs:
        notes.append(f"repaired by the model {repairs} time(s) after validation errors")
    if problems:
        notes.append(f"still invalid after {repairs} repair(s):")
        notes += problems
    return profile.model_copy(
        update={
            "text": text,
            "repairs": repairs,
            "valid": not problems,
            "notes": notes,
            "problems": problems,
            "cost": cost,
        }
    )


def _strip(text: str) -> str:
    """The YAML of a reply: the first fenced block if any (text around it dropped), else
    the whole reply; leading comment lines removed; ending in a newline."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    lines = body.strip("\n").splitlines()
    while lines and lines[0].lstrip().startswith("#"):
        lines.pop(0)
    return "\n".join(lines) + "\n"
