"""SENSEI's older profile layouts load, each with a warning naming the modern spelling;
``llm.format: speech`` is refused; generator files are found where SENSEI finds them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sparring.errors import ConfigError
from sparring.profiles import check_profile, load_profile, plan_conversations

Write = Callable[..., Path]

SECTIONS = """\
user:
  role: a user
  context: [be brief]
  goals: ["a {{size}} pizza", {size: {function: forward(), type: string, data: [small, big]}}]
"""
CONVERSATION = """\
conversation:
  number: 2
  goal_style: {steps: 2}
  interaction_style: [default]
"""


def warnings_of(path: Path) -> dict[str, str]:
    result = check_profile(path)
    assert result.errors == []
    return {w.key: f"{w.line}: {w.message}" for w in result.warnings}


def test_early_top_level_settings_are_read_into_their_sections(write: Write) -> None:
    text = "test_name: t\ntemperature: 0.5\nis_starter: false\nfallback: Sorry?\n"
    path = write(text + SECTIONS + "chatbot: {output: []}\n" + CONVERSATION)
    profile = load_profile(path)
    assert profile.llm.temperature == 0.5 and profile.is_starter is False
    assert profile.fallback == "Sorry?"
    warnings = warnings_of(path)
    assert warnings["llm.temperature"].startswith("2: 'temperature' at the top level")
    assert "early spelling of 'llm.temperature'" in warnings["llm.temperature"]
    assert warnings["chatbot.is_starter"].startswith("3: ")
    assert warnings["chatbot.fallback"].startswith("4: ")


def test_a_setting_written_twice_stays_an_error(write: Write) -> None:
    text = "test_name: t\nfallback: A\n" + SECTIONS + "chatbot: {fallback: B}\n" + CONVERSATION
    with pytest.raises(ConfigError, match="fallback"):
        load_profile(write(text))


def test_conversations_is_read_as_conversation(write: Write) -> None:
    conversations = CONVERSATION.replace("conversation:", "conversations:")
    path = write("test_name: t\n" + SECTIONS + "chatbot: {output: []}\n" + conversations)
    assert load_profile(path).conversation.number == 2
    assert (
        "'conversations' is SENSEI's early spelling of 'conversation'"
        in (warnings_of(path)["conversation"])
    )


async def test_pre_paper_bare_list_variables_pick_one_value_each(write: Write) -> None:
    path = write(
        """\
        role: a user
        context: [be brief]
        is_starter: false
        fallback: Sorry?
        ask_about:
          - "{{n}} {{size}} pizzas"
          - size: [small, big]
          - n: [1, 2, 3]
        conversations:
          number: 4
          goal_style: {steps: 2}
          interaction_style: [default]
        """,
        "flat.yml",
    )
    profile = load_profile(path)
    kinds = {v.name: (str(v.function), v.type) for v in profile.variables}
    assert kinds == {"size": ("random()", "string"), "n": ("random()", "int")}
    bare = warnings_of(path)["user.ask_about[1].size"]
    assert bare.startswith("7: variable 'size' is a bare list")
    plans = await plan_conversations(profile, seed=1)
    assert all(p.variables["size"] in ("small", "big") for p in plans)
    assert all(p.variables["n"] in (1, 2, 3) for p in plans)


@pytest.mark.parametrize("written", ["{type: speech, config: speech.yml}", "speech"])
def test_speech_is_refused_clearly(write: Write, written: str) -> None:
    text = f"test_name: t\nllm: {{format: {written}}}\n" + SECTIONS
    path = write(text + "chatbot: {output: []}\n" + CONVERSATION)
    [error] = check_profile(path).errors
    assert error.line == 2 and "speech conversations are not supported" in error.message


def test_generator_file_found_at_the_project_root(write: Write, tmp_path: Path) -> None:
    # SENSEI resolves data.file from the project root it runs in, however deep the profile
    write("def sizes():\n    return ['small', 'big']\n", "list_functions/sizes.py")
    goals = (
        "  goals: ['a {{size}} pizza', {size: {function: forward(), type: string, "
        "data: {file: list_functions/sizes.py, function_name: sizes}}}]\n"
    )
    text = "test_name: t\nuser:\n  role: a user\n  context: [x]\n" + goals
    path = write(text + "chatbot: {output: []}\n" + CONVERSATION, "profiles/pizza/eval/p.yml")
    assert check_profile(path).errors == []
    missing = write(text.replace("sizes.py", "gone.py") + CONVERSATION, "profiles/q.yml")
    [error] = [e for e in check_profile(missing).errors if e.key.endswith("data.file")]
    assert "not found beside the profile, in a folder above it or in the working" in error.message
    assert tmp_path.exists()
