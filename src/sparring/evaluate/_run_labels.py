"""A run's imported breakdown annotations as labels any detector can be scored against.

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

from sparring.conversations import CHATCHECKER, ConversationRecord, RunStore
from sparring.evaluate._dbdc import DbdcDialogue, DbdcTurn, Label


def is_run_directory(path: Path) -> bool:
    """Whether ``path`` is a run directory (it has a ``manifest.json``)."""
    return (path / "manifest.json").is_file()


def annotated_turns(record: ConversationRecord) -> dict[int, Label]:
    """The record's imported annotations by turn index: ``X`` (breakdown) or ``O``, for
    chatbot turns only (a crash annotation on the user turn that got no reply is left
    out: there is no chatbot utterance to judge)."""
    kept: Any = record.extra.get(CHATCHECKER, {})
    labels: dict[int, Label] = {}
    for annotation in kept.get("breakdowns", []) if isinstance(kept, dict) else []:
        turn, decision = annotation.get("turn"), annotation.get("decision")
        if (
            isinstance(turn, int)
            and 0 <= turn < len(record.turns)
            and record.turns[turn].role == "assistant"
            and decision in ("breakdown", "no_breakdown")
        ):
            labels[turn] = "X" if decision == "breakdown" else "O"
    return labels


def run_dialogues(path: Path) -> list[DbdcDialogue]:
    """Every record of the run at ``path`` with at least one labelled chatbot turn, as a
    DBDC dialogue (``corpus`` is the record's profile). Raises ``UserInputError`` when
    ``path`` is not a run."""
    dialogues: list[DbdcDialogue] = []
    for record in RunStore.open(path).iter_records():
        labels = annotated_turns(record)
        if not labels:
            continue
        turns = [
            DbdcTurn(
                speaker="S" if t.role == "assistant" else "U",
                utterance=t.text,
                counts=None if i not in labels else (0, 0, 1) if labels[i] == "X" else (1, 0, 0),
                label=labels.get(i),
            )
            for i, t in enumerate(record.turns)
        ]
        dialogues.append(
            DbdcDialogue(id=record.id, corpus=record.profile, source=record.source, turns=turns)
        )
    return dialogues
