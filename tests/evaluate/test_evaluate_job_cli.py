"""``sparring evaluate``: the whole evaluation, ``breakdowns`` and ``ratings`` from the
command line with a ``scripted:FILE`` model; ``ratings`` without a model names --model."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sparring.cli import app, main
from sparring.conversations import ConversationRecord as Record
from sparring.conversations import RunManifest, RunStore, Turn

runner = CliRunner()
KEYS = ["task_success", "efficiency", "appropriateness", "naturalness", "overall"]
SCRIPT = {
    "rules": [
        {
            "match": "Conversation to rate",
            "reply": {key: {"reasoning": "ok", "rating": 4} for key in KEYS},
        },
        {
            "match": '(?s)utterance to judge\\n\\d+\\. Chatbot: "[^"]*weather',
            "reply": {
                "reasoning": "Off topic.",
                "score": 0.2,
                "decision": "breakdown",
                "breakdown_types": ["topic transition error"],
            },
        },
        {
            "match": "utterance to judge",
            "reply": {"reasoning": "Fine.", "score": 0.9, "decision": "no_breakdown"},
        },
    ],
    "cost_per_call": 0.001,
}


@pytest.fixture
def run(tmp_path: Path) -> Path:
    manifest = RunManifest(
        run_id="run",
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        sparring_version="0.1.0",
        chatbot={"connector": "scripted", "info": {"description": "Takes pizza orders."}},
    )
    store = RunStore.create(tmp_path / "run", manifest)
    texts = ["A margherita", "Nice weather!", "Hello?", "Ordered.", "Thanks", "Bye"]
    turns = [Turn(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(texts)]
    store.write(Record(id="a", profile="pizza", turns=turns))
    return store.path


@pytest.fixture
def script(tmp_path: Path) -> str:
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(SCRIPT), encoding="utf-8")
    return f"scripted:{path}"


def test_evaluate_run_prints_chatcheckers_table_and_the_report(run: Path, script: str) -> None:
    result = runner.invoke(app, ["evaluate", str(run), "--model", script], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output  # a labelled breakdown is never green
    assert "FAIL: 1 labelled breakdowns (0 chatbot crashes) in 3 chatbot turns" in result.output
    assert "0.333 (3 of 3 turns labelled)" in result.output
    assert "dialogues with breakdowns" in result.output and "1 of 1" in result.output
    assert "topic transition error 1" in result.output
    line = next(x for x in result.output.splitlines() if x.startswith("breakdowns by chatchecker"))
    assert "(llm strategy): 3 turns labelled" in line and "not measured by sparring" in line
    assert "mean rating: overall" in result.output and "4.00" in result.output
    assert "MTLD user / chatbot" in result.output and "evaluation cost (US$)" in result.output
    assert f"report: {run / 'report' / 'index.html'}" in result.output
    stored = json.loads((run / "evaluations" / "breakdowns-chatchecker.json").read_text())
    assert [t["breakdown"] for t in stored["conversations"][0]["turns"]] == [True, False, False]
    assert 'id="dialogue-breakdowns"' in (run / "report" / "index.html").read_text()


def test_ghassels_detector_and_unscored_turns_judged_again(run: Path, tmp_path: Path) -> None:
    ghassel = tmp_path / "ghassel.yaml"
    ghassel.write_text(
        yaml.safe_dump(
            {"replies": [[{"reasoning": "ok", "decision": "NON-BREAKDOWN", "score": 1.0}]]},
        ),
        encoding="utf-8",
    )
    args = ["evaluate", "breakdowns", str(run), "--model", f"scripted:{ghassel}"]
    result = runner.invoke(app, [*args, "--detector", "ghassel"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output  # one scripted reply for three turns
    assert re.search(r"unscored turns\s*│\s*2", result.output)
    ghassel.write_text(
        yaml.safe_dump(
            {
                "replies": [[{"reasoning": "ok", "decision": "NON-BREAKDOWN", "score": 1.0}]],
                "exhausted": "cycle",
            }
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, [*args, "--detector", "ghassel"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "1 conversations judged now" in result.output
    assert re.search(r"unscored turns\s*│\s*0", result.output)
    assert (run / "evaluations" / "breakdowns-ghassel.json").is_file()
    assert not (run / "evaluations" / "ratings.json").exists()


def test_ratings_without_a_model_names_the_setting(
    run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SPARRING_MODEL", raising=False)
    monkeypatch.setattr("sys.argv", ["sparring", "evaluate", "ratings", str(run)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "dialogue ratings needs a language model" in err and "--model" in err
    assert not (run / "evaluations").exists()


def test_offline_evaluation_says_it_ranks_and_what_it_is_worth(run: Path) -> None:
    """A ranking labels no turn: NO VERDICT (exit 3) naming the ranked turns and --model,
    never a pass."""
    result = runner.invoke(app, ["evaluate", str(run)], env={"COLUMNS": "200"})
    assert result.exit_code == 3, result.output
    assert "NO VERDICT: 0 of 3 chatbot turns labelled, 3 only ranked" in result.output
    assert "--model" in result.output.splitlines()[-1]
    line = next(x for x in result.output.splitlines() if x.startswith("breakdowns by offline"))
    assert "(offline strategy): 0 turns labelled, 3 ranked, unscored" in line
    assert "labels the breakdowns its typed detectors see" in line and "AUC" in line
    assert "3 (3 ranked by score, not labelled)" in result.output  # the unscored turns row
    stored = json.loads((run / "evaluations" / "breakdowns-offline.json").read_text())
    assert stored["quality"]["labels"] is True and stored["quality"]["measurements"]
    turns = stored["conversations"][0]["turns"]
    assert [t["breakdown"] for t in turns] == [None, None, None]
    assert all(0 <= t["score"] <= 1 for t in turns)
    again = runner.invoke(app, ["evaluate", str(run)], env={"COLUMNS": "200"})
    assert "0 conversations judged now" in again.output  # a ranking is kept, not redone


def test_an_unknown_detector_is_a_located_error_and_exit_2(
    run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SPARRING_MODEL", raising=False)
    monkeypatch.setattr("sys.argv", ["sparring", "evaluate", str(run), "--detector", "ofline"])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--detector: unknown breakdown detector 'ofline' (did you mean 'offline'?)" in err
    assert "Traceback" not in err and "chatchecker" in err  # the registered names listed
    assert not (run / "evaluations").exists()


def test_a_plugin_detector_is_run_by_name(run: Path) -> None:
    """A detector registered by a plug-in is found by ``--detector`` like a built-in."""
    from sparring.evaluate import BREAKDOWN_DETECTORS, ConversationBreakdowns, TurnBreakdown
    from sparring.types import Strategy

    class Exclamations:
        """A turn that exclaims is a breakdown."""

        name = "exclamations"
        strategy = Strategy.OFFLINE

        async def detect(self, record: Record, chatbot: object, taxonomy: list[str]) -> object:
            turns = [
                TurnBreakdown(
                    turn=i, breakdown="!" in t.text, detector=self.name, strategy=self.strategy
                )
                for i, t in enumerate(record.turns)
                if t.role == "assistant"
            ]
            return ConversationBreakdowns(
                conversation=record.id, profile=record.profile, detector=self.name, turns=turns
            )

    with BREAKDOWN_DETECTORS.override("exclamations", lambda **_: Exclamations()):
        result = runner.invoke(
            app, ["evaluate", "breakdowns", str(run), "--detector", "exclamations"]
        )
    assert result.exit_code == 1, result.output  # its labelled breakdown fails the run
    stored = json.loads((run / "evaluations" / "breakdowns-exclamations.json").read_text())
    assert [t["breakdown"] for t in stored["conversations"][0]["turns"]] == [True, False, False]
