"""A run's imported breakdown annotations as labels any detector can be scored against.

A team's own labels count too: the dashboard's annotations export (``sparring web``,
JSON or CSV with ``conversation``, ``turn``, ``label`` ``correct``/``wrong``) read by
``read_annotation_labels`` — a chatbot turn marked *wrong* is a breakdown (``X``), one
marked *correct* is none (``O``); annotations of a whole conversation or of a user turn
are left out. ``sparring bench dbdc RUN_DIR --labels annotations.json`` scores detectors
against them.

``import-chatchecker`` keeps ChatChecker's per-turn annotation of each chatbot turn
(``extra["chatchecker"]["breakdowns"]``: ``decision`` ``breakdown`` or ``no_breakdown``).
``run_dialogues`` turns every record of a run into a ``DbdcDialogue`` whose annotated
chatbot turns carry one vote: ``X`` for a breakdown, ``O`` for none (ChatChecker decides
breakdown or not; it has no DBDC ``T``). ``sparring bench dbdc RUN_DIR`` then scores any
detector against them with DBDC's metrics, as it does on DBDC's human labels. ChatChecker's
annotations are a model's (GPT-4o), not people's: silver labels, reported as such.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sparring._files import read_user_text
from sparring._json import MAX_JSON_FILE_BYTES, JsonLimitError, loads_bounded
from sparring.conversations import CHATCHECKER, ConversationRecord, RunStore, crash_turns
from sparring.errors import Problem, UserInputError
from sparring.evaluate._dbdc import DbdcDialogue, DbdcTurn, Label


def annotated_turns(record: ConversationRecord) -> dict[int, Label]:
    """The record's imported annotations by turn index: ``X`` (breakdown) or ``O``, for
    chatbot turns — and for the crash turns ``crash_turns`` names, the chatbot turn that
    never came included (index ``len(record.turns)``), where every detector labels the
    crash."""
    kept: Any = record.extra.get(CHATCHECKER, {})
    crashes = crash_turns(record)
    labels: dict[int, Label] = {}
    for annotation in kept.get("breakdowns", []) if isinstance(kept, dict) else []:
        turn, decision = annotation.get("turn"), annotation.get("decision")
        if not isinstance(turn, int) or decision not in ("breakdown", "no_breakdown"):
            continue
        chatbot = 0 <= turn < len(record.turns) and record.turns[turn].role == "assistant"
        if chatbot or turn in crashes:
            labels[turn] = "X" if decision == "breakdown" else "O"
    return labels


PERSON_LABELS: dict[str, Label] = {"wrong": "X", "correct": "O"}
"""A person's annotation label (the dashboard's) as a DBDC label."""


def _annotation_rows(path: Path) -> list[tuple[int | None, dict[str, Any]]]:
    """The rows of an annotations export: ``(line, row)`` (a CSV row's line; ``None`` for
    JSON). Raises ``UserInputError`` when the file cannot be read as one."""
    import csv

    text = read_user_text(path, MAX_JSON_FILE_BYTES)  # a regular file, bounded: ConfigError
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        return [(reader.line_num, dict(row)) for row in reader]
    try:
        data = loads_bounded(text)
    except JsonLimitError as exc:
        raise UserInputError(Problem(str(path), exc.line, "", f"not JSON: {exc}")) from None
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        message = "an annotations export is a list of objects (conversation, turn, label)"
        raise UserInputError(Problem(str(path), None, "", message))
    return [(None, row) for row in data]


def read_annotation_labels(path: Path) -> dict[str, dict[int, Label]]:
    """A team's turn labels from the dashboard's annotations export (``.json`` or
    ``.csv``): conversation id → turn index → ``X`` (marked wrong) or ``O`` (marked
    correct); the newest annotation of a turn wins (the export is oldest first).
    Conversation-level rows are skipped. Raises ``UserInputError`` (file, line, key) for a
    row with an unknown label or a turn that is not a whole number."""
    labels: dict[str, dict[int, Label]] = {}
    problems: list[Problem] = []
    for index, (line, row) in enumerate(_annotation_rows(path)):
        key = f"[{index}]" if line is None else ""
        turn, label = row.get("turn"), str(row.get("label", "")).lstrip("'")
        if turn in (None, ""):
            continue
        if label not in PERSON_LABELS:
            problems.append(Problem(str(path), line, f"{key}label", f"{label!r}: correct or wrong"))
            continue
        try:
            number = int(str(turn).lstrip("'"))
        except ValueError:
            problems.append(Problem(str(path), line, f"{key}turn", f"{turn!r}: a turn index"))
            continue
        conversation = str(row.get("conversation", "")).lstrip("'")
        labels.setdefault(conversation, {})[number] = PERSON_LABELS[label]
    if problems:
        raise UserInputError(problems)
    return labels


def run_dialogues(
    path: Path, given: dict[str, dict[int, Label]] | None = None
) -> list[DbdcDialogue]:
    """Every record of the run at ``path`` with at least one labelled chatbot turn, as a
    DBDC dialogue (``corpus`` is the record's profile). The labels are the run's imported
    annotations, or ``given`` ones (``read_annotation_labels``: a team's own; only
    chatbot turns count). Raises ``UserInputError`` when ``path`` is not a run."""
    dialogues: list[DbdcDialogue] = []
    for record in RunStore.open(path).iter_records():
        if given is None:
            labels = annotated_turns(record)
        else:
            labels = {
                turn: label
                for turn, label in given.get(record.id, {}).items()
                if 0 <= turn < len(record.turns) and record.turns[turn].role == "assistant"
            }
        if not labels:
            continue
        spoken = [("S" if t.role == "assistant" else "U", t.text) for t in record.turns]
        if max(labels) == len(spoken):  # the crash's reply that never came: an empty one
            spoken.append(("S", ""))
        turns = [
            DbdcTurn(
                speaker="S" if speaker == "S" else "U",
                utterance=text,
                counts=None if i not in labels else (0, 0, 1) if labels[i] == "X" else (1, 0, 0),
                label=labels.get(i),
            )
            for i, (speaker, text) in enumerate(spoken)
        ]
        dialogues.append(
            DbdcDialogue(
                id=record.id,
                corpus=record.profile,
                source=record.source,
                turns=turns,
                conversation=record,
            )
        )
    return dialogues
