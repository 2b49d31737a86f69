"""The run record: one typed, versioned record per conversation plus a run manifest.

This is the only contract between the stages that produce conversations (``simulate``,
SENSEI import) and the ones that read them (``check``, reports). Records are written as
JSON, one file per conversation, when the conversation ends.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import IntEnum, StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, Field, JsonValue, model_validator

from sparring.outcome import JobStatus, Outcome, combine
from sparring.types import SENSEI_BUTTONS_HEADER, Button, ModelUsage, Strategy, render_sensei_text

SCHEMA_VERSION = 1
"""Version of ``ConversationRecord`` files this sparring writes."""
MANIFEST_SCHEMA_VERSION = 2
"""Version of ``manifest.json`` this sparring writes (1 is still read)."""


InteractionStyle = str | dict[str, list[str]]
"""An interaction style: its name, or a name with options (``{change language: [es]}``)."""
EMPTY_RESPONSE = "<EMPTY-RESPONSE>"
"""What rules see for a chatbot turn with no text, messages or buttons (SENSEI's idiom:
``not chatbot_returns('<EMPTY-RESPONSE>')``). Such a reply also ends the conversation
with failure 500 (``no_response``)."""


class ErrorCode(IntEnum):
    """Generic failure codes, SENSEI's numbers and names (plus 1002, 1003 and 1004, ours:
    1004 is a reply showing an unfilled slot, which does not end the conversation)."""

    NO_RESPONSE = 500
    TIMEOUT = 504
    EXCEEDED_LOOP_LIMIT = 1000
    GOAL_NOT_COMPLETED = 1001
    REPEATED_REPLY = 1002
    SIMULATOR_ERROR = 1003
    TEMPLATE_LEAK = 1004
    EXCEEDED_MAX_COST = 2000
    EXCEEDED_CONVERSATION_COST = 2001

    @property
    def rule_name(self) -> str:
        """The row name SENSEI-check gives this failure in its results CSV."""
        return _RULE_NAMES[self]


_RULE_NAMES = {
    ErrorCode.NO_RESPONSE: "no_response",
    ErrorCode.TIMEOUT: "timeout",
    ErrorCode.EXCEEDED_LOOP_LIMIT: "exceeded_loop_limit",
    ErrorCode.GOAL_NOT_COMPLETED: "goal_not_completed",
    ErrorCode.REPEATED_REPLY: "repeated_reply",
    ErrorCode.SIMULATOR_ERROR: "simulator_error",
    ErrorCode.TEMPLATE_LEAK: "template_leak",
    ErrorCode.EXCEEDED_MAX_COST: "max_cost_exceeded",
    ErrorCode.EXCEEDED_CONVERSATION_COST: "max_individual_cost_exceeded",
}


class FailureCause(StrEnum):
    """What exactly failed behind a chatbot failure code (500 and 504 cover several)."""

    CRASH = "crash"
    """HTTP error, closed connection, or the bot's code raised."""
    TIMEOUT = "timeout"
    BAD_PAYLOAD = "bad_payload"
    """The bot answered something that is not a readable reply."""
    EMPTY_REPLY = "empty_reply"
    TOO_LARGE = "too_large"
    """The bot's reply was over the connector's ``max_reply_bytes`` (read no further)."""


class FinishReason(StrEnum):
    """Why a conversation ended: ChatChecker's five finish reasons, plus two of ours.

    Every conversation ends for exactly one reason; a failure code (``errors``) says what
    went wrong, the finish reason what stopped the dialogue (``finish_reason_of_code``,
    ``codes_of_finish_reason``). Normal ends (the user or the chatbot ended the chat) have
    no failure code.
    """

    MAX_TURNS_REACHED = "max_turns_reached"
    """The cap on user turns was reached (failure 1000 when it is the run's ``max_turns``)."""
    USER_ENDED = "user_ended_chat"
    """The user simulator ended the conversation."""
    CHATBOT_ENDED = "chatbot_ended_chat"
    """The chatbot said the conversation is over (``Reply.ended``)."""
    USER_SIMULATOR_ERROR = "user_simulator_error"
    """The user simulator failed (failure 1003)."""
    CHATBOT_ERROR = "chatbot_error"
    """The chatbot crashed, timed out or answered garbage or nothing (failures 500, 504)."""
    REPEATED_REPLY = "repeated_reply"
    """Ours: the chatbot repeated the same reply until the runner stopped it (1002)."""
    COST_LIMIT = "cost_limit_reached"
    """Ours: a cost budget stopped the conversation (2000, 2001)."""


_FINISH_REASON_OF_CODE = {
    ErrorCode.NO_RESPONSE: FinishReason.CHATBOT_ERROR,
    ErrorCode.TIMEOUT: FinishReason.CHATBOT_ERROR,
    ErrorCode.EXCEEDED_LOOP_LIMIT: FinishReason.MAX_TURNS_REACHED,
    ErrorCode.REPEATED_REPLY: FinishReason.REPEATED_REPLY,
    ErrorCode.SIMULATOR_ERROR: FinishReason.USER_SIMULATOR_ERROR,
    ErrorCode.EXCEEDED_MAX_COST: FinishReason.COST_LIMIT,
    ErrorCode.EXCEEDED_CONVERSATION_COST: FinishReason.COST_LIMIT,
}


def finish_reason_of_code(code: int) -> FinishReason | None:
    """The finish reason a failure code ends a conversation with; ``None`` for codes that
    do not end it (1001 goal not completed is found after the end) and foreign codes."""
    try:
        return _FINISH_REASON_OF_CODE.get(ErrorCode(code))
    except ValueError:
        return None


def codes_of_finish_reason(reason: FinishReason) -> tuple[ErrorCode, ...]:
    """The failure codes that end a conversation with ``reason`` (empty for normal ends):
    ``chatbot_error`` → 500, 504; ``max_turns_reached`` → 1000; ``user_simulator_error``
    → 1003; ``repeated_reply`` → 1002; ``cost_limit_reached`` → 2000, 2001."""
    return tuple(code for code, found in _FINISH_REASON_OF_CODE.items() if found is reason)


def _known_code(value: Any) -> Any:
    """A known failure code as its ``ErrorCode``; other integers (foreign tools) stay."""
    try:
        return ErrorCode(value)
    except (ValueError, TypeError):
        return value


class ConversationError(BaseModel):
    """A generic failure recorded on a conversation.

    ``code`` is an ``ErrorCode`` (an integer of another tool's when imported); ``cause``
    tells the chatbot failures apart (crash, timeout, bad payload, empty reply); ``turn``
    is the 0-based turn index.
    """

    code: Annotated[ErrorCode | int, BeforeValidator(_known_code)]
    message: str
    turn: int | None = None
    cause: FailureCause | None = None

    @property
    def name(self) -> str:
        try:
            return ErrorCode(self.code).rule_name
        except ValueError:
            return f"error_{self.code}"


class Turn(BaseModel):
    """One utterance. ``latency`` (seconds) is set on assistant turns only;
    ``dialogue_act`` on chatbot turns of simulated conversations (the act's name, see
    ``sparring.dialogue_acts``: ``request``, ``yes_no_question``, ``offer``,
    ``confirmation``, ``inform``, ``fallback``, ``closing``)."""

    role: Literal["user", "assistant"]
    text: str
    messages: list[str] = Field(default_factory=list)
    buttons: list[Button] = Field(default_factory=list)
    timestamp: datetime | None = None
    latency: float | None = None
    dialogue_act: str | None = None

    @property
    def text_without_buttons(self) -> str:
        """The text without SENSEI's button block (``AVAILABLE BUTTONS:`` …), for views
        that show ``buttons`` apart; the text itself when it has no such block."""
        return self.text.split(SENSEI_BUTTONS_HEADER, 1)[0].rstrip()

    @property
    def sensei_text(self) -> str:
        """The text with buttons rendered as SENSEI does (what rules match on).

        A text that already carries SENSEI's button block (``AVAILABLE BUTTONS:``, as in
        imported SENSEI conversations) is returned verbatim; an empty chatbot turn is
        ``EMPTY_RESPONSE``.
        """
        if SENSEI_BUTTONS_HEADER in self.text:
            return self.text
        if self.role == "assistant" and not (self.text.strip() or self.messages or self.buttons):
            return EMPTY_RESPONSE
        if self.role == "assistant" and (self.messages or self.buttons):
            return render_sensei_text(self.messages or [self.text], self.buttons)
        return self.text


class OutputValue(BaseModel):
    """An extracted output data item: its value, type name, the strategy that produced it
    and the snippet it came from (``evidence``; ``turn`` its index in the conversation and
    ``method`` how offline extraction read it: ``keyword``, ``cue``, ``question``,
    ``answer``, ``enumerated``, ``item``, ``address``); ``confidence`` is ``high``,
    ``low`` (offline: a sentence names the output but no span could be isolated, so
    ``value`` is ``None``) or ``None`` (not assessed)."""

    value: Any = None
    type: str = "string"
    strategy: Strategy = Strategy.OFFLINE
    evidence: str | None = None
    confidence: Literal["high", "low"] | None = None
    turn: int | None = None
    method: str | None = None


class ConversationRecord(BaseModel):
    """Everything about one conversation.

    ``variables`` holds the picked value of each goal variable (a list for multi-value
    selections such as ``random(rand)``); ``settings`` the profile's ``conversation``
    block as given; ``notes`` what the simulator could not honour (e.g. an interaction
    style without a model).
    """

    schema_version: int = SCHEMA_VERSION
    id: str
    profile: str
    profile_path: str | None = None
    index: int = 0
    seed: int | None = None
    plan: str | None = None
    """The planned conversation this one repeats (``simulate --repeat``), else ``None``."""
    repeat: int | None = None
    """Which repeat of ``plan`` (0-based), else ``None``."""
    simulator: str = "agenda"
    language: str | None = None
    role: str | None = None
    context: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)
    goal_templates: list[JsonValue] = Field(default_factory=list)
    """The profile's goals with ``{{variables}}`` unfilled (strings; an imported profile's
    other goal items, such as variable definitions, are kept as given)."""
    variables: dict[str, Any] = Field(default_factory=dict)
    interaction_styles: list[InteractionStyle] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    fallback: str | None = None
    """The chatbot's fallback phrase the conversation ran with (the profile's, else
    chatbot.yaml's ``info.fallback``); rules see it as ``chatbot.fallback``."""
    turns: list[Turn] = Field(default_factory=list)
    outputs: dict[str, OutputValue] = Field(default_factory=dict)
    errors: list[ConversationError] = Field(default_factory=list)
    finish_reason: FinishReason | None = None
    """Why the conversation ended (``None`` in records written before sparring recorded it,
    and in imports whose format does not say)."""
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration: float | None = None
    """Wall-clock seconds from the first to the last turn."""
    source: str | None = None
    """Where the record came from when imported (a SENSEI YAML path)."""
    persona: str | None = None
    """The name of the persona file that played the user (``simulate --persona`` or a
    profile's ``user.persona``), else ``None``."""
    persona_path: str | None = None
    """That persona file."""
    ended_by_user: bool = False
    """True when the user simulator ended the conversation itself (its goals done, or a
    persona's ``END_CONVERSATION``), not a limit or a failure."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Fields of a foreign format that have no place above, kept so an export reproduces
    them; keyed by format (``extra["sensei"]``: serial, response time report, verbatim
    values; see ``sparring.conversations.export_sensei``)."""

    @property
    def response_times(self) -> list[float]:
        """Assistant latencies in seconds, in turn order."""
        return [t.latency for t in self.turns if t.role == "assistant" and t.latency is not None]

    @property
    def cost(self) -> float:
        """Total model cost of the conversation in US dollars."""
        return sum(u.cost for u in self.usage.values())


class RunManifest(BaseModel):
    """The run directory's ``manifest.json``: which job made the run and with what settings.

    ``job`` names the job (``simulate``, ``import-sensei``, …); ``settings`` are that job's
    typed settings (a Pydantic model of the job, e.g. ``sparring.simulate.SimulateSettings``)
    as JSON, read back typed by the job on ``--resume``; ``chatbot`` is the chatbot's
    configuration without its ``params`` (never secrets); ``endpoint`` where the connector
    talked to it (URL, module or file); ``profiles`` the profile files used; ``planned`` the
    ids of every conversation the run will write.

    Version 1 (sparring 0.1) kept ``simulator``, ``model``, ``seed``, ``concurrency`` and
    ``options`` as top-level fields; they are read into ``settings``.
    """

    OLDEST_SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int = MANIFEST_SCHEMA_VERSION
    run_id: str
    created_at: datetime
    sparring_version: str
    job: str = "simulate"
    chatbot: dict[str, Any] = Field(default_factory=dict)
    chatbot_path: str | None = None
    endpoint: str | None = None
    profiles: list[str] = Field(default_factory=list)
    planned: list[str] = Field(default_factory=list)
    """Ids of every conversation the run will write."""
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    status: JobStatus = JobStatus.FINISHED
    """The job's status, kept current by the runner (runs written before 0.3: finished)."""
    outcome: Outcome | None = None
    """The run's verdict and reasons, stored by the runner once the job ended and again
    when a later job judges the run (``judged_by``): the one verdict the report, the run
    page, the runs list and the CLI read (``None``: not decided yet, or a run written
    before 0.3)."""
    job_outcome: Outcome | None = None
    """The job's own outcome, kept once a later job judged the run (``outcome`` then
    combines it with ``judged``); ``None`` while ``outcome`` is the job's alone."""
    judged: dict[str, Outcome] = Field(default_factory=dict)
    """The outcomes of the jobs that judged the run after its job (a check, by the name of
    its stored report): a rule set checked again replaces its own."""
    redactions: dict[str, int] = Field(default_factory=dict)
    """Secrets removed from what the job wrote and printed, by kind (``known``,
    ``url_userinfo``, ``query``, ``authorization``; ``sparring._redact``), across resumes."""

    @classmethod
    def for_job(cls, job: str, settings: BaseModel, run_id: str, **fields: Any) -> RunManifest:
        """The manifest of a new run of ``job`` (status ``running``): ``settings`` stored as
        JSON, ``fields`` the other manifest fields (``chatbot``, ``endpoint``,
        ``profiles``, ``planned``…). Only the job runner (``sparring.runner``) builds one."""
        from sparring import __version__

        return cls(
            run_id=run_id,
            created_at=datetime.now(UTC),
            sparring_version=__version__,
            job=job,
            settings=settings.model_dump(mode="json"),
            status=JobStatus.RUNNING,
            **fields,
        )

    def judged_by(self, name: str, decided: Outcome) -> RunManifest:
        """This manifest once a later job (a check stored as ``name``) decided ``decided``
        on the run: the run's verdict is the gravest of the job's own outcome and every
        later judgement (``sparring.outcome.combine``), reasons in order."""
        own = self.job_outcome if self.judged else self.outcome
        return self._verdict(own, {**self.judged, name: decided})

    def decided(self, own: Outcome | None) -> RunManifest:
        """This manifest once its job (re)decided ``own`` (``None``: not decided yet), the
        later judgements kept."""
        return self._verdict(own, self.judged)

    def _verdict(self, own: Outcome | None, judged: dict[str, Outcome]) -> RunManifest:
        if not judged:
            return self.model_copy(update={"outcome": own, "job_outcome": None, "judged": {}})
        verdict = combine([*([own] if own is not None else []), *judged.values()])
        update = {"job_outcome": own, "judged": judged, "outcome": verdict}
        return self.model_copy(update=update)

    @model_validator(mode="before")
    @classmethod
    def _from_version_1(cls, data: Any) -> Any:
        """Move version 1's top-level job fields into ``settings``."""
        if not isinstance(data, dict) or data.get("schema_version") != 1:
            return data
        data = dict(data)
        options = data.pop("options", None) or {}
        settings: dict[str, Any] = {key: data.pop(key) for key in _V1_SETTINGS if key in data}
        if "imported_from" in options:
            data["job"] = "import-sensei"
            settings = {"source": options["imported_from"]}
        else:
            settings.update(options)
            settings.update(profiles=data.get("profiles", []), chatbot=data.get("chatbot_path"))
        data["settings"] = settings
        data["schema_version"] = MANIFEST_SCHEMA_VERSION
        return data


_V1_SETTINGS = ("simulator", "model", "seed", "concurrency")
