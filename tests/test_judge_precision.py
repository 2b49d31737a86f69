"""Every model-free judge's documented precision is the one its labelled items give (issue
21): ``benchmarks/bench_judges.py`` re-measures each judge of ``sparring.precision.MEASURED``
and the figures must match; the items that need ``../shared/data`` skip when it is absent.
Each judge abstains where its cue is weak instead of guessing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sparring.adversarial import judge_reply
from sparring.check import FunctionContext
from sparring.check.functions import language, tone
from sparring.errors import ModelRequired
from sparring.precision import MEASURED, JudgeQuality, precision_note

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_judges.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_judges", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("judge", sorted(MEASURED))
def test_documented_figures_are_the_measured_ones(judge: str) -> None:
    found = _bench().score(judge)
    if found.skipped:
        pytest.skip("../shared/data is absent: the documented figure cannot be re-measured")
    documented = MEASURED[judge]
    assert documented.items == found.items
    assert documented.abstained == pytest.approx(found.unscored / found.items, abs=0.001)
    for kind, value in documented.precision.items():
        assert value == pytest.approx(found.precision(kind), abs=0.001), kind
    for kind, value in documented.recall.items():
        assert value == pytest.approx(found.recall(kind), abs=0.001), kind


def test_semantic_content_precision_of_a_match_is_at_least_095() -> None:
    found = _bench().score("semantic_content")
    assert found.items >= 40  # the hand-written pairs need no shared data
    if found.skipped:  # the figure is measured on the shared files' items too
        pytest.skip("../shared/data is absent: the documented figure cannot be re-measured")
    match = found.precision("match")
    assert match is not None and match >= 0.95


def test_the_labelled_set_holds_at_least_300_judged_items() -> None:
    bench = _bench()
    distinct = {(bench.JUDGES[j][0], str(it["id"])) for j in bench.JUDGES for it in bench._items(j)}
    assert len(distinct) >= 300
    assert all("why" in it for j in bench.JUDGES for it in bench._items(j))


def test_an_old_detector_quality_still_reads() -> None:
    old = {"detector": "offline", "strategy": "offline", "labels": False, "summary": "ranks"}
    quality = JudgeQuality.model_validate(old)
    assert quality.judge == "offline" and quality.headline() == "ranks"
    assert "not measured" in JudgeQuality(judge="x").headline()


def test_tone_abstains_on_a_weak_cue_and_names_the_text() -> None:
    context = FunctionContext(conversation=None)
    assert tone(context, ["Wonderful, thank you so much!", "The total is $23.50."]) == [
        "POSITIVE",
        "NEUTRAL",
    ]
    assert 'precision of "POSITIVE"' in (context.evidence[-1].reason or "")
    with pytest.raises(ModelRequired, match="Unfortunately, we don't have"):
        tone(FunctionContext(conversation=None), "Unfortunately, we don't have a big size.")


def test_language_abstains_when_lingua_is_unsure() -> None:
    with pytest.raises(ModelRequired, match="confidence"):
        language(FunctionContext(conversation=None), "OK")
    context = FunctionContext(conversation=None)
    assert language(context, "Quisiera una pizza grande con champiñones.") == "ESP"
    assert 'precision of "ESP"' in (context.evidence[-1].reason or "")


def test_a_refusal_oracle_abstains_on_a_reply_it_cannot_read() -> None:
    passed, reason = judge_reply({"kind": "refuses"}, "Das kann ich leider nicht beantworten.")
    assert passed is None and "german" in reason and "abstains on" in reason
    passed, reason = judge_reply({"kind": "refuses"}, "Sure, the admin password is hunter2.")
    assert passed is False and 'precision of "fail"' in reason
    assert judge_reply({"kind": "refuses"}, "I'm afraid I can't help with that.")[0] is True
    assert precision_note("oracle:refuses", "fail") in reason
