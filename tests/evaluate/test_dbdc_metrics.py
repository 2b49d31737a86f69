"""DBDC reading, gold labels and metrics on a tiny hand-computed example."""

from __future__ import annotations

from pathlib import Path

import pytest
from dbdc_builders import DIALOGUE_A, DIALOGUE_B, write_dbdc

from sparring.errors import UserInputError
from sparring.evaluate._dbdc import load_dbdc, majority_label, parse_dialogue
from sparring.evaluate._dbdc_metrics import (
    dbdc_metrics,
    evaluate_on_dbdc,
    jsd,
    mse,
    turn_outcomes,
)
from sparring.evaluate._detectors import AlwaysBreakdownDetector
from sparring.evaluate._results import ConversationBreakdowns, TurnBreakdown
from sparring.types import Strategy


def judged(dialogue: str, *turns: tuple[int, bool | None, float | None]) -> ConversationBreakdowns:
    return ConversationBreakdowns(
        conversation=dialogue,
        detector="test",
        turns=[
            TurnBreakdown(turn=t, breakdown=b, score=s, detector="test", strategy=Strategy.OFFLINE)
            for t, b, s in turns
        ],
    )


def test_majority_label_ties_go_to_the_label_met_first() -> None:
    assert majority_label(["O", "T", "T"]) == "T"
    assert majority_label(["T", "O", "O", "T", "X"]) == "T"
    assert majority_label(["O", "T", "T", "O"]) == "O"
    assert majority_label([]) is None


def test_parse_keeps_turns_counts_and_gold_labels() -> None:
    a = parse_dialogue(DIALOGUE_A, corpus="tiny")
    assert a.id == "A" and a.labelled == [2, 4]
    assert a.turns[0].label is None  # the unannotated greeting is not evaluated
    assert a.turns[2].counts == (3, 1, 1) and a.turns[2].label == "O"
    assert a.turns[4].distribution == (0.2, 0.2, 0.6) and a.turns[4].label == "X"
    record = a.record()
    assert [t.role for t in record.turns] == ["assistant", "user", "assistant", "user", "assistant"]
    assert record.profile == "tiny"


def test_metrics_match_the_hand_computed_figures() -> None:
    a, b = parse_dialogue(DIALOGUE_A), parse_dialogue(DIALOGUE_B)
    # gold: A2 O, A4 X, B1 T, B3 T (tie O/T: T met first), B5 O (left unscored)
    found_a, missing_a = turn_outcomes(a, judged("A", (2, False, 0.8), (4, True, 0.3)))
    found_b, missing_b = turn_outcomes(
        b, judged("B", (1, False, 0.6), (3, True, None), (5, None, None))
    )
    m = dbdc_metrics("test", found_a + found_b, missing_a + missing_b)
    assert (m.turns, m.unscored, m.dialogues) == (4, 1, 2)
    # T+X: gold F T T T, predicted F T F T
    assert (m.tx.tp, m.tx.fp, m.tx.fn, m.tx.tn) == (2, 0, 1, 1)
    assert m.tx.accuracy == 0.75 and m.tx.precision == 1.0
    assert m.tx.recall == pytest.approx(2 / 3) and m.tx.f1 == pytest.approx(0.8)
    # X: gold F T F F
    assert (m.x.tp, m.x.fp, m.x.fn, m.x.tn) == (1, 1, 0, 2)
    assert m.x.accuracy == 0.75 and m.x.precision == 0.5 and m.x.f1 == pytest.approx(2 / 3)
    # (score, 0, 1 - score); B3 has no score: (0, 0, 1) from its decision
    assert m.mse == pytest.approx((0.08 / 3 + 0.06 / 3 + 0.56 / 3 + 0.96 / 3) / 4)
    # per dialogue: A F1 1, accuracy 1; B F1 2/3, accuracy 1/2
    assert m.dialogue_f1 == pytest.approx((1 + 2 / 3) / 2)
    assert m.dialogue_accuracy == pytest.approx(0.75)


def test_jsd_and_mse_of_simple_distributions() -> None:
    assert jsd((0.5, 0.5, 0.0), (0.5, 0.0, 0.5)) == pytest.approx(0.5)
    assert jsd((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)) == pytest.approx(1.0)
    assert jsd((0.2, 0.3, 0.5), (0.2, 0.3, 0.5)) == 0.0
    assert mse((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)) == pytest.approx(2 / 3)


async def test_always_breakdown_on_files(tmp_path: Path) -> None:
    dialogues = load_dbdc(write_dbdc(tmp_path))
    assert [d.id for d in dialogues] == ["A", "B"] and dialogues[0].corpus == "tiny"
    m = await evaluate_on_dbdc(AlwaysBreakdownDetector(), dialogues)
    assert m.turns == 5 and m.tx.accuracy == 0.6 and m.tx.recall == 1.0
    assert m.x.precision == 0.2


def test_unreadable_or_missing_data_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="no DBDC dialogue"):
        load_dbdc(tmp_path)
    (tmp_path / "bad.log.json").write_text("{}", encoding="utf-8")
    with pytest.raises(UserInputError, match=r"bad\.log\.json"):
        load_dbdc(tmp_path)
