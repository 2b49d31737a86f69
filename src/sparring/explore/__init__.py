"""sparring.explore: black-box exploration of an unknown chatbot into a functionality
model, its workflow graph and test profiles (the TRACER method: Sotillo del Horno,
"Automated Exploration and Profiling of Conversational Agents", 2025, chapters 3–5).
"""

from sparring.explore._assemble import STEP_CAP, assemble_profile, assemble_profiles
from sparring.explore._coverage import (
    COVERAGE,
    COVERAGE_FILE,
    Coverage,
    FunctionalityCoverage,
    ParameterCoverage,
    coverage,
    read_coverage,
)
from sparring.explore._definition_coverage import (
    DEFINITION_COVERAGE,
    DEFINITION_COVERAGE_FILE,
    DefinitionCoverage,
    Reached,
    definition_coverage,
    read_definition_coverage,
)
from sparring.explore._graph import GraphFormat, GraphvizMissing, render_graph, workflow_svg
from sparring.explore._job import (
    DEFAULT_FORMATS,
    ExplorationResult,
    ExploreJob,
    ExploreSettings,
    save_model,
)
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
from sparring.explore._profiles import (
    OFFLINE_NOTE,
    GeneratedProfile,
    OutputDraft,
    Scenario,
    VariableDraft,
    offline_scenarios,
    write_profiles,
)
from sparring.explore._profiles_llm import generate_profiles
from sparring.explore._project import Definition, read_definition
from sparring.explore._session import ExplorationContext, Findings, Session
from sparring.explore._tracer import explore_with_model

__all__ = [
    "COVERAGE",
    "COVERAGE_FILE",
    "DEFAULT_FORMATS",
    "DEFINITION_COVERAGE",
    "DEFINITION_COVERAGE_FILE",
    "MODEL_SCHEMA_VERSION",
    "OFFLINE_NOTE",
    "STEP_CAP",
    "BotType",
    "Coverage",
    "Definition",
    "DefinitionCoverage",
    "ExplorationContext",
    "ExplorationModel",
    "ExplorationResult",
    "ExploreJob",
    "ExploreSettings",
    "Findings",
    "Functionality",
    "FunctionalityCoverage",
    "GeneratedProfile",
    "GraphFormat",
    "GraphvizMissing",
    "Output",
    "OutputDraft",
    "Parameter",
    "ParameterCoverage",
    "Reached",
    "Scenario",
    "Session",
    "ValueType",
    "VariableDraft",
    "assemble_profile",
    "assemble_profiles",
    "coverage",
    "definition_coverage",
    "explore_with_model",
    "generate_profiles",
    "node_id",
    "offline_scenarios",
    "read_coverage",
    "read_definition",
    "read_definition_coverage",
    "render_graph",
    "save_model",
    "workflow_svg",
    "write_profiles",
]
