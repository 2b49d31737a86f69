"""Model lookup goes through ``PROVIDERS`` (issue 25): ``scripted``, ``llamacpp/`` and
LiteLLM are registered there like any plug-in, a plug-in provider from the
``sparring.models`` entry-point group works by name, and replacing the default changes
where unprefixed specs go."""

from __future__ import annotations

import importlib.metadata
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from sparring.errors import UserInputError
from sparring.llm import (
    DEFAULT_PROVIDER,
    PROVIDERS,
    Completion,
    CompletionRequest,
    ProviderSettings,
    get_model,
)
from sparring.llm._litellm import LiteLLMProvider

pytestmark = pytest.mark.usefixtures("registries")

PLUGIN = """
from sparring.llm import Completion


class Echo:
    offline = True

    def __init__(self, name, settings):
        self.name, self.settings = name, settings

    async def complete(self, request):
        text = self.name + ":" + request.messages[-1]["content"]
        return Completion(text=text, model=self.name)


def echo(name, settings):
    return Echo(name, settings)
"""


def test_the_built_in_providers_are_registered() -> None:
    assert {"scripted", "llamacpp/", "litellm/"} <= set(PROVIDERS.names(plugins=False))
    assert DEFAULT_PROVIDER == "litellm/"


async def test_a_plugin_provider_works_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sparring_test_echo.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sparring_test_echo", raising=False)
    point = EntryPoint("echo/", "sparring_test_echo:echo", "sparring.models")
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: [point] if group == point.group else []
    )
    model = get_model("echo/parrot", base_url="http://localhost:1")
    generation = await model.generate([{"role": "user", "content": "hi"}], module="test")
    assert generation.text == "parrot:hi"


async def test_unprefixed_specs_go_to_the_default_provider(tmp_path: Path) -> None:
    seen: list[tuple[str, ProviderSettings]] = []

    class Fixed:
        offline = True

        async def complete(self, request: CompletionRequest) -> Completion:
            return Completion(text="fixed", model="fixed")

    def fixed(name: str, settings: ProviderSettings) -> Fixed:
        seen.append((name, settings))
        return Fixed()

    with PROVIDERS.override(DEFAULT_PROVIDER, fixed):
        model = get_model("gpt-4o-mini", base_url="http://localhost:2")
        reply = await model.generate([{"role": "user", "content": "hi"}], module="test")
    assert reply.text == "fixed"
    assert seen[0][0] == "gpt-4o-mini" and seen[0][1].base_url == "http://localhost:2"


def test_litellm_and_scripted_come_from_their_factories(tmp_path: Path) -> None:
    model = get_model("anthropic/claude-x", base_url="http://h")
    assert isinstance(model.provider, LiteLLMProvider)
    assert model.provider.model == "anthropic/claude-x"
    assert model.provider.limit_key == "litellm:anthropic|http://h"
    assert get_model("litellm/gpt-4o-mini").provider.model == "gpt-4o-mini"  # type: ignore[attr-defined]
    script = tmp_path / "replies.yaml"
    script.write_text("replies: [hello]\n", encoding="utf-8")
    assert get_model(f"scripted:{script}").name == f"scripted:{script}"
    with pytest.raises(UserInputError, match="needs a script file"):
        get_model("scripted")
