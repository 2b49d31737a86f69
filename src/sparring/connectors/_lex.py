"""Amazon Lex V2 bots, through the runtime's ``RecognizeText`` operation.

Each utterance is ``POST {url}/bots/{bot}/botAliases/{alias}/botLocales/{locale}/sessions/
{session}/text`` with ``{"text": …}``, one session (a fresh UUID) per conversation, signed
with AWS Signature Version 4 for the service ``lex`` (botocore's signer: ``pip install
botocore``, or ``sparring[aws]``). The reply is the ``messages`` list: ``PlainText``
contents are messages (``SSML`` too, as written), an ``ImageResponseCard`` adds its title
and subtitle as messages, its buttons as buttons and its image. Credentials are the
``access_key_id``/``secret_access_key``/``session_token`` params (``${ENV}``), else
botocore's usual chain (environment, ``~/.aws``, instance role).

Source: Amazon Lex V2 API reference, "RecognizeText" (runtime, 2020-08-07).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams
from sparring.connectors._http import join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.connectors._session import SessionConnector, TurnRequest
from sparring.errors import BadPayload, ConfigError, Problem
from sparring.types import Button


class LexParams(ConnectorParams):
    """An Amazon Lex V2 bot alias in one locale."""

    bot: str = Field(min_length=1)
    """The bot's id (``botId``)."""
    alias: str = "TSTALIASID"
    """The alias id (``botAliasId``; the default is the draft's test alias)."""
    locale: str = "en_US"
    """The locale id (``localeId``)."""
    region: str = Field(min_length=1)
    """AWS region of the bot (e.g. ``eu-west-1``)."""
    url: str | None = None
    """Runtime endpoint (default ``https://runtime-v2-lex.{region}.amazonaws.com``)."""
    access_key_id: str | None = None
    """AWS access key id (``${AWS_ACCESS_KEY_ID}``); unset: botocore's credential chain."""
    secret_access_key: str | None = None
    """AWS secret access key (``${AWS_SECRET_ACCESS_KEY}``)."""
    session_token: str | None = None
    """AWS session token of temporary credentials."""


def parse_recognize_text(payload: Any) -> Reply:
    """A ``Reply`` from a ``RecognizeText`` response (see the module docstring)."""
    if payload is None:
        return Reply()
    if not isinstance(payload, dict) or not isinstance(payload.get("messages", []), list):
        raise BadPayload("Lex answered no `messages` list")
    reply = Reply(raw=payload)
    for message in payload.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str) and content and message.get("contentType") != "CustomPayload":
            reply.messages.append(content)
        card = message.get("imageResponseCard")
        if isinstance(card, dict):
            reply.messages += [card[k] for k in ("title", "subtitle") if card.get(k)]
            for button in card.get("buttons") or []:
                if isinstance(button, dict) and button.get("text"):
                    reply.buttons.append(Button(text=str(button["text"]), link=button.get("value")))
            if isinstance(card.get("imageUrl"), str):
                reply.images.append(card["imageUrl"])
    return reply


def _signer(params: LexParams) -> Any:
    """botocore's SigV4 signer for ``lex`` in ``params.region``. Raises ``ConfigError``
    when botocore is missing or no credentials are found."""
    try:
        from botocore.auth import SigV4Auth
        from botocore.credentials import Credentials
        from botocore.session import Session
    except ImportError as exc:
        message = "the lex connector signs requests with botocore: pip install botocore"
        raise ConfigError(Problem("", None, "", message)) from exc
    if params.access_key_id and params.secret_access_key:
        credentials = Credentials(
            params.access_key_id, params.secret_access_key, params.session_token
        )
    else:
        credentials = Session().get_credentials()
    if credentials is None:
        message = "no AWS credentials: set access_key_id and secret_access_key, or the environment"
        raise ConfigError(Problem("", None, "access_key_id", message))
    return SigV4Auth(credentials, "lex", params.region)


def _signed(signer: Any, url: str, body: bytes) -> dict[str, str]:
    """The headers that sign a ``POST url`` with ``body`` (SigV4, service ``lex``)."""
    from botocore.awsrequest import AWSRequest

    request = AWSRequest(
        method="POST", url=url, data=body, headers={"Content-Type": "application/json"}
    )
    signer.add_auth(request)
    return {k: str(v) for k, v in request.headers.items()}


@connector("lex")
def lex(params: LexParams, context: ConnectorContext) -> SessionConnector:
    """An Amazon Lex V2 bot (RecognizeText), signed with AWS SigV4."""
    signer = _signer(params)
    base = params.url or f"https://runtime-v2-lex.{params.region}.amazonaws.com"

    def build(session: str, text: str) -> TurnRequest:
        path = (
            f"/bots/{params.bot}/botAliases/{params.alias}/botLocales/{params.locale}"
            f"/sessions/{session}/text"
        )
        url = join_url(base, path)
        body = json.dumps({"text": text}).encode("utf-8")
        return TurnRequest(url, content=body, headers=_signed(signer, url, body))

    return SessionConnector(
        context,
        url=base,
        timeout=params.timeout,
        build=build,
        parse=parse_recognize_text,
        name="LexConnector",
    )
