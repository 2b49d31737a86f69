"""The connector registry: decorator, inference, entry-point plugins."""

from __future__ import annotations

import importlib.metadata
import sys
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from sparring.connectors import (
    ENTRY_POINT_GROUP,
    ChatbotConfig,
    ConnectorContext,
    ConnectorParams,
    UnknownConnector,
    available_connectors,
    connector,
    create_connector,
    get_connector,
)
from sparring.connectors._scripted import ScriptedConnector, ScriptedParams

BUILT_IN = {"openai", "python", "rasa", "rest", "scripted", "taskyto"}

PLUGIN = '''
from sparring.connectors import ConnectorParams, connector
from sparring.connectors._scripted import Script, ScriptedConnector


class EchoParams(ConnectorParams):
    prefix: str = ">"


@connector("{name}")
def echo_factory(params: EchoParams, context):
    """An echo bot from a plugin."""
    return ScriptedConnector(
        Script(rules=[{{"match": ".*", "reply": params.prefix + " {{message}}"}}]),
        params.timeout,
        context,
    )
'''


class MyParams(ConnectorParams):
    level: int = 1


def _plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: str) -> None:
    (tmp_path / f"{module}.py").write_text(PLUGIN.format(name=name), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint(name=name, value=f"{module}:echo_factory", group=ENTRY_POINT_GROUP)

    def fake_entry_points(group: str, name: str | None = None) -> list[EntryPoint]:
        assert group == ENTRY_POINT_GROUP
        return [p for p in [point] if name is None or p.name == name]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)


def test_built_ins_are_listed_with_descriptions() -> None:
    specs = available_connectors()
    assert set(specs) >= BUILT_IN
    assert all(spec.description for spec in specs.values())
    assert get_connector("scripted").params_model is ScriptedParams


def test_unknown_name_lists_available() -> None:
    with pytest.raises(UnknownConnector) as info:
        get_connector("nope")
    assert set(info.value.available) >= BUILT_IN


@pytest.mark.usefixtures("registries")
async def test_entry_point_plugin_is_loaded_lazily_on_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin(tmp_path, monkeypatch, "echo_plugin", "sparring_echo_plugin_a")
    assert "sparring_echo_plugin_a" not in sys.modules
    spec = get_connector("echo_plugin")
    assert spec.description == "An echo bot from a plugin."
    config = ChatbotConfig.model_validate(
        {"connector": "echo_plugin", "params": {"prefix": "says"}}
    )
    connector = create_connector(config)
    assert isinstance(connector, ScriptedConnector)
    reply = await (await connector.open()).send("hi")
    assert reply.messages == ["says hi"]


@pytest.mark.usefixtures("registries")
def test_entry_point_plugins_appear_in_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin(tmp_path, monkeypatch, "echo_listed", "sparring_echo_plugin_b")
    assert "echo_listed" in available_connectors()


@pytest.mark.usefixtures("registries")
def test_broken_plugin_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint(name="broken", value="no_such_module_q:f", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda group, name=None: [point] if name in (None, "broken") else [],
    )
    with pytest.raises(UnknownConnector, match="failed to load"):
        get_connector("broken")
    assert "broken" not in available_connectors()


@pytest.mark.usefixtures("registries")
def test_decorator_infers_params_and_rejects_unannotated() -> None:
    @connector("mine", description="Mine.")
    def factory(params: MyParams, context: ConnectorContext) -> Any:
        return ScriptedConnector(ScriptedParams(), params.timeout, context)

    assert get_connector("mine").params_model is MyParams
    assert get_connector("mine").description == "Mine."

    with pytest.raises(TypeError, match="ConnectorParams"):

        @connector("bad")
        def untyped(params, context):  # type: ignore[no-untyped-def]
            return None


async def test_built_ins_satisfy_the_protocols() -> None:
    from sparring.connectors import Connector, Conversation

    for params in (
        {"connector": "scripted", "params": {}},
        {"connector": "rasa", "params": {}},
        {"connector": "taskyto", "params": {}},
        {"connector": "rest", "params": {"base_url": "http://x"}},
        {"connector": "openai", "params": {"model": "m"}},
        {"connector": "python", "params": {"target": "json:dumps"}},
    ):
        connector = create_connector(ChatbotConfig.model_validate(params))
        assert isinstance(connector, Connector), params
        if params["connector"] != "taskyto":  # taskyto's open() talks to the server
            assert isinstance(await connector.open(), Conversation), params
        await connector.aclose()
