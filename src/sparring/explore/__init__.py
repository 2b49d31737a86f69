"""sparring.explore: black-box exploration of an unknown chatbot into a functionality
model, its workflow graph and test profiles (the TRACER method: Sotillo del Horno,
"Automated Exploration and Profiling of Conversational Agents", 2025, chapters 3–5).
"""

from sparring.explore._model import (
    MODEL_SCHEMA_VERSION,
    BotType,
    ExplorationModel,
    Functionality,
    Output,
    Parameter,
    ValueType,
    node_id,
)
from sparring.explore._session import ExplorationContext, Findings, Session

__all__ = [
    "MODEL_SCHEMA_VERSION",
    "BotType",
    "ExplorationContext",
    "ExplorationModel",
    "Findings",
    "Functionality",
    "Output",
    "Parameter",
    "Session",
    "ValueType",
    "node_id",
]
