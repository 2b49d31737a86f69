"""User rule functions: a Python file named by a rule set, and entry-point plug-ins."""

from __future__ import annotations

import importlib.metadata
import types
from pathlib import Path
from typing import Any

import pytest

from sparring.check import RULE_FUNCTIONS
from sparring.check._context import FunctionContext, registered_functions
from sparring.check.functions import load_functions_file, load_plugin_functions
from sparring.errors import UserInputError

pytestmark = pytest.mark.usefixtures("registries")


FUNCTIONS = """
from sparring.check import _context


@_context.rule_function("word_count", "words")
def word_count(context, text):
    return len(str(text).split())


@_context.rule_function()
def last_chatbot_text(context):
    return [t.text for t in context.conversation.turns if t.role == "assistant"][-1]


def helper():  # not registered
    return 1
"""


def test_load_functions_file(tmp_path: Path) -> None:
    path = tmp_path / "my_functions.py"
    path.write_text(FUNCTIONS)
    assert load_functions_file(path) == ["last_chatbot_text", "word_count", "words"]
    fn = registered_functions()["words"]
    assert fn(FunctionContext(None), "three small words") == 3
    assert "helper" not in registered_functions()
    assert load_functions_file(str(path)) == ["last_chatbot_text", "word_count", "words"]


def test_a_file_can_replace_a_built_in(tmp_path: Path) -> None:
    path = tmp_path / "override.py"
    path.write_text(
        "from sparring.check._context import rule_function\n"
        "@rule_function('currency')\n"
        "def currency(context, text):\n    return 'XBT'\n"
    )
    assert load_functions_file(path) == ["currency"]
    assert registered_functions()["currency"](FunctionContext(None), "5 $") == "XBT"


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="not found"):
        load_functions_file(tmp_path / "missing.py")
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1\ndef f(:\n    pass\n")
    with pytest.raises(UserInputError) as info:
        load_functions_file(broken)
    assert info.value.problems[0].line == 2 and "syntax error" in str(info.value)
    raising = tmp_path / "raising.py"
    raising.write_text("raise RuntimeError('no database')\n")
    with pytest.raises(UserInputError, match="RuntimeError: no database"):
        load_functions_file(raising)


class FakeEntryPoint:
    def __init__(self, name: str, value: str, loaded: Any) -> None:
        self.name, self.value, self._loaded = name, value, loaded

    def load(self) -> Any:
        if isinstance(self._loaded, Exception):
            raise self._loaded
        return self._loaded


def plug(monkeypatch: pytest.MonkeyPatch, *points: FakeEntryPoint) -> None:
    def fake_entry_points(group: str) -> list[FakeEntryPoint]:
        assert group == "sparring.check_functions"
        return list(points)

    RULE_FUNCTIONS.reset()  # forget the entry points loaded earlier in the test
    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)


def test_entry_points_register_functions_and_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    def iban_valid(context: FunctionContext, iban: str) -> bool:
        return iban.startswith("ES")

    module = types.ModuleType("bank_rules")
    plug(
        monkeypatch,
        FakeEntryPoint("iban_valid", "bank_rules:iban_valid", iban_valid),
        FakeEntryPoint("bank", "bank_rules", module),
    )
    assert load_plugin_functions() == ["iban_valid"]
    assert registered_functions()["iban_valid"] is iban_valid
    assert load_plugin_functions() == []  # already registered: nothing new


def test_broken_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    plug(monkeypatch, FakeEntryPoint("bad", "bank_rules:x", ImportError("no module bank_rules")))
    with pytest.raises(UserInputError, match=r"'bad' .* failed to load: no module"):
        load_plugin_functions()
    plug(monkeypatch, FakeEntryPoint("rate", "bank_rules:RATE", 0.05))
    with pytest.raises(UserInputError, match="is not a function"):
        load_plugin_functions()
