"""Benchmark of the offline user (issue 19): task completion on third-party Rasa bots,
judged from the transcripts, against SENSEI's gpt-4o-mini user; failures listed; ablation.

Run from the project root (needs ``../shared/data`` and the Rasa 1.10 runtime of
``scripts/third_party_rasa.py``; one bot served at a time, at concurrency 1)::

    python benchmarks/bench_offline_user.py                      # both bots, full user
    python benchmarks/bench_offline_user.py --bot veterinary --ablation
    python benchmarks/bench_offline_user.py --bot veterinary --url http://127.0.0.1:5611
    python benchmarks/bench_offline_user.py --sensei             # SENSEI's transcripts only
    python benchmarks/bench_offline_user.py --extraction         # precision/recall, labels

``--extraction`` scores offline extraction against the hand labels in
``benchmarks/offline_user/extraction_labels.yaml`` (115 outputs of third-party
conversations in ``../shared/data``): precision is the share of the values extraction
returns that are right, recall the share of labelled values it returns right; every
confusion is printed with the label's reason.

Profiles: SENSEI's own for the veterinary bot (``appointment.yml``, ``qa.yml`` in
``../shared/data/rasa-bots/veterinary/sensei/profiles``) and two written for the bike shop
as a new user would (``benchmarks/offline_user/bikeshop``).

Task completion is judged from the transcript, not from sparring's goal tracking, by the
same function for SENSEI's conversations and ours (``appointment_completed``,
``question_answered``): an appointment task is complete when a chatbot reply confirms an
appointment with the asked day (relative days resolved from the conversation's date;
numeric dates read day-first as these bots write them), the asked time and the asked
service; a question task when the chatbot's next reply is neither the fallback, nor a
question back, nor the welcome message.

Ablation: the same runs with each ability of ``AgendaSimulator`` switched off
(``ABILITIES``: ``phrasing``, ``directives``, ``acts``, ``evidence``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import random
import re
import socket
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from dateutil import parser as date_parser

from sparring.connectors import create_connector, load_chatbot_config
from sparring.conversations import ConversationRecord
from sparring.simulate import AgendaSimulator, plan_run, run_conversation
from sparring.simulate._agenda import ABILITIES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "rasa-bots"
PROFILES = {
    "veterinary": [
        DATA / "veterinary/sensei/profiles/appointment.yml",
        DATA / "veterinary/sensei/profiles/qa.yml",
    ],
    "bikeshop": sorted((ROOT / "benchmarks/offline_user/bikeshop").glob("*.yaml")),
}
SENSEI_RUNS = DATA / "veterinary/sensei/conversations-gpt-4o-mini/conversation_outputs"
_CONFIRMATION = re.compile(
    r"appointment for (?P<day>.+?) at (?P<time>[\d:]+\s*(?:[ap]m)?) for (?P<what>[^.!]+)", re.I
)
SAME_SERVICE = {"service": ["service", "tune-up"]}
"""The bike shop calls a service a tune-up ("We can service or repair your bike", then
"… for tune-up or repair"): either word confirms the asked service."""
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


# --- the judges (transcripts only) ---------------------------------------------------------


def asked_day(value: str, today: date) -> date | None:
    """The day a profile value names, seen from ``today``."""
    low = value.strip().lower()
    if low == "tomorrow":
        return today + timedelta(days=1)
    if low == "today":
        return today
    match = re.fullmatch(r"(?:next |on |this )?(\w+day)", low)
    if match and match.group(1) in _WEEKDAYS:
        return today + timedelta(days=(_WEEKDAYS.index(match.group(1)) - today.weekday()) % 7 or 7)
    try:
        return date_parser.parse(value, dayfirst=True).date()
    except (ValueError, OverflowError):
        return None


def _clock(text: str) -> str | None:
    match = re.search(r"(\d{1,2})(?::(\d{2}))?\s*([ap]m)?", text, re.I)
    if not match:
        return None
    hour = int(match.group(1)) % 12 + (12 if (match.group(3) or "").lower() == "pm" else 0)
    hour = int(match.group(1)) if not match.group(3) else hour
    return f"{hour:02d}:{int(match.group(2) or 0):02d}"


def appointment_completed(replies: Iterable[str], day: str, hour: str, what: str,
                          today: date) -> bool:  # fmt: skip
    """Whether a reply confirms an appointment on the asked day, time and service."""
    wanted_day = asked_day(day, today)
    for reply in replies:
        for match in _CONFIRMATION.finditer(reply):
            try:
                said_day = asked_day(match.group("day"), today)
            except ValueError:
                said_day = None
            said_what = match.group("what").lower()
            same_what = any(w in said_what for w in SAME_SERVICE.get(what.lower(), [what.lower()]))
            if said_day == wanted_day and _clock(match.group("time")) == _clock(hour) and same_what:
                return True
    return False


def question_answered(reply: str | None, fallback: str, welcome: str, question: str = "") -> bool:
    """Whether ``reply`` answers: not the fallback, not a question back, not the welcome;
    to a "how much" question, with an amount; to a "when" question, with a time or a day."""
    if reply is None or not reply.strip():
        return False
    if re.search(r"\bhow much\b|\bcost\b|\bprice\b", question, re.I) and not re.search(
        r"\d", reply
    ):
        return False
    when = re.search(r"\bwhen\b|\bopen", question, re.I)
    if when and not re.search(r"\d|\b(?:week|day|mon|tue|wed|thu|fri|sat|sun)", reply, re.I):
        return False
    text = reply.strip()
    return (
        fallback[:30].lower() not in text.lower()
        and welcome[:25].lower() not in text.lower()
        and not text.endswith("?")
    )


# --- tasks of one conversation ---------------------------------------------------------------

WELCOME = {
    "veterinary": "Welcome to my veterinary center.",
    "bikeshop": "Welcome to my bike shop.",
}


def tasks(bot: str, profile: str, variables: dict[str, Any], turns: Sequence[tuple[str, str]],
          goals: Sequence[str], fallback: str, today: date) -> tuple[int, int]:  # fmt: skip
    """(completed, total) tasks of one conversation: an appointment is one task, each
    question goal one task."""
    replies = [t for r, t in turns if r == "assistant"]
    if "appointment" in profile:
        day = variables.get("ap_date") or variables.get("day")
        hour = variables.get("hour")
        what = variables.get("service") or variables.get("kind")
        done = appointment_completed(replies, str(day), str(hour), str(what), today)
        return int(done), 1
    done = 0
    for goal in goals:
        words = {w for w in re.findall(r"\w{4,}", goal.lower())}
        for index, (role, text) in enumerate(turns):
            if role != "user" or len(words & set(re.findall(r"\w{4,}", text.lower()))) < max(
                1, len(words) // 2
            ):
                continue
            reply = turns[index + 1][1] if index + 1 < len(turns) else None
            if question_answered(reply, fallback, WELCOME[bot], goal):
                done += 1
                break
    return done, len(goals)


def sensei_tasks() -> tuple[int, int, list[str]]:
    """SENSEI's gpt-4o-mini conversations with the veterinary bot, judged the same way."""
    done = total = 0
    lines = []
    for path in sorted(SENSEI_RUNS.glob("*/*/*.yml")):
        meta, _, body = list(yaml.safe_load_all(path.read_text()))
        variables = {
            k: v for item in meta["ask_about"] if isinstance(item, dict) for k, v in item.items()
        }
        goals = [g for g in meta["ask_about"] if isinstance(g, str)]
        roles = {"User": "user", "Assistant": "assistant"}
        turns = [(roles[k], str(v)) for item in body["interaction"] for k, v in item.items()
                 if k in roles]  # fmt: skip
        today = datetime.strptime(meta["serial"][:10], "%Y-%m-%d").date()
        profile = path.parent.parent.name
        fallback = "I'm sorry, but I did not understand the last sentence"
        got, of = tasks("veterinary", profile, variables, turns, goals, fallback, today)
        done, total = done + got, total + of
        lines.append(f"{profile}/{path.name.split('_')[0]}: {got}/{of}")
    return done, total, lines


# --- running sparring's offline user ---------------------------------------------------------


def _helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "third_party_rasa", ROOT / "scripts/third_party_rasa.py"
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


async def run_bot(
    bot: str, url: str, disabled: Sequence[str], out: Path
) -> list[ConversationRecord]:
    chatbot = out / "chatbot.yaml"
    chatbot.write_text(yaml.safe_dump({"connector": "rasa", "params": {"url": url, "timeout": 30}}))
    specs, _ = await plan_run(PROFILES[bot], seed=0)
    connector = create_connector(load_chatbot_config(chatbot))
    records = []
    try:
        for spec in specs:
            simulator = AgendaSimulator(spec, random.Random(spec.seed), disabled=disabled)
            records.append(await run_conversation(spec, connector, simulator))
    finally:
        await connector.aclose()
    return records


def score(bot: str, specs_records: list[ConversationRecord]) -> tuple[int, int]:
    done = total = 0
    for record in specs_records:
        turns = [(t.role, t.text) for t in record.turns]
        today = record.started_at.date() if record.started_at else date.today()
        got, of = tasks(bot, record.profile, record.variables, turns, record.goals,
                        record.fallback or "", today)  # fmt: skip
        done, total = done + got, total + of
    return done, total


def _configurations(ablation: bool) -> list[tuple[str, tuple[str, ...]]]:
    configs = [("full", ())]
    if ablation:
        configs += [(f"without {a}", (a,)) for a in sorted(ABILITIES)]
    return configs


def bench_bot(bot: str, url: str | None, ablation: bool, out: Path) -> dict[str, Any]:
    servers = None
    if url is None:
        servers = _helper().servers(bot, _free_port(), _free_port())
        servers.__enter__()
        servers.wait_ready(timeout=600)
        url = servers.url
    results: dict[str, Any] = {}
    try:
        for name, disabled in _configurations(ablation):
            folder = out / bot / name.replace(" ", "-")
            folder.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            records = asyncio.run(run_bot(bot, str(url), disabled, folder))
            done, total = score(bot, records)
            errors = [(r.id, e.code, e.message) for r in records for e in r.errors]
            for record in records:
                (folder / f"{record.id.replace('/', '__')}.json").write_text(
                    record.model_dump_json(indent=1)
                )
            results[name] = {"completed": done, "tasks": total, "errors": errors,
                             "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
            print(f"{bot:<11} {name:<20} tasks completed {done}/{total}  failures {len(errors)}")
    finally:
        if servers is not None:
            servers.__exit__(None, None, None)
    return results


# --- extraction against hand labels --------------------------------------------------------

LABELS = ROOT / "benchmarks/offline_user/extraction_labels.yaml"
_PIZZA_PROFILES = {
    "custom_eval": "custom_pizza.yml",
    "predefined_eval": "predefined_pizza.yml",
    "qa_eval": "pizza_qa.yml",
}


def _outputs_of(conversation: Path) -> dict[str, Any]:
    """The output definitions of the profile that produced a SENSEI conversation."""
    if "sensei-pizza" in conversation.parts:
        folder = DATA.parent / "sensei/examples/profiles/pizza-order-evaluation/eval"
        profile = folder / _PIZZA_PROFILES[conversation.parts[-3]]
    else:
        profile = DATA / "veterinary/sensei/profiles" / f"{conversation.parts[-3]}.yml"
    chatbot = yaml.safe_load(profile.read_text())["chatbot"]
    return {k: v for item in chatbot["output"] for k, v in item.items()}


def _right(label: dict[str, Any], got: Any) -> bool:
    if got is None:
        return False
    if "expected_contains" in label:
        return all(k.lower() in str(got).lower() for k in label["expected_contains"])
    expected = label["expected"]
    if label["type"] == "money":
        return abs(float(str(got).split()[0]) - float(expected)) < 0.005
    if label["type"] == "time":
        return str(got).startswith(str(expected))
    return str(got).strip().lower() == str(expected).strip().lower()


def score_extraction() -> None:
    from sparring.conversations import import_sensei
    from sparring.simulate._extract import extract_outputs_offline

    labels = yaml.safe_load(LABELS.read_text())
    cache: dict[str, dict[str, Any]] = {}
    returned = right_returned = labelled = found = 0
    for label in labels:
        path = DATA.parent / label["file"]
        if label["file"] not in cache:
            record = import_sensei(path)
            meta = next(yaml.safe_load_all(path.read_text()))
            today = datetime.strptime(str(meta["serial"])[:10], "%Y-%m-%d").date()
            outputs = _outputs_of(path)
            fallback = None
            cache[label["file"]] = extract_outputs_offline(outputs, record.turns, today=today,
                                                           fallback=fallback)  # fmt: skip
        value = cache[label["file"]][label["output"]]
        got = value.value
        has_label = label.get("expected") is not None or "expected_contains" in label
        ok = _right(label, got)
        returned += got is not None
        right_returned += ok
        labelled += has_label
        found += ok and has_label
        if (got is not None and not ok) or (has_label and not ok):
            short = "/".join(Path(label["file"]).parts[-4::3])
            want = label.get("expected", label.get("expected_contains"))
            how = getattr(value, "method", None)
            print(f"  confusion {short} {label['output']}: got {got!r} ({how}), "
                  f"labelled {want!r} — {label['reason']}")  # fmt: skip
    precision = right_returned / returned if returned else 0.0
    recall = found / labelled if labelled else 0.0
    print(f"extraction on {len(labels)} hand-labelled outputs: precision {precision:.3f} "
          f"({right_returned}/{returned}), recall {recall:.3f} ({found}/{labelled})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", choices=["veterinary", "bikeshop", "all"], default="all")
    parser.add_argument("--url", help="a bot already served (skips starting one)")
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--sensei", action="store_true", help="SENSEI's transcripts only")
    parser.add_argument("--extraction", action="store_true", help="score extraction only")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-offline-user"))
    args = parser.parse_args(argv)
    if args.extraction:
        score_extraction()
        return 0
    done, total, lines = sensei_tasks()
    print(f"SENSEI gpt-4o-mini, veterinary: tasks completed {done}/{total} ({', '.join(lines)})")
    if args.sensei:
        return 0
    if not DATA.is_dir():
        print(f"shared data missing: {DATA}")
        return 2
    bots = ["veterinary", "bikeshop"] if args.bot == "all" else [args.bot]
    summary = {bot: bench_bot(bot, args.url, args.ablation, args.out) for bot in bots}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print(f"records and summary: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
