"""What one simulated conversation is asked to do, independent of the profile's syntax.

``ConversationSpec`` is built from a loaded profile and one planned conversation (picked
variable values) by ``sparring.simulate.plan_run``; the simulators and the runner
read only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sparring.values import Synonyms

if TYPE_CHECKING:
    from sparring.connectors import ChatbotInfo
    from sparring.profiles import PersonaFile

StopKind = Literal["steps", "all_answered", "max_cost"]


@dataclass(frozen=True)
class OutputSpec:
    """One output data item to extract at the end (SENSEI ``chatbot.output``)."""

    name: str
    type: str = "string"
    description: str = ""


@dataclass(frozen=True)
class StopCondition:
    """When a conversation ends (SENSEI ``goal_style``).

    ``steps``: after ``steps`` user turns (``random steps`` is resolved to a number when the
    conversation is planned). ``all_answered``: when every goal is answered, at most
    ``limit`` user turns (reaching it records code 1001). ``max_cost``: when the conversation
    has spent ``max_cost`` US dollars (code 2001).
    """

    kind: StopKind = "all_answered"
    steps: int | None = None
    limit: int | None = None
    max_cost: float | None = None


@dataclass(frozen=True)
class ConversationSpec:
    """Everything a user simulator and the runner need for one conversation.

    ``variables`` maps each goal variable to its picked value (a list for multi-value
    picks); ``alternatives`` maps it to the other values its definition allows (used to
    recognise the chatbot's questions and to "change your mind"). ``fallback`` is the
    chatbot's fallback phrase: the profile's, else chatbot.yaml's ``info.fallback``
    (``sparring.simulate._plan.fallback_of``). ``plan`` and ``repeat`` name the planned
    conversation and which of its repeats this is (``--repeat``).

    ``persona`` is the persona file playing the user (``persona_path`` its file), with
    ``behaviours`` the ones the agenda simulator acts out beyond interaction styles
    (``change_goal``, ``repeat_question``, ``vague_answers``); ``typical_turn_words`` and
    ``max_turn_words`` are ChatChecker's turn-length guidance for the LLM simulator (words);
    ``chatbot`` is chatbot.yaml's ``info``, shown to a persona-playing model; ``synonyms``
    the chatbot's words for one value, which the agenda user reads confirmations with.
    """

    id: str
    profile: str
    index: int = 0
    seed: int = 0
    plan: str | None = None
    repeat: int | None = None
    profile_path: str | None = None
    language: str | None = None
    role: str = ""
    context: tuple[str, ...] = ()
    goals: tuple[str, ...] = ()
    goal_templates: tuple[str, ...] = ()
    variables: dict[str, Any] = field(default_factory=dict)
    alternatives: dict[str, list[Any]] = field(default_factory=dict)
    interaction_styles: tuple[Any, ...] = ()
    is_starter: bool = False
    fallback: str | None = None
    outputs: tuple[OutputSpec, ...] = ()
    stop: StopCondition = field(default_factory=StopCondition)
    settings: dict[str, Any] = field(default_factory=dict)
    run_max_cost: float | None = None
    persona: PersonaFile | None = None
    persona_path: str | None = None
    behaviours: tuple[str, ...] = ()
    typical_turn_words: int | None = None
    max_turn_words: int | None = None
    chatbot: ChatbotInfo | None = None
    synonyms: Synonyms = field(default_factory=Synonyms)
    """The chatbot's words for one value (the profile's ``chatbot.synonyms``)."""

    def style_names(self) -> list[str]:
        """Interaction style names (``change language`` for ``{change language: [...]}``)."""
        names: list[str] = []
        for style in self.interaction_styles:
            if isinstance(style, dict):
                names.extend(str(k) for k in style)
            else:
                names.append(str(style))
        return names

    def style_option(self, name: str) -> Any:
        """The argument of a dict-form style (e.g. the languages of ``change language``)."""
        for style in self.interaction_styles:
            if isinstance(style, dict) and name in style:
                return style[name]
        return None


def render_value(value: Any) -> str:
    """A variable value as a user would say it: lists as ``a, b and c``."""
    if isinstance(value, list | tuple):
        items = [render_value(v) for v in value]
        if len(items) <= 1:
            return "".join(items)
        return ", ".join(items[:-1]) + " and " + items[-1]
    return str(value)
