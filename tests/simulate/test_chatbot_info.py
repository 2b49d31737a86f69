"""chatbot.yaml's ``info`` is the one home of the fallback: simulation, records and rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.check import ChatbotView, build_namespace, run_chatbot_info
from sparring.cli import app
from sparring.connectors import ChatbotInfo, load_chatbot_config
from sparring.conversations import ConversationRecord, RunStore
from sparring.simulate._plan import plan_run

DATA = Path(__file__).parent / "data"
INFO_FALLBACK = "Sorry, I did not understand."
runner = CliRunner()


def profile_without_fallback(folder: Path, fallback: str | None = None) -> Path:
    """The test data's order profile, its ``chatbot.fallback`` removed or replaced."""
    text = (DATA / "profiles" / "order.yaml").read_text(encoding="utf-8")
    line = f'  fallback: "{INFO_FALLBACK}"\n'
    assert line in text
    text = text.replace(line, f'  fallback: "{fallback}"\n' if fallback else "")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "order.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("profile_fallback", "info", "expected"),
    [
        (None, ChatbotInfo(fallback="From chatbot.yaml"), "From chatbot.yaml"),
        ("From the profile", ChatbotInfo(fallback="From chatbot.yaml"), "From the profile"),
        ("From the profile", None, "From the profile"),
        (None, ChatbotInfo(), None),
        (None, None, None),
    ],
)
async def test_the_profile_wins_else_chatbot_info(
    tmp_path: Path, profile_fallback: str | None, info: ChatbotInfo | None, expected: str | None
) -> None:
    folder = profile_without_fallback(tmp_path / "profiles", profile_fallback)
    specs, _ = await plan_run([folder], seed=0, chatbot=info)
    assert specs and {spec.fallback for spec in specs} == {expected}


def test_a_sensei_fallback_message_is_read_as_info_fallback(tmp_path: Path) -> None:
    path = tmp_path / "chatbot.yaml"
    base = "connector: rest\nparams:\n  base_url: http://bot.test\n  fallback_message: Eh?\n"
    path.write_text(base, encoding="utf-8")
    assert load_chatbot_config(path).info.fallback == "Eh?"
    path.write_text(base + "info:\n  fallback: Pardon?\n  languages: [en]\n", encoding="utf-8")
    config = load_chatbot_config(path)
    assert (config.info.fallback, config.info.languages) == ("Pardon?", ["en"])


def test_simulation_uses_info_fallback_and_rules_see_it(tmp_path: Path) -> None:
    profiles = profile_without_fallback(tmp_path / "profiles")
    run = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", str(profiles), "-c", str(DATA / "chatbot.yaml"), "-o", str(run)]
    )
    assert result.exit_code == 0, result.output
    records = list(RunStore.open(run).iter_records())
    assert records and {r.fallback for r in records} == {INFO_FALLBACK}
    info = run_chatbot_info(run)
    assert info is not None and info.languages == ["English"]
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "name: knows_the_bot\n"
        f"oracle: chatbot.fallback == {INFO_FALLBACK!r} and chatbot.languages == ('English',)"
        " and chatbot.type == 'task-oriented'\n",
        encoding="utf-8",
    )
    checked = runner.invoke(app, ["check", str(rules), "--run", str(run), "--no-store"])
    assert checked.exit_code == 0, checked.output


def test_the_namespace_prefers_the_records_fallback() -> None:
    info = ChatbotInfo(name="Bot", languages=["en", "es"], fallback="Info fallback")
    own = ConversationRecord(id="a", profile="p", fallback="Profile fallback")
    bare = ConversationRecord(id="b", profile="p")
    assert build_namespace(own, info)["chatbot"] == ChatbotView(
        name="Bot", languages=("en", "es"), fallback="Profile fallback"
    )
    assert build_namespace(bare, info)["chatbot"].fallback == "Info fallback"
    assert build_namespace(bare)["chatbot"] == ChatbotView()


def test_a_folder_of_conversations_has_no_chatbot_info(tmp_path: Path) -> None:
    assert run_chatbot_info(tmp_path) is None
