"""Dialogflow ES and CX agents, through the ``detectIntent`` REST methods.

One session per conversation (a fresh UUID, at most 36 characters as Dialogflow requires);
each utterance is one ``POST …/sessions/{session}:detectIntent``:

- **ES** (API v2, ``projects.agent.sessions.detectIntent``): body ``{"queryInput":
  {"text": {"text": …, "languageCode": …}}}``; the reply is the ``queryResult``'s
  ``fulfillmentMessages`` of the default platform — ``text.text[]`` messages,
  ``quickReplies`` and ``card.buttons`` as buttons, ``image.imageUri`` images — else its
  ``fulfillmentText``. Sessions live under ``projects/{p}/agent`` (``/locations/{l}`` for
  a regional agent, ``/environments/{e}/users/-`` for an environment).
- **CX** (API v3, ``projects.locations.agents.sessions.detectIntent``): body
  ``{"queryInput": {"text": {"text": …}, "languageCode": …}}``; the reply is
  ``queryResult.responseMessages``: ``text.text[]`` messages and the ``chips`` and
  ``button`` items of a ``payload.richContent`` (Dialogflow Messenger's format) as
  buttons. Sessions live under ``projects/{p}/locations/{l}/agents/{a}``
  (``/environments/{e}`` for an environment).

Authentication is an OAuth 2.0 access token sent as ``Authorization: Bearer``
(``token: ${DIALOGFLOW_TOKEN}``, e.g. from ``gcloud auth print-access-token``; it lasts
an hour). Source: Google Cloud's Dialogflow ES and CX REST references (detectIntent,
QueryResult, Intent.Message, ResponseMessage).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams
from sparring.connectors._http import join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.connectors._session import SessionConnector, TurnRequest
from sparring.errors import BadPayload
from sparring.types import Button

_GOOGLE = "https://dialogflow.googleapis.com"


class _DialogflowParams(ConnectorParams):
    project: str = Field(min_length=1)
    """Google Cloud project id of the agent."""
    language: str = "en"
    """Language code of the user's utterances (``languageCode``)."""
    environment: str | None = None
    """Environment id (default: the draft agent)."""
    token: str | None = None
    """OAuth 2.0 access token (``${DIALOGFLOW_TOKEN}``), sent as ``Authorization: Bearer``."""
    url: str | None = None
    """API endpoint (default: Google's, regional for a regional location)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers."""

    def endpoint(self, location: str | None) -> str:
        """The API endpoint: ``url``, else Google's (``{location}-dialogflow…``)."""
        if self.url:
            return self.url
        if location and location != "global":
            return f"https://{location}-dialogflow.googleapis.com"
        return _GOOGLE

    def all_headers(self) -> dict[str, str]:
        """``headers`` with the bearer token."""
        auth = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**auth, **self.headers}


class DialogflowEsParams(_DialogflowParams):
    """A Dialogflow ES agent (API v2)."""

    location: str | None = None
    """Region of a regional agent (e.g. ``europe-west1``); unset: global."""

    def session_path(self, session: str) -> str:
        """``v2/projects/…/sessions/{session}:detectIntent``."""
        agent = f"projects/{self.project}"
        agent += f"/locations/{self.location}/agent" if self.location else "/agent"
        if self.environment:
            agent += f"/environments/{self.environment}/users/-"
        return f"v2/{agent}/sessions/{session}:detectIntent"

    def body(self, text: str) -> dict[str, Any]:
        """The detectIntent request body."""
        return {"queryInput": {"text": {"text": text, "languageCode": self.language}}}


class DialogflowCxParams(_DialogflowParams):
    """A Dialogflow CX agent (API v3)."""

    agent: str = Field(min_length=1)
    """Agent id (the UUID in the agent's resource name)."""
    location: str = "global"
    """Region of the agent (``global``, ``us-central1``, …)."""

    def session_path(self, session: str) -> str:
        """``v3/projects/…/agents/{agent}/…/sessions/{session}:detectIntent``."""
        agent = f"projects/{self.project}/locations/{self.location}/agents/{self.agent}"
        if self.environment:
            agent += f"/environments/{self.environment}"
        return f"v3/{agent}/sessions/{session}:detectIntent"

    def body(self, text: str) -> dict[str, Any]:
        """The detectIntent request body."""
        return {"queryInput": {"text": {"text": text}, "languageCode": self.language}}


def _query_result(payload: Any) -> dict[str, Any]:
    if payload is None:
        return {}
    result = payload.get("queryResult") if isinstance(payload, dict) else None
    if not isinstance(result, dict):
        raise BadPayload("Dialogflow answered no `queryResult` object")
    return result


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def parse_es(payload: Any) -> Reply:
    """A ``Reply`` from an ES ``DetectIntentResponse`` (see the module docstring)."""
    result = _query_result(payload)
    reply = Reply(raw=payload)
    for message in result.get("fulfillmentMessages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("platform", "PLATFORM_UNSPECIFIED") != "PLATFORM_UNSPECIFIED":
            continue  # the same answer for another channel (Facebook, Slack, …)
        reply.messages += _strings((message.get("text") or {}).get("text"))
        quick = message.get("quickReplies") or {}
        reply.buttons += [Button(text=t) for t in _strings(quick.get("quickReplies"))]
        for button in (message.get("card") or {}).get("buttons") or []:
            if isinstance(button, dict) and button.get("text"):
                reply.buttons.append(Button(text=str(button["text"]), link=button.get("postback")))
        image = (message.get("image") or {}).get("imageUri")
        reply.images += [image] if isinstance(image, str) and image else []
    if not reply.messages and isinstance(result.get("fulfillmentText"), str):
        reply.messages = [result["fulfillmentText"]] if result["fulfillmentText"] else []
    return reply


def parse_cx(payload: Any) -> Reply:
    """A ``Reply`` from a CX ``DetectIntentResponse`` (see the module docstring)."""
    result = _query_result(payload)
    reply = Reply(raw=payload)
    for message in result.get("responseMessages") or []:
        if not isinstance(message, dict):
            continue
        reply.messages += _strings((message.get("text") or {}).get("text"))
        rich = (message.get("payload") or {}).get("richContent") or []
        items = [i for row in rich if isinstance(row, list) for i in row if isinstance(i, dict)]
        for item in items:
            if item.get("type") == "chips":
                options = [o for o in item.get("options") or [] if isinstance(o, dict)]
                reply.buttons += [
                    Button(text=str(o["text"]), link=o.get("link"))
                    for o in options
                    if o.get("text")
                ]
            elif item.get("type") == "button" and item.get("text"):
                reply.buttons.append(Button(text=str(item["text"]), link=item.get("link")))
    return reply


def _dialogflow(
    params: DialogflowEsParams | DialogflowCxParams, context: ConnectorContext
) -> SessionConnector:
    url = params.endpoint(params.location)

    def build(session: str, text: str) -> TurnRequest:
        return TurnRequest(join_url(url, params.session_path(session)), params.body(text))

    parse = parse_cx if isinstance(params, DialogflowCxParams) else parse_es
    return SessionConnector(
        context,
        url=url,
        timeout=params.timeout,
        build=build,
        parse=parse,
        headers=params.all_headers(),
        name="DialogflowConnector",
    )


@connector("dialogflow-es")
def dialogflow_es(params: DialogflowEsParams, context: ConnectorContext) -> SessionConnector:
    """A Dialogflow ES agent (detectIntent, API v2), with an OAuth access token."""
    return _dialogflow(params, context)


@connector("dialogflow-cx")
def dialogflow_cx(params: DialogflowCxParams, context: ConnectorContext) -> SessionConnector:
    """A Dialogflow CX agent (detectIntent, API v3), with an OAuth access token."""
    return _dialogflow(params, context)
