"""The job end to end against local bots: CoQA and run seeds, replay, resume, failures,
exit codes, user-written relations evaluated by check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from mt_fixtures import hand_analyser, make_run, write_bot
from typer.testing import CliRunner

from sparring.check import check, load_rules
from sparring.conversations import RunStore
from sparring.errors import ConfigError, UserInputError
from sparring.jobs.events import JobEvent, Planned
from sparring.metamorphic import (
    MetamorphicJob,
    MetamorphicSettings,
    exit_code,
    link_of,
    read_metamorphic,
)
from sparring.metamorphic._answerability import DialogueAnalysis, SeedDialogue
from sparring.runner import start


def settings(seeds: Path, chatbot: Path, **kwargs: object) -> MetamorphicSettings:
    return MetamorphicSettings(seeds=seeds, chatbot=chatbot, similarity="tf-idf", **kwargs)  # type: ignore[arg-type]


def test_coqa_story_with_a_context_aware_bot_has_no_bug(tmp_path: Path, coqa_file: Path) -> None:
    out = tmp_path / "run"
    result = start(
        MetamorphicJob(analyser=hand_analyser), settings(coqa_file, write_bot(tmp_path)), out
    ).result
    assert result.complete and result.bugs == []
    assert exit_code(result) == 0
    assert [s.seed for s in result.skipped] == ["lonely"]
    assert "one-round" in result.skipped[0].reason
    store = RunStore.open(out)
    source = store.read("anna@source")
    assert link_of(source) is not None and link_of(source).role == "source"  # type: ignore[union-attr]
    assert source.turns[0].text.startswith("Story:")  # the story is the first user turn
    follow_ups = [r for r in store.iter_records() if link_of(r).role == "follow-up"]  # type: ignore[union-attr]
    assert store.read("anna@source-2").turns[1:] != []  # the source is replayed twice
    assert {link_of(r).perturbation for r in follow_ups} <= {"drs", "drr", "drd", "dsr", "dsd"}  # type: ignore[union-attr]
    # every round of a follow-up records the source round it came from
    for record in follow_ups:
        link = link_of(record)
        assert link is not None and link.source == "anna@source"
        asked = [t.text for t in record.turns if t.role == "user"][1:]
        questions = ["What does Anna have?", "What colour is it?", "Where does she ride it?"]
        assert asked == [questions[i] for i in link.order]
    assert read_metamorphic(out) == result
    assert (out / "summary.json").is_file()
    assert result.metrics.effective_test_cases == result.metrics.test_cases > 0


def test_a_bot_ignoring_context_violates_mr2(tmp_path: Path, coqa_file: Path) -> None:
    chatbot = write_bot(tmp_path, forgetful=True)
    result = start(
        MetamorphicJob(analyser=hand_analyser), settings(coqa_file, chatbot), tmp_path / "run"
    ).result
    assert result.bugs, "a reply that ignores the missing context is an MR2 bug"
    assert "MR2" in {b.relation for b in result.bugs} <= {"MR2", "MR4"}
    for bug in result.bugs:
        # one side lacked the context and still got the same reply
        assert bug.source_answerable != bug.answerable
        assert bug.reply == bug.reference  # the same reply without the context
        assert bug.level in (None, "L1", "L2", "L3")
    assert exit_code(result) == 1
    assert result.metrics.bugs == len(result.bugs)
    assert result.metrics.bugs_per_test_case == pytest.approx(
        len(result.bugs) / result.metrics.effective_test_cases
    )


PIZZA = [
    ("My name is Ada", "Nice to meet you, Ada."),
    ("hello", "You said: hello"),
    (
        "What is the price of a large pizza?",
        "A large pizza costs $12.50. Your order id is PZ-1234.",
    ),
]


def test_run_seeds_replay_resume_and_skips(tmp_path: Path) -> None:
    seeds = make_run(tmp_path / "seeds", {"empty": [], "one": [("hi", "hello")], "pizza": PIZZA})
    chatbot = write_bot(tmp_path)
    out = tmp_path / "run"
    result = start(
        MetamorphicJob(analyser=hand_analyser), settings(seeds, chatbot, seed=3), out
    ).result
    reasons = {s.seed: s.reason for s in result.skipped}
    assert "empty conversation" in reasons["empty"] and "one-round" in reasons["one"]
    store = RunStore.open(out)
    source = store.read("pizza@source")  # replayed against the bot under test
    assert link_of(source) is not None and link_of(source).role == "source"  # type: ignore[union-attr]
    assert source.variables == {"size": "large"}
    assert "pizza" not in store.finished_ids()  # the seed run's own record is not copied
    follow_up = store.read("pizza@drs")
    assert follow_up.variables == {"size": "large"} and follow_up.profile == "pizza"
    assert result.bugs == [] and any(f.checks for f in result.follow_ups)
    # resume: a lost record is replayed, nothing else
    store.record_path("pizza@drr").unlink()
    started: list[int] = []

    def planned(event: JobEvent) -> None:
        if isinstance(event, Planned):
            started.append(event.total)

    job = MetamorphicJob(analyser=hand_analyser)
    again = start(job, settings(seeds, chatbot, seed=3), out, on_event=planned).result
    assert started == [1]
    assert [f.id for f in again.follow_ups] == [f.id for f in result.follow_ups]


def test_a_crashing_bot_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    seeds = make_run(
        tmp_path / "seeds",
        {"c": [("crash now", "ok"), ("hello", "You said: hello"), ("hi", "You said: hi")]},
    )
    result = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, write_bot(tmp_path), perturbations=["drs", "drd"], probe=False),
        tmp_path / "run",
    ).result
    records = {r.id: r for r in RunStore.open(tmp_path / "run").iter_records()}
    assert records["c@drs"].errors and records["c@drs"].errors[0].cause == "crash"
    assert len(result.follow_ups) == 2


def test_bad_input(tmp_path: Path, coqa_file: Path) -> None:
    chatbot = write_bot(tmp_path)
    with pytest.raises(UserInputError, match="--perturbations"):
        start(
            MetamorphicJob(), settings(coqa_file, chatbot, perturbations=["spin"]), tmp_path / "x"
        )
    broken = tmp_path / "broken.json"
    broken.write_text('{"data": [{"id": "a", "questions": [{"input_text": "q"}]}]}')
    with pytest.raises(ConfigError, match=r"broken.json.*data\[0\].questions\[0\].turn_id"):
        start(MetamorphicJob(), settings(broken, chatbot), tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


RULES = """\
- name: same_price_whatever_the_order
  conversations: 2
  transformation: shuffle goals
  when: >-
    conv[1].source_conversation == conv[0].conversation_id
    and conv[1].transformation == 'rule:same_price_whatever_the_order'
  oracle: >-
    [p for p in conv[0].chatbot_phrases if '$' in p]
    == [p for p in conv[1].chatbot_phrases if '$' in p]
- name: larger_is_not_cheaper
  conversations: 2
  transformation:
    change variable: {variable: size, value: small}
  when: >-
    conv[1].source_conversation == conv[0].conversation_id
    and conv[1].transformation == 'rule:larger_is_not_cheaper'
  oracle: conv[1].size == 'small'
"""


def test_user_written_relations_are_generated_and_checked(tmp_path: Path) -> None:
    seeds = make_run(tmp_path / "seeds", {"pizza": PIZZA})
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES)
    out = tmp_path / "run"
    result = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, write_bot(tmp_path), perturbations=["drr"], rules=[rules]),
        out,
    ).result
    assert "rule:same_price_whatever_the_order" in result.perturbations
    drr = [f for f in result.follow_ups if f.perturbation == "drr"]
    assert result.metrics.test_cases == len(drr) == 1  # rule follow-ups are check's
    store = RunStore.open(out)
    changed = store.read("pizza@rule:larger_is_not_cheaper")
    assert "small pizza" in changed.turns[-2].text and changed.variables["size"] == "small"
    report = check(load_rules([rules]), list(store.iter_records()))
    by_rule = {r.rule: r.counts for r in report.results}
    assert by_rule["same_price_whatever_the_order"].passed == 1
    assert by_rule["same_price_whatever_the_order"].fail == 0
    assert by_rule["larger_is_not_cheaper"].passed == 1


def test_a_transformation_naming_an_unknown_variable_is_located(tmp_path: Path) -> None:
    seeds = make_run(tmp_path / "seeds", {"pizza": PIZZA})
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES.replace("variable: size", "variable: crust"))
    with pytest.raises(ConfigError) as raised:
        start(
            MetamorphicJob(), settings(seeds, write_bot(tmp_path), rules=[rules]), tmp_path / "run"
        )
    problem = raised.value.problems[0]
    assert problem.file == str(rules) and problem.line == 13
    assert problem.key == "[1].transformation.change variable.variable"
    assert "crust" in problem.message and "size" in problem.message
    assert not (tmp_path / "run").exists()


def test_cli_exit_codes(tmp_path: Path, coqa_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sparring.cli import app
    from sparring.metamorphic import _job

    monkeypatch.setattr(_job, "default_analyser", lambda model: hand_analyser)
    runner = CliRunner()
    chatbot = write_bot(tmp_path, forgetful=True)
    args = ["metamorphic", str(coqa_file), "--chatbot", str(chatbot), "--similarity", "tf-idf"]
    found = runner.invoke(app, [*args, "--out", str(tmp_path / "a"), "-p", "drs,drr"])
    assert found.exit_code == 1, found.output
    assert "MR2" in found.output and "effective test cases" in found.output
    (tmp_path / "ok").mkdir()
    context_aware = write_bot(tmp_path / "ok")
    args = [
        "metamorphic",
        str(coqa_file),
        "--chatbot",
        str(context_aware),
        "--similarity",
        "tf-idf",
    ]
    clean = runner.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert clean.exit_code == 0, clean.output
    bad = runner.invoke(app, [*args, "--out", str(tmp_path / "c"), "-p", "spin"])
    assert isinstance(bad.exception, UserInputError)  # `sparring` maps it to exit 2


def test_report_shows_pairs_side_by_side(tmp_path: Path, coqa_file: Path) -> None:
    from sparring.report import write_report

    out = tmp_path / "run"
    chatbot = write_bot(tmp_path, forgetful=True)
    result = start(MetamorphicJob(analyser=hand_analyser), settings(coqa_file, chatbot), out).result
    html = write_report(out).read_text()
    assert 'id="metamorphic"' in html or "Metamorphic testing" in html
    bug = result.bugs[0]
    assert f"{bug.follow_up}" in html and "not answerable" in html
    assert f"{len(result.bugs)} violated relations" in html
    # classes of the report's stylesheet, no inline style (the dashboard's CSP blocks it)
    section = html.split('id="metamorphic"')[1].split("</section>")[0]
    assert 'class="mr-pair"' in section and "style=" not in section


def test_the_documented_relations_load_and_their_transformations_parse(tmp_path: Path) -> None:
    docs = Path(__file__).parents[2] / "docs" / "rules.md"
    text = docs.read_text()
    start = text.index("# relations.yaml\n")
    block = text[start : text.index("```", start)]
    rules = tmp_path / "relations.yaml"
    rules.write_text(block)
    loaded = load_rules([rules])
    assert {r.spec.name for r in loaded.rules} == {
        "price_does_not_depend_on_goal_order",
        "small_pizza_is_not_dearer",
        "typos_do_not_change_the_answer",
    }
    from sparring.metamorphic import load_transformations

    kinds = [t.kind for t in load_transformations([rules])]
    assert kinds == ["shuffle goals", "change variable", "add typos"]


def test_an_unreachable_chatbot_stops_before_anything_is_written(
    tmp_path: Path, coqa_file: Path
) -> None:
    from sparring.connectors import ChatbotUnreachable

    chatbot = tmp_path / "rasa.yaml"
    chatbot.write_text("connector: rasa\nparams:\n  url: http://127.0.0.1:9\n  timeout: 2\n")
    analysed: list[int] = []

    async def counting(dialogues: Sequence[SeedDialogue]) -> list[DialogueAnalysis]:
        analysed.append(len(dialogues))
        return await hand_analyser(dialogues)

    with pytest.raises(ChatbotUnreachable):
        start(MetamorphicJob(analyser=counting), settings(coqa_file, chatbot), tmp_path / "run")
    assert not (tmp_path / "run").exists() and analysed == []


ORDER = [
    ("what is on the menu", "We have margherita and pepperoni."),
    ("I want a pizza", "One margherita, ordered."),
    ("how much will it cost", "Your order costs $9.50 in total."),
]


def test_a_round_that_depends_on_the_bots_state_is_held_to_mr1_only_in_its_context(
    tmp_path: Path,
) -> None:
    """ "how much will it cost" has no pronoun to resolve, but asked alone it gets another
    reply: moved before the order, a different reply is no bug. With the context probe
    off, the same follow-ups report it as MR1 violations."""
    seeds = make_run(tmp_path / "seeds", {"order": ORDER})
    chatbot = write_bot(tmp_path, bot="OrderBot")
    probed = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, chatbot, seed=1),
        tmp_path / "probed",
    ).result
    store = RunStore.open(tmp_path / "probed")
    alone = store.read("order@isolated-2")
    assert [t.text for t in alone.turns] == ["how much will it cost", "Pizzas cost from $8.00."]
    assert link_of(alone).role == "isolated"  # type: ignore[union-attr]
    assert "order@isolated-0" not in store.finished_ids()  # the source asks round 0 alone
    assert probed.bugs == []
    moved = [f for f in probed.follow_ups if f.note and "[2] depend on their context" in f.note]
    assert moved, "the follow-ups that contain round 2 say it depends on its context"

    unprobed = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, chatbot, seed=1, context_probe=False),
        tmp_path / "unprobed",
    ).result
    assert unprobed.bugs and {b.relation for b in unprobed.bugs} <= {"MR1", "MR3"}
    assert {b.source_round for b in unprobed.bugs} == {2}


def test_a_state_dependent_round_in_its_own_context_is_still_held_to_mr1(
    tmp_path: Path,
) -> None:
    """Text noise keeps every round after the same rounds as in the source: there the
    state-dependent round is still held to MR1 (and its total to EX)."""
    seeds = make_run(tmp_path / "seeds", {"order": ORDER})
    result = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, write_bot(tmp_path, bot="OrderBot"), perturbations=["typos"], seed=2),
        tmp_path / "run",
    ).result
    (follow_up,) = result.follow_ups
    assert follow_up.order == [0, 1, 2]
    assert follow_up.checks == 4  # MR1 on each of the three rounds, EX on the total
    assert result.bugs == []


TICKETS = [
    ("what is on the menu", "We have margherita at $8.00 and pepperoni at $9.50."),
    ("when are you open", "We are open every day from 1pm to 11pm."),
    ("I want a pizza", "Order C-7 placed at 12:00:00, receipt 0a1b2c3d. Total $8.00."),
    ("what is the status of my order", "Order C-7 is in the oven."),
    ("how much is the total", "Your total is $8.00."),
]


def test_a_correct_bot_with_ids_timestamps_and_state_gets_no_bug(tmp_path: Path) -> None:
    """Issue 21: new orders get new ids (C-7 → C-13), receipts and clock times; the status
    and the total depend on the order. None of that is a bug: identifiers, timestamps and
    random ids are excluded by type, and state is learned from the rounds asked alone."""
    seeds = make_run(tmp_path / "seeds", {"tickets": TICKETS})
    result = start(
        MetamorphicJob(analyser=hand_analyser),
        settings(seeds, write_bot(tmp_path, bot="TicketBot"), seed=3),
        tmp_path / "run",
    ).result
    assert result.follow_ups and sum(f.checks for f in result.follow_ups) > 10
    assert [(b.relation, b.reason) for b in result.bugs] == []


def test_a_rerun_with_other_settings_into_the_same_out_is_refused(tmp_path: Path) -> None:
    """Issue 26, defect 9: it used to leave a file mixing both runs and drop the bugs."""
    seeds = make_run(tmp_path / "seeds", {"pizza": PIZZA})
    chatbot = write_bot(tmp_path)
    out = tmp_path / "run"
    first = settings(seeds, chatbot, perturbations=["drs"], probe=False)
    start(MetamorphicJob(analyser=hand_analyser), first, out)
    before = sorted(p.name for p in (out / "conversations").iterdir())
    other = settings(seeds, chatbot, perturbations=["drd"], probe=False)
    with pytest.raises(UserInputError, match=r"other settings \(perturbations: \['drs'\]"):
        start(MetamorphicJob(analyser=hand_analyser), other, out)
    assert sorted(p.name for p in (out / "conversations").iterdir()) == before
    resumed = settings(seeds, chatbot, perturbations=["drs"], probe=False, concurrency=1)
    start(MetamorphicJob(analyser=hand_analyser), resumed, out)  # how it runs may change


def test_markup_and_escapes_in_replies_are_printed_as_text(
    tmp_path: Path, coqa_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26, defect 15: a reply holding ``[/]`` crashed the bug listing."""
    from sparring.cli import app
    from sparring.metamorphic import _job

    monkeypatch.setattr(_job, "default_analyser", lambda model: hand_analyser)
    chatbot = write_bot(tmp_path, forgetful=True, suffix=" [/] [bold]x\x1b[2J\x1b]0;t\x07")
    args = ["metamorphic", str(coqa_file), "--chatbot", str(chatbot), "--similarity", "tf-idf"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a"), "-p", "drs,drr"])
    assert result.exit_code == 1, result.output
    assert "[/] [bold]x" in result.output and "\x1b" not in result.output
