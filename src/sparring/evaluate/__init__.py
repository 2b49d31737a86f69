"""sparring.evaluate: dialogue breakdown detection with an error taxonomy, dialogue
ratings, personas and dialogue statistics (ChatChecker: Mayr, Schimpf, Bohné, "ChatChecker:
A Framework for Dialogue System Testing and Evaluation Through Non-cooperative User
Simulation", 2025).
"""

from sparring.conversations import crash_turns
from sparring.evaluate._bench import DEFAULT_BENCH_DETECTORS, BenchSettings, DbdcBench, bench_dbdc
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
    auc,
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
from sparring.evaluate._job import (
    BreakdownEvaluation,
    DetectorName,
    EvaluateJob,
    EvaluateResult,
    EvaluateSettings,
)
from sparring.evaluate._llm_detector import ChatCheckerDetector, GhasselDetector
from sparring.evaluate._offline import (
    IGNORE_QUESTION,
    LACK_OF_BREVITY,
    LEXICAL_ERROR_TYPES,
    REDUNDANCY,
    OfflineBreakdownDetector,
)
from sparring.evaluate._ratings import (
    ConversationRatings,
    DimensionRating,
    DimensionSet,
    RatingDimension,
    RatingEvaluation,
    load_dimensions,
    rate_conversation,
)
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    EVALUATION_SCHEMA_VERSION,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
    quality_of,
)
from sparring.evaluate._run_labels import (
    annotated_turns,
    read_annotation_labels,
    run_dialogues,
)
from sparring.evaluate._stats import (
    BreakdownStats,
    ConversationStats,
    EvaluationStatistics,
    FiveNumbers,
    RunStats,
    conversation_stats,
    run_stats,
    table_rows,
)
from sparring.evaluate._taxonomy import ErrorType, Taxonomy, load_taxonomy

__all__ = [
    "BREAKDOWN_DETECTORS",
    "CHATBOT_CRASH",
    "DEFAULT_BENCH_DETECTORS",
    "EVALUATION_SCHEMA_VERSION",
    "FEATURE_SET_VERSION",
    "IGNORE_QUESTION",
    "LACK_OF_BREVITY",
    "LEXICAL_ERROR_TYPES",
    "MODEL_FILE",
    "REDUNDANCY",
    "AlwaysBreakdownDetector",
    "BenchSettings",
    "BinaryMetrics",
    "BreakdownClassifier",
    "BreakdownDetector",
    "BreakdownEvaluation",
    "BreakdownStats",
    "ChatCheckerDetector",
    "ClassifierMismatch",
    "ConversationBreakdowns",
    "ConversationRatings",
    "ConversationStats",
    "DbdcBench",
    "DbdcDialogue",
    "DbdcMetrics",
    "DbdcTurn",
    "DetectorFactory",
    "DetectorName",
    "DimensionRating",
    "DimensionSet",
    "ErrorType",
    "EvaluateJob",
    "EvaluateResult",
    "EvaluateSettings",
    "EvaluationStatistics",
    "FiveNumbers",
    "GhasselDetector",
    "OfflineBreakdownDetector",
    "RatingDimension",
    "RatingEvaluation",
    "RunStats",
    "Taxonomy",
    "TurnBreakdown",
    "TurnOutcome",
    "annotated_turns",
    "auc",
    "bench_dbdc",
    "breakdown_detector",
    "conversation_stats",
    "crash_turns",
    "dbdc_metrics",
    "evaluate_on_dbdc",
    "load_classifier",
    "load_dbdc",
    "load_dimensions",
    "load_taxonomy",
    "make_detector",
    "parse_dialogue",
    "quality_of",
    "rate_conversation",
    "read_annotation_labels",
    "run_dialogues",
    "run_stats",
    "shipped_classifier",
    "table_rows",
]
