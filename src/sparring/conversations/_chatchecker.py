"""ChatChecker's dialogue files (``dialogue_N.yaml``) as conversation records.

ChatChecker writes each simulated dialogue to
``<chatbot>/runs/<run id>/<user name>/dialogue_<N>.yaml`` (one YAML document):
``dialogue_id``, ``user_name`` (the persona id or tester name), ``chat_history`` (turns with
``turn_id``, ``role`` ``user``/``dialogue_system``, ``content`` and, once tested, a
``breakdown_annotation``), ``finish_reason``, ``error``, and the results of its later
steps: ``ratings``, ``human_rating_annotations``, ``chat_statistics``,
``simulation_cost_statistics``, ``breakdown_stats``, ``eval_stats``. Beside it,
``persona_info.yaml`` (persona runs), ``info.yaml`` (breakdown testers) or ``user_info.yaml``
(AutoTOD scenarios) say who the user was.

``chatchecker_record`` maps one dialogue onto a ``ConversationRecord``: turns, the finish
reason and its failure code (``chatbot_error`` → 500 with cause ``crash``,
``user_simulator_error`` → 1003, ``max_turns_reached`` → 1000), timing and the simulator's
cost; the persona's task becomes the goal and its background the context. Everything else
(ratings, breakdown annotations per turn, statistics, the user files, unknown keys) is
kept in ``extra["chatchecker"]``; the annotation of ChatChecker's stand-in turn after a
crash (dropped from the turns) keeps its index — the chatbot turn that never came, where
``crash_turns`` puts the crash — marked ``crash: true``.
"""

from __future__ import annotations

import contextlib
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from sparring._yaml import check_yaml_limits, format_key, read_yaml_text
from sparring.conversations._files import (
    finite_number,
    load_yaml_text,
    locate_yaml,
    natural_key,
    read_yaml_documents,
)
from sparring.conversations._records import (
    ConversationError,
    ConversationRecord,
    ErrorCode,
    FailureCause,
    FinishReason,
    Turn,
)
from sparring.errors import ConfigError, Problem
from sparring.types import ModelUsage

CHATCHECKER = "chatchecker"
"""Key of ChatChecker's leftovers in ``ConversationRecord.extra`` and the imported records'
``simulator``."""
USER_FILES = ("persona_info.yaml", "info.yaml", "user_info.yaml")
"""Files beside a dialogue that describe its simulated user."""
CRASH_TURN = "chatbot_error"
"""The text ChatChecker writes as the chatbot's turn when the chatbot raised."""

_NUMBER = re.compile(r"(\d+)$")
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_ERRORS = {
    FinishReason.CHATBOT_ERROR: (ErrorCode.NO_RESPONSE, "the chatbot raised an error"),
    FinishReason.USER_SIMULATOR_ERROR: (ErrorCode.SIMULATOR_ERROR, "the user simulator failed"),
    FinishReason.MAX_TURNS_REACHED: (
        ErrorCode.EXCEEDED_LOOP_LIMIT,
        "ChatChecker's maximum number of user turns was reached",
    ),
}


class ChatCheckerTurn(BaseModel):
    """One turn of ``chat_history``."""

    model_config = ConfigDict(extra="allow")

    turn_id: int
    role: Literal["user", "dialogue_system"]
    content: str
    breakdown_annotation: dict[str, Any] | None = None


class ChatCheckerDialogue(BaseModel):
    """A ``dialogue_N.yaml`` file (ChatChecker's ``Dialogue``); unknown keys are kept."""

    model_config = ConfigDict(extra="allow")

    dialogue_id: str
    user_name: str
    chat_history: list[ChatCheckerTurn]
    finish_reason: Literal[
        "max_turns_reached",
        "user_ended_chat",
        "chatbot_ended_chat",
        "user_simulator_error",
        "chatbot_error",
    ]
    error: str | None = None
    ratings: dict[str, Any] | None = None
    human_rating_annotations: dict[str, Any] | None = None
    chat_statistics: dict[str, Any] | None = None
    simulation_cost_statistics: dict[str, Any] | None = None
    breakdown_stats: dict[str, Any] | None = None
    eval_stats: dict[str, Any] | None = None


def is_chatchecker_dialogue_file(path: Path) -> bool:
    """Whether ``path`` is named like a dialogue ChatChecker reads (its own rule: a
    ``.yaml`` file whose stem contains ``dialogue`` and does not end in ``_annotated``)."""
    return (
        path.suffix == ".yaml" and "dialogue" in path.stem and not path.stem.endswith("_annotated")
    )


def chatchecker_dialogue_files(root: Path) -> list[Path]:
    """The dialogue files under ``root`` (itself when it is a file), in natural order."""
    if root.is_file():
        return [root]
    found = [p for p in root.rglob("*.yaml") if is_chatchecker_dialogue_file(p)]
    return sorted(found, key=lambda p: tuple(natural_key(x) for x in p.relative_to(root).parts))


def read_chatchecker_dialogue(path: Path) -> ChatCheckerDialogue:
    """Parse ``path``. Raises ``ConfigError`` with file, line and key."""
    text, documents = read_yaml_documents(path)
    data = documents[0] if len(documents) == 1 else None
    if not isinstance(data, dict):
        message = "expected one YAML document: a ChatChecker dialogue (dialogue_id, chat_history…)"
        raise ConfigError(Problem(str(path), 1, "", message))
    try:
        return ChatCheckerDialogue.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(
                str(path),
                locate_yaml(text, 0, error["loc"]),
                format_key(error["loc"]),
                "required key is missing" if error["type"] == "missing" else error["msg"],
            )
            for error in exc.errors(include_url=False)
        ]
        raise ConfigError(problems) from exc


def import_chatchecker(
    path: Path | str, *, id: str | None = None, run: str | None = None
) -> ConversationRecord:
    """The record of one ChatChecker dialogue file, with the user file beside it.

    ``id`` defaults to the file's ``dialogue_id``; ``run``, when given, qualifies the
    profile name as ``<run>.<user name>`` (ChatChecker reuses persona ids in every run,
    and the personas of two runs must not merge). Raises ``ConfigError`` (file, line, key)
    for a file that is not a ChatChecker dialogue.
    """
    path = Path(path)
    dialogue = read_chatchecker_dialogue(path)
    users = {name: _plain_yaml(path.parent / name) for name in USER_FILES}
    record = chatchecker_record(
        dialogue,
        id=id or dialogue.dialogue_id,
        index=_index(path.stem),
        source=str(path),
        users={name: data for name, data in users.items() if data is not None},
    )
    if run:
        record.profile = f"{run}.{record.profile}"
    return record


def chatchecker_record(
    dialogue: ChatCheckerDialogue,
    *,
    id: str,
    index: int = 0,
    source: str | None = None,
    users: dict[str, Any] | None = None,
) -> ConversationRecord:
    """Map a parsed dialogue onto a record (see the module docstring); ``users`` are the
    parsed user files beside it, by file name."""
    users = users or {}
    turns, crashed = _turns(dialogue)
    reason = FinishReason(dialogue.finish_reason)
    record = ConversationRecord(
        id=id,
        profile=dialogue.user_name,
        index=index,
        simulator=CHATCHECKER,
        turns=turns,
        finish_reason=reason,
        source=source,
    )
    if reason in _ERRORS:
        code, default = _ERRORS[reason]
        cause = FailureCause.CRASH if reason is FinishReason.CHATBOT_ERROR else None
        turn = len(turns) - 1 if turns else None
        error = ConversationError(
            code=code, message=dialogue.error or default, turn=turn, cause=cause
        )
        record.errors.append(error)
    _timing(record, dialogue.chat_statistics or {})
    _usage(record, dialogue.simulation_cost_statistics or {})
    _persona(record, users.get("persona_info.yaml"))
    record.extra[CHATCHECKER] = _leftovers(dialogue, users, crashed)
    return record


def _turns(dialogue: ChatCheckerDialogue) -> tuple[list[Turn], bool]:
    """The turns; ChatChecker's stand-in chatbot turn after a crash is dropped."""
    history = list(dialogue.chat_history)
    crashed = (
        dialogue.finish_reason == "chatbot_error"
        and bool(history)
        and history[-1].role == "dialogue_system"
        and history[-1].content == CRASH_TURN
    )
    if crashed:
        history = history[:-1]
    turns = [
        Turn(role="user", text=t.content)
        if t.role == "user"
        else Turn(role="assistant", text=t.content, messages=[t.content] if t.content else [])
        for t in history
    ]
    return turns, crashed


def _timing(record: ConversationRecord, statistics: dict[str, Any]) -> None:
    """Start, end (local times, as ChatChecker writes them) and duration in seconds."""
    for field, key in (("started_at", "start_time"), ("ended_at", "end_time")):
        value = statistics.get(key)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                setattr(record, field, datetime.strptime(value, _TIME_FORMAT))
    record.duration = finite_number(statistics.get("duration"))


def _usage(record: ConversationRecord, cost: dict[str, Any]) -> None:
    """The user simulator's tokens and cost (US dollars), when ChatChecker counted any (a
    value that is no finite number counts none)."""
    usage = ModelUsage(
        prompt_tokens=int(finite_number(cost.get("total_prompt_tokens")) or 0),
        completion_tokens=int(finite_number(cost.get("total_completion_tokens")) or 0),
        cost=finite_number(cost.get("cost")) or 0.0,
    )
    if usage.prompt_tokens or usage.completion_tokens or usage.cost:
        record.usage["user_simulator"] = usage


def _persona(record: ConversationRecord, persona_info: Any) -> None:
    """The persona's task as the goal; its background and interaction style as context."""
    persona = persona_info.get("persona") if isinstance(persona_info, dict) else None
    if not isinstance(persona, dict):
        return
    if isinstance(persona.get("task"), str):
        record.goals = [persona["task"]]
    profile = persona.get("profile")
    if isinstance(profile, str):
        record.role = profile
    elif isinstance(profile, dict):
        record.role = str(profile.get("name") or persona.get("persona_id") or "") or None
        for key in ("background_info", "interaction_style"):
            items = profile.get(key)
            if isinstance(items, list):
                record.context.extend(str(item) for item in items)


def _leftovers(
    dialogue: ChatCheckerDialogue, users: dict[str, Any], crashed: bool
) -> dict[str, Any]:
    """What the record has no field for, under ChatChecker's own names."""
    kept = dialogue.model_dump(
        include={
            "dialogue_id",
            "ratings",
            "human_rating_annotations",
            "chat_statistics",
            "breakdown_stats",
            "eval_stats",
            "simulation_cost_statistics",
        },
        exclude_none=True,
    )
    history = dialogue.chat_history
    breakdowns = [
        {"turn": index, "turn_id": t.turn_id, **t.breakdown_annotation}
        for index, t in enumerate(history)
        if t.breakdown_annotation is not None
    ]
    if crashed and breakdowns and breakdowns[-1]["turn"] == len(history) - 1:
        # the stand-in turn is dropped: its annotation keeps its index, the chatbot turn
        # that never came after the user's (where ``crash_turns`` puts the crash)
        breakdowns[-1] = {**breakdowns[-1], "crash": True}
    if breakdowns:
        kept["breakdowns"] = breakdowns
    if crashed:
        kept["crash_turn"] = history[-1].model_dump(exclude_none=True)
    extra_turn_keys = {i: t.model_extra for i, t in enumerate(history) if t.model_extra}
    if dialogue.model_extra or extra_turn_keys:
        kept["unknown"] = {**(dialogue.model_extra or {}), "turns": extra_turn_keys}
    kept.update(users)
    return kept


def _plain_yaml(path: Path) -> Any:
    """A small YAML file beside a dialogue, or ``None`` when absent or unreadable."""
    if not path.is_file():
        return None
    try:
        text = read_yaml_text(path)
        check_yaml_limits(path, text)
        return load_yaml_text(text)
    except (ConfigError, yaml.YAMLError):
        return None


def _index(stem: str) -> int:
    """``dialogue_3`` → 2 (the 0-based index of the user's run)."""
    match = _NUMBER.search(stem)
    return max(int(match.group(1)) - 1, 0) if match else 0
