"""The pizzeria's shipped example rules hold on the correct bot for simulation seeds 0–9
(issue 21: ``bigger_pizzas_cost_more`` compared order totals that differed in cans).

Skips unless the Rasa venv is set up and the model trained (see conftest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from integration_support import Pizzeria
from typer.testing import CliRunner

from sparring.cli import app

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pizzeria"


@pytest.mark.parametrize("seed", range(10))
def test_the_example_rules_hold_on_the_correct_pizzeria(
    pizzeria: Pizzeria, tmp_path: Path, seed: int
) -> None:
    run = tmp_path / "run"
    runner = CliRunner()
    simulated = runner.invoke(
        app, ["simulate", str(EXAMPLES / "profiles"), "-c", str(pizzeria.chatbot_yaml),
              "-o", str(run), "--seed", str(seed), "--concurrency", "4"],
    )  # fmt: skip
    assert simulated.exit_code == 0, simulated.output
    report = tmp_path / "check.json"
    runner.invoke(
        app, ["check", str(EXAMPLES / "rules"), "--run", str(run), "--json", str(report),
              "--no-generic"],
    )  # fmt: skip
    results = json.loads(report.read_text())["results"]
    failing = {
        r["rule"]: [v["reason"] or v["message"] for v in r["verdicts"] if v["status"] == "fail"]
        for r in results
        if r["counts"]["fail"] or r["counts"]["error"]
    }
    assert failing == {}, failing
