"""The judge keeps learning the bot's variance (issue 21): a round whose violation is not
confirmed by a replay of the source in its own context is random, and its violations are
withdrawn; one the replays confirm stays a bug."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mt_fixtures import anna_analysis

from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
from sparring.metamorphic import FollowUp, MetamorphicResult, Similarity
from sparring.metamorphic._answerability import SeedDialogue, SeedRound
from sparring.metamorphic._judge import Judge
from sparring.metamorphic._replay import LINK_KEY
from sparring.metamorphic._seeds import Seed

QUESTIONS = [r.question for r in anna_analysis().rounds]
SOURCE = ["Anna has a red bike.", "It is red.", "She rides it to school."]


def _record(id: str, role: str, order: list[int], replies: list[str]) -> ConversationRecord:
    turns = []
    for index, reply in zip(order, replies, strict=True):
        turns += [Turn(role="user", text=QUESTIONS[index]), Turn(role="assistant", text=reply)]
    link = {"role": role, "seed": "anna", "source": "anna@source", "order": order}
    return ConversationRecord(id=id, profile="p", turns=turns, extra={LINK_KEY: link})


def _judge(tmp_path: Path) -> Judge:
    seed = Seed(dialogue=SeedDialogue(id="anna", rounds=[SeedRound(question=q) for q in QUESTIONS]))
    judge = Judge(
        MetamorphicResult(
            seeds="s", chatbot="c", similarity="tf-idf", threshold=0.25, perturbations=["dsd"]
        ),
        {"anna": seed},
        {"anna": anna_analysis()},
        Similarity("tf-idf", 0.25),
        RunStore.create(
            tmp_path / "run",
            RunManifest(run_id="run", created_at=datetime.now(UTC), sparring_version="0"),
        ),
        source_replays=2,
    )
    order = [0, 1, 2, 0]
    judge.follow_ups = {
        "anna@dsd": FollowUp(
            id="anna@dsd",
            seed="anna",
            perturbation="dsd",
            order=order,
            questions=[QUESTIONS[i] for i in order],
        )
    }
    judge.add(_record("anna@source", "source", [0, 1, 2], SOURCE))
    judge.add(_record("anna@source-2", "source", [0, 1, 2], SOURCE))
    judge.add(_record("anna@dsd", "follow-up", order, [*SOURCE, "Why do you ask?"]))
    return judge


def test_a_violation_the_confirmation_replays_contradict_is_withdrawn(tmp_path: Path) -> None:
    judge = _judge(tmp_path)
    assert {(b.relation, b.source_round) for b in judge.result.bugs} == {("MR1", 0), ("MR3", 0)}
    assert judge.to_confirm() == [("anna", 0)]
    judge.add(_record("anna@confirm-0-1", "confirm", [0], ["Well, who knows?"]))
    judge.flush(force=True)
    assert judge.result.bugs == [] and judge.result.metrics.bugs == 0
    (summary,) = judge.result.follow_ups
    assert summary.bugs == 0 and "source round 0 withdrawn" in summary.note


def test_a_violation_the_confirmation_replays_repeat_stays(tmp_path: Path) -> None:
    judge = _judge(tmp_path)
    judge.add(_record("anna@confirm-0-1", "confirm", [0], [SOURCE[0]]))
    judge.add(_record("anna@confirm-0-2", "confirm", [0], [SOURCE[0]]))
    assert [(b.relation, b.source_round) for b in judge.result.bugs] == [("MR1", 0), ("MR3", 0)]


def test_a_reply_the_bot_also_gave_in_the_source_context_is_no_bug(tmp_path: Path) -> None:
    judge = _judge(tmp_path)
    judge.add(_record("anna@confirm-0-1", "confirm", [0], ["Anna has a red bike. Why do you ask?"]))
    assert judge.result.bugs == []  # both replies of the MR3 pair are among the bot's own
