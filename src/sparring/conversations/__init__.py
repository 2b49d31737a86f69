"""Conversation and run records, the run store, summaries, SENSEI import/export."""

from sparring.conversations._load import load_conversations
from sparring.conversations._records import (
    EMPTY_RESPONSE,
    SCHEMA_VERSION,
    SENSEI_BUTTONS_HEADER,
    ConversationError,
    ConversationRecord,
    ErrorCode,
    ModelUsage,
    OutputValue,
    RunManifest,
    Turn,
)
from sparring.conversations._render import render_summary
from sparring.conversations._sensei import (
    export_sensei,
    import_sensei,
    is_sensei_conversation,
    parse_sensei_buttons,
    sensei_path,
    sensei_record,
    sensei_serial,
)
from sparring.conversations._store import (
    RunStore,
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

__all__ = [
    "EMPTY_RESPONSE",
    "SCHEMA_VERSION",
    "SENSEI_BUTTONS_HEADER",
    "ConversationError",
    "ConversationRecord",
    "Durations",
    "ErrorCode",
    "Failures",
    "ModelUsage",
    "OutputValue",
    "ResponseTimes",
    "RunManifest",
    "RunStore",
    "RunSummary",
    "Turn",
    "export_sensei",
    "import_sensei",
    "is_sensei_conversation",
    "load_conversations",
    "parse_sensei_buttons",
    "percentile",
    "record_file_name",
    "record_id_from_name",
    "render_summary",
    "sensei_path",
    "sensei_record",
    "sensei_serial",
    "summarize",
]
