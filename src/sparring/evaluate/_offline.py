"""The offline breakdown detector: typed detectors that label, and a ranking for the rest.

Every chatbot turn is first read by the typed detectors (``sparring.evaluate._typed``): an
error or empty reply, an unfilled template, the fallback after an in-scope user turn, a
slot asked again, a repetition, a reply in another language. Those measured at precision
≥ 0.9 on labelled task-bot turns **label** the turn a breakdown of their ChatChecker type
(Mayr et al. 2025, §3.2), with what they saw as the reasoning; the others are hints.

Every other turn is *unscored* (``breakdown`` ``None``) and **ranked**: ``score`` = 1 −
the ranking probability, a noisy-OR of the shipped classifier's P(breakdown) (hand-made
features, ``_features``, and a logistic regression trained on DBDC3's English development
data, ``_classifier``; Higashinaka et al. 2017), weighted by ``CLASSIFIER_WEIGHT``, and of
each hint that fired, weighted by its measured precision (``ranking_probability``). The
classifier alone does not label: on chatbots it was not trained on it falls short
(``_calibration``). A model file with ``labels`` true, or an explicit ``threshold``,
labels the remaining turns at the threshold instead (its score is then 1 − the
classifier's P; hints become the error types of the turns it labels).

A turn where the chatbot failed (``sparring.conversations.crash_turns``: a 500/504
failure, an empty reply, SENSEI's failure placeholder) is labelled ``CHATBOT_CRASH``: a
breakdown with score 0, in both modes; a crash after a user turn, with no chatbot turn
recorded, is put at the index the missing reply would have had.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord
from sparring.evaluate._classifier import BreakdownClassifier, default_classifier
from sparring.evaluate._detectors import breakdown_detector
from sparring.evaluate._embedded import Encoder, default_encoder, embedding_features
from sparring.evaluate._features import ConversationFeatures, conversation_features
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
)
from sparring.evaluate._taxonomy import Taxonomy
from sparring.evaluate._typed import Finding, TypedDetector, typed_findings, typed_quality
from sparring.evaluate._view import DialogueView, said
from sparring.precision import JudgeQuality
from sparring.types import Strategy, TextModel

REDUNDANCY = "redundancy"
IGNORE_QUESTION = "ignore question"
LACK_OF_BREVITY = "lack of brevity"
LEXICAL_ERROR_TYPES = (REDUNDANCY, IGNORE_QUESTION, LACK_OF_BREVITY)
"""The taxonomy names the offline detector can decide."""
RANKED = (
    "unscored: the offline detector ranks turns no typed detector labels (its learned "
    "score is too unreliable to label them on chatbots it was not trained on; see its "
    "measured figures)"
)
"""The reason written on every turn the offline detector ranks without labelling."""
CLASSIFIER_WEIGHT = 0.5
"""How much the chit-chat classifier's P(breakdown) counts in the ranking (0..1)."""
ECHO_WEIGHT = 0.5
"""How much a reply's similarity to an earlier chatbot reply counts in the ranking (0..1)."""
HINT_WEIGHT = 0.5
"""The weight of a hint whose precision was not measured (0..1)."""


class OfflineBreakdownDetector:
    """A ``BreakdownDetector`` with no model: features + the shipped classifier.

    ``classifier`` defaults to the shipped one, read on the first ``detect``
    (``ClassifierMismatch`` if it does not fit the code); ``threshold`` overrides its
    decision threshold (a probability in [0, 1]). Stateless: one instance serves many
    conversations at once.
    """

    name = "offline"
    strategy = Strategy.OFFLINE

    def __init__(
        self, classifier: BreakdownClassifier | None = None, *, threshold: float | None = None
    ) -> None:
        self._classifier = classifier
        self._threshold = threshold

    @property
    def classifier(self) -> BreakdownClassifier:
        """The classifier in use (the shipped one, on the meaning relations when the
        ``embeddings`` extra is installed, is loaded here, once per process)."""
        return self._classifier or default_classifier()

    @property
    def labels(self) -> bool:
        """Whether its classifier labels turns: every turn at an explicit ``threshold``, the
        turns of a chatbot declared ``conversational`` with a classifier whose ``labels``
        is true (else it
        ranks them and leaves them unscored; the typed detectors label in any case)."""
        return self._threshold is not None or self.classifier.labels

    @property
    def quality(self) -> JudgeQuality | None:
        """What its verdicts are worth: the typed detectors' measured labels and the
        ranking's figures (``typed_quality``); with a classifier that labels at a
        threshold, that classifier's own figures (``None`` when it has none)."""
        if self._threshold is not None:
            return self.classifier.quality
        return typed_quality(self.classifier.quality)

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """Judge every chatbot turn of ``record`` (see the module docstring)."""
        return self.judge(record, chatbot, taxonomy)

    def judge(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """``detect`` without the event loop (the work is CPU-bound and short)."""
        view = DialogueView.of(record, chatbot)
        result = ConversationBreakdowns(
            conversation=record.id, profile=record.profile, detector=self.name
        )
        if any(t.role == "assistant" for t in record.turns):
            classifier = self.classifier
            encode = default_encoder() if classifier.uses_embeddings else None
            features = record_features(record, chatbot, encode)
            threshold = classifier.threshold if self._threshold is None else self._threshold
            labelling = self._threshold is not None or (
                classifier.labels and chatbot.type == "conversational"
            )  # read from the dialogue, 29 of 136 task-bot conversations look chit-chat
            probabilities = classifier.probabilities(features.matrix)
            note = label_note(classifier) if self._threshold is None else ""
            for turn, p in zip(features.turns, probabilities, strict=True):
                found = typed_findings(view, turn)
                result.turns.append(
                    self._turn(
                        turn,
                        float(p),
                        threshold if labelling else None,
                        found,
                        taxonomy,
                        view.echo(turn),
                        note,
                    )
                )
        judged = {t.turn for t in result.turns}
        result.turns.extend(
            self._crash(turn, message)
            for turn, message in view.crashes.items()
            if turn not in judged
        )
        result.turns.sort(key=lambda t: t.turn)
        return result

    def _turn(
        self,
        turn: int,
        p: float,
        threshold: float | None,
        found: list[tuple[TypedDetector, Finding]],
        taxonomy: list[str],
        echo: float = 0.0,
        note: str = "",
    ) -> TurnBreakdown:
        """One turn: a breakdown when a labelling typed detector found one; else labelled
        at ``threshold``, or ranked (unscored) when it is ``None`` — its rank raised by the
        hints (``ranking_probability``)."""
        labelled = [f for d, f in found if d.labels]
        hints = [f for d, f in found if not d.labels]
        types: list[str] = []
        if labelled:
            allowed = {*taxonomy, CHATBOT_CRASH}
            types = [f.error_type for f in labelled if f.error_type in allowed]
            return TurnBreakdown(
                turn=turn,
                breakdown=True,
                score=0.0,
                error_types=list(dict.fromkeys(types)),
                reasoning="; ".join(f"{f.detector}: {f.reason}" for _, f in found),
                detector=self.name,
                strategy=self.strategy,
            )
        if threshold is None:
            breakdown = None
            rank = ranking_probability(p, [d for d, _ in found], echo)
            reasons = [f"{RANKED}; P(breakdown) {rank:.2f}"]
        else:  # labelled at the threshold: the classifier's own score, hints as types
            breakdown, rank = p >= threshold, p
            reasons = [f"P(breakdown) {p:.2f} {'≥' if breakdown else '<'} {threshold:.2f}{note}"]
            if breakdown:
                types = [f.error_type for f in hints if f.error_type in taxonomy]
        reasons += [f"{f.detector} (hint, not a label): {f.reason}" for f in hints]
        return TurnBreakdown(
            turn=turn,
            breakdown=breakdown,
            score=round(1.0 - rank, 4),
            error_types=list(dict.fromkeys(types)),
            reasoning="; ".join(reasons),
            detector=self.name,
            strategy=self.strategy,
        )

    def _crash(self, turn: int, message: str) -> TurnBreakdown:
        return TurnBreakdown(
            turn=turn,
            breakdown=True,
            score=0.0,
            error_types=[CHATBOT_CRASH],
            reasoning=f"the chatbot failed: {message}",
            detector=self.name,
            strategy=self.strategy,
        )


def label_note(classifier: BreakdownClassifier) -> str:
    """What the classifier's labels are worth, written on each of them: its precision and
    recall on chatbots it never saw (``_calibration.held_out_corpora``), when measured."""
    held_out = classifier.quality.measurements[0] if classifier.quality else None
    if held_out is None or held_out.precision is None:
        return ""
    return (
        f" (the chit-chat classifier: precision {held_out.precision:.2f}, recall "
        f"{held_out.recall or 0:.2f}, accuracy {held_out.accuracy or 0:.2f} on chatbots it "
        "never saw, DBDC3)"
    )


def ranking_probability(p: float, hints: Sequence[TypedDetector], echo: float = 0.0) -> float:
    """The ranking's P(breakdown) of an unlabelled turn: a noisy-OR of the classifier's
    ``p`` (weighted by ``CLASSIFIER_WEIGHT``: learned on chit-chat, it carries little to
    task bots), the ``echo`` — how much the reply repeats an earlier chatbot reply (0..1,
    ``DialogueView.echo``), weighted by ``ECHO_WEIGHT`` — and each hint that fired,
    weighted by its measured precision (``HINT_WEIGHT`` when not measured)."""
    keep = (1.0 - CLASSIFIER_WEIGHT * p) * (1.0 - ECHO_WEIGHT * echo)
    for hint in hints:
        keep *= 1.0 - (hint.precision if hint.precision is not None else HINT_WEIGHT)
    return 1.0 - keep


def record_features(
    record: ConversationRecord, chatbot: ChatbotInfo, encode: Encoder | None = None
) -> ConversationFeatures:
    """The features of ``record``'s chatbot turns: what the turn said (its messages, else
    its text without SENSEI's rendering of the buttons — a long button list is no long
    reply) and the fallback phrase (the record's, else the chatbot's). With ``encode``
    (sentence embeddings, ``_embedded``) the meaning relations follow the lexical
    features in each row (``EMBEDDING_FEATURE_NAMES``). Training computes them through
    here too."""
    import numpy as np

    roles = [t.role for t in record.turns]
    texts = [said(t) for t in record.turns]
    features = conversation_features(roles, texts, record.fallback or chatbot.fallback)
    if encode is None:
        return features
    meaning = embedding_features(roles, texts, encode)
    return replace(features, matrix=np.hstack([features.matrix, meaning]))


@breakdown_detector("offline")
def offline_detector(
    *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """The offline detector (``OfflineBreakdownDetector``); ``model`` is ignored."""
    return OfflineBreakdownDetector()
