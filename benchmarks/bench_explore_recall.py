"""Recall of the offline exploration on bots nobody on the team wrote (issue 20).

    python benchmarks/bench_explore_recall.py [--bots veterinary bikeshop] [--out DIR]
        [--sessions 12] [--turns 12] [--url URL]

(``--url``: one bot already served there, e.g. by ``third_party_rasa.py serve``.)

For each third-party Rasa 1.10 bot of ``../shared/data/rasa-bots`` (served one at a time
with ``scripts/third_party_rasa.py``; the Rasa 1.10 venv and trained models must exist):
explore it black box (no model: capability probes, what its replies list, common requests,
answers from its own words) and again with ``--project`` (its definition), then measure
against its ``domain.yml`` and stories, with ``definition_coverage`` over the
*exploration* conversations: recall of task intents (every intent but the greeting and
chit-chat: greet, goodbye, affirm, deny, thank, welcome), of form slots (``utter_ask_<slot>``
asked) and of story flows (all a story's responses said in order in one conversation);
an intent no user input can reach (no NLU example) is counted apart, with the reason,
and the recall is given both without and with it;
for the black box, also per evidence tier (the session's first utterance came from the
capability probes, what the bot listed, or the common requests). Prints one table and
writes ``recall.json`` into ``--out``.

Targets (issue 20): black box ≥ 60 % of task intents; with ``--project`` ≥ 90 % of
intents and form slots.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import socket
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import yaml

from sparring.conversations import ConversationRecord, RunStore
from sparring.explore import (
    ExplorationModel,
    ExploreJob,
    ExploreSettings,
    definition_coverage,
    read_definition,
)
from sparring.runner import start

REPO = Path(__file__).resolve().parents[1]
CHIT_CHAT = re.compile(r"greet|welcome|goodbye|bye|affirm|deny|thank|mood|bot_challenge", re.I)


def _helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "third_party_rasa", REPO / "scripts/third_party_rasa.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["third_party_rasa"] = module
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tier(record: ConversationRecord, model: ExplorationModel) -> str:
    if record.id == "explore/capabilities":
        return "capability probes"
    said = [t.text for t in record.turns if t.role == "user" and t.text != "Hello"]
    if not said:
        return "none"
    for node in model.functionalities:
        if said[0] in node.utterances and node.evidence:
            evidence = node.evidence[0]
            if evidence.startswith("listed in") or evidence.startswith("the probe"):
                return "listed by the bot"
            if evidence.startswith("a common request"):
                return "common requests"
            return evidence.split(":")[0]
    return "followed options"


def _recall(project: Path, records: list[ConversationRecord]) -> dict[str, object]:
    definition = read_definition(project)
    measured = definition_coverage(definition, records)
    tasks = [i for i in measured.intents.names if not CHIT_CHAT.search(i)]
    reached = [i for i in measured.intents.reached if i in tasks]
    unreachable = {i: why for i, why in measured.unreachable.items() if not CHIT_CHAT.search(i)}
    every = len(tasks) + len(unreachable)
    return {
        "task_intents": f"{len(reached)}/{len(tasks)}",
        "task_intent_recall": round(len(reached) / len(tasks), 3) if tasks else None,
        "unreachable_intents": unreachable,
        "task_intents_with_unreachable": f"{len(reached)}/{every}",
        "missed_intents": sorted(set(tasks) - set(reached)),
        "form_slots": f"{len(measured.slots.reached)}/{len(measured.slots.names)}",
        "form_slot_recall": measured.slots.share,
        "flows": f"{len(measured.flows.reached)}/{len(measured.flows.names)}",
        "flow_recall": measured.flows.share,
    }


def measure(bot: str, out: Path, sessions: int, turns: int, url: str | None) -> dict[str, object]:
    helper = _helper()
    if url is not None:
        return _explore(bot, helper.source_project(bot), url, out, sessions, turns)
    servers = helper.servers(bot, _free_port(), _free_port(), log_dir=out / f"{bot}-logs")
    with servers:
        servers.wait_ready(timeout=1200)
        return _explore(bot, helper.source_project(bot), servers.url, out, sessions, turns)


def _explore(
    bot: str, project: Path, url: str, out: Path, sessions: int, turns: int
) -> dict[str, object]:
    chatbot = out / f"{bot}.yaml"
    config = {"connector": "rasa", "params": {"url": url, "timeout": 30}}
    chatbot.write_text(yaml.safe_dump({**config, "info": {"name": bot, "languages": ["en"]}}))
    found: dict[str, object] = {}
    for source, extra in (("black box", {}), ("--project", {"project": project})):
        run = out / f"{bot}-{source.strip('-').replace(' ', '-')}"
        settings = ExploreSettings(
            chatbot=chatbot, sessions=sessions, turns=turns, graph_formats=[], **extra
        )
        result = start(ExploreJob(), settings, run, report=False).result
        records = list(RunStore.open(run).iter_records())
        found[source] = {
            **_recall(project, records),
            "functionalities": len(result.model.functionalities),
            "sessions": result.model.sessions,
            "turns": result.model.turns,
        }
        if source == "black box":
            tiers: dict[str, list[ConversationRecord]] = {}
            for record in records:
                tiers.setdefault(_tier(record, result.model), []).append(record)
            found["black box by tier"] = {t: _recall(project, r) for t, r in tiers.items()}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", nargs="+", default=["veterinary", "bikeshop"])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-explore-recall-"))
    out.mkdir(parents=True, exist_ok=True)
    results = {bot: measure(bot, out, args.sessions, args.turns, args.url) for bot in args.bots}
    (out / "recall.json").write_text(json.dumps(results, indent=2))
    for bot, sources in results.items():
        for source, figures in sources.items():
            if source == "black box by tier":
                for tier, f in figures.items():  # type: ignore[union-attr]
                    print(f"{bot:11} {'  tier: ' + tier:30} intents {f['task_intents']:6}")
                continue
            f = figures  # type: ignore[assignment]
            print(
                f"{bot:11} {source:30} intents {f['task_intents']:6} "  # type: ignore[index]
                f"(of all {f['task_intents_with_unreachable']}) "  # type: ignore[index]
                f"slots {f['form_slots']:6} flows {f['flows']:6} "  # type: ignore[index]
                f"missed: {', '.join(f['missed_intents']) or '-'}; "  # type: ignore[index]
                f"unreachable: {f['unreachable_intents'] or '-'}"  # type: ignore[index]
            )
    print(f"results: {out / 'recall.json'}")


if __name__ == "__main__":
    main()
