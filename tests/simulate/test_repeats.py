"""``simulate --repeat K`` and ``check``'s pass^k and flaky conversations (issue 8): a bot
that picks among alternative answers shows a defect at K = 5 that one run misses."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from sparring.check import check, load_rules
from sparring.cli import app
from sparring.conversations import RunStore
from sparring.simulate._repeat import repeat_specs
from sparring.simulate._spec import ConversationSpec

runner = CliRunner()

BOT = """\
import random

_RNG = random.Random(7)  # the bot's own randomness: fixed here so the test is exact
GOODBYES = ["Bye for now.", "See you later!", "Goodbye.", "Until next time.",
            "Thanks for chatting, ."]  # the last one: an unfilled name slot


def respond(text):
    if "bye" in text.lower():
        return _RNG.choice(GOODBYES)
    return "Hi there! What else?"
"""
PROFILE = """\
test_name: farewell
llm: {temperature: 0.0}
user:
  language: English
  role: You chat briefly.
  context: [you are polite]
  goals:
    - Hello
    - Goodbye
chatbot:
  is_starter: false
  fallback: "I do not understand."
  output: []
conversation:
  number: 2
  goal_style: {steps: 2}
  interaction_style: [single question]
"""
RULE = """\
name: no_unfilled_slot
oracle: never(turn.text.rstrip().endswith(', .'), role='assistant')
"""


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "randbot.py").write_text(BOT)
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text("connector: python\nparams:\n  target: randbot:respond\n  path: .\n")
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "farewell.yaml").write_text(PROFILE)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "slot.yaml").write_text(RULE)
    return chatbot, tmp_path / "profiles", tmp_path / "rules"


def test_repeat_specs_keep_the_plan_and_the_seed() -> None:
    specs = [
        ConversationSpec(id="p/0", profile="p", seed=11),
        ConversationSpec(id="p/1", profile="p"),
    ]
    repeated = repeat_specs(specs, 3)
    assert [s.id for s in repeated[:3]] == ["p/0#0", "p/0#1", "p/0#2"]
    assert {s.seed for s in repeated[:3]} == {11}
    assert {(s.plan, s.repeat) for s in repeated[:3]} == {("p/0", 0), ("p/0", 1), ("p/0", 2)}
    assert repeat_specs(specs, 1) == specs


def test_a_defect_of_a_random_bot_shows_at_k5_and_is_missed_by_one_run(tmp_path: Path) -> None:
    chatbot, profiles, rules = _setup(tmp_path)
    reports = {}
    for k in (1, 5):
        sys.modules.pop("randbot", None)  # a fresh bot per run: its randomness restarts
        out = tmp_path / f"run{k}"
        result = runner.invoke(
            app, ["simulate", str(profiles), "-c", str(chatbot), "-o", str(out), "--repeat", str(k),
                  "--concurrency", "1"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        records = list(RunStore.open(out).iter_records())
        assert len(records) == 2 * k
        if k == 5:
            assert {r.seed for r in records if r.plan == "farewell/0"} == {records[0].seed}
            assert {r.repeat for r in records if r.plan == "farewell/0"} == set(range(5))
        reports[k] = check(load_rules([rules]), records)
    single = reports[1].result("no_unfilled_slot")
    assert single.counts.fail == 0  # one run: green
    assert reports[1].repeats == []
    repeated = reports[5].result("no_unfilled_slot")
    assert repeated.counts.fail > 0  # five runs: the defect shows
    [figures] = [r for r in reports[5].repeats if r.rule == "no_unfilled_slot"]
    assert figures.plans == 2 and figures.k == 5
    assert figures.pass_k is not None and figures.pass_k < 1.0
    assert figures.flaky and all(set(s) == {"pass", "fail"} for s in figures.flaky.values())


def test_check_shows_pass_k_and_flaky_plans(tmp_path: Path) -> None:
    chatbot, profiles, rules = _setup(tmp_path)
    sys.modules.pop("randbot", None)
    out = tmp_path / "run"
    runner.invoke(app, ["simulate", str(profiles), "-c", str(chatbot), "-o", str(out),
                        "--repeat", "5", "--concurrency", "1"])  # fmt: skip
    result = runner.invoke(app, ["check", str(rules), "--run", str(out), "--no-store"])
    output = " ".join(result.output.split())
    assert result.exit_code == 1
    assert "pass^k" in output and "flaky no_unfilled_slot on farewell/" in output
