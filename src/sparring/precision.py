"""The measured precision of each model-free judge, shown next to its verdicts.

A verdict is a claim: every offline judge says how often its kind of verdict was right on
labelled data. ``MEASURED`` holds, per judge, the share of right verdicts among those it
gave of each kind ("match", "no match", "bug", …), the number of labelled items, and the
command that measures it again (``benchmarks/bench_judges.py``; the items are listed in
``benchmarks/judges/``, each with its label and why). A judge absent here has no
measured precision, and ``precision_note`` says so rather than inventing one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from sparring.results import Verdict
from sparring.types import Strategy


class Measurement(BaseModel):
    """How well a judge did on one labelled data set (measured, not assumed).

    ``data`` names the data and how it was held out; ``labels`` whose labels they are
    (people's majority, a model's silver labels…); ``turns`` the labelled items (chatbot
    turns for a breakdown detector); ``auc`` the area under the ROC curve of its score as a
    ranking (0.5 = chance); ``precision``/``recall``/``accuracy``/``f1`` of the positive
    verdicts it gives; ``flagged`` the share of items it calls positive; ``baseline`` the
    same figures of a trivial judge (named in ``baseline_name``). A figure that does not
    apply is ``None``.
    """

    data: str
    labels: str
    turns: int
    auc: float | None = None
    precision: float | None = None
    recall: float | None = None
    accuracy: float | None = None
    f1: float | None = None
    flagged: float | None = None
    baseline_name: str | None = None
    baseline: dict[str, float] = Field(default_factory=dict)


class JudgeQuality(BaseModel):
    """What a judge's verdicts are worth: the claim shown beside them in the CLI and the
    report, for every judge (a rule function's offline strategy, a breakdown detector, the
    metamorphic relations, a probe's oracle).

    ``judge`` names it (``semantic_content``, ``offline`` for the offline breakdown
    detector, ``metamorphic``, ``oracle:refuses``…); ``strategy`` how it judges;
    ``labels`` is false for a judge that only ranks (its items are *unscored*, with a
    score to sort them by). ``precision`` and ``recall`` (0..1) are by verdict kind
    ("match", "no match", "bug", "refusal"…) over ``items`` labelled items, of which the
    share ``abstained`` was left unscored; ``measured_on`` names the data; ``summary`` is
    the one line shown (``headline()`` when empty); ``measurements`` the figures behind it
    on each data set. A judge with no measured figure says so in ``summary``.
    """

    model_config = ConfigDict(populate_by_name=True)

    judge: str = Field(validation_alias=AliasChoices("judge", "detector"))
    strategy: Strategy = Strategy.OFFLINE
    labels: bool = True
    precision: dict[str, float] = Field(default_factory=dict)
    recall: dict[str, float] = Field(default_factory=dict)
    items: int = 0
    abstained: float = 0.0
    measured_on: str = ""
    summary: str = ""
    measurements: list[Measurement] = Field(default_factory=list)

    def headline(self) -> str:
        """``summary``, or the measured precision by verdict kind with the item count and
        the command that measures it again."""
        if self.summary:
            return self.summary
        if not self.precision:
            return "precision not measured"
        figures = ", ".join(f'"{kind}" {value:.2f}' for kind, value in self.precision.items())
        return f"measured precision {figures} on {self.items} labelled items ({BENCHMARK})"


BENCHMARK = "python benchmarks/bench_judges.py"
"""The command that measures every figure of ``MEASURED`` again."""

_REPLIES = (
    "74 chatbot replies: 42 turns of SENSEI's Julie, Ada, Kuki, veterinary and pizza "
    "conversations and 32 written ones (refusals, fallbacks, compliant answers with "
    "'can't', 'sorry', 'unfortunately'); a reply not in English with no phrase found is "
    "unscored (the lexicons are English)"
)

MEASURED: dict[str, JudgeQuality] = {
    "semantic_content": JudgeQuality(
        judge="semantic_content",
        precision={"match": 0.984, "no match": 1.0},
        items=303,
        abstained=0.257,
        measured_on=(
            "303 pairs from SENSEI's pizza and veterinary conversations and rules "
            "(answers, edited answers, order confirmations) and hand-written paraphrases; "
            "recall 0.83 of matches, 0.71 of non-matches"
        ),
    ),
    "metamorphic": JudgeQuality(
        judge="metamorphic",
        precision={"bug": 0.833},
        items=48,
        measured_on=(
            "48 bug reports on ALICE (examples/alice), judged by hand: with the five "
            "dialogue-level perturbations, 3 runs on its profiles and 3 on SENSEI's Kuki "
            "user turns gave 7 (1 paraphrased greeting, 6 MR2 on a reply that echoes the "
            "user whatever the context: no defect); with every perturbation, 1 run on its "
            "profiles gave 41 (40 robustness failures, 1 typo that changed the meaning); "
            "a correct bot with ids and state (tests/metamorphic, tests/newcomer) gets none"
            " (benchmarks/judges/metamorphic.yaml; recall not measured)"
        ),
    ),
    "language": JudgeQuality(
        judge="language",
        precision={
            "ENG": 1.0,
            "ESP": 1.0,
            "FR": 1.0,
            "GER": 1.0,
            "IT": 0.667,
            "POR": 1.0,
            "CHI": 1.0,
            "JAP": 1.0,
            "OTHER": 1.0,
        },
        recall={"ENG": 0.933, "ESP": 1.0},
        items=56,
        abstained=0.054,
        measured_on=(
            "56 utterances: 36 user and chatbot turns of SENSEI's Ada, Julie and Kuki "
            "conversations (Spanish and English) and 20 written ones in SENSEI's eight "
            "languages and names ('Pizza Margherita' read as Italian); unscored under "
            "confidence 0.5"
        ),
    ),
    "responds_in_same_language": JudgeQuality(
        judge="responds_in_same_language",
        precision={"same": 1.0, "different": 1.0},
        recall={"same": 1.0, "different": 1.0},
        items=31,
        measured_on=(
            "31 SENSEI conversations with Ada (Spanish bot), Julie (English bot) and "
            "English or Spanish users, users who switch language among them"
        ),
    ),
    "confirmation_mismatches": JudgeQuality(
        judge="confirmation_mismatches",
        precision={"mismatch": 1.0, "agrees": 0.989},
        recall={"mismatch": 0.958, "agrees": 0.935},
        items=116,
        abstained=0.052,
        measured_on=(
            "116 chatbot turns that confirm or summarise: 84 of SENSEI's conversations with "
            "the veterinary Rasa bot (9 wrong dates and hours read back) and the Taskyto "
            "pizza shop, and 32 written ones with the hard cases (price lists, offers after "
            "a summary, reference numbers, both clocks, relative dates, templates, lists); "
            "the written ones partly in-sample (the read-back sentence rule was widened on "
            "one of them)"
        ),
    ),
    "tone": JudgeQuality(
        judge="tone",
        precision={"POSITIVE": 1.0, "NEGATIVE": 0.8, "NEUTRAL": 1.0},
        recall={"POSITIVE": 1.0, "NEGATIVE": 0.444, "NEUTRAL": 0.4},
        items=32,
        abstained=0.406,
        measured_on=(
            "32 chatbot sentences written for the set (friendly, hostile, plain task "
            "talk); VADER's weak scores (under 0.5) unscored, a cut-off chosen on these "
            "items (in-sample)"
        ),
    ),
    "utterance_index": JudgeQuality(
        judge="utterance_index",
        precision={"turn": 1.0},
        recall={"turn": 0.121, "none": 0.0},
        items=42,
        abstained=0.905,
        measured_on=(
            "42 queries (SENSEI's own and read-by-hand ones) on 7 of SENSEI's pizza "
            "conversations; TF-IDF names an utterance only from similarity 0.3 (chosen on "
            "these queries) and never says none: a paraphrase shares no words"
        ),
    ),
    "oracle:refuses": JudgeQuality(
        judge="oracle:refuses",
        precision={"pass": 1.0, "fail": 0.943},
        recall={"pass": 0.588, "fail": 0.877},
        items=74,
        abstained=0.149,
        measured_on=_REPLIES,
    ),
    "oracle:falls_back": JudgeQuality(
        judge="oracle:falls_back",
        precision={"pass": 1.0, "fail": 0.964},
        recall={"pass": 0.615, "fail": 0.869},
        items=74,
        abstained=0.149,
        measured_on=_REPLIES,
    ),
    "oracle:refuses_or_falls_back": JudgeQuality(
        judge="oracle:refuses_or_falls_back",
        precision={"pass": 1.0, "fail": 0.889},
        recall={"pass": 0.6, "fail": 0.909},
        items=74,
        abstained=0.149,
        measured_on=_REPLIES,
    ),
    "oracle:refuses_or_refers": JudgeQuality(
        judge="oracle:refuses_or_refers",
        precision={"pass": 1.0, "fail": 1.0},
        recall={"pass": 1.0, "fail": 1.0},
        items=14,
        abstained=0.0,
        measured_on=(
            "14 replies to a medical emergency (benchmarks/judges/probe_oracles.yaml): the "
            "correct test bots' 6 replies to the built-in probes (3 price lists, 3 referrals "
            "or refusals) and 8 written ones (referrals to a doctor, a pharmacist or 911; drug "
            "advice after a disclaimer; sympathy and a sales question); issue 31"
        ),
    ),
    "oracle:refuses_or_avoids": JudgeQuality(
        judge="oracle:refuses_or_avoids",
        precision={"pass": 1.0, "fail": 0.833},
        recall={"pass": 0.909, "fail": 1.0},
        items=16,
        abstained=0.0,
        measured_on=(
            "16 replies to a foreign task (a flight, a lease, a refund in the past; "
            "benchmarks/judges/probe_oracles.yaml): the correct test bots' 8 replies to the "
            "built-in probes and 8 written ones; its one wrong fail is a car rental speaking "
            "of its own rental contract (the request's word in the bot's own domain); issue 31"
        ),
    ),
    "answer_type_missing": JudgeQuality(
        judge="answer_type_missing",
        precision={"fail": 1.0, "pass": 1.0},
        recall={"fail": 1.0, "pass": 0.857},
        items=18,
        abstained=0.111,
        measured_on=(
            "18 questions for a time or an amount with the chatbot's reply "
            "(benchmarks/judges/answer_type.yaml): the test bots' 6 in zero-config runs (the "
            "bank's opening hours answered with the lost-card text among them), 4 of SENSEI's "
            "conversations with the veterinary and pizza bots, 8 written hard cases (noon, "
            "free, around the clock, 'half past five', it depends); issue 31"
        ),
    ),
    **{
        f"oracle:{kind}": JudgeQuality(
            judge=f"oracle:{kind}",
            precision={"pass": 1.0, "fail": 1.0},
            recall={"pass": 1.0, "fail": 1.0},
            items=items,
            measured_on=f"{items} replies written for the set (benchmarks/judges/leaks.yaml)",
        )
        for kind, items in (("no_echo", 12), ("no_pii_echo", 12), ("no_canary", 9))
    },
}
"""Measured quality of each model-free judge, by judge name (figures of 2026-11-25; the
probes' oracles as ``oracle:<kind>``, their verdict kinds ``pass`` and ``fail``)."""


def precision_note(judge: str, verdict: str) -> str:
    """``[offline precision of "match": 0.97 on 212 labelled items]`` for ``judge``'s
    ``verdict`` kind, or ``[offline precision not measured]``."""
    measured = MEASURED.get(judge)
    if measured is not None and verdict == "unscored":
        return (
            f"[abstains on {measured.abstained:.0%} of {measured.items} labelled items, "
            f"{BENCHMARK}]"
        )
    if measured is None or verdict not in measured.precision:
        return "[offline precision not measured]"
    return (
        f'[offline precision of "{verdict}": {measured.precision[verdict]:.2f} '
        f"on {measured.items} labelled items, {BENCHMARK}]"
    )


HEURISTIC = frozenset(
    {"semantic_content", "utterance_index", "language", "responds_in_same_language", "tone",
     "confirmation_mismatches", "answer_type_missing"}
)  # fmt: skip
"""Rule functions whose offline strategy is a heuristic judge (not an exact computation):
their offline verdicts are summarised with their measured precision, or the lack of one.
``repeated_answers`` is not one: offline it computes SENSEI's own similarity with the
rule's method and threshold, the same numbers SENSEI-check computes."""

ORACLES = frozenset(name for name in MEASURED if name.startswith("oracle:"))
"""The probes' oracles with a measured precision (the exact ``must_contain`` and
``must_not_contain`` have none to measure)."""


def precision_summary(verdicts: Iterable[Verdict], judges: Iterable[str] = HEURISTIC) -> list[str]:
    """One line per heuristic judge (of ``judges``, by evidence function name) whose
    offline evidence backs some of ``verdicts``: the number of those verdicts and its
    measured precision by verdict kind, or "not measured". Shown by ``check``'s and
    ``adversarial probe``'s consoles and the report."""
    judges = frozenset(judges)
    offline_calls: Counter[str] = Counter()
    for verdict in verdicts:
        offline_calls.update({e.function for e in verdict.evidence if e.strategy == "offline"})
    lines = []
    for judge in sorted(name for name in offline_calls if name in judges):
        measured = MEASURED.get(judge)
        figures = measured.headline() if measured is not None else "precision not measured"
        lines.append(f"{judge} (offline, {offline_calls[judge]} verdicts): {figures}")
    return lines
