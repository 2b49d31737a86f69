"""Conversation and run records, the run store, summaries, SENSEI import/export and
ChatChecker import."""

from sparring.conversations._chatchecker import (
    ChatCheckerDialogue,
    chatchecker_record,
    import_chatchecker,
    read_chatchecker_dialogue,
)
from sparring.conversations._files import atomic_write, natural_key, read_json_model
from sparring.conversations._import import (
    ImportChatCheckerSettings,
    ImportResult,
    ImportSenseiSettings,
    import_chatchecker_job,
    import_sensei_job,
)
from sparring.conversations._load import load_conversations
from sparring.conversations._play import play_utterances, record_failure, reply_turn
from sparring.conversations._records import (
    EMPTY_RESPONSE,
    MANIFEST_SCHEMA_VERSION,
    SCHEMA_VERSION,
    ConversationError,
    ConversationRecord,
    ErrorCode,
    FailureCause,
    FinishReason,
    InteractionStyle,
    OutputValue,
    RunManifest,
    Turn,
    codes_of_finish_reason,
    finish_reason_of_code,
)
from sparring.conversations._render import render_summary
from sparring.conversations._sensei import (
    SENSEI_SERVER_ERROR,
    export_sensei,
    import_sensei,
    is_sensei_conversation,
    parse_sensei_buttons,
    sensei_path,
    sensei_record,
    sensei_serial,
)
from sparring.conversations._store import (
    EXPLORE_MODEL,
    EXPLORE_PROFILES,
    RunStore,
    Slot,
    record_file_name,
    record_id_from_name,
)
from sparring.conversations._summary import (
    Durations,
    Failures,
    ResponseTimes,
    RunSummary,
    percentile,
    summarize,
)
from sparring.types import SENSEI_BUTTONS_HEADER, ModelUsage

__all__ = [
    "EMPTY_RESPONSE",
    "EXPLORE_MODEL",
    "EXPLORE_PROFILES",
    "MANIFEST_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "SENSEI_BUTTONS_HEADER",
    "SENSEI_SERVER_ERROR",
    "ChatCheckerDialogue",
    "ConversationError",
    "ConversationRecord",
    "Durations",
    "ErrorCode",
    "FailureCause",
    "Failures",
    "FinishReason",
    "ImportChatCheckerSettings",
    "ImportResult",
    "ImportSenseiSettings",
    "InteractionStyle",
    "ModelUsage",
    "OutputValue",
    "ResponseTimes",
    "RunManifest",
    "RunStore",
    "RunSummary",
    "Slot",
    "Turn",
    "atomic_write",
    "chatchecker_record",
    "codes_of_finish_reason",
    "export_sensei",
    "finish_reason_of_code",
    "import_chatchecker",
    "import_chatchecker_job",
    "import_sensei",
    "import_sensei_job",
    "is_sensei_conversation",
    "load_conversations",
    "natural_key",
    "parse_sensei_buttons",
    "percentile",
    "play_utterances",
    "read_chatchecker_dialogue",
    "read_json_model",
    "record_failure",
    "record_file_name",
    "record_id_from_name",
    "render_summary",
    "reply_turn",
    "sensei_path",
    "sensei_record",
    "sensei_serial",
    "summarize",
]
