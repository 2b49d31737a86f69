"""Offline output extraction against SENSEI's LLM extraction on real conversations.

Every SENSEI conversation file stores the outputs its LLM (GPT-4o / gpt-4o-mini) extracted
in ``data_output``. This benchmark runs sparring's offline extraction on the same turns,
with the outputs (name, type, description) of the profile that produced the conversation,
and compares, per output kind (``string`` for free text, ``typed`` for the rest):

- precision: of the values offline returned, the share equal to the LLM's (casefolded,
  whitespace and edge punctuation removed; money by amount) — a wrong guess counts against;
- lenient precision: the same where either value contains the other (the old measure,
  which counted "Hi there Maria" as "Maria");
- coverage: the share of outputs the LLM filled that offline filled;
- low confidence: outputs left empty with ``confidence == "low"`` (a sentence names the
  output but no span could be isolated).

Data (skipped when absent): ``../shared/data/sensei-pizza`` (profiles from
``sensei/examples/profiles/pizza-order-evaluation/eval``), ``sensei-wild/output`` (profiles
in ``sensei-wild/chatbots/*/conversations``) and
``rasa-bots/veterinary/sensei/conversations-gpt-4o-mini`` (profiles in ``…/sensei/profiles``).

    PYTHONPATH=src python benchmarks/bench_extract.py [--show-wrong] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sparring.conversations import import_sensei
from sparring.profiles import Profile, check_profile, value_kind
from sparring.simulate._extract import extract_outputs_offline

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = {
    "sensei-pizza": (
        DATA / "sensei-pizza" / "conversations",
        [DATA / "sensei" / "examples" / "profiles" / "pizza-order-evaluation" / "eval"],
    ),
    "sensei-wild": (
        DATA / "sensei-wild" / "output",
        sorted((DATA / "sensei-wild" / "chatbots").glob("*/conversations")),
    ),
    "veterinary": (
        DATA / "rasa-bots" / "veterinary" / "sensei" / "conversations-gpt-4o-mini",
        [DATA / "rasa-bots" / "veterinary" / "sensei" / "profiles"],
    ),
}


def _load(path: Path) -> Profile | None:
    """The profile in ``path``; SENSEI's example ``custom_pizza.yml`` says ``conversations``
    next to the sections (SENSEI rejects it too): read it renamed, for its outputs only."""
    profile = check_profile(path).profile
    text = path.read_text(encoding="utf-8")
    if profile is None and "\nconversations:" in text and "\nuser:" in text:
        with tempfile.TemporaryDirectory() as folder:
            copy = Path(folder) / path.name
            copy.write_text(text.replace("\nconversations:", "\nconversation:"), encoding="utf-8")
            profile = check_profile(copy).profile
    return profile


def _profiles(folders: list[Path]) -> dict[str, Profile]:
    found: dict[str, Profile] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.y*ml")):
            profile = _load(path)
            if profile is not None:
                found[profile.name] = found.get(profile.name) or profile
    return found


def _norm(value: Any) -> str:
    return re.sub(r"\s+", " ", str(value).casefold()).strip(" .,;:!?¿¡'\"")


def _money(value: Any) -> float | None:
    match = re.search(r"\d+(?:[.,]\d+)?", str(value))
    return float(match.group().replace(",", ".")) if match else None


def same(kind: str, theirs: Any, ours: Any, lenient: bool = False) -> bool:
    """Whether offline's ``ours`` matches the LLM's ``theirs``."""
    if isinstance(theirs, list) or isinstance(ours, list):
        a = [_norm(v) for v in (theirs if isinstance(theirs, list) else [theirs])]
        b = [_norm(v) for v in (ours if isinstance(ours, list) else [ours])]
        return sorted(a) == sorted(b)
    if kind == "money":
        return _money(theirs) is not None and _money(theirs) == _money(ours)
    a, b = _norm(theirs), _norm(ours)
    return a == b or (lenient and bool(a) and bool(b) and (a in b or b in a))


def cases(name: str) -> Iterator[tuple[str, str, Any, Any, Any]]:
    """(output kind, output name, LLM value, offline OutputValue, evidence) per output."""
    root, folders = SETS[name]
    profiles = _profiles(folders)
    for path in sorted(root.rglob("*.yml")):
        if any(part.startswith("__") or part == "reports" for part in path.parts):
            continue
        record = import_sensei(path)
        profile = profiles.get(record.profile)
        if profile is None or not record.outputs:
            continue
        outputs = {o.name: {"type": o.type.name, "description": o.description}
                   for o in profile.outputs}  # fmt: skip
        today = record.started_at.date() if record.started_at else None  # SENSEI's serial
        ours = extract_outputs_offline(
            outputs, record.turns, today=today, fallback=profile.fallback
        )
        for output in profile.outputs:
            theirs = record.outputs.get(output.name)
            kind = "string" if value_kind(output.type) == "string" else "typed"
            value = theirs.value if theirs else None
            value = None if str(value).strip().lower() in ("none", "null", "") else value
            yield kind, value_kind(output.type), value, ours[output.name], path


def measure(show_wrong: bool = False) -> dict[str, Any]:
    keys = ("outputs", "llm_filled", "offline_filled", "low_confidence", "exact", "lenient",
            "covered", "wrong")  # fmt: skip
    table: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(keys, 0))
    for name in SETS:
        if not SETS[name][0].is_dir():
            continue
        for kind, vkind, theirs, ours, path in cases(name):
            label = name
            if name == "sensei-wild":  # one row per bot: Julie's button links dominate
                label += ":" + path.relative_to(SETS[name][0]).parts[0]
            row = table[f"{label}/{kind}"]
            row["outputs"] += 1
            row["llm_filled"] += theirs is not None
            if ours.value is None:
                row["low_confidence"] += getattr(ours, "confidence", None) == "low"
                continue
            row["offline_filled"] += 1
            if theirs is None:
                row["wrong"] += 1
                continue
            ok = same(vkind, theirs, ours.value)
            row["exact"] += ok
            row["lenient"] += same(vkind, theirs, ours.value, lenient=True)
            row["covered"] += 1
            row["wrong"] += not ok
            if show_wrong and not ok:
                print(f"  {name}: LLM {theirs!r} / offline {ours.value!r}  ({path.name})")
    result = {}
    for key, row in sorted(table.items()):
        filled = row["offline_filled"] or 1
        result[key] = {
            **row,
            "precision": round(row["exact"] / filled, 3),
            "lenient_precision": round(row["lenient"] / filled, 3),
            "coverage": round(row["covered"] / (row["llm_filled"] or 1), 3),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show-wrong", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.show_wrong)
    for key, row in result.items():
        print(
            f"{key:24} outputs {row['outputs']:3}  offline {row['offline_filled']:3}  "
            f"precision {row['precision']:.3f}  lenient {row['lenient_precision']:.3f}  "
            f"coverage {row['coverage']:.3f}  low-confidence {row['low_confidence']}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
