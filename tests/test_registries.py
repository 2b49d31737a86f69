"""sparring.registry: duplicates, lazy plug-ins, load failures, did-you-mean, test helpers."""

from __future__ import annotations

import importlib.metadata
import logging
import sys
import types
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import CONNECTORS, ChatbotConfig, UnknownConnector, create_connector
from sparring.errors import DuplicateName, UnknownName, UserInputError
from sparring.registry import Registry

GROUP = "sparring.test_widgets"
Widget = Callable[[], str]


def fake_entry_points(
    monkeypatch: pytest.MonkeyPatch, group: str, *points: EntryPoint
) -> list[str]:
    """Serve ``points`` for ``group``; returns the groups asked for, in order."""
    asked: list[str] = []

    def entry_points(group: str) -> list[EntryPoint]:
        asked.append(group)
        return [p for p in points if p.group == group]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    return asked


def point(name: str, value: str, group: str = GROUP) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=group)


def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_decorator_registers_and_duplicates_are_errors() -> None:
    widgets: Registry[Widget] = Registry("widget")

    @widgets.decorator()
    def round_() -> str:
        return "round"

    @widgets.decorator("square")
    def square() -> str:
        return "square"

    assert widgets.get("round_") is round_ and widgets.names() == ["round_", "square"]
    widgets.register("square", square)  # the same object again: a no-op
    with pytest.raises(DuplicateName, match=r"widget 'square' is already registered .*replace"):
        widgets.register("square", round_)
    assert widgets.get("square") is square
    widgets.register("square", round_, replace=True)
    assert widgets.get("square") is round_
    with widgets.replacing():
        widgets.register("square", square)
    assert widgets.get("square") is square


def test_unknown_name_suggests_close_names_and_is_a_user_error() -> None:
    widgets: Registry[str] = Registry("widget")
    widgets.register("rectangle", "r")
    widgets.register("circle", "c")
    with pytest.raises(UnknownName) as info:
        widgets.get("rectangel")
    assert isinstance(info.value, UserInputError) and isinstance(info.value, LookupError)
    assert info.value.suggestions == ["rectangle"]
    assert str(info.value) == (
        "unknown widget 'rectangel' (did you mean 'rectangle'?); available: circle, rectangle"
    )
    located = info.value.at("chatbot.yaml", 3, "connector")
    assert str(located).startswith("chatbot.yaml:3 [connector]: unknown widget")


def test_plugins_load_lazily_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin_module(
        tmp_path, monkeypatch, "sparring_test_widget_a", "def hexagon():\n    return 'hex'\n"
    )
    asked = fake_entry_points(
        monkeypatch, GROUP, point("hexagon", "sparring_test_widget_a:hexagon")
    )
    widgets: Registry[Widget] = Registry("widget", group=GROUP)
    widgets.register("circle", lambda: "c")
    assert widgets.get("circle")() == "c" and asked == []  # found: no plug-in read
    assert "sparring_test_widget_a" not in sys.modules
    assert widgets.get("hexagon")() == "hex" and asked == [GROUP]
    assert widgets.names() == ["circle", "hexagon"]
    widgets.names()
    assert widgets.find("nothing") is None
    assert asked == [GROUP, GROUP]  # listing read the group once; then never again


def test_a_plugin_that_fails_to_load_is_reported(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake_entry_points(
        monkeypatch,
        GROUP,
        point("broken", "sparring_no_such_module_x:f"),
        point("fine", "json:dumps"),
        point("number", "math:pi"),
    )
    adopt = lambda name, loaded: loaded if callable(loaded) else _raise(TypeError("not callable"))  # noqa: E731
    widgets: Registry[Widget] = Registry("widget", group=GROUP, adopt=adopt)
    with caplog.at_level(logging.WARNING, logger="sparring.registry"):
        assert widgets.names() == ["fine"]
    assert [(f.name, f.value) for f in widgets.failures()] == [
        ("broken", "sparring_no_such_module_x:f"),
        ("number", "math:pi"),
    ]
    assert "ModuleNotFoundError" in widgets.failures()[0].reason
    assert "plug-in 'broken' (sparring_no_such_module_x:f) failed to load" in caplog.text
    with pytest.raises(UnknownName, match=r"widget plug-in 'number' failed to load: not callable"):
        widgets.get("number")
    with pytest.raises(UnknownName) as info:
        widgets.get("broken")
    assert info.value.reason is not None and "sparring_no_such_module_x" in info.value.reason


def _raise(exc: Exception) -> None:
    raise exc


def test_override_snapshot_and_reset() -> None:
    widgets: Registry[str] = Registry("widget")
    widgets.register("circle", "c")
    assert widgets.names() == ["circle"]  # the built-in state is taken on first use
    with widgets.override("circle", "C") as value:
        assert value == "C" and widgets.get("circle") == "C"
    assert widgets.get("circle") == "c"
    with widgets.snapshot():
        widgets.register("square", "s")
        assert "square" in widgets
    assert "square" not in widgets
    widgets.register("square", "s")
    widgets.reset()
    assert widgets.names() == ["circle"]


def test_builtins_are_imported_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("sparring_test_builtin_widgets")
    widgets: Registry[str] = Registry("widget", builtins=[module.__name__])
    exec("widgets.register('star', '*')", {"widgets": widgets}, vars(module))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    imported: list[str] = []
    real_import = importlib.import_module

    def spy(name: str, package: str | None = None) -> types.ModuleType:
        imported.append(name)
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", spy)
    widgets.register("moon", ")")
    assert imported == []
    assert widgets.get("star") == "*" and imported == [module.__name__]


@pytest.mark.usefixtures("registries")
def test_the_fixture_restores_the_real_registries() -> None:
    from sparring.check import RULE_FUNCTIONS

    RULE_FUNCTIONS.register("test_only_function", lambda context: 1)
    with CONNECTORS.override("scripted", CONNECTORS.get("rasa")):
        assert CONNECTORS.get("scripted").name == "rasa"
    assert CONNECTORS.get("scripted").name == "scripted"


def test_the_fixture_left_nothing_behind() -> None:
    from sparring.check import registered_functions

    assert "test_only_function" not in registered_functions()


@pytest.mark.usefixtures("registries")
def test_connectors_list_shows_plugins_that_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(
        monkeypatch,
        "sparring.connectors",
        point("broken_bot", "sparring_no_such_module_y:f", "sparring.connectors"),
    )
    result = CliRunner().invoke(app, ["connectors", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "scripted" in result.stdout
    assert "connector plug-in 'broken_bot' (sparring_no_such_module_y:f) failed" in result.stderr
    shown = CliRunner().invoke(app, ["connectors", "show", "broken_bot"])
    assert shown.exit_code != 0
    assert "connector plug-in 'broken_bot' failed to load: ModuleNotFoundError" in str(
        shown.exception
    )


def test_unknown_connector_is_a_located_user_error() -> None:
    config = ChatbotConfig.model_validate({"connector": "scripted", "params": {}})
    config.connector = "rasaa"
    with pytest.raises(UnknownConnector) as info:
        create_connector(config)
    assert isinstance(info.value, UserInputError)
    [problem] = info.value.problems
    assert problem.key == "connector" and "did you mean 'rasa'" in problem.message
