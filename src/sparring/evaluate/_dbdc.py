"""Dialogues in the format of the Dialogue Breakdown Detection Challenge (DBDC).

DBDC3 (Higashinaka et al., "Overview of Dialogue Breakdown Detection Challenge 3",
DSTC6 2017; https://dbd-challenge.github.io/dbdc3/datasets) publishes one JSON file per
dialogue (``<id>.log.json``): ``turns[]`` with ``speaker`` (``U`` user, ``S`` system),
``utterance`` and, on system turns, ``annotations[]`` whose ``breakdown`` is ``O`` (not a
breakdown), ``T`` (possible breakdown) or ``X`` (breakdown), one per annotator (30 in the
DBDC3 English data).

The gold label of a turn is its *majority* (most frequent) annotation; a tie goes to the
label the earliest annotator among the tied ones chose (what ``Counter.most_common``
does). A turn is a breakdown (``T+X``) when that label is ``T`` or ``X``, a strict
breakdown (``X``) when it is ``X``. On the DBDC3 English development set (4,150 annotated
system turns) 67.3 % of the turns are breakdowns and 43.7 % strict ones. DBDC's own
``eval.py`` breaks ties towards ``O`` (65.2 %) and counts ``T+X`` when
P(T) + P(X) ≥ P(O) (83.1 %); see ``docs/breakdowns-offline.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparring._json import read_user_json
from sparring.conversations import ConversationRecord, Turn
from sparring.errors import Problem, UserInputError, validation_problems

Label = Literal["O", "T", "X"]
LABELS: tuple[Label, ...] = ("O", "T", "X")


class DbdcTurn(BaseModel):
    """One utterance: ``speaker`` ``U``/``S``; ``counts`` the annotators' O/T/X votes
    (system turns with annotations only, else ``None``); ``label`` the gold label."""

    speaker: Literal["U", "S"]
    utterance: str
    counts: tuple[int, int, int] | None = None
    label: Label | None = None

    @property
    def distribution(self) -> tuple[float, float, float] | None:
        """P(O), P(T), P(X): the share of annotators choosing each label."""
        if self.counts is None or sum(self.counts) == 0:
            return None
        total = sum(self.counts)
        o, t, x = self.counts
        return (o / total, t / total, x / total)


class DbdcDialogue(BaseModel):
    """One DBDC dialogue: ``id`` (``dialogue-id``), ``corpus`` (its folder, e.g.
    ``CIC_115``), the ``source`` file and the ``turns`` in order; ``conversation`` the
    record it was made from, when it comes from a run (``run_dialogues``: its failures,
    buttons and messages kept for the detectors)."""

    id: str
    corpus: str = ""
    source: str | None = None
    turns: list[DbdcTurn] = Field(default_factory=list)
    conversation: ConversationRecord | None = Field(default=None, exclude=True)

    @property
    def labelled(self) -> list[int]:
        """Indices of the annotated system turns (the ones DBDC evaluates)."""
        return [i for i, t in enumerate(self.turns) if t.label is not None]

    def record(self) -> ConversationRecord:
        """The dialogue as a ``ConversationRecord`` (``S`` → assistant, ``U`` → user);
        turn ``i`` of the record is turn ``i`` of the dialogue. A run's dialogue gives its
        own record back (a crash's reply that never came stays missing: the detectors
        label it at that index)."""
        if self.conversation is not None:
            return self.conversation
        return ConversationRecord(
            id=self.id,
            profile=self.corpus,
            source=self.source,
            turns=[
                Turn(role="assistant" if t.speaker == "S" else "user", text=t.utterance)
                for t in self.turns
            ],
        )


def majority_label(annotations: Iterable[str]) -> Label | None:
    """The most frequent of O/T/X (ties: the label met first); ``None`` when none."""
    counts = Counter(a for a in annotations if a in LABELS)
    if not counts:
        return None
    label = counts.most_common(1)[0][0]
    return "O" if label == "O" else "T" if label == "T" else "X"


class _RawTurn(BaseModel):
    """A turn of a DBDC file as published (other keys kept out of the way)."""

    model_config = ConfigDict(extra="ignore")
    speaker: Literal["U", "S"]
    utterance: Any = None
    annotations: list[Any] | None = None


class _RawDialogue(BaseModel):
    """A DBDC file as published: its ``turns`` and ``dialogue-id``."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    dialogue_id: Any = Field(default=None, alias="dialogue-id")
    turns: list[_RawTurn]


def parse_dialogue(data: object, *, corpus: str = "", source: str | None = None) -> DbdcDialogue:
    """A DBDC dialogue from its parsed JSON. Raises ``pydantic.ValidationError`` (a
    ``ValueError``) locating each wrong part: no ``turns`` list, a turn that is no mapping,
    a ``speaker`` other than ``U``/``S``, ``annotations`` that are no list; annotations that
    are no mapping or carry no O/T/X label are not votes."""
    raw = _RawDialogue.model_validate(data)
    turns: list[DbdcTurn] = []
    for turn in raw.turns:
        votes = [
            str(a.get("breakdown"))
            for a in turn.annotations or []
            if isinstance(a, dict) and a.get("breakdown") in LABELS
        ]
        annotated = turn.speaker == "S" and bool(votes)
        counts = Counter(votes)
        turns.append(
            DbdcTurn(
                speaker=turn.speaker,
                utterance=str(turn.utterance or ""),
                counts=(counts["O"], counts["T"], counts["X"]) if annotated else None,
                label=majority_label(votes) if annotated else None,
            )
        )
    dialogue_id = str(raw.dialogue_id or (Path(source).name if source else "dialogue"))
    return DbdcDialogue(id=dialogue_id, corpus=corpus, source=source, turns=turns)


def dialogue_files(path: Path) -> list[Path]:
    """The ``*.log.json`` files under ``path`` (a folder, searched recursively, or one
    file), sorted. Raises ``UserInputError`` when there is none."""
    if path.is_file():
        return [path]
    files = sorted(path.rglob("*.log.json")) if path.is_dir() else []
    if not files:
        raise UserInputError(Problem(str(path), None, "", "no DBDC dialogue (*.log.json) here"))
    return files


def load_dbdc(path: Path) -> list[DbdcDialogue]:
    """Every DBDC dialogue under ``path`` (see ``dialogue_files``); ``corpus`` is the
    file's folder name. Raises ``UserInputError`` naming the file that cannot be read."""
    dialogues = []
    for file in dialogue_files(path):
        try:
            data = read_user_json(file)  # bounded: size, depth, special files
            dialogues.append(parse_dialogue(data, corpus=file.parent.name, source=str(file)))
        except ValidationError as exc:
            raise UserInputError(validation_problems(exc, str(file), what="DBDC dialogue")) from exc
        except (OSError, ValueError) as exc:
            raise UserInputError(Problem(str(file), None, "", str(exc))) from exc
    return dialogues
