"""SENSEI conversation files with values no JSON has a form for (found by the fuzz sweep of
``benchmarks/bench_hostile_files.py --fuzz``): a YAML date as a key crashed the import
(``TypeError`` comparing the documents), ``.inf``, ``.nan`` or ``1e400`` as a latency,
duration or cost crashed it (``OverflowError``), a ``!!binary`` value could not be
stored. Each file is now imported (a value with no number is no latency) and stored, and
``import-sensei`` exits 0 with the record written."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.conversations import RunStore, import_sensei
from sparring.errors import ConfigError

FILE = """\
serial: 2024-10-25-17-55-35
language: English
context: [Order a pizza.]
ask_about:
- a {{{{size}}}} pizza
- size: [small]
conversation:
- number: 1
- interaction_style: [{style}]
data_output:
- price: {price}
- {key}: 44de6a
errors: []
cost($): {cost}
---
conversation time: {duration}
assistant response time:
- {latency}
- 2.5
---
interaction:
- Assistant: Hello! What would you like?
- User: A small pizza, please.
- Assistant: A small pizza, 11.5$.
"""
CASES = {
    "a date as a key": {"key": "2025-01-01"},
    "an infinite latency": {"latency": ".inf"},
    "a NaN latency": {"latency": ".nan"},
    "a latency past the float range": {"latency": "1" + "0" * 400},
    "an infinite duration and cost": {"duration": "-.inf", "cost": ".inf"},
    "a cost past the float range": {"cost": "9" * 400},
    "a binary value": {"price": "!!binary AP8="},
    "a latency pandas cannot hold": {"latency": "1.0e+308"},
}
DEFAULTS = {"key": "order_id", "latency": "4.4", "duration": "21.5", "cost": "0.01",
            "price": "11.5$", "style": "default"}  # fmt: skip


def _file(tmp_path: Path, case: str) -> Path:
    path = tmp_path / "conversations" / "0_pizza_2024-10-25-17-55-35.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FILE.format(**{**DEFAULTS, **CASES[case]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_without_a_json_form_is_imported(tmp_path: Path, case: str) -> None:
    record = import_sensei(_file(tmp_path, case))
    latencies = [t.latency for t in record.turns if t.role == "assistant"]
    assert all(v is None or math.isfinite(v) for v in [*latencies, record.duration])
    assert all(math.isfinite(u.cost) for u in record.usage.values())
    record.model_dump_json()  # it can be stored


@pytest.mark.parametrize("case", sorted(CASES))
def test_import_sensei_stores_it(
    tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _file(tmp_path, case)
    out = tmp_path / "run"
    monkeypatch.setattr(sys, "argv", ["sparring", "import-sensei", str(source), "--out", str(out)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 0
    assert len(list(RunStore.open(out, clean=False).iter_records())) == 1


def test_a_value_the_record_cannot_hold_is_located(tmp_path: Path) -> None:
    """``interaction_style: [-1]`` reached the record's model unchecked (a pydantic
    ``ValidationError``, exit 70): it is a located error at the key it came from."""
    CASES["a number as a style"] = {"style": "-1"}
    try:
        path = _file(tmp_path, "a number as a style")
    finally:
        del CASES["a number as a style"]
    with pytest.raises(ConfigError) as caught:
        import_sensei(path)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 8, "conversation")
