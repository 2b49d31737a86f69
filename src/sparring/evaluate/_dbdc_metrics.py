"""DBDC's metrics for any breakdown detector, and ChatChecker's per-dialogue averages.

Classification (Higashinaka et al., DBDC3 overview, DSTC6 2017, §4): accuracy,
precision, recall and F1 of the breakdown class, for two definitions of a gold breakdown
— ``X`` (majority label X) and ``T+X`` (majority label T or X; see
``sparring.evaluate._dbdc``). A detector's ``breakdown=True`` counts as predicting X, so
accuracy is binary (breakdown or not) under each definition.

Distribution: Jensen–Shannon divergence (log base 2) and mean squared error between the
annotators' O/T/X distribution and the detector's, averaged over turns, for (O, T, X) and
the merged (O, T+X) and (O+T, X). A detector gives a score (1 = seamless), not a
distribution; as ChatChecker does (Mayr et al. 2025, §4), the score ``s`` becomes
(O, T, X) = (s, 0, 1 − s), and a turn without a score (1, 0, 0) or (0, 0, 1) by its
decision.

Per dialogue (ChatChecker §4, after Ghassel et al. 2024): the mean over dialogues of the
``T+X`` F1 and accuracy computed within each dialogue (a dialogue with neither a gold nor
a predicted breakdown has F1 0, as in ChatChecker's evaluator).

Unscored turns (``breakdown`` ``None``, or no judgement at all) are left out of every
figure and counted in ``unscored``. Ranking: ``auc`` is the area under the ROC curve of
1 − score as a ranking of the ``T+X`` breakdowns, over every annotated turn with a score —
unscored ones included, so a detector that ranks without labelling is measured too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from sparring.connectors import ChatbotInfo
from sparring.evaluate._dbdc import DbdcDialogue, Label
from sparring.evaluate._results import BreakdownDetector, ConversationBreakdowns, TurnBreakdown
from sparring.jobs import gather_bounded

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Distribution = tuple[float, float, float]


class TurnOutcome(BaseModel):
    """One annotated turn: the ``gold`` label and annotators' ``distribution`` (O, T, X)
    beside the detector's ``breakdown`` decision and ``predicted`` distribution."""

    dialogue: str
    turn: int
    gold: Label
    distribution: Distribution
    breakdown: bool
    predicted: Distribution


class BinaryMetrics(BaseModel):
    """Breakdown-class figures (each in [0, 1]; 0 when undefined) and the counts."""

    accuracy: float
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tn: int


class DbdcMetrics(BaseModel):
    """Every figure of one detector on one DBDC data set (see the module docstring)."""

    detector: str
    dialogues: int
    turns: int
    unscored: int = 0
    tx: BinaryMetrics
    x: BinaryMetrics
    jsd: float
    jsd_o_tx: float
    jsd_ot_x: float
    mse: float
    mse_o_tx: float
    mse_ot_x: float
    dialogue_f1: float
    dialogue_accuracy: float
    auc: float | None = None
    ranked: int = 0
    """Annotated turns with a score (those ``auc`` ranks)."""


def auc(y: Sequence[bool] | NDArray[np.bool_], p: Sequence[float] | NDArray[np.float64]) -> float:
    """Area under the ROC curve of ``p`` ranking the true ``y`` (0.5 = chance), rounded to
    4 places; 0.5 when one class is missing."""
    import numpy as np
    from sklearn.metrics import roc_auc_score

    labels = np.asarray(y, dtype=bool)
    if labels.all() or not labels.any():
        return 0.5
    return round(float(roc_auc_score(labels, np.asarray(p, dtype=np.float64))), 4)


def predicted_distribution(judgement: TurnBreakdown) -> Distribution:
    """(O, T, X) of a judged turn: (s, 0, 1 − s) from its score ``s``, else from its
    decision."""
    if judgement.score is not None:
        return (judgement.score, 0.0, 1.0 - judgement.score)
    return (0.0, 0.0, 1.0) if judgement.breakdown else (1.0, 0.0, 0.0)


def turn_outcomes(
    dialogue: DbdcDialogue, judged: ConversationBreakdowns
) -> tuple[list[TurnOutcome], int]:
    """The scored annotated turns of ``dialogue`` and the number left unscored."""
    by_turn = {t.turn: t for t in judged.turns}
    outcomes: list[TurnOutcome] = []
    unscored = 0
    for i in dialogue.labelled:
        turn = dialogue.turns[i]
        judgement = by_turn.get(i)
        distribution = turn.distribution
        if judgement is None or judgement.breakdown is None or distribution is None:
            unscored += 1
            continue
        assert turn.label is not None
        outcomes.append(
            TurnOutcome(
                dialogue=dialogue.id,
                turn=i,
                gold=turn.label,
                distribution=distribution,
                breakdown=judgement.breakdown,
                predicted=predicted_distribution(judgement),
            )
        )
    return outcomes, unscored


def binary_metrics(gold: Sequence[bool], predicted: Sequence[bool]) -> BinaryMetrics:
    """Accuracy, precision, recall and F1 of the positive class."""
    tp = sum(g and p for g, p in zip(gold, predicted, strict=True))
    fp = sum(p and not g for g, p in zip(gold, predicted, strict=True))
    fn = sum(g and not p for g, p in zip(gold, predicted, strict=True))
    tn = len(gold) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = (tp + tn) / len(gold) if gold else 0.0
    return BinaryMetrics(
        accuracy=accuracy, precision=precision, recall=recall, f1=f1, tp=tp, fp=fp, fn=fn, tn=tn
    )


def jsd(p: Sequence[float], q: Sequence[float]) -> float:
    """Jensen–Shannon divergence of two distributions, log base 2 (in [0, 1])."""
    m = [(a + b) / 2 for a, b in zip(p, q, strict=True)]
    return (_kld(p, m) + _kld(q, m)) / 2


def mse(p: Sequence[float], q: Sequence[float]) -> float:
    """Mean squared error of two distributions."""
    return sum((a - b) ** 2 for a, b in zip(p, q, strict=True)) / len(p)


def _kld(p: Sequence[float], q: Sequence[float]) -> float:
    return sum(a * math.log2(a / b) for a, b in zip(p, q, strict=True) if a > 0)


def _merged(d: Distribution) -> tuple[list[float], list[float]]:
    return [d[0], d[1] + d[2]], [d[0] + d[1], d[2]]


def dbdc_metrics(detector: str, outcomes: Sequence[TurnOutcome], unscored: int = 0) -> DbdcMetrics:
    """Every DBDC figure of ``outcomes`` (all turns of all dialogues, any order)."""
    n = len(outcomes)
    predicted = [o.breakdown for o in outcomes]
    jsds = [0.0, 0.0, 0.0]
    mses = [0.0, 0.0, 0.0]
    for o in outcomes:
        gold_tx, gold_ot = _merged(o.distribution)
        pred_tx, pred_ot = _merged(o.predicted)
        pairs = ((o.distribution, o.predicted), (gold_tx, pred_tx), (gold_ot, pred_ot))
        for k, (g, p) in enumerate(pairs):
            jsds[k] += jsd(g, p)
            mses[k] += mse(g, p)
    per_dialogue: dict[str, list[TurnOutcome]] = {}
    for o in outcomes:
        per_dialogue.setdefault(o.dialogue, []).append(o)
    dialogue_scores = [
        binary_metrics([o.gold != "O" for o in group], [o.breakdown for o in group])
        for group in per_dialogue.values()
    ]
    count = len(dialogue_scores)
    return DbdcMetrics(
        detector=detector,
        dialogues=count,
        turns=n,
        unscored=unscored,
        tx=binary_metrics([o.gold != "O" for o in outcomes], predicted),
        x=binary_metrics([o.gold == "X" for o in outcomes], predicted),
        jsd=jsds[0] / n if n else 0.0,
        jsd_o_tx=jsds[1] / n if n else 0.0,
        jsd_ot_x=jsds[2] / n if n else 0.0,
        mse=mses[0] / n if n else 0.0,
        mse_o_tx=mses[1] / n if n else 0.0,
        mse_ot_x=mses[2] / n if n else 0.0,
        dialogue_f1=sum(s.f1 for s in dialogue_scores) / count if count else 0.0,
        dialogue_accuracy=sum(s.accuracy for s in dialogue_scores) / count if count else 0.0,
    )


async def evaluate_on_dbdc(
    detector: BreakdownDetector,
    dialogues: Sequence[DbdcDialogue],
    taxonomy: Sequence[str] = (),
    *,
    chatbot: ChatbotInfo | None = None,
    concurrency: int = 8,
) -> DbdcMetrics:
    """Run ``detector`` on every dialogue (as a ``ConversationRecord``, at most
    ``concurrency`` at once) and score it against the annotators (``dbdc_metrics``).
    ``chatbot`` defaults to an empty ``ChatbotInfo`` (DBDC says nothing of the bots)."""
    info = chatbot or ChatbotInfo()
    calls = (detector.detect(d.record(), info, list(taxonomy)) for d in dialogues)
    judged = await gather_bounded(calls, concurrency)
    outcomes: list[TurnOutcome] = []
    unscored = 0
    gold: list[bool] = []
    risk: list[float] = []
    for dialogue, result in zip(dialogues, judged, strict=True):
        found, missing = turn_outcomes(dialogue, result)
        outcomes.extend(found)
        unscored += missing
        scores = {t.turn: t.score for t in result.turns if t.score is not None}
        for i in dialogue.labelled:
            if i in scores:
                gold.append(dialogue.turns[i].label != "O")
                risk.append(1.0 - scores[i])
    metrics = dbdc_metrics(detector.name, outcomes, unscored)
    return metrics.model_copy(
        update={"auc": auc(gold, risk) if gold else None, "ranked": len(gold)}
    )
