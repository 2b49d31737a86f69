"""The task messages of a distributed run, as the coordinator sends them and a worker
parses them (strictly: an unknown key is refused).

A message names the run (its key in Redis), the coordinator's session, the chunk (or
mutant) and the delivery token that must own it, the run's stored settings, K, and who
sent it: sparring's version and a digest of its code (``_policy``). A chunk carries its
planned conversations (``specs``) and, in ``files``, the digest of the chatbot's
configuration, whose content waits in Redis (``_content``); a mutant carries the digests
of the files at the paths its settings name. Never a secret.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

import sparring
from sparring.distributed._policy import code_digest


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    run: str
    session: str
    token: str
    settings: dict[str, Any]
    max_attempts: int = Field(ge=1)
    version: str
    code: str
    files: dict[str, str]


class ChunkMessage(_Message):
    """One chunk of a simulate run: the planned conversations ``ids`` and their
    ``specs`` (``ConversationSpec`` as JSON, ``_content.specs_json``); ``files["chatbot"]``
    is the digest of the chatbot's configuration (``_content.chatbot_content``)."""

    chunk: str
    ids: list[str]
    specs: list[dict[str, Any]]


class MutantMessage(_Message):
    """One mutant of a mutate job, with the original's ``false_positives``."""

    mutant: str
    false_positives: list[str]


def sender() -> dict[str, str]:
    """The fields that say who sent a message (this process's version and code)."""
    return {"version": sparring.__version__, "code": code_digest()}


def new_token() -> str:
    """A fresh delivery token (or session id): 12 random hex digits."""
    return uuid.uuid4().hex[:12]
