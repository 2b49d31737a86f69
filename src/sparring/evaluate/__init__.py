"""sparring.evaluate: dialogue breakdown detection with an error taxonomy, dialogue
ratings, personas and dialogue statistics (ChatChecker: Mayr, Schimpf, Bohné, "ChatChecker:
A Framework for Dialogue System Testing and Evaluation Through Non-cooperative User
Simulation", 2025).
"""

from sparring.evaluate._classifier import (
    MODEL_FILE,
    BreakdownClassifier,
    ClassifierMismatch,
    load_classifier,
    shipped_classifier,
)
from sparring.evaluate._dbdc import DbdcDialogue, DbdcTurn, load_dbdc, parse_dialogue
from sparring.evaluate._dbdc_metrics import (
    BinaryMetrics,
    DbdcMetrics,
    TurnOutcome,
    dbdc_metrics,
    evaluate_on_dbdc,
)
from sparring.evaluate._detectors import (
    BREAKDOWN_DETECTORS,
    AlwaysBreakdownDetector,
    DetectorFactory,
    breakdown_detector,
    make_detector,
)
from sparring.evaluate._features import FEATURE_SET_VERSION
from sparring.evaluate._offline import (
    IGNORE_QUESTION,
    LACK_OF_BREVITY,
    LEXICAL_ERROR_TYPES,
    REDUNDANCY,
    OfflineBreakdownDetector,
)
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    EVALUATION_SCHEMA_VERSION,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
)

__all__ = [
    "BREAKDOWN_DETECTORS",
    "CHATBOT_CRASH",
    "EVALUATION_SCHEMA_VERSION",
    "FEATURE_SET_VERSION",
    "IGNORE_QUESTION",
    "LACK_OF_BREVITY",
    "LEXICAL_ERROR_TYPES",
    "MODEL_FILE",
    "REDUNDANCY",
    "AlwaysBreakdownDetector",
    "BinaryMetrics",
    "BreakdownClassifier",
    "BreakdownDetector",
    "ClassifierMismatch",
    "ConversationBreakdowns",
    "DbdcDialogue",
    "DbdcMetrics",
    "DbdcTurn",
    "DetectorFactory",
    "OfflineBreakdownDetector",
    "TurnBreakdown",
    "TurnOutcome",
    "breakdown_detector",
    "dbdc_metrics",
    "evaluate_on_dbdc",
    "load_classifier",
    "load_dbdc",
    "make_detector",
    "parse_dialogue",
    "shipped_classifier",
]
