"""sparring.profiles: SENSEI user profiles — the model, variable selectors, personas and
conversation planning.

    profile = load_profile("profiles/pizza.yml")        # ConfigError lists every problem
    plans = await plan_conversations(profile, seed=0)   # one PlannedConversation each

Both the paper's syntax (de Lara et al., "Automated End-to-End Testing for Conversational
Agents", §3–4) and SENSEI release 1.1.5's are read; docs/profiles.md describes the format
and what differs from SENSEI.
"""

from sparring.profiles._chatchecker_personas import (
    ChatCheckerPersona,
    ChatCheckerPersonaProfile,
    is_chatchecker_persona,
    load_chatchecker_persona,
    load_chatchecker_personas,
)
from sparring.profiles._conversation import (
    STYLE_NAMES,
    AllAnswered,
    ChangeLanguage,
    Combinations,
    Conversation,
    GoalStyle,
    RandomStyles,
)
from sparring.profiles._data import (
    DateData,
    DateRange,
    DateSpec,
    FunctionData,
    RangeData,
    is_any_item,
)
from sparring.profiles._loader import (
    ProfileCheck,
    check_profile,
    check_profiles,
    load_profile,
    profile_files,
    validate_profiles,
)
from sparring.profiles._model import (
    Chatbot,
    ConversationFormat,
    LlmSettings,
    OutputData,
    OutputSpec,
    PersonalityRef,
    Profile,
    User,
    Variable,
)
from sparring.profiles._persona_files import (
    BEHAVIOURS,
    TRAIT_BEHAVIOURS,
    Behaviour,
    BigFive,
    PersonaFile,
    PersonaKind,
    TraitLevel,
    dump_persona,
    load_persona_file,
    load_persona_files,
    persona_files,
    persona_from_chatchecker,
)
from sparring.profiles._personas import (
    Persona,
    ResolvedPersona,
    library_key,
    library_names,
    read_persona,
    resolve_persona,
)
from sparring.profiles._placeholders import (
    FILLER,
    is_placeholder,
    placeholder,
    placeholder_words,
)
from sparring.profiles._planner import (
    PlannedConversation,
    fill_goals,
    plan_conversations,
    planned_count,
)
from sparring.profiles._selectors import Selector, parse_selector
from sparring.profiles._types import (
    CustomType,
    OutputType,
    load_custom_types,
    parse_output_type,
    read_output_type,
    value_kind,
)
from sparring.profiles._variables import VariableSpec

__all__ = [
    "BEHAVIOURS",
    "FILLER",
    "STYLE_NAMES",
    "TRAIT_BEHAVIOURS",
    "AllAnswered",
    "Behaviour",
    "BigFive",
    "ChangeLanguage",
    "ChatCheckerPersona",
    "ChatCheckerPersonaProfile",
    "Chatbot",
    "Combinations",
    "Conversation",
    "ConversationFormat",
    "CustomType",
    "DateData",
    "DateRange",
    "DateSpec",
    "FunctionData",
    "GoalStyle",
    "LlmSettings",
    "OutputData",
    "OutputSpec",
    "OutputType",
    "Persona",
    "PersonaFile",
    "PersonaKind",
    "PersonalityRef",
    "PlannedConversation",
    "Profile",
    "ProfileCheck",
    "RandomStyles",
    "RangeData",
    "ResolvedPersona",
    "Selector",
    "TraitLevel",
    "User",
    "Variable",
    "VariableSpec",
    "check_profile",
    "check_profiles",
    "dump_persona",
    "fill_goals",
    "is_any_item",
    "is_chatchecker_persona",
    "is_placeholder",
    "library_key",
    "library_names",
    "load_chatchecker_persona",
    "load_chatchecker_personas",
    "load_custom_types",
    "load_persona_file",
    "load_persona_files",
    "load_profile",
    "parse_output_type",
    "parse_selector",
    "persona_files",
    "persona_from_chatchecker",
    "placeholder",
    "placeholder_words",
    "plan_conversations",
    "planned_count",
    "profile_files",
    "read_output_type",
    "read_persona",
    "resolve_persona",
    "validate_profiles",
    "value_kind",
]
