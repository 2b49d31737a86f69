"""Precision and recall of sparring's model-free judges on labelled items.

Each judge's items are in ``benchmarks/judges/<judge>.yaml``, one per item with its
``label`` (the right verdict) and ``why``. Items made from third-party data point into
``../shared/data`` (a file and an output key or an assistant turn, with optional textual
``edit``s) instead of copying it; those are skipped, and counted, when the folder is absent.

For a judge with three answers (yes / no / unscored) the figures are, per verdict kind:
precision = right among the items it gave that verdict, recall = share of the items with
that label it gave that verdict (unscored items count against recall, never precision),
and the share it left unscored. ``sparring.precision.MEASURED`` records these figures,
and the judges measured on real runs rather than items (the metamorphic relations: their
reports on ALICE judged by hand) are printed from it.

    python benchmarks/bench_judges.py [--judge semantic_content] [--errors]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent
DATA = ROOT.parent.parent / "shared" / "data"
_RULE = re.compile(r"semantic_content\(\s*\w+\s*,\s*'([^']*)'")


class MissingData(Exception):
    """The item points into ``../shared/data``, which is absent."""


def _file(rel: str) -> list[Any]:
    path = DATA / rel
    if not path.is_file():
        raise MissingData(rel)
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


def resolve_value(spec: str | dict[str, Any]) -> str:
    """The text an item's ``value`` names: a literal, an output of a SENSEI conversation
    file, or an assistant turn (up to ``until``), after its ``edit`` replacements."""
    if isinstance(spec, str):
        return spec
    documents = _file(spec["file"])
    if "output" in spec:
        outputs = {k: v for item in documents[0]["data_output"] for k, v in item.items()}
        text = str(outputs[spec["output"]])
    else:
        text = str(documents[2]["interaction"][spec["turn"]]["Assistant"])
        if "until" in spec:
            text = text.split(spec["until"])[0]
    for old, new in spec.get("edit", []):
        if old not in text:
            raise ValueError(f"edit {old!r} not in {text!r}")
        text = text.replace(old, new)
    return " ".join(text.split())


def resolve_content(spec: str | dict[str, Any]) -> str:
    """An item's ``content``: a literal, or the content of a SENSEI rule's
    ``semantic_content`` oracle."""
    if isinstance(spec, str):
        return spec
    path = DATA / spec["rule"]
    if not path.is_file():
        raise MissingData(spec["rule"])
    found = _RULE.search(path.read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{spec['rule']}: no semantic_content oracle")
    return found.group(1)


@dataclass
class Score:
    """Counts of one judge over its items: ``given[kind]`` verdicts it gave, ``right[kind]``
    of them right, ``labelled[kind]`` items with that label, ``unscored``, ``skipped``."""

    given: dict[str, int]
    right: dict[str, int]
    labelled: dict[str, int]
    unscored: int = 0
    skipped: int = 0

    @property
    def items(self) -> int:
        return sum(self.labelled.values())

    def precision(self, kind: str) -> float | None:
        return self.right[kind] / self.given[kind] if self.given[kind] else None

    def recall(self, kind: str) -> float | None:
        return self.right[kind] / self.labelled[kind] if self.labelled[kind] else None


Judge = Callable[[dict[str, Any]], tuple[str | None, str]]
"""One item → (verdict kind or ``None`` for unscored, reason)."""


def _semantic_content(item: dict[str, Any]) -> tuple[str | None, str]:
    from sparring.check.functions import compare_meaning

    meaning = compare_meaning(resolve_value(item["value"]), resolve_content(item["content"]))
    kind = None if meaning.match is None else ("match" if meaning.match else "no match")
    return kind, meaning.reason


JUDGES: dict[str, tuple[Judge, Callable[[dict[str, Any]], str]]] = {
    "semantic_content": (_semantic_content, lambda it: "match" if it["label"] else "no match"),
}


def score(judge: str, show_errors: bool = False) -> Score:
    """Run ``judge`` on every item of ``benchmarks/judges/<judge>.yaml``."""
    run, label_of = JUDGES[judge]
    items = yaml.safe_load((ROOT / "judges" / f"{judge}.yaml").read_text(encoding="utf-8"))
    kinds = sorted({label_of(item) for item in items})
    result = Score({k: 0 for k in kinds}, {k: 0 for k in kinds}, {k: 0 for k in kinds})
    for item in items:
        try:
            verdict, reason = run(item)
        except MissingData:
            result.skipped += 1
            continue
        label = label_of(item)
        result.labelled[label] += 1
        if verdict is None:
            result.unscored += 1
            continue
        result.given[verdict] = result.given.get(verdict, 0) + 1
        result.right[verdict] = result.right.get(verdict, 0) + (verdict == label)
        if show_errors and verdict != label:
            print(f"  WRONG {item['id']}: said {verdict}, label {label} ({item['why']}): {reason}")
    return result


def _figure(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=sorted(JUDGES), action="append")
    parser.add_argument("--errors", action="store_true", help="print each wrong verdict")
    args = parser.parse_args(argv)
    for judge in args.judge or sorted(JUDGES):
        found = score(judge, args.errors)
        print(
            f"{judge}: {found.items} items ({found.skipped} skipped: no ../shared/data), "
            f"unscored {found.unscored} ({found.unscored / max(found.items, 1):.1%})"
        )
        for kind in sorted(found.labelled):
            print(
                f"  {kind:>10}: precision {_figure(found.precision(kind))} "
                f"({found.right[kind]}/{found.given[kind]}), recall "
                f"{_figure(found.recall(kind))} (of {found.labelled[kind]} labelled)"
            )
    from sparring.precision import MEASURED

    for name, measured in sorted(MEASURED.items()):
        if name in JUDGES:
            continue  # measured above, on its items
        figures = ", ".join(f"{k} {v:.3f}" for k, v in measured.precision.items())
        print(
            f"{name}: precision of {figures} on {measured.items} hand-judged reports of real "
            f"runs (recall not measured): {measured.measured_on}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
