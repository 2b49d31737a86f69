"""docs/connectors.md: every chatbot.yaml example loads; the scripted and plugin examples run."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from sparring.connectors import ChatbotConfig, create_connector, get_connector, load_chatbot_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"
BLOCKS = re.findall(r"```(yaml|python)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
CONFIGS = [text for kind, text in BLOCKS if kind == "yaml" and text.startswith("connector:")]


def _load(tmp_path: Path, text: str) -> ChatbotConfig:
    path = tmp_path / "chatbot.yaml"
    path.write_text(text, encoding="utf-8")
    return load_chatbot_config(path)


def test_the_doc_has_an_example_per_built_in() -> None:
    names = {re.match(r"connector: (\w+)", text).group(1) for text in CONFIGS}  # type: ignore[union-attr]
    assert names == {"rasa", "taskyto", "rest", "openai", "python", "scripted"} | {
        "dialogflow",  # the two Dialogflow examples (`\w+` stops at the dash)
        "directline",
        "botpress",
        "lex",
    }


@pytest.mark.parametrize("text", CONFIGS)
def test_every_chatbot_yaml_example_is_valid(tmp_path: Path, text: str) -> None:
    config = _load(tmp_path, text)
    assert config.connector in text


async def test_scripted_example_behaves_as_documented(tmp_path: Path) -> None:
    [text] = [t for t in CONFIGS if t.startswith("connector: scripted")]
    conversation = await create_connector(_load(tmp_path, text)).open()
    assert (await conversation.send("my name is Eva")).messages == [
        "Nice to meet you, Eva.",
        "What can I get you?",
    ]
    sized = await conversation.send("what size?")
    assert "- BUTTON TEXT: Small LINK: /size_small" in sized.text


@pytest.mark.usefixtures("registries")
async def test_writing_a_connector_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [code] = [t for kind, t in BLOCKS if kind == "python" and "@connector" in t]
    (tmp_path / "sparring_docs_echo_example.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("sparring_docs_echo_example")
    config = ChatbotConfig.model_validate({"connector": "echo", "params": {"prefix": ">"}})
    reply = await (await create_connector(config).open()).send("hi")
    assert reply.messages == ["> hi"]
    assert get_connector("echo").description.startswith("Echoes every message")
