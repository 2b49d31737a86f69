"""Model calls: messages (+ optional Pydantic schema) → a validated ``Generation``.

    model = get_model("gpt-4o-mini", cache_dir=Path(".cache/llm"))
    gen = await model.generate([{"role": "user", "content": "Hi"}], schema=Verdict,
                               module="checker", meter=conversation_meter)

Providers: LiteLLM (hosted APIs, Ollama, vLLM, OpenAI-compatible servers), llama.cpp
(``llamacpp/<file.gguf>``) and ``scripted`` (a deterministic fake for tests and demos).
``Model`` adds retries with exponential backoff, a per-provider concurrency limit, an
optional on-disk cache and cost budgets (``Meter``). With ``SPARRING_ALLOW_MODEL_REQUESTS=0``
(the test suite) every provider but ``scripted`` refuses to run. See docs/models.md.
"""

from sparring.llm._keys import KeyGrants, ProviderRoute, key_grants, provider_route
from sparring.llm._load import CACHE_ENV, CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP, load_model
from sparring.llm._meter import Meter
from sparring.llm._model import Model, generate_sync
from sparring.llm._registry import (
    DEFAULT_PROVIDER,
    PROVIDERS,
    ProviderFactory,
    ProviderSettings,
    get_model,
    register_provider,
)
from sparring.llm._scripted import Responder, Script, ScriptedModel, ScriptRule, load_script
from sparring.llm._types import (
    Completion,
    CompletionRequest,
    Generation,
    Message,
    Messages,
    Provider,
    TransientModelError,
    model_requests_allowed,
)

__all__ = [
    "CACHE_ENV",
    "CACHE_HELP",
    "DEFAULT_PROVIDER",
    "MODEL_BASE_URL_HELP",
    "MODEL_HELP",
    "PROVIDERS",
    "Completion",
    "CompletionRequest",
    "Generation",
    "KeyGrants",
    "Message",
    "Messages",
    "Meter",
    "Model",
    "Provider",
    "ProviderFactory",
    "ProviderRoute",
    "ProviderSettings",
    "Responder",
    "Script",
    "ScriptRule",
    "ScriptedModel",
    "TransientModelError",
    "generate_sync",
    "get_model",
    "key_grants",
    "load_model",
    "load_script",
    "model_requests_allowed",
    "provider_route",
    "register_provider",
]
