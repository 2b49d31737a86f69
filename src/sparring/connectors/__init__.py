"""Connectors to the chatbot under test (see ``_base`` for the contract).

``chatbot.yaml`` names a connector and its params; ``load_chatbot_config`` reads it and
``create_connector`` builds the connector, which opens one ``Conversation`` per dialogue.
Built in: ``rasa``, ``taskyto``, ``rest`` (any JSON-over-HTTP API, SENSEI custom-connector
files as is), ``openai`` (an OpenAI-compatible chat endpoint as the bot), ``python`` (a
callable or class in process), ``scripted`` (deterministic YAML rules), ``dialogflow-es``,
``dialogflow-cx``, ``directline`` (Microsoft Bot Framework), ``botpress`` and ``lex``
(Amazon Lex V2). SENSEI's and TRACER's connector files and run.yml are read as they are
(``import_connector``). Third parties register more with ``@connector`` and the
entry-point group ``sparring.connectors``.
"""

from sparring.connectors._base import (
    Connector,
    ConnectorContext,
    ConnectorParams,
    Conversation,
    greeting_of,
    within_timeout,
)
from sparring.connectors._config import (
    ChatbotConfig,
    ChatbotInfo,
    chatbot_file_format,
    chatbot_yaml,
    config_problem,
    create_connector,
    import_connector,
    is_chatbot_file,
    load_chatbot_config,
    recorded_info,
)
from sparring.connectors._pacing import Limiter, LimiterFactory, local_limiter
from sparring.connectors._probe import (
    ChatbotUnreachable,
    ProbeResult,
    endpoint_of,
    ensure_reachable,
    probe,
)
from sparring.connectors._registry import (
    CONNECTORS,
    ENTRY_POINT_GROUP,
    ConnectorSpec,
    UnknownConnector,
    available_connectors,
    connector,
    get_connector,
)
from sparring.connectors._reply import Reply
from sparring.connectors._secrets import Redactor, variable_references
from sparring.types import Button, render_sensei_text

__all__ = [
    "CONNECTORS",
    "ENTRY_POINT_GROUP",
    "Button",
    "ChatbotConfig",
    "ChatbotInfo",
    "ChatbotUnreachable",
    "Connector",
    "ConnectorContext",
    "ConnectorParams",
    "ConnectorSpec",
    "Conversation",
    "Limiter",
    "LimiterFactory",
    "ProbeResult",
    "Redactor",
    "Reply",
    "UnknownConnector",
    "available_connectors",
    "chatbot_file_format",
    "chatbot_yaml",
    "config_problem",
    "connector",
    "create_connector",
    "endpoint_of",
    "ensure_reachable",
    "get_connector",
    "greeting_of",
    "import_connector",
    "is_chatbot_file",
    "load_chatbot_config",
    "local_limiter",
    "probe",
    "recorded_info",
    "render_sensei_text",
    "variable_references",
    "within_timeout",
]
