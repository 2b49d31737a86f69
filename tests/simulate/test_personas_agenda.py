"""Personas offline: the agenda simulator acts out a challenging persona's behaviours
(short turns, typos, a changed goal value, vague answers, a repeated question),
deterministically with a seed; a profile can name its persona."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from sparring.connectors import Reply
from sparring.conversations import ConversationRecord, RunStore
from sparring.runner import resume, start
from sparring.simulate import (
    AgendaSimulator,
    SimulateJob,
    SimulateSettings,
    run_conversation,
)
from sparring.simulate._spec import ConversationSpec, StopCondition

from .fakes import FakeConnector, pizza_bot

DATA = Path(__file__).parent / "data"
CHALLENGING = """\
name: Rosa Delgado
type: challenging
task: Order a pizza and a drink.
description: You are Rosa, always in a rush and typing on a cracked phone screen.
behaviours: [short_turns, typos, change_goal]
"""


def run(tmp_path: Path, name: str, seed: int = 0, **settings: object) -> list[ConversationRecord]:
    options = {"profiles": [DATA / "profiles"], "chatbot": DATA / "chatbot.yaml", "probe": False}
    options.update(settings, seed=seed)
    result = start(SimulateJob(), SimulateSettings.model_validate(options), tmp_path / name).result
    return sorted(result.store.iter_records(), key=lambda r: r.id)


def user_texts(record: ConversationRecord) -> list[str]:
    return [t.text for t in record.turns if t.role == "user"]


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_challenging_persona_offline_short_turns_typos_and_a_changed_goal(tmp_path: Path) -> None:
    persona = write(tmp_path / "rosa.yaml", CHALLENGING)
    plain = run(tmp_path, "plain")
    played = run(tmp_path, "rosa", personas=[persona])
    assert [r.id for r in played] == ["order+rosa/0", "order+rosa/1", "order+rosa/2"]
    for before, record in zip(plain, played, strict=True):
        assert record.persona == "Rosa Delgado" and record.persona_path == str(persona.resolve())
        assert {"short phrases", "make spelling mistakes"} <= set(record.interaction_styles)
        first = user_texts(record)[0]
        assert user_texts(before)[0] == "I would like to order a pizza"
        assert not first.lower().startswith("i would like")  # short turn
        assert first.lower() != "order a pizza"  # with a typo
        changed = [n for n in record.notes if n.startswith("changed goal variable")]
        assert len(changed) == 1
        name = changed[0].split("'")[1]
        assert record.variables[name] != before.variables[name]  # the user's final wish
        assert any(str(record.variables[name]) in t for t in user_texts(record))
    again = run(tmp_path, "again", personas=[persona])
    assert [user_texts(r) for r in again] == [user_texts(r) for r in played]
    other = run(tmp_path, "other", seed=1, personas=[persona])
    assert [user_texts(r) for r in other] != [user_texts(r) for r in played]


def test_traits_alone_choose_the_offline_behaviours(tmp_path: Path) -> None:
    persona = write(
        tmp_path / "terse.yaml",
        """\
        name: Terse Tom
        task: Order a pizza.
        traits: {extraversion: low, conscientiousness: low}
        """,
    )
    [record, *_] = run(tmp_path, "terse", personas=[persona])
    assert record.interaction_styles == [
        "single question",
        "short phrases",
        "make spelling mistakes",
    ]


def priced_pizza_bot(text: str, turn: int) -> Reply:
    if "how much" in text.lower():
        return Reply(messages=["A large pizza is 12$."])
    return pizza_bot(text, turn)


async def test_vague_answers_then_precise_and_a_repeated_question() -> None:
    spec = ConversationSpec(
        id="p/0",
        profile="p",
        goals=("I want a pizza", "how much is it"),
        goal_templates=("I want a pizza", "how much is it"),
        variables={"size": "large"},
        alternatives={"size": ["small", "medium", "large"]},
        fallback="Sorry, I didn't get that.",
        stop=StopCondition("steps", steps=7),
        behaviours=("vague_answers", "repeat_question"),
    )
    connector = FakeConnector(priced_pizza_bot)
    record = await run_conversation(spec, connector, AgendaSimulator(spec))
    users = user_texts(record)
    assert users[0] == "I want a pizza"
    assert users[1] in ("Not sure, something normal I guess.", "Whatever you think is best.",
                        "Hmm, the usual?")  # fmt: skip
    assert users[2] == "large"  # the chatbot did not understand: now the value
    assert users[3] == "How much is it?"
    assert users[4] in ("Sorry, again: How much is it?", "I asked: How much is it?",
                        "Once more: How much is it?")  # fmt: skip
    assert users[5] == "Thank you, goodbye!"
    assert len(users) == 6 and record.ended_by_user


def test_a_persona_alone_offline_and_behaviours_it_cannot_show(tmp_path: Path) -> None:
    persona = write(tmp_path / "rosa.yaml", CHALLENGING)
    [record] = run(tmp_path, "alone", profiles=[], personas=[persona])
    assert record.id == "rosa/0" and record.goals == ["Order a pizza and a drink."]
    assert record.ended_by_user and record.errors == []
    assert "behaviour 'change_goal' needs a goal variable; not applied" in record.notes


def test_a_profile_names_its_persona(tmp_path: Path) -> None:
    write(tmp_path / "rosa.yaml", CHALLENGING)
    profile = (DATA / "profiles" / "order.yaml").read_text(encoding="utf-8")
    profile = profile.replace("  context:\n", "  persona: rosa.yaml\n  context:\n")
    write(tmp_path / "order.yaml", profile)
    records = run(tmp_path, "named", profiles=[tmp_path / "order.yaml"])
    assert [r.id for r in records] == ["order/0", "order/1", "order/2"]  # usual ids
    assert {r.persona for r in records} == {"Rosa Delgado"}
    assert all("short phrases" in r.interaction_styles for r in records)


def test_two_personas_times_a_profile_and_resume(tmp_path: Path) -> None:
    rosa = write(tmp_path / "rosa.yaml", CHALLENGING)
    tom = write(tmp_path / "tom.yaml", "name: Tom\ntask: Order a pizza.\n")
    records = run(tmp_path, "both", personas=[rosa, tom])
    ids = [r.id for r in records]
    assert ids == [f"order+{p}/{i}" for p in ("rosa", "tom") for i in range(3)]
    assert len({r.seed for r in records}) == 6
    store = RunStore.open(tmp_path / "both")
    store.record_path("order+tom/1").unlink()
    result = resume(tmp_path / "both").result
    assert result.ran == 1
    resumed = {r.id: r for r in result.store.iter_records()}
    assert sorted(resumed) == sorted(ids) and resumed["order+tom/1"].persona == "Tom"


async def test_chatcheckers_user_simulation_config_reaches_the_plan(tmp_path: Path) -> None:
    from sparring.connectors import load_chatbot_config
    from sparring.simulate._job import _user_simulation
    from sparring.simulate._plan import plan_run

    persona = write(tmp_path / "rosa.yaml", CHALLENGING)
    config = yaml.safe_load((DATA / "chatbot.yaml").read_text(encoding="utf-8"))
    config["user_simulation"] = {
        "max_user_turns": 3,
        "typical_user_turn_length": "8 words",
        "max_user_turn_length": "30 words",
    }
    chatbot = load_chatbot_config(write(tmp_path / "limited.yaml", yaml.safe_dump(config)))
    assert _user_simulation(load_chatbot_config(DATA / "chatbot.yaml")) == {}
    options = _user_simulation(chatbot)
    assert options == {"turn_words": (8, 30), "persona_turns": 3}
    [spec], _ = await plan_run([], seed=0, personas=[persona], chatbot=chatbot.info, **options)
    assert spec.stop.steps == 3
    assert (spec.typical_turn_words, spec.max_turn_words) == (8, 30)


TESTER = """\
name: Missing information tester
type: tester
targets: ignore-question
task: >-
  Use the chatbot (a pizzeria) as a real user would, and steer the conversation so that
  it shows this breakdown: the chatbot ignores the user's question.
behaviours: []
"""


async def test_a_persona_playing_alone_never_sends_its_instructions() -> None:
    from sparring.profiles import load_persona_files
    from sparring.simulate._persona_plan import persona_spec

    path = DATA.parent / "tester.yaml"
    path.write_text(TESTER, encoding="utf-8")
    try:
        [(_, persona)] = load_persona_files([path])
        spec = persona_spec(persona, path, "tester", seed=0, turns=4)
    finally:
        path.unlink()
    menu = FakeConnector(lambda text, turn: Reply(messages=[f"We have {turn + 2} pizzas."]))
    record = await run_conversation(spec, menu, AgendaSimulator(spec))
    users = user_texts(record)
    assert len(users) == 4 and record.errors == []  # the persona's turns, not one
    assert not any("chatbot" in u or "steer" in u or "breakdown" in u for u in users)
    assert users[0].startswith(("Hi", "Hello"))

    def closing(text: str, turn: int) -> Reply:
        return Reply(messages=["Goodbye, have a nice day!"])

    ended = await run_conversation(spec, FakeConnector(closing), AgendaSimulator(spec))
    assert len(user_texts(ended)) == 1
    assert any("ended after 1 user turns: the chatbot closed it" in n for n in ended.notes)
