"""Precision and recall of sparring's model-free judges on labelled items.

Each judge's items are in ``benchmarks/judges/`` (``JUDGES`` names the file:
semantic_content, language_tone for language, responds_in_same_language and tone, refusal,
probe_oracles and leaks for the probes' oracles, answer_type for ``answer_type_missing``,
metamorphic), one per item with its ``label`` (the right verdict) and ``why``. Items made
from third-party data point into ``../shared/data`` (a file and an output key or an
assistant turn, with optional textual ``edit``s) instead of copying it; those are skipped,
and counted, when the folder is absent.

For a judge with three answers (yes / no / unscored) the figures are, per verdict kind:
precision = right among the items it gave that verdict, recall = share of the items with
that label it gave that verdict (unscored items count against recall, never precision),
and the share it left unscored. ``sparring.precision.MEASURED`` records these figures,
the metamorphic relations are scored on their 48 reports on ALICE judged by hand (precision
of a report only: a report's items carry no recall), the offline breakdown detector on the
185 turns of ``benchmarks/breakdowns/items.yaml`` (its ranking: ``bench_breakdowns.py``).

    PYTHONPATH=src python benchmarks/bench_judges.py [--judge semantic_content] [--errors]
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
"""One item → (verdict kind or ``None`` for unscored, reason). A kind ending in ``WRONG``
is that kind given wrongly (utterance_index naming another utterance than the label's)."""

WRONG = " (wrong)"


def _semantic_content(item: dict[str, Any]) -> tuple[str | None, str]:
    from sparring.check.functions import compare_meaning

    meaning = compare_meaning(resolve_value(item["value"]), resolve_content(item["content"]))
    kind = None if meaning.match is None else ("match" if meaning.match else "no match")
    return kind, meaning.reason


def _turn_text(spec: str | dict[str, Any]) -> str:
    """An item's text: a literal, or a turn of a SENSEI conversation file (either role;
    a chatbot turn without its rendered buttons)."""
    if isinstance(spec, str):
        return spec
    ((role, text),) = _file(spec["file"])[2]["interaction"][spec["turn"]].items()
    text = str(text)
    if role == "Assistant":
        text = text.split("AVAILABLE BUTTONS:")[0]
    return text.strip()


def _rule_function(name: str, conversation: Any, *args: Any) -> tuple[Any, str]:
    """Call the offline rule function ``name``: (its value, or ``None`` when it abstained,
    and the reason it noted)."""
    from sparring.check import FunctionContext, registered_functions
    from sparring.errors import ModelRequired

    context = FunctionContext(conversation=conversation)
    try:
        value = registered_functions()[name](context, *args)
    except ModelRequired as exc:
        return None, str(exc)
    return value, "; ".join(e.reason or "" for e in context.evidence)


def _language(item: dict[str, Any]) -> tuple[str | None, str]:
    value, reason = _rule_function("language", None, _turn_text(item["text"]))
    return (None if value is None else str(value)), reason


def _same_language(item: dict[str, Any]) -> tuple[str | None, str]:
    from sparring.conversations import import_sensei

    path = DATA / item["conversation"]
    if not path.is_file():
        raise MissingData(item["conversation"])
    value, reason = _rule_function("responds_in_same_language", import_sensei(path))
    return (None if value is None else ("same" if value else "different")), reason


def _utterance_index(item: dict[str, Any]) -> tuple[str | None, str]:
    from sparring.conversations import import_sensei

    path = DATA / item["conversation"]
    if not path.is_file():
        raise MissingData(item["conversation"])
    args = (item["who"], item["what"])
    value, reason = _rule_function("utterance_index", import_sensei(path), *args)
    if value is None:
        return None, reason
    if value == -1:
        return "none", reason
    return ("turn" if value in item["label"] else "turn" + WRONG), f"said {value}: {reason}"


def _tone(item: dict[str, Any]) -> tuple[str | None, str]:
    value, reason = _rule_function("tone", None, _turn_text(item["text"]))
    return (None if value is None else str(value[0])), reason


def _oracle(kind: str) -> Judge:
    """A probe's refusal/fallback oracle on one reply: its verdict kind, or ``None``."""

    def run(item: dict[str, Any]) -> tuple[str | None, str]:
        from sparring.adversarial import judge_reply

        passed, reason = judge_reply({"kind": kind}, _turn_text(item["reply"]))
        return (None if passed is None else _ORACLE_KINDS[kind][not passed]), reason

    return run


_ORACLE_KINDS = {
    "refuses": ("pass", "fail"),
    "falls_back": ("pass", "fail"),
    "refuses_or_falls_back": ("pass", "fail"),
}
"""An oracle's verdicts on a reply: ``pass`` (a refusal or fallback found), ``fail``."""


def _oracle_label(kind: str) -> Callable[[dict[str, Any]], str]:
    wanted = {"refuses": {"refusal"}, "falls_back": {"fallback"},
              "refuses_or_falls_back": {"refusal", "fallback"}}[kind]  # fmt: skip
    return lambda item: _ORACLE_KINDS[kind][item["label"] not in wanted]


def _leak(kind: str) -> Judge:
    def run(item: dict[str, Any]) -> tuple[str | None, str]:
        from sparring.adversarial import judge_reply

        oracle: dict[str, Any] = {"kind": kind}
        if kind == "no_canary":
            oracle["canaries"] = [item["canary"]]
        passed, reason = judge_reply(oracle, item["reply"], said=[item.get("said", "")])
        return (None if passed is None else ("fail" if not passed else "pass")), reason

    return run


def _reported(item: dict[str, Any]) -> tuple[str | None, str]:
    return item["verdict"], "reported by the run"


_BREAKDOWN_CACHE: dict[str, Any] = {}


def _breakdown(item: dict[str, Any]) -> tuple[str | None, str]:
    """The offline breakdown detector on one labelled turn of
    ``benchmarks/breakdowns/items.yaml``: it labels crashes only and leaves the other turns
    unscored (with a score to rank them by; ``bench_breakdowns.py`` measures the ranking)."""
    sys.path.insert(0, str(ROOT))
    from bench_breakdowns import TASK, item_record

    from sparring.connectors import ChatbotInfo
    from sparring.evaluate import OfflineBreakdownDetector

    if "file" in item and not (ROOT.parent / item["file"]).is_file():
        raise MissingData(item["file"])
    info = ChatbotInfo(type="conversational") if item["source"] == "dbdc" else TASK
    record = item_record(item, _BREAKDOWN_CACHE)
    judged = OfflineBreakdownDetector().judge(record, info, [])
    turn = {t.turn: t for t in judged.turns}[item["turn"]]
    kind = None if turn.breakdown is None else ("breakdown" if turn.breakdown else "no breakdown")
    return kind, turn.reasoning


def _confirmation(item: dict[str, Any]) -> tuple[str | None, str]:
    """The confirmation oracle on one chatbot turn: a written turn against its ``given``
    values and ``options``, or turn ``turn`` of a SENSEI conversation file against the
    profile's values the user said (dates counted from the file's serial)."""
    import datetime

    from sparring.confirmation import GivenValue, check_conversation, compare_confirmation

    if "file" in item:
        from sparring.conversations import import_sensei

        if not (DATA / item["file"]).is_file():
            raise MissingData(item["file"])
        record = import_sensei(DATA / item["file"])
        serial = re.search(r"(\d{4})-(\d{2})-(\d{2})-\d{2}-\d{2}-\d{2}", item["file"])
        reference = datetime.date(*map(int, serial.groups())) if serial else None
        checks = check_conversation(record.turns, record.variables, reference=reference)
        check = next((c for c in checks if c.turn == item["turn"]), None)
        if check is None:
            return None, "not read as a confirmation"
    else:
        options = item.get("options", {})
        given = [
            GivenValue(slot, [str(v) for v in value] if isinstance(value, list) else str(value),
                       options=options.get(slot, ()))
            for slot, value in item["given"].items()
        ]  # fmt: skip
        reference = item.get("reference")
        check = compare_confirmation(item["text"], given, reference=reference)
    reasons = "; ".join(r.reason for r in check.readings) or "no value"
    if check.mismatches or check.unattributed:
        return "mismatch", reasons
    return ("agrees" if check.compared else None), reasons


def _probe_oracle(item: dict[str, Any]) -> tuple[str | None, str]:
    """A probe's refuses_or_refers / refuses_or_avoids oracle on one labelled reply (with
    the probe's ``patterns``, the request's own words)."""
    from sparring.adversarial import judge_reply

    oracle = {"kind": item["oracle"], "patterns": item.get("patterns", [])}
    passed, reason = judge_reply(oracle, item["reply"])
    return (None if passed is None else ("pass" if passed else "fail")), reason


def _answer_type(item: dict[str, Any]) -> tuple[str | None, str]:
    """The answer-type oracle on one question and the chatbot's reply to it: ``fail`` (no
    value of the asked type, about something else), ``pass``, ``None`` (unscored or not
    applicable)."""
    from sparring.check import NotApplicable, Unscored
    from sparring.conversations import ConversationRecord, Turn

    turns = [Turn(role="user", text=_turn_text(item["question"])),
             Turn(role="assistant", text=_turn_text(item["reply"]))]  # fmt: skip
    record = ConversationRecord(id=str(item["id"]), profile="item", turns=turns)
    try:
        value, reason = _rule_function("answer_type_missing", record)
    except (Unscored, NotApplicable) as exc:
        return None, str(exc)
    return ("fail" if value else "pass"), reason


def _leak_label(item: dict[str, Any]) -> str:
    return "fail" if item["label"] else "pass"  # a leak fails the oracle


JUDGES: dict[str, tuple[str, Judge, Callable[[dict[str, Any]], str]]] = {
    "semantic_content": (
        "semantic_content",
        _semantic_content,
        lambda it: "match" if it["label"] else "no match",
    ),
    "language": ("language_tone", _language, lambda it: it["label"]),
    "responds_in_same_language": (
        "language_tone",
        _same_language,
        lambda it: "same" if it["label"] else "different",
    ),
    "tone": ("language_tone", _tone, lambda it: it["label"]),
    "utterance_index": (
        "utterance_index",
        _utterance_index,
        lambda it: "none" if it["label"] == [-1] else "turn",
    ),
    **{f"oracle:{kind}": ("refusal", _oracle(kind), _oracle_label(kind)) for kind in _ORACLE_KINDS},
    **{
        f"oracle:{kind}": ("leaks", _leak(kind), _leak_label)
        for kind in ("no_echo", "no_pii_echo", "no_canary")
    },
    **{
        f"oracle:{kind}": ("probe_oracles", _probe_oracle, lambda it: it["label"])
        for kind in ("refuses_or_refers", "refuses_or_avoids")
    },
    "answer_type_missing": ("answer_type", _answer_type, lambda it: it["label"]),
    "confirmation_mismatches": ("confirmation", _confirmation, lambda it: it["label"]),
    "metamorphic": ("metamorphic", _reported, lambda it: "bug" if it["label"] else "no bug"),
    "breakdown:offline": (
        "../breakdowns/items",
        _breakdown,
        lambda it: "breakdown" if it["breakdown"] else "no breakdown",
    ),
}
"""Per judge: its item file in ``benchmarks/judges/``, how it judges an item, the item's
label as a verdict kind. Items of a shared file are picked by ``judge`` or ``oracle``."""


def _items(judge: str) -> list[dict[str, Any]]:
    file = JUDGES[judge][0]
    items = yaml.safe_load((ROOT / "judges" / f"{file}.yaml").read_text(encoding="utf-8"))
    if file in ("semantic_content", "refusal", "metamorphic", "utterance_index",
                "../breakdowns/items", "confirmation", "answer_type"):  # fmt: skip
        return list(items)
    name = judge.removeprefix("oracle:")
    return [it for it in items if name in (it.get("judge"), it.get("oracle"))]


def score(judge: str, show_errors: bool = False) -> Score:
    """Run ``judge`` on every item of ``benchmarks/judges/<judge>.yaml``."""
    _, run, label_of = JUDGES[judge]
    items = _items(judge)
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
        wrong = verdict.endswith(WRONG)
        verdict = verdict.removesuffix(WRONG)
        result.given[verdict] = result.given.get(verdict, 0) + 1
        result.right[verdict] = result.right.get(verdict, 0) + (verdict == label and not wrong)
        if show_errors and (verdict != label or wrong):
            print(f"  WRONG {item['id']}: said {verdict}, label {label} ({item['why']}): {reason}")
    return result


def _figure(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=sorted(JUDGES), action="append")
    parser.add_argument("--errors", action="store_true", help="print each wrong verdict")
    args = parser.parse_args(argv)
    distinct: set[tuple[str, str]] = set()
    for judge in args.judge or sorted(JUDGES):
        found = score(judge, args.errors)
        distinct.update((JUDGES[judge][0], str(it["id"])) for it in _items(judge))
        print(
            f"{judge}: {found.items} items ({found.skipped} skipped: no ../shared/data), "
            f"unscored {found.unscored} ({found.unscored / max(found.items, 1):.1%})"
        )
        for kind in sorted(found.labelled):
            print(
                f"  {kind:>12}: precision {_figure(found.precision(kind))} "
                f"({found.right[kind]}/{found.given[kind]}), recall "
                f"{_figure(found.recall(kind))} (of {found.labelled[kind]} labelled)"
            )
    print(f"{len(distinct)} distinct labelled items in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
