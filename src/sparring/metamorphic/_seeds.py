"""Test seeds: the source dialogues perturbed into follow-ups.

Two sources (MORTAR, Guo et al., arXiv 2412.15557, §4.1):

- a run's conversations (any run directory, record folder or SENSEI folder): the user
  turns are the question sequence, and the chatbot's replies to it the *source outputs*,
  so no annotated answers are needed (MORTAR's oracle-free variant); the job replays
  the sequence against the chatbot under test for them (the recorded replies may be
  another bot's, e.g. Kuki's conversations replayed against ALICE);
- a question-answering file in the CoQA format (``{"data": [{"id", "story", "questions":
  [{"input_text", "turn_id"}], "answers": [{"input_text", "turn_id"}]}]}``), whose gold
  answers enable the reference-based check; its source outputs, too, come from replaying
  the unperturbed dialogue.

A conversation with no user turn, or with a single round (nothing to perturb), is skipped
with a reason.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparring._json import read_user_json
from sparring.conversations import ConversationRecord, load_conversations
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.metamorphic._answerability import SeedDialogue, SeedRound


class Seed(BaseModel):
    """One seed: its dialogue (questions with the source reply or the gold answer), and,
    for a run seed, the source record whose replies are the source outputs."""

    model_config = ConfigDict(frozen=True)

    dialogue: SeedDialogue
    record: ConversationRecord | None = None
    gold: list[str] | None = None
    """Gold answers per round (CoQA seeds), else ``None``."""

    @property
    def id(self) -> str:
        return self.dialogue.id


class Skipped(BaseModel):
    """A seed that produced no follow-up, and why."""

    seed: str
    reason: str


class CoqaQuestion(BaseModel):
    input_text: str
    turn_id: int


class CoqaDialogue(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    story: str | None = None
    questions: list[CoqaQuestion]
    answers: list[CoqaQuestion] = Field(default_factory=list)


class CoqaFile(BaseModel):
    """A CoQA-format file (Reddy et al., 2019): ``data`` is the list of dialogues; other
    keys (``version``, ``source``, …) are ignored."""

    model_config = ConfigDict(extra="ignore")

    data: list[CoqaDialogue]


def rounds_of(record: ConversationRecord) -> list[SeedRound]:
    """The rounds of a recorded conversation: each user turn with the chatbot's reply to
    it (its assistant turns up to the next user turn, joined by newlines; ``None`` when it
    got none). A greeting before the first user turn is not a round."""
    rounds: list[SeedRound] = []
    question: str | None = None
    replies: list[str] = []
    for turn in record.turns:
        if turn.role == "user":
            if question is not None:
                rounds.append(SeedRound(question=question, answer="\n".join(replies) or None))
            question, replies = turn.text, []
        elif question is not None:
            replies.append(turn.sensei_text)
    if question is not None:
        rounds.append(SeedRound(question=question, answer="\n".join(replies) or None))
    return rounds


def run_seeds(path: Path) -> tuple[list[Seed], list[Skipped]]:
    """The seeds of the conversations at ``path`` (a run directory, a folder of records
    or SENSEI conversations). Raises ``UserInputError`` when ``path`` does not exist,
    ``ConfigError`` for an invalid record file."""
    seeds: list[Seed] = []
    skipped: list[Skipped] = []
    for record in load_conversations(path):
        rounds = rounds_of(record)
        reason = _unfit(len(rounds))
        if reason is not None:
            skipped.append(Skipped(seed=record.id, reason=reason))
            continue
        seeds.append(Seed(dialogue=SeedDialogue(id=record.id, rounds=rounds), record=record))
    return seeds, skipped


def coqa_seeds(path: Path) -> tuple[list[Seed], list[Skipped]]:
    """The seeds of a CoQA-format JSON file, questions in ``turn_id`` order with their gold
    answers. Raises ``ConfigError`` naming the file and key when it is not valid JSON or
    not in the format."""
    data = read_user_json(path)  # bounded: size, depth, special files (ConfigError)
    try:
        parsed = CoqaFile.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(str(path), None, _dotted(error["loc"]), error["msg"]) for error in exc.errors()
        ]
        raise ConfigError(problems) from None
    seeds: list[Seed] = []
    skipped: list[Skipped] = []
    for dialogue in parsed.data:
        answers = {a.turn_id: a.input_text for a in dialogue.answers}
        questions = sorted(dialogue.questions, key=lambda q: q.turn_id)
        rounds = [
            SeedRound(question=q.input_text, answer=answers.get(q.turn_id)) for q in questions
        ]
        reason = _unfit(len(rounds))
        if reason is not None:
            skipped.append(Skipped(seed=dialogue.id, reason=reason))
            continue
        gold = [r.answer or "" for r in rounds] if answers else None
        seeds.append(
            Seed(
                dialogue=SeedDialogue(id=dialogue.id, rounds=rounds, story=dialogue.story),
                gold=gold,
            )
        )
    return seeds, skipped


def load_seeds(path: Path) -> tuple[list[Seed], list[Skipped]]:
    """Seeds from ``path``: a ``.json`` file holding a ``data`` list is CoQA, anything else
    is read as conversations. Raises ``UserInputError`` for a missing path, ``ConfigError``
    for an invalid file."""
    if not path.exists():
        raise UserInputError(Problem(str(path), None, "", "no such run, folder or file"))
    if path.is_file() and path.suffix == ".json" and _looks_like_coqa(path):
        return coqa_seeds(path)
    return run_seeds(path)


def _looks_like_coqa(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as file:
            head = file.read(4096)
    except OSError:
        return False
    return '"data"' in head


def _unfit(rounds: int) -> str | None:
    if rounds == 0:
        return "empty conversation: no user turn to perturb"
    if rounds == 1:
        return "one-round dialogue: nothing to reorder, reduce or duplicate"
    return None


def _dotted(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
