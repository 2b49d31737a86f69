"""sparring.evaluate: dialogue breakdown detection with an error taxonomy, dialogue
ratings, personas and dialogue statistics (ChatChecker: Mayr, Schimpf, Bohné, "ChatChecker:
A Framework for Dialogue System Testing and Evaluation Through Non-cooperative User
Simulation", 2025).
"""

from sparring.evaluate._results import (
    CHATBOT_CRASH,
    EVALUATION_SCHEMA_VERSION,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
)

__all__ = [
    "CHATBOT_CRASH",
    "EVALUATION_SCHEMA_VERSION",
    "BreakdownDetector",
    "ConversationBreakdowns",
    "TurnBreakdown",
]
