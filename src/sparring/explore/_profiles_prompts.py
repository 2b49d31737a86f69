"""Prompts and reply schemas of LLM profile generation (``module="explore.profiles"``).

Written for sparring after TRACER's prompts (Sotillo del Horno, 2025, §4.2;
``profile_generation_prompts.py``, ``variable_definition_prompts.py``,
``context_generation_prompts.py``, ``output_generation_prompts.py`` and the YAML fix
prompt of ``profile_builder.py``): realistic end-user scenarios with practical goals and
no meta-conversation about the chatbot, ``{{variables}}`` only for input that varies,
cleaned options plus one plausible unsupported value, short context sentences and
granular typed outputs. Replies are structured (Pydantic schemas) instead of TRACER's
free-text formats, except the repair, whose reply is the YAML itself (as TRACER's).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from sparring.explore._model import ExplorationModel, Functionality
from sparring.explore._profiles import OutputDraft, Scenario, VariableDraft
from sparring.explore._variables import DataSource

MIN_SCENARIOS = 3
MAX_SCENARIOS = 10
"""TRACER asks for between 3 and 10 scenarios, as many as there are functionalities."""

Messages = list[dict[str, str]]


class ScenarioDraft(BaseModel):
    """One scenario as the model groups it: ``functionalities`` are node ids."""

    name: str
    role: str
    functionalities: list[str]


class ScenarioPlan(BaseModel):
    """The grouping reply."""

    scenarios: list[ScenarioDraft]


class ConversationDraft(BaseModel):
    """The goals, context sentences and output data the model writes for a scenario."""

    goals: list[str] = Field(min_length=1)
    context: list[str] = Field(default_factory=list)
    outputs: list[OutputDraft] = Field(default_factory=list)


class VariablesDraft(BaseModel):
    """The variable definitions the model writes for a scenario's goals."""

    variables: list[VariableDraft] = Field(default_factory=list)


_SYSTEM = (
    "You design test profiles for SENSEI, a user simulator that tests chatbots end to end. "
    "A profile describes one realistic user: a role, goals for one conversation, context "
    "and the data the chatbot should give back. Answer with JSON matching the schema."
)
_REPAIR_SYSTEM = (
    "You repair SENSEI user profiles (YAML) so that they validate. Reply with YAML only."
)
_REALISTIC = (
    "Profiles are for realistic end users with practical goals. Never write goals about "
    "the chatbot's capabilities or limitations, never test or evaluate the chatbot, no "
    "meta-conversations about the chatbot itself."
)


def describe_functionalities(nodes: list[Functionality]) -> str:
    """One line per node: id, name, description, inputs with options, outputs, children."""
    lines = []
    for node in nodes:
        text = f"- {node.id} ({node.name})"
        if node.description:
            text += f": {node.description}"
        inputs = [
            p.name + (f" [options: {', '.join(p.options)}]" if p.options else f" [{p.type}]")
            for p in node.parameters
        ]
        if inputs:
            text += f". Inputs: {'; '.join(inputs)}"
        if node.outputs:
            text += f". Gives: {', '.join(f'{o.name} ({o.type})' for o in node.outputs)}"
        if node.children:
            text += f". Leads to: {', '.join(node.children)}"
        lines.append(text)
    return "\n".join(lines)


def grouping_messages(model: ExplorationModel, language: str) -> Messages:
    """Ask for user scenarios that together cover every functionality."""
    count = max(MIN_SCENARIOS, min(MAX_SCENARIOS, len(model.functionalities)))
    user = (
        f"CHATBOT TYPE: {model.bot_type.upper()}\n"
        f"FUNCTIONALITIES (id, name, inputs, outputs, workflow):\n"
        f"{describe_functionalities(model.functionalities)}\n\n"
        f"Group these functionalities into about {count} distinct user scenarios; each "
        "scenario is ONE conversation a real user would have. Every functionality must be "
        "in at least one scenario; for a transactional chatbot a scenario follows the "
        f"workflow in order. {_REALISTIC}\n"
        "For each scenario give a short name, a role (an instruction to the user "
        "simulator, e.g. 'you have to act as a user ordering a pizza to a pizza shop.') and "
        f"the functionality ids it covers. Write names and roles in {language}."
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def conversation_messages(model: ExplorationModel, scenario: Scenario, language: str) -> Messages:
    """Ask for a scenario's goals, context sentences and output data."""
    nodes = [model.node(i) for i in scenario.functionalities]
    user = (
        f"SCENARIO: {scenario.name}\nROLE: {scenario.role}\n"
        f"CHATBOT TYPE: {model.bot_type.upper()}\n"
        f"FUNCTIONALITIES:\n{describe_functionalities(nodes)}\n\n"
        "Write 2-4 user-centric goals for one conversation. For a transactional chatbot "
        "they follow the workflow; for an informational one they are related questions. "
        "Use {{variable}} only where the user gives input that could vary between "
        "conversations; for a listed input use its name exactly ({{size}} for input "
        "'size'), otherwise a new snake_case name. Never put fixed names inside {{ }}. "
        f"{_REALISTIC}\n"
        "Also write 2-3 short context sentences about the user's situation (no "
        "{{variables}}) and the output data to read back from the chatbot: granular items "
        "(one value each) with a snake_case name, a type (string, int, float, money, date, "
        "time, bool) and a description of what to look for.\n"
        f"Write goals, context and descriptions in {language}."
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def variables_messages(
    scenario: Scenario, sources: dict[str, DataSource | None], language: str
) -> Messages:
    """Ask for cleaned options and one outside value for matched variables, and for a
    typed definition of the others."""
    lines = []
    for name, source in sources.items():
        if source is None:
            lines.append(f"- {name}: no options seen; define it")
        else:
            lines.append(f"- {name}: options seen: {', '.join(source.options)}")
    goals = "\n".join(f"- {g}" for g in scenario.goals)
    user = (
        f"SCENARIO: {scenario.name}\nGOALS:\n{goals}\n\nVARIABLES:\n" + "\n".join(lines) + "\n\n"
        "For a variable with options seen: return them cleaned (only the option itself, "
        "without explanatory text) and, in 'outside', ONE plausible value a user might ask "
        "for that the chatbot does not offer (e.g. 'Extra Large' for sizes small, medium, "
        "large).\n"
        "For a variable to define: choose its type (string, int, float or date). For "
        "string give 3-10 realistic values in 'options'; for int or float give min, max and "
        "step; for date give dates as dd/mm/yyyy in 'options'.\n"
        f"Write values in {language}."
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def repair_messages(text: str, problems: list[str]) -> Messages:
    """Show the YAML and its validation errors; ask for the whole repaired YAML."""
    errors = "\n".join(f"- {p}" for p in problems)
    user = (
        "This SENSEI profile does not validate.\n\nERRORS:\n"
        f"{errors}\n\nPROFILE:\n{text}\n\n"
        "Repair every error and change nothing else. Keep the syntax sparring reads: "
        "'conversation.number' a whole number, 'goal_style' with 'all_answered: {limit: N}', "
        "'interaction_style' a list such as [single question], variables as "
        "'name: {function, type, data}' goal items (int and float ranges need min <= max). "
        "Reply with the whole corrected YAML document only, no explanation."
    )
    return [{"role": "system", "content": _REPAIR_SYSTEM}, {"role": "user", "content": user}]
