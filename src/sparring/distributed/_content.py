"""What a chunk carries instead of a copy of the project: the planned conversations and
the content of the files a worker needs, by content digest.

The coordinator plans the run (it read the profiles and personas); each chunk message
holds its conversations' ``ConversationSpec``\\ s (JSON) and the SHA-256 digest of the
chatbot's configuration as the coordinator read it (``chatbot.yaml`` parsed, its
``${NAME}`` references kept as written). The content itself is stored once in Redis
under ``sparring:blob:<digest>`` (``publish``); a worker reads it from its own cache
(``$SPARRING_WORKER_CACHE``, default ``~/.cache/sparring/blobs``) or fetches it and
caches it (``fetch``), checking the digest either way. A worker fills ``${NAME}`` from its
own environment when it builds the connector, never from the message.

Errors: ``Refused`` (from ``_policy``) naming the setting and the digest when the content
is neither cached nor in Redis, or does not match its digest.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import redis
from pydantic import TypeAdapter

from sparring._atomic import atomic_write
from sparring.connectors import ChatbotConfig, ChatbotInfo
from sparring.distributed._policy import Refused
from sparring.profiles import PersonaFile
from sparring.simulate import ConversationSpec

CACHE_VARIABLE = "SPARRING_WORKER_CACHE"
BLOB_EXPIRY = 7 * 24 * 3600
"""Seconds a blob lives in Redis after the last session that published it."""

_SPECS = TypeAdapter(list[ConversationSpec])
# the names ConversationSpec's annotations import only for type checking
_SPECS.rebuild(
    force=True, _types_namespace={"ChatbotInfo": ChatbotInfo, "PersonaFile": PersonaFile}
)


def blob_key(digest: str) -> str:
    """The Redis key of the content with SHA-256 ``digest``."""
    return f"sparring:blob:{digest}"


def digest_of(data: bytes) -> str:
    """SHA-256 of ``data``, 64 hex digits."""
    return hashlib.sha256(data).hexdigest()


def chatbot_content(config: ChatbotConfig) -> bytes:
    """The chatbot's configuration as the worker rebuilds it: ``config`` dumped to
    canonical JSON (every form of chatbot file — ``chatbot.yaml``, ChatChecker's
    ``config.yaml``, SENSEI's ``run.yml`` — the same way; ``${NAME}`` as written)."""
    dumped = config.model_dump(mode="json")
    return json.dumps(dumped, sort_keys=True, separators=(",", ":")).encode()


def chatbot_from(content: bytes, source: Path) -> ChatbotConfig:
    """The ``ChatbotConfig`` of ``content`` (``chatbot_content``), located at ``source``
    (the coordinator's path: errors name it; relative paths resolve against its folder)."""
    config = ChatbotConfig.model_validate(json.loads(content))
    config._source = source
    return config


def specs_json(specs: list[ConversationSpec]) -> list[dict[str, Any]]:
    """``specs`` as JSON values (a chunk message's ``specs``)."""
    dumped: list[dict[str, Any]] = _SPECS.dump_python(specs, mode="json")
    return dumped


def specs_from(values: list[dict[str, Any]]) -> list[ConversationSpec]:
    """The ``ConversationSpec``\\ s of a chunk message's ``specs``. Raises
    ``pydantic.ValidationError`` for values that are not specs."""
    return _SPECS.validate_python(values)


def publish(client: redis.Redis, content: bytes) -> str:
    """Store ``content`` in Redis under its digest (for ``BLOB_EXPIRY`` seconds);
    return the digest."""
    digest = digest_of(content)
    client.set(blob_key(digest), content, ex=BLOB_EXPIRY)
    return digest


def cache_folder() -> Path:
    """This worker's cache of contents by digest."""
    configured = os.environ.get(CACHE_VARIABLE)
    return Path(configured) if configured else Path.home() / ".cache" / "sparring" / "blobs"


def fetch(client: redis.Redis, digest: str, key: str) -> bytes:
    """The content with ``digest``, from this worker's cache or else from Redis (then
    cached). ``key`` names the setting it is for, in the refusal raised (``Refused``)
    when it is in neither place or a cached or fetched copy does not match ``digest``."""
    cached = cache_folder() / digest
    if cached.is_file():
        content = cached.read_bytes()
        if digest_of(content) == digest:
            return content
    raw = client.get(blob_key(digest))
    if raw is None:
        raise Refused(
            f"settings.{key}: its content (digest {digest[:16]}…) is neither in this "
            f"worker's cache ({cache_folder()}) nor in the run's Redis; resume the run "
            "(sparring simulate --resume RUN) to publish it again"
        )
    content = bytes(raw)  # type: ignore[arg-type]
    if digest_of(content) != digest:
        raise Refused(
            f"settings.{key}: the content in Redis does not match its digest "
            f"{digest[:16]}… (altered or corrupt); refused"
        )
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cached, content, durable=False, redact=False)
    except OSError:
        pass  # a read-only cache only costs a fetch next time
    return content
