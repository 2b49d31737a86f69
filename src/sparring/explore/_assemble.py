"""The deterministic assembly of profiles from scenarios (offline and LLM share it).

After TRACER (Sotillo del Horno, 2025, §4.2; ``profile_builder.py`` and
``conversation_params_node.py``): each scenario becomes a SENSEI profile with goals
(``{{variables}}`` where the user gives input), typed variables, output data and
conversation settings computed without a model:

- ``number``: with a nested ``forward`` chain, the product of its value counts when at
  most ``ALL_COMBINATIONS_UP_TO``, else ``SAMPLE_SHARE`` of it (but no fewer than the
  largest variable); otherwise the largest variable's value count, or
  ``DEFAULT_CONVERSATIONS`` when no variable has more than one value. Always written as
  a whole number, which every SENSEI release and sparring read;
- ``goal_style: all_answered`` with a ``limit`` of twice the goals plus outputs, at
  least ``STEP_FLOOR`` and at most ``STEP_CAP`` (TRACER's limits). TRACER writes
  ``steps``; sparring asks for every goal answered, so a conversation that never reached
  the bot's confirmation or answer (goals left, an expected output never given) fails as
  ``goal_not_completed`` instead of passing by running out of turns;
- ``max_cost``: ``COST_PER_CONVERSATION`` US dollars per conversation, at least
  ``MIN_COST``;
- ``interaction_style: [single question]``, as in TRACER's published profiles.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tempfile
from pathlib import Path
from random import Random
from typing import Any

import yaml

from sparring._policy import current_policy, scoped
from sparring.explore._answers import GENERIC_ANSWER
from sparring.explore._model import (
    FREE_ANSWER_EVIDENCE,
    ExplorationModel,
    Functionality,
    Parameter,
    node_id,
)
from sparring.explore._profiles import (
    OFFLINE_NOTE,
    GeneratedProfile,
    OutputDraft,
    Scenario,
    offline_scenarios,
    profile_stem,
)
from sparring.explore._project import synonyms_for
from sparring.explore._variables import (
    DataSource,
    VariableDef,
    chain_forward,
    data_sources,
    define_variable,
    goal_variables,
    match_source,
)
from sparring.profiles import check_profile, library_names
from sparring.types import Strategy

STEP_FLOOR = 15
STEP_CAP = 30
"""Hard cap on the ``all_answered`` limit (user turns per conversation)."""
DEFAULT_CONVERSATIONS = 3
ALL_COMBINATIONS_UP_TO = 10
SAMPLE_SHARE = 0.3
COST_PER_CONVERSATION = 0.15
MIN_COST = 0.5
PERSONA_SHARE = 0.75
"""Share of profiles given a persona from sparring's library (TRACER: 75 %, unseeded)."""

_LANGUAGES = {
    "en": "English",
    "es": "Spanish",
    "ca": "Catalan",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "zh": "Chinese",
    "ja": "Japanese",
}
_OUTPUT_TYPES = {"boolean": "bool"}


def assemble_profiles(
    model: ExplorationModel,
    *,
    scenarios: list[Scenario] | None = None,
    seed: int = 0,
    nested_forward: bool = False,
) -> list[GeneratedProfile]:
    """Profiles for ``scenarios`` (default: ``offline_scenarios(model)``), each validated
    with sparring's loader (``valid`` and ``notes`` say how it went). The same model,
    scenarios and ``seed`` give the same texts. Raises ``KeyError`` for a scenario that
    names a node the model does not have.
    """
    chosen = offline_scenarios(model) if scenarios is None else scenarios
    return [assemble_profile(model, s, seed=seed, nested_forward=nested_forward) for s in chosen]


def assemble_profile(
    model: ExplorationModel, scenario: Scenario, *, seed: int = 0, nested_forward: bool = False
) -> GeneratedProfile:
    """One scenario's profile document (see the module docstring), validated."""
    document, notes = profile_document(model, scenario, seed=seed, nested_forward=nested_forward)
    name = profile_stem(scenario.name)
    text = profile_header(model, scenario) + dump_yaml(document)
    problems = validate_text(text, name)
    return GeneratedProfile(
        name=name,
        text=text,
        strategy=scenario.strategy,
        functionalities=list(scenario.functionalities),
        valid=not problems,
        notes=[*notes, *problems],
        problems=problems,
    )


def profile_document(
    model: ExplorationModel, scenario: Scenario, *, seed: int = 0, nested_forward: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The profile as a mapping (YAML's structure) and notes on how it was made."""
    nodes = [model.node(i) for i in scenario.functionalities]
    notes = list(scenario.notes)
    if scenario.strategy == Strategy.OFFLINE and OFFLINE_NOTE not in notes:
        notes.append(OFFLINE_NOTE)
    goals, parameters = (
        (list(scenario.goals), parameters_by_variable(nodes))
        if scenario.goals
        else offline_goals(nodes, model.functionalities)
    )
    variables = _variables(model, scenario, goals, parameters)
    if nested_forward and len(variables) > 1:
        chain_forward(variables)
    notes += [n for v in variables for n in v.notes]
    outputs = _outputs(scenario.outputs, nodes)
    context: list[Any] = []
    persona = _persona(seed, scenario.name)
    if persona:
        context.append({"personality": persona})
    context += scenario.context
    user: dict[str, Any] = {"language": language_name(model.languages), "role": scenario.role}
    if context:
        user["context"] = context
    user["goals"] = [*goals, *(v.item() for v in variables)]
    chatbot: dict[str, Any] = {"is_starter": False}
    if model.fallback:
        chatbot["fallback"] = model.fallback
    said = [*goals, *(str(x) for v in variables if isinstance(v.data, list) for x in v.data)]
    if vocabulary := synonyms_for(model.synonyms, said):
        chatbot["synonyms"] = vocabulary
    if outputs:
        chatbot["output"] = [
            {o.name: {"type": o.type, "description": o.description}} for o in outputs
        ]
    document = {
        "test_name": scenario.name,
        "user": user,
        "chatbot": chatbot,
        "conversation": conversation_settings(variables, len(goals), len(outputs), nested_forward),
    }
    return document, notes


def offline_goals(
    nodes: list[Functionality], everything: list[Functionality] | None = None
) -> tuple[list[str], dict[str, Parameter]]:
    """The goals of a path: per node its first utterance (else its name; none for a node
    reached by answering a question), then one goal per parameter as a ``{{variable}}``
    (``"Order a pizza"``, ``"pizza {{pizza}}"``, ``"size {{size}}"``), an utterance that
    is an option of any parameter in ``everything`` (default: ``nodes``) being no phrase;
    and the parameter behind each variable. A parameter name two nodes use with different
    options or questions gets the node id in front (``drinks_size``); asked again with the
    same question (after a refusal), it is one variable with the answers the bot took at
    either. A free question whose answers led to different nodes gives the path only the
    answers that led to its next node (``Parameter.leads``). A yes/no question
    (``_polar``) gives no goal."""
    goals: list[str] = []
    parameters: dict[str, Parameter] = {}
    values = {o.lower() for n in everything or nodes for p in n.parameters for o in p.options}
    for index, node in enumerate(nodes):
        # A node reached by answering a parent's question (the crawler's "choose size",
        # reached by "Hawaiian") has no phrase of its own: its goal is its parameters.
        leads = [u for u in node.utterances if u.lower() not in values]
        # Reached by answering a free question ("Alex Smith"): no phrase of its own either.
        before = nodes[index - 1] if index > 0 else None
        answered_into = before is not None and any(node.id in p.leads for p in before.parameters)
        reached_by_value = (
            (bool(node.utterances) and not leads)
            or (not node.utterances and FREE_ANSWER_EVIDENCE in node.evidence)
            or answered_into  # on this path, by answering the node before ("Monday check-up")
        )
        lead = "" if reached_by_value else (leads[0] if leads else node.name)
        lead = lead.strip().rstrip(".")
        after = nodes[index + 1] if index + 1 < len(nodes) else None
        parts = []
        for parameter in node.parameters:
            if _polar(parameter):
                continue  # "Shall I send it? (yes/no)": the user confirms what it read back
            if _navigates_on(node, after, values):
                # The path leaves this question by another option ("Custom" instead of a
                # pizza): that option is the next goal, and answering here would end the
                # path before the next node.
                break
            if after is not None and parameter.leads.get(after.id):
                # the answers that led to the next node of this path, not the others
                # ("3 PM check-up" leads to "What day?", the full answer to the end)
                parameter = parameter.model_copy(update={"examples": parameter.leads[after.id]})
            name = node_id(parameter.name)
            known = parameters.get(name)
            if known is not None and (
                known.options != parameter.options or _asked(known) != _asked(parameter)
            ):
                name = f"{node.id}_{name}"  # another question that happens to share a word
            known = parameters.setdefault(name, parameter)
            if known is not parameter and parameter.examples:
                # one variable for both questions: the answers the bot took at either
                examples = list(dict.fromkeys([*known.examples, *parameter.examples]))
                parameters[name] = known.model_copy(update={"examples": examples})
            filler = not parameter.options and (
                set(parameter.examples) == {GENERIC_ANSWER} or not parameter.said_back
            )
            if parameter.name in _NAMELESS or filler:  # "Which one?": the value alone
                parts.append(f"{{{{{name}}}}}")
            else:
                parts.append(f"{parameter.name.replace('_', ' ')} {{{{{name}}}}}")
        if lead:
            goals.append(lead)
        goals.extend(p for p in parts if p not in goals)  # one goal per variable
    return goals, parameters


_NAMELESS = frozenset({"choice", "need", "option", "one", "answer"})
"""Parameter names that say nothing of what is asked ("Which one would you like?" →
``choice``): the goal is the value alone, as a person answers ("tune-up", not "Choice
tune-up", which a strict form rejects). So is a question of no known kind that only the
crawler's filler answered (``GENERIC_ANSWER``, small talk's "Do you prefer books or
TV?"), and one whose free answers the bot never stated (``Parameter.said_back``: ALICE's
"Who told you that?" taking "Alex Smith"): any answer the bot gives then meets it."""


_YES_NO = frozenset({"yes", "no", "y", "n"})


def _polar(parameter: Parameter) -> bool:
    """Whether ``parameter`` only takes yes or no (a confirmation's "Shall I send it?
    (yes/no)"): no value of the user's goal — the user simulator answers a yes/no question
    from its goals and from what the turn reads back (``sparring.confirmation``)."""
    said = (*parameter.options, *(e for e in parameter.examples if e != GENERIC_ANSWER))
    values = {re.sub(r"\W+", "", v.lower()) for v in said}
    return bool(values) and values <= _YES_NO


def _asked(parameter: Parameter) -> str:
    """The parameter's question, case and digits aside ("" when none was recorded)."""
    return re.sub(r"\d+", "#", (parameter.question or "").lower())


def _navigates_on(node: Functionality, after: Functionality | None, values: set[str]) -> bool:
    """Whether the path goes from ``node`` to ``after`` by an option that is no value of a
    parameter (a navigation the crawler pressed at ``node``'s question)."""
    if after is None or node.id not in after.parents:
        return False
    if any(after.id in p.leads for p in node.parameters):
        return False  # an answer to the question led there on this path
    return any(u.lower() not in values for u in after.utterances)


def parameters_by_variable(nodes: list[Functionality]) -> dict[str, Parameter]:
    """The nodes' parameters by variable name (``node_id`` of the parameter name; the
    first node's wins)."""
    found: dict[str, Parameter] = {}
    for node in nodes:
        for parameter in node.parameters:
            found.setdefault(node_id(parameter.name), parameter)
    return found


def variable_sources(
    model: ExplorationModel, scenario: Scenario, goals: list[str], parameters: dict[str, Parameter]
) -> dict[str, tuple[DataSource | None, Parameter | None]]:
    """For each ``{{variable}}`` of ``goals`` (in order of first use): its data source
    (``None`` when none matches) and the parameter behind it (``None`` when none)."""
    sources = data_sources(model, scenario.functionalities)
    found: dict[str, tuple[DataSource | None, Parameter | None]] = {}
    for name in goal_variables(goals):
        parameter = parameters.get(name)
        wanted = parameter.name if parameter is not None and parameter.options else name
        found[name] = (match_source(wanted, sources), parameter)
    return found


def _variables(
    model: ExplorationModel, scenario: Scenario, goals: list[str], parameters: dict[str, Parameter]
) -> list[VariableDef]:
    drafts = {d.name: d for d in scenario.variables}
    language = model.languages[0] if model.languages else "en"
    return [
        define_variable(name, source, drafts.get(name), _with_answers(model, parameter), language)
        for name, (source, parameter) in variable_sources(
            model, scenario, goals, parameters
        ).items()
    ]


def _with_answers(model: ExplorationModel, parameter: Parameter | None) -> Parameter | None:
    """``parameter``, with the answers the bot took for the same question at another node
    when it has none of its own ("What day do you want to come in?" answered on another
    path), rather than a made-up placeholder."""
    if parameter is None or parameter.examples or parameter.options or not parameter.question:
        return parameter
    taken = [
        example
        for node in model.functionalities
        for other in node.parameters
        if _asked(other) == _asked(parameter)
        for example in other.examples
    ]
    if not taken:
        return parameter
    return parameter.model_copy(update={"examples": list(dict.fromkeys(taken))})


def _outputs(drafts: list[OutputDraft], nodes: list[Functionality]) -> list[OutputDraft]:
    if not drafts:
        drafts = []
        for node in nodes:
            for output in node.outputs:
                description = output.description or output.name.replace("_", " ")
                if output.example:
                    description += f" (e.g. {output.example})"
                kind = _OUTPUT_TYPES.get(output.type, output.type)
                drafts.append(OutputDraft(name=output.name, type=kind, description=description))
    seen: set[str] = set()
    kept = []
    for draft in drafts:
        name = node_id(draft.name)
        if name not in seen:
            seen.add(name)
            kind = _OUTPUT_TYPES.get(draft.type, draft.type)
            description = draft.description or name.replace("_", " ")
            kept.append(OutputDraft(name=name, type=kind, description=description))
    return kept


def conversation_settings(
    variables: list[VariableDef], goals: int, outputs: int, nested_forward: bool
) -> dict[str, Any]:
    """The ``conversation`` section (see the module docstring for the rules)."""
    counts = [v.count for v in variables]
    largest = max(counts, default=1)
    if nested_forward and len(counts) > 1:
        combinations = math.prod(counts)
        number = (
            combinations
            if combinations <= ALL_COMBINATIONS_UP_TO
            else max(round(combinations * SAMPLE_SHARE), largest)
        )
    else:
        number = largest if largest > 1 else DEFAULT_CONVERSATIONS
    steps = min(max(STEP_FLOOR, 2 * (goals + outputs)), STEP_CAP)
    return {
        "number": number,
        "max_cost": max(round(COST_PER_CONVERSATION * number, 2), MIN_COST),
        "goal_style": {"all_answered": {"limit": steps}},
        "interaction_style": ["single question"],
    }


def _persona(seed: int, scenario: str) -> str | None:
    rng = Random(f"{seed}:persona:{scenario}")
    if rng.random() >= PERSONA_SHARE:
        return None
    return rng.choice(library_names())


def language_name(codes: list[str]) -> str:
    """The profile language for the model's first language (an ISO 639-1 code): its
    English name when known, else the code as given; ``English`` when there is none."""
    if not codes:
        return "English"
    return _LANGUAGES.get(codes[0].lower(), codes[0])


def profile_header(model: ExplorationModel, scenario: Scenario) -> str:
    """The YAML comment that opens a generated profile: what made it and from what."""
    lines = [
        f"# Generated by sparring explore ({scenario.strategy.value}) from the "
        f"functionality model of {model.chatbot or 'the chatbot'}.",
        f"# Covers: {', '.join(scenario.functionalities)}",
    ]
    if scenario.strategy == Strategy.OFFLINE:
        lines.append(f"# {OFFLINE_NOTE}")
    return "\n".join(lines) + "\n"


def dump_yaml(document: dict[str, Any]) -> str:
    """``document`` as block YAML, keys in the given order, Unicode kept; a text that a
    YAML 1.2 reader (the profile loader's) would take for a number is quoted
    ("07700900123", which PyYAML's 1.1 rules leave bare)."""
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


_NUMERIC = re.compile(r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting texts that read as numbers under YAML 1.2."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "'" if _NUMERIC.fullmatch(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def validate_text(text: str, name: str) -> list[str]:
    """The errors sparring's loader finds in profile ``text`` (empty when it loads), each
    as ``<name>.yaml:<line> [<key>]: <message>``. The text is checked as a file in a
    temporary folder, so personas resolve from sparring's library only; under a policy
    that confines paths (a dashboard job), that folder — sparring's own text — is read too,
    everything else as the policy says (its code features stay refused)."""
    policy = current_policy()
    with tempfile.TemporaryDirectory(prefix="sparring-profile-") as folder:
        path = Path(folder) / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        roots = policy.roots
        here = policy if roots is None else policy.confined([*roots, Path(folder)])
        with scoped(here):
            check = check_profile(path)
    return [str(dataclasses.replace(p, file=path.name)) for p in check.errors]
