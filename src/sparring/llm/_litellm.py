"""Any model LiteLLM reaches: hosted APIs, Ollama, vLLM, llama.cpp server, any
OpenAI-compatible endpoint (``openai/<name>`` with a base URL).

LiteLLM is imported on the first call (the import takes ~2 s), after setting
``LITELLM_LOCAL_MODEL_COST_MAP`` so it never fetches a price map. Its exceptions are
translated here: an authentication failure (a missing or refused API key; LiteLLM reports
OpenAI's missing key as a 500) is a ``ModelError`` naming the key to set, never retried;
rate limits, timeouts, 5xx and connection errors become ``TransientModelError`` (retried by
``Model``); everything else is a ``ModelError``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from sparring.errors import ModelError
from sparring.llm._types import (
    Completion,
    CompletionRequest,
    TransientModelError,
    schema_instruction,
)


def import_litellm() -> ModuleType:
    """Import LiteLLM offline-safe (local price map, no remote fetch)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on errors
    return litellm


_AUTHENTICATION = re.compile(r"missing credentials|api[ _-]?key|authenticat|unauthori[sz]ed", re.I)


def _is_authentication(litellm: ModuleType, exc: Exception) -> bool:
    refused = (litellm.AuthenticationError, litellm.PermissionDeniedError)
    if isinstance(exc, refused) or getattr(exc, "status_code", None) in (401, 403):
        return True
    return _AUTHENTICATION.search(str(exc)) is not None


def _missing_keys(litellm: ModuleType, model: str) -> list[str]:
    try:
        found = litellm.validate_environment(model=model)
    except Exception:
        return []
    return [str(key) for key in found.get("missing_keys", [])]


def _is_transient(litellm: ModuleType, exc: Exception) -> bool:
    transient = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.ServiceUnavailableError,
        litellm.InternalServerError,
        litellm.BadGatewayError,
    )
    if isinstance(exc, transient):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class LiteLLMProvider:
    """Calls ``litellm.acompletion``.

    ``model`` is LiteLLM's model string (``gpt-4o-mini``, ``anthropic/…``, ``ollama/…``,
    ``openai/<name>``); ``options`` are extra keyword arguments for ``acompletion``
    (e.g. ``{"mock_response": "hi"}`` offline, ``{"api_version": …}``).
    """

    offline = False

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.options = dict(options or {})

    @property
    def limit_key(self) -> str:
        """What shares a concurrency limit: the provider family (``anthropic``, ``ollama``…;
        ``openai`` for bare names) and the base URL."""
        family = self.model.split("/", 1)[0] if "/" in self.model else "openai"
        return f"litellm:{family}|{self.base_url}"

    async def complete(self, request: CompletionRequest) -> Completion:
        """One ``acompletion`` call; cost from ``litellm.completion_cost`` (0 when the
        model has no known price), tokens from the response's usage."""
        litellm = import_litellm()
        kwargs = self._arguments(litellm, request)
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:
            if _is_authentication(litellm, exc):
                raise ModelError(self._authentication_message(litellm, exc)) from exc
            if _is_transient(litellm, exc):
                raise TransientModelError(f"{self.model}: {exc}") from exc
            raise ModelError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            model=str(getattr(response, "model", None) or self.model),
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost=self._cost(litellm, response),
        )

    def _authentication_message(self, litellm: ModuleType, exc: Exception) -> str:
        missing = [] if self.api_key is not None else _missing_keys(litellm, self.model)
        hint = (
            f"set {' or '.join(missing)} in the environment (or the model's api_key)"
            if missing
            else "check the model's API key"
        )
        return f"{self.model}: authentication failed, not retried: {hint} ({exc})"

    def _arguments(self, litellm: ModuleType, request: CompletionRequest) -> dict[str, Any]:
        messages = list(request.messages)
        kwargs: dict[str, Any] = {"model": self.model, "timeout": request.timeout}
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if self.base_url is not None:
            kwargs["api_base"] = self.base_url
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key
        if request.json_schema is not None:
            if self._supports_schema(litellm):
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": request.schema_name,
                        "schema": request.json_schema,
                        "strict": False,
                    },
                }
            else:
                messages = _with_instruction(messages, schema_instruction(request.json_schema))
        kwargs["messages"] = messages
        kwargs.update(self.options)
        return kwargs

    def _supports_schema(self, litellm: ModuleType) -> bool:
        try:
            return bool(litellm.supports_response_schema(model=self.model))
        except Exception:
            return False

    def _cost(self, litellm: ModuleType, response: Any) -> float:
        try:
            return float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:
            return 0.0


def _with_instruction(messages: list[dict[str, str]], instruction: str) -> list[dict[str, str]]:
    """Append ``instruction`` to the leading system message (or add one first): every
    provider accepts a system message there, not all accept one later."""
    if messages and messages[0]["role"] == "system":
        first = {"role": "system", "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]
