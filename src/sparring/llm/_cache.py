"""The on-disk response cache: one JSON file per request, written atomically.

Key = SHA-256 of (model spec, messages, schema JSON, temperature). A re-run with the same
inputs replays the stored completion exactly; nothing expires (delete the folder to reset).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sparring._atomic import atomic_write
from sparring.llm._types import Completion


def cache_key(
    spec: str,
    messages: list[dict[str, str]],
    schema_json: dict[str, Any] | None,
    temperature: float | None,
) -> str:
    """A hex SHA-256 digest of the request; equal inputs give equal keys."""
    payload = {
        "model": spec,
        "messages": messages,
        "schema": schema_json,
        "temperature": temperature,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Completions stored under ``directory/<key[:2]>/<key>.json``."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        """The stored completion, or ``None`` when absent or unreadable (a miss)."""
        path = self._path(key)
        try:
            return Completion.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def put(self, key: str, completion: Completion) -> None:
        """Store a completion; a temporary file is renamed over the target, so readers
        never see half a file."""
        atomic_write(self._path(key), completion.model_dump_json(), durable=False)
