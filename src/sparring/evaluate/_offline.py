"""The offline breakdown detector: hand-made features and the shipped classifier.

Every chatbot turn is scored from the turns before it (``sparring.evaluate._features``)
by the logistic regression trained on the DBDC3 English development data
(``sparring.evaluate._classifier``; Higashinaka et al. 2017): ``score`` = 1 − P(breakdown).

Whether that score becomes a label is measured, not assumed (``_calibration``): on
chatbots it was not trained on (DBDC3 corpora held out) and on task-oriented dialogues
(ChatChecker's annotated ones) it falls short of the targets, so the shipped model
**ranks turns and does not label them**: each turn is *unscored* (``breakdown`` ``None``)
with its score to sort by and the reason. A model file with ``labels`` true, or an
explicit ``threshold``, labels turns at the threshold instead.

The lexical cues are written in ``reasoning`` — ``redundancy`` (repeats an earlier
chatbot turn), ``ignore question`` (the user asked and the reply does not address it)
and ``lack of brevity`` (a very long reply), as Higashinaka et al.'s "Integrated taxonomy
of errors in chat-oriented dialogue systems" (SIGDIAL 2021) and ChatChecker (Mayr et al.
2025, §3.2) name them — and become error types only on turns labelled breakdowns.

A turn where the chatbot failed (a conversation error with code 500 or 504) is labelled
``CHATBOT_CRASH`` without judging: a breakdown with score 0, in both modes. A crash after a
user turn, with no chatbot turn recorded, is put at the index the missing reply would
have had.
"""

from __future__ import annotations

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, Turn, crash_turns
from sparring.evaluate._classifier import BreakdownClassifier, shipped_classifier
from sparring.evaluate._detectors import breakdown_detector
from sparring.evaluate._features import (
    ConversationFeatures,
    LexicalFindings,
    conversation_features,
)
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
)
from sparring.evaluate._taxonomy import Taxonomy
from sparring.precision import JudgeQuality
from sparring.types import SENSEI_BUTTONS_HEADER, Strategy, TextModel

REDUNDANCY = "redundancy"
IGNORE_QUESTION = "ignore question"
LACK_OF_BREVITY = "lack of brevity"
LEXICAL_ERROR_TYPES = (REDUNDANCY, IGNORE_QUESTION, LACK_OF_BREVITY)
"""The taxonomy names the offline detector can decide."""
RANKED = (
    "unscored: the offline detector ranks turns and does not label them (too unreliable "
    "on chatbots it was not trained on; see its measured figures)"
)
"""The reason written on every turn the offline detector ranks without labelling."""


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
        """The classifier in use (the shipped one is loaded here, once per process)."""
        return self._classifier or shipped_classifier()

    @property
    def labels(self) -> bool:
        """Whether it labels turns (else it ranks them and leaves them unscored)."""
        return self._threshold is not None or self.classifier.labels

    @property
    def quality(self) -> JudgeQuality | None:
        """The measured figures shipped with the model (``None`` when it has none)."""
        return self.classifier.quality

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """Judge every chatbot turn of ``record`` (see the module docstring)."""
        return self.judge(record, chatbot, taxonomy)

    def judge(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """``detect`` without the event loop (the work is CPU-bound and short)."""
        crashes = crash_turns(record)
        result = ConversationBreakdowns(
            conversation=record.id, profile=record.profile, detector=self.name
        )
        if any(t.role == "assistant" for t in record.turns):
            features = record_features(record, chatbot)
            classifier = self.classifier
            threshold = classifier.threshold if self._threshold is None else self._threshold
            labels = self.labels
            probabilities = classifier.probabilities(features.matrix)
            for turn, p, found in zip(
                features.turns, probabilities, features.findings, strict=True
            ):
                if turn not in crashes:
                    result.turns.append(
                        self._turn(turn, float(p), threshold if labels else None, found, taxonomy)
                    )
        result.turns.extend(self._crash(turn, message) for turn, message in crashes.items())
        result.turns.sort(key=lambda t: t.turn)
        return result

    def _turn(
        self,
        turn: int,
        p: float,
        threshold: float | None,
        found: LexicalFindings,
        taxonomy: list[str],
    ) -> TurnBreakdown:
        """One turn: labelled at ``threshold``, or ranked (unscored) when it is ``None``."""
        breakdown = None if threshold is None else p >= threshold
        if threshold is None:
            reasons = [f"{RANKED}; P(breakdown) {p:.2f}"]
        else:
            reasons = [f"P(breakdown) {p:.2f} {'≥' if breakdown else '<'} {threshold:.2f}"]
        types: list[str] = []
        decided = (
            (REDUNDANCY, found.repeats is not None, f"repeats turn {found.repeats}"),
            (IGNORE_QUESTION, found.ignored_question, "does not address the user's question"),
            (LACK_OF_BREVITY, found.long_reply, "very long reply"),
        )
        for name, present, why in decided:
            if present:
                reasons.append(why)
                if breakdown and name in taxonomy:
                    types.append(name)
        return TurnBreakdown(
            turn=turn,
            breakdown=breakdown,
            score=round(1.0 - p, 4),
            error_types=types,
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


def record_features(record: ConversationRecord, chatbot: ChatbotInfo) -> ConversationFeatures:
    """The features of ``record``'s chatbot turns: what the turn said (its messages, else
    its text without SENSEI's rendering of the buttons — a long button list is no long
    reply) and the fallback phrase (the record's, else the chatbot's). Training computes
    them through here too."""
    roles = [t.role for t in record.turns]
    texts = [_said(t) for t in record.turns]
    return conversation_features(roles, texts, record.fallback or chatbot.fallback)


def _said(turn: Turn) -> str:
    if turn.messages:
        return " ".join(turn.messages)
    return turn.text.split(SENSEI_BUTTONS_HEADER, 1)[0].strip()


@breakdown_detector("offline")
def offline_detector(
    *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """The offline detector (``OfflineBreakdownDetector``); ``model`` is ignored."""
    return OfflineBreakdownDetector()
