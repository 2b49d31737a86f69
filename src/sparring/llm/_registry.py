"""``get_model(spec)``: pick the provider by the spec's prefix, in ``PROVIDERS``.

Registered there like any plug-in: ``scripted`` (``scripted:<file>``, the deterministic
fake), ``llamacpp/`` (``llamacpp/<file.gguf>``, local llama.cpp) and ``litellm/``
(LiteLLM, ``DEFAULT_PROVIDER``: every spec no registered prefix matches goes to it, so
``gpt-4o-mini`` is ``litellm/gpt-4o-mini``). Third parties add prefixes with
``register_provider`` or through the ``sparring.models`` entry-point group (name = prefix,
value = a ``ProviderFactory``), loaded when no built-in prefix matches a spec; replacing
``litellm/`` changes where unprefixed specs go.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring._policy import current_policy
from sparring._redact import add_secrets
from sparring.errors import UserInputError
from sparring.llm._litellm import LiteLLMProvider
from sparring.llm._llamacpp import LlamaCppProvider
from sparring.llm._model import Model
from sparring.llm._scripted import ScriptedProvider, load_script
from sparring.llm._types import Provider
from sparring.registry import Registry


@dataclass(frozen=True)
class ProviderSettings:
    """Where and how to reach a provider: ``base_url``, ``api_key`` and extra ``options``."""

    base_url: str | None = None
    api_key: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


ProviderFactory = Callable[[str, ProviderSettings], Provider]
"""``factory(name_after_prefix, settings) -> Provider``."""

PROVIDERS: Registry[ProviderFactory] = Registry("model provider", group="sparring.models")
"""Provider factories by spec prefix (``"llamacpp/"``); entry points: name = prefix."""


def register_provider(
    prefix: str, *, replace: bool = False
) -> Callable[[ProviderFactory], ProviderFactory]:
    """Register a factory for specs starting with ``prefix`` (e.g. ``"myapi/"``).

    Raises ``DuplicateName`` when ``prefix`` is taken and ``replace`` is false.
    """
    return PROVIDERS.decorator(prefix, replace=replace)


DEFAULT_PROVIDER = "litellm/"
"""The prefix whose factory serves a spec no registered prefix matches."""


@register_provider("llamacpp/")
def _llamacpp(name: str, settings: ProviderSettings) -> Provider:
    current_policy().require_path(Path(name), "", None, "model")
    return LlamaCppProvider(name, options=settings.options)


@register_provider(DEFAULT_PROVIDER)
def _litellm(name: str, settings: ProviderSettings) -> Provider:
    return LiteLLMProvider(
        name, base_url=settings.base_url, api_key=settings.api_key, options=settings.options
    )


@register_provider("scripted")
def _scripted(name: str, settings: ProviderSettings) -> Provider:
    path = name.removeprefix(":")
    if not name.startswith(":") or not path:
        raise UserInputError(
            "model 'scripted' needs a script file: 'scripted:<path.yaml>' "
            "(or build ScriptedModel(responses=...) in Python)"
        )
    current_policy().require_path(Path(path), "", None, "model")
    return ScriptedProvider(load_script(Path(path)), name=f"scripted:{path}")


def _match(
    spec: str, factories: Mapping[str, ProviderFactory]
) -> tuple[str, ProviderFactory] | None:
    for prefix in sorted(factories, key=len, reverse=True):
        if spec.startswith(prefix):
            return prefix, factories[prefix]
    return None


def _find_factory(spec: str) -> tuple[str, str, ProviderFactory]:
    """The longest registered prefix of ``spec``, the name after it and its factory;
    plug-ins are loaded only when no built-in or registered prefix matches; no match is
    ``DEFAULT_PROVIDER`` with the whole spec as the name."""
    found = _match(spec, PROVIDERS.items(plugins=False)) or _match(spec, PROVIDERS.items())
    if found is None:
        return DEFAULT_PROVIDER, spec, PROVIDERS.get(DEFAULT_PROVIDER)
    prefix, factory = found
    return prefix, spec[len(prefix) :], factory


def get_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    retries: int = 3,
    timeout: float = 60.0,
    backoff: float = 1.0,
    options: Mapping[str, Any] | None = None,
) -> Model:
    """Build a ``Model`` from a spec.

    ``scripted:<path.yaml|.json>`` — the scripted fake; ``llamacpp/<path.gguf>`` — a local
    GGUF; anything else — LiteLLM (``gpt-4o-mini``, ``anthropic/…``, ``gemini/…``,
    ``ollama/…``, ``openai/<name>`` with ``base_url`` for vLLM or any OpenAI-compatible
    server). ``cache_dir`` turns the response cache on; ``timeout`` and ``backoff`` are
    seconds; ``options`` are provider-specific extras. Nothing is contacted here.

    Raises ``UserInputError`` for an empty or incomplete spec, a missing script or model
    file, or a missing optional dependency (with the ``pip install`` hint);
    ``ConfigError`` for a script file that does not fit the format.
    """
    spec = spec.strip()
    if not spec:
        raise UserInputError("empty model spec: give e.g. 'gpt-4o-mini' or 'scripted:replies.yaml'")
    common: dict[str, Any] = {
        "cache_dir": cache_dir,
        "concurrency": concurrency,
        "retries": retries,
        "timeout": timeout,
    }
    add_secrets([api_key])  # redacted from every output, e.g. a 401 that echoes it
    settings = ProviderSettings(base_url=base_url, api_key=api_key, options=dict(options or {}))
    prefix, name, factory = _find_factory(spec)
    if not name and prefix[-1:] in ("/", ":"):  # a bare word (scripted) says it itself
        raise UserInputError(f"model spec {spec!r} names no model after {prefix!r}")
    provider = factory(name, settings)
    limit_key = getattr(provider, "limit_key", None) or f"{prefix}|{base_url}|{name}"
    return Model(provider, name=spec, backoff=backoff, limit_key=limit_key, **common)
