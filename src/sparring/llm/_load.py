"""``load_model``: the model a job's settings name, or ``None`` for offline strategies."""

from __future__ import annotations

import os
from pathlib import Path

from sparring.llm._model import Model
from sparring.llm._registry import get_model

CACHE_ENV = "SPARRING_CACHE"
"""Environment variable naming the response cache folder (default ``.sparring-cache``)."""


MODEL_HELP = (
    "Model (LiteLLM name, openai/NAME with --model-base-url, scripted:FILE, llamacpp/PATH). "
    "None: offline strategies."
)
"""What a job's ``model`` setting takes (the CLI's ``--model`` help)."""
MODEL_BASE_URL_HELP = "Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama /v1)."
"""What a job's ``model_base_url`` setting takes."""
CACHE_HELP = f"Cache model replies on disk (${CACHE_ENV})."
"""What a job's ``cache`` setting does."""


def load_model(spec: str | None, base_url: str | None = None, cache: bool = False) -> Model | None:
    """The model for a job's ``model`` setting (``None`` without one: offline strategies).

    ``base_url`` points an ``openai/NAME`` spec at an OpenAI-compatible server; ``cache``
    turns on the on-disk response cache in ``$SPARRING_CACHE``. Raises ``UserInputError``
    for an unknown or incomplete spec (see ``get_model``); nothing is contacted here.
    """
    if not spec:
        return None
    cache_dir = Path(os.environ.get(CACHE_ENV, ".sparring-cache")) if cache else None
    return get_model(spec, base_url=base_url, cache_dir=cache_dir)
