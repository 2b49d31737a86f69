"""Write ``task_items.yaml``: the labelled task-bot turns the typed breakdown detectors are
measured on (``benchmarks/bench_typed_breakdowns.py``), each label with its reason.

Deterministic. Sources, each label decided by construction or by its publisher — never
by a detector:

- the slot bots of ``task_bots.py`` (a restaurant's table bookings, a dental clinic's
  appointments), correct and with each seeded fault: a turn a fault shaped is a breakdown
  (the fault's reason); the fallback after a user turn the script marks in scope is a
  breakdown ("did not understand an in-scope request"); every other turn is none;
- the hotel bot of ``../shared/data/hotel-bot`` (read from there, never copied), correct
  and ``--buggy``, played in process with new-user scripts (stray answers, questions in the
  middle of a booking): the fallback after an in-scope turn (an answer to its own
  "Anything else?", a booking phrase it does not know) and the seeded bugs B1 (the
  confirmation says "double room" whatever the user chose) and B2 (a second booking gets
  the first one's reference) are breakdowns;
- the FAQ bot of ``breakdown_faq_bot.py`` (bike rental), correct and with its seeded
  faults (``breakdown_faq_scripts.FAULTS``);
- ChatChecker's study-goal evaluation (``../shared/data/chatchecker``; GPT-4o's silver
  labels, its types and reasoning quoted): every 10th annotated chatbot turn, and every
  third of its breakdowns, by path and turn (never copied).

    PYTHONPATH=src python benchmarks/breakdowns/make_task_items.py
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = ROOT.parent / "shared" / "data"
HOTEL = SHARED / "hotel-bot" / "hotelbot.py"
STUDY_GOAL = SHARED / "chatchecker" / "chatbots" / "study_goal_assistant"
OUT = HERE / "task_items.yaml"
sys.path.insert(0, str(HERE))

from breakdown_faq_bot import BuggyFaqBot, FaqBot  # noqa: E402
from breakdown_faq_scripts import BUGGY_SCRIPTS, CORRECT_SCRIPTS, FAULTS, play  # noqa: E402
from task_bots import DOMAINS, SCRIPTS, WHY, SlotBot  # noqa: E402
from task_bots import FAULTS as SLOT_FAULTS  # noqa: E402

IN_SCOPE_FALLBACK = "breakdown: the fallback after an in-scope user turn ({})"

HOTEL_SCRIPTS: dict[str, list[tuple[str, str]]] = {
    "book-suite": [("Hi", "in"), ("I want to book a room", "in"), ("a suite please", "in"),
                   ("12/08/2027", "in"), ("Maria Lopez", "in"), ("no", "in")],
    "book-single-all-at-once": [("I'd like to reserve a single room for 3 March, my name is "
                                 "Tom Baker", "in"), ("yes", "in"),
                                ("what time is check-in?", "in"), ("bye", "in")],
    "prices-then-book": [("How much is a room?", "in"), ("ok, book a double room", "in"),
                         ("tomorrow", "in"), ("Ana", "in"), ("no thanks", "in")],
    "stray-answers": [("hello", "in"), ("a room for two nights", "in"), ("double", "in"),
                      ("next week", "in"), ("05/06/2027", "in"), ("Lee", "in"), ("great", "in"),
                      ("nothing else", "in")],
    "questions-mid-booking": [("book a room", "in"), ("what do the rooms cost?", "in"),
                              ("suite", "in"), ("when can I check in?", "in"),
                              ("1st of May", "in"), ("Sam Roe", "in")],
    "out-of-scope": [("Hi", "in"), ("Is there a spa?", "out"), ("Can I bring my dog?", "out"),
                     ("ok, what can you do?", "in"), ("bye", "in")],
    "two-bookings": [("book a single room", "in"), ("20/10/2027", "in"), ("Kim", "in"),
                     ("yes, another booking please", "in"), ("a suite", "in"),
                     ("21/10/2027", "in"), ("Kim Park", "in"), ("no", "in")],
    "typo-and-date": [("I wnat a room", "in"), ("single", "in"), ("31/02/2027", "in"),
                      ("28/02/2027", "in"), ("Jo", "in"), ("thanks, bye", "in")],
}  # fmt: skip
HOTEL_KNOWN = {
    "31/02/2027": "breakdown: accepts an impossible date (31 February) and moves on",
}
"""User turns whose reply is a breakdown of the (correct) hotel bot that no rule above
names, and why."""


def turn_dicts(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"role": role, "text": text} for role, text in pairs]


def slot_conversations() -> list[dict[str, Any]]:
    """Every script of every domain, played by the correct bot and each faulty one (a
    faulty bot's conversation is kept only when its fault fired)."""
    out = []
    for domain_name, scripts in SCRIPTS.items():
        domain = DOMAINS[domain_name]
        for fault in (None, *SLOT_FAULTS):
            for name, script in scripts.items():
                bot = SlotBot(domain, frozenset([fault]) if fault else frozenset())
                turns: list[tuple[str, str]] = []
                labels: dict[int, dict[str, Any]] = {}
                for text, scope in script:
                    reply, fired = bot.respond(text)
                    turns += [("user", text), ("assistant", reply)]
                    fell_back = reply == domain.fallback or reply.startswith("Sorry, I didn't")
                    if fired is not None:
                        label = {"breakdown": True, "why": WHY[fired]}
                    elif fell_back and scope == "in":
                        label = {"breakdown": True, "why": IN_SCOPE_FALLBACK.format(repr(text))}
                    elif fell_back:
                        label = {
                            "breakdown": False,
                            "why": "correct: the fallback after an "
                            f"out-of-scope or meaningless user turn ({text!r})",
                        }
                    else:
                        label = {"breakdown": False, "why": "correct: does what was asked"}
                    labels[len(turns) - 1] = label
                if fault is not None and not any(v["why"] == WHY[fault] for v in labels.values()):
                    continue
                variant = fault or "correct"
                out.append(
                    {"id": f"slot/{domain_name}/{variant}/{name}", "source": "slot-bot",
                     "domain": domain_name, "variant": variant,
                     "chatbot": {"name": domain.name, "description": domain.description,
                                 "fallback": domain.fallback, "type": "task-oriented"},
                     "turns": turn_dicts(turns), "labels": labels}
                )  # fmt: skip
    return out


def hotel_module(buggy: bool) -> ModuleType:
    """A fresh copy of the hotel bot module (its sessions and reference counter)."""
    spec = importlib.util.spec_from_file_location("hotelbot", HOTEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.BUGGY = buggy
    return module


def hotel_conversations() -> list[dict[str, Any]]:
    """The hotel bot's conversations, correct and buggy, labelled (module docstring)."""
    info = yaml.safe_load((HOTEL.parent / "chatbot.yaml").read_text(encoding="utf-8"))["info"]
    out = []
    for buggy in (False, True):
        bot = hotel_module(buggy)
        for name, script in HOTEL_SCRIPTS.items():
            session: dict[str, Any] = {}
            turns: list[tuple[str, str]] = []
            labels: dict[int, dict[str, Any]] = {}
            chosen: str | None = None
            references: list[str] = []
            for text, scope in script:
                chosen = bot.find_room(text) or chosen
                reply = bot.respond(session, text)
                turns += [("user", text), ("assistant", reply)]
                labels[len(turns) - 1] = hotel_label(bot, text, scope, reply, chosen, references)
            variant = "buggy" if buggy else "correct"
            out.append(
                {"id": f"hotel/{variant}/{name}", "source": "hotel-bot", "domain": "hotel",
                 "variant": variant, "chatbot": info, "turns": turn_dicts(turns),
                 "labels": labels}
            )  # fmt: skip
    return out


def hotel_label(
    bot: ModuleType, text: str, scope: str, reply: str, chosen: str | None, refs: list[str]
) -> dict[str, Any]:
    """The label of one hotel-bot reply (module docstring)."""
    if text in HOTEL_KNOWN:
        return {"breakdown": True, "why": HOTEL_KNOWN[text]}
    if reply == bot.FALLBACK or reply.startswith("Sorry, I didn't catch that"):
        if scope == "in":
            return {"breakdown": True, "why": IN_SCOPE_FALLBACK.format(repr(text))}
        return {"breakdown": False, "why": f"correct: the fallback after an out-of-scope "
                f"request ({text!r})"}  # fmt: skip
    confirmed = re.search(r"confirmed: a (\w+) room .* reference is (SV-\d+)", reply)
    if confirmed:
        said, reference = confirmed.groups()
        refs.append(reference)
        if chosen is not None and said != chosen:
            return {"breakdown": True, "why": f"seeded bug B1: the confirmation says {said!r}, "
                    f"the user chose {chosen!r}"}  # fmt: skip
        if refs.count(reference) > 1:
            return {"breakdown": True, "why": f"seeded bug B2: the second booking gets the "
                    f"first one's reference {reference}"}  # fmt: skip
    return {"breakdown": False, "why": "correct: does what was asked"}


TEST_BOT_SCRIPTS: dict[str, dict[str, list[str]]] = {
    "dental": {
        "faq": ["Hi", "How much is a cleaning?", "What are your opening hours?",
                "Where are you?", "Do you take insurance?", "bye"],
        "filling": ["I'd like an appointment", "a filling", "next Friday", "Friday",
                    "10 am", "Tom Hill"],
        "check-up": ["hello", "I need a check-up", "12/03/2027", "11 am", "Jo Park"],
    },
    "bank": {
        "faq": ["I lost my card", "What are the branch opening hours?",
                "What fees do you charge?", "Tell me about savings", "bye"],
        "transfer": ["hi", "send money please", "100 euros", "John Smith", "9876 5432",
                     "today", "yes"],
    },
    "train": {
        "faq": ["How much is a ticket?", "Can I bring my bike?", "What about luggage?",
                "Can I get a refund?", "bye"],
        "leeds": ["a ticket from Leeds to Edinburgh", "15/03/2027", "1", "standard", "09:00"],
        "past-date": ["A ticket please", "from London", "to York", "12/02/2027", "2",
                      "first", "16:50"],
    },
    "carrental": {
        "faq": ["What are your rates?", "What do I need to rent a car?",
                "Is insurance included?", "What about fuel?", "bye"],
        "suv": ["I want to rent a car", "Airport", "March 20", "March 22", "an SUV",
                "Lee Chan"],
        "compact": ["hi, I need a car", "Downtown", "April 2", "April 5", "compact",
                    "Sam Roe"],
    },
}  # fmt: skip
"""Scripts for ``tests/bots`` beside their ``TASKS``, written from their README (domains
and topics), not from their code: every user turn is in scope."""


def test_bot_conversations() -> list[dict[str, Any]]:
    """The test bots of ``tests/bots`` (held out: written by another session, never tuned
    for), correct and with each seeded bug alone, on their task and the scripts above.
    Labels by construction: with a bug, a reply that differs from the correct bot's on the
    same script (references of four digits or more masked) is that bug's breakdown (a
    raised error is a crash); in either variant the fallback (chatbot.yaml's, or a "Sorry,
    I didn't catch that" re-prompt) after these in-scope turns is a breakdown; all else
    none."""
    sys.path.insert(0, str(ROOT))
    try:
        import tests.bots as bots
    finally:
        sys.path.remove(str(ROOT))
    out = []
    for name, bot in bots.BOTS.items():
        module = bots.load(name)
        config = yaml.safe_load((bot.folder / "chatbot.yaml").read_text(encoding="utf-8"))
        info = config["info"]
        scripts = {"task": bots.TASKS[name], **TEST_BOT_SCRIPTS[name]}
        for script_name, script in scripts.items():
            correct = play_test_bot(module.Conversation(), script)
            for bug in (None, *sorted(module.BUGS)):
                replies = (
                    correct if bug is None else play_test_bot(module.Conversation([bug]), script)
                )
                labels, turns = {}, []
                for n, (text, (reply, crashed)) in enumerate(zip(script, replies, strict=False)):
                    turns += [("user", text), ("assistant", reply)]
                    why = test_bot_label(reply, crashed, correct[n][0], bug, module.BUGS, info)
                    labels[len(turns) - 1] = {"breakdown": why.startswith("breakdown"), "why": why}
                if bug is not None and replies == correct:
                    continue
                errors = [
                    {"code": 500, "message": "the bot raised", "turn": len(turns) - 1}
                    if replies and replies[-1][1]
                    else None
                ]
                out.append(
                    {"id": f"tests-bots/{name}/{bug or 'correct'}/{script_name}",
                     "source": "test-bots", "domain": name, "variant": bug or "correct",
                     "chatbot": info, "turns": turn_dicts(turns),
                     "errors": [e for e in errors if e], "labels": labels}
                )  # fmt: skip
    return out


def play_test_bot(conversation: Any, script: list[str]) -> list[tuple[str, bool]]:
    """The bot's replies to ``script`` (``(text, crashed)``; a raised error ends it with an
    empty reply, as sparring records a crash)."""
    replies: list[tuple[str, bool]] = []
    for text in script:
        try:
            replies.append((conversation.respond(text), False))
        except Exception:  # a seeded crash (HTTP 500 when served)
            replies.append(("", True))
            break
    return replies


REPROMPT = re.compile(r"(?:sorry|hmm)[,.!]? i didn't (?:catch|get|understand)", re.IGNORECASE)
"""A test bot's own "I did not understand" before it asks again (its reprompt)."""


def _masked(text: str) -> str:
    """``text`` with numbers of four digits or more masked: a reference drawn from a
    counter the bot shares between conversations differs run to run, not by a bug."""
    return re.sub(r"\d{4,}", "#", text)


def test_bot_label(
    reply: str, crashed: bool, correct: str, bug: str | None, bugs: dict[str, str], info: Any
) -> str:
    """Why a test bot's reply is, or is not, a breakdown (``test_bot_conversations``)."""
    if crashed:
        return f"breakdown: seeded bug {bug}: {bugs[bug or '']} (the bot raised)"
    if bug is not None and _masked(reply) != _masked(correct):
        return (
            f"breakdown: seeded bug {bug}: {bugs[bug]} (the reply differs from the correct bot's)"
        )
    if reply.startswith(info["fallback"].split(".")[0]) or REPROMPT.match(reply):
        return "breakdown: the fallback (or 'didn't catch that' re-prompt) after an in-scope turn"
    return "correct: the reply of the correct bot to an in-scope turn"


def faq_conversations() -> list[dict[str, Any]]:
    """The FAQ bot's conversations (``breakdown_faq_scripts``), labelled by its faults."""
    out = []
    for variant, scripts in (("correct", CORRECT_SCRIPTS), ("buggy", BUGGY_SCRIPTS)):
        for name, script in scripts.items():
            record = play(FaqBot() if variant == "correct" else BuggyFaqBot(), script, name)
            labels = {}
            for i, turn in enumerate(record.turns):
                if turn.role == "assistant":
                    fault = FAULTS.get(record.turns[i - 1].text) if variant == "buggy" else None
                    why = fault or "correct: answers what was asked, or says what it covers"
                    labels[i] = {"breakdown": fault is not None, "why": why}
            out.append(
                {"id": f"faq/{variant}/{name}", "source": "faq-bot", "domain": "bike rental",
                 "variant": variant,
                 "chatbot": {"name": "Bike rental help desk", "type": "task-oriented",
                             "description": "Answers questions about renting bikes: opening "
                             "hours, location, prices, booking, payment, helmets and locks."},
                 "turns": [{"role": t.role, "text": t.text} for t in record.turns],
                 "errors": [e.model_dump(mode="json") for e in record.errors],
                 "labels": labels}
            )  # fmt: skip
    return out


def chatchecker_items() -> list[dict[str, Any]]:
    """Every 10th annotated chatbot turn of ChatChecker's study-goal runs and every third
    of its breakdowns, by path and turn, with GPT-4o's decision, types and reasoning."""
    items = []
    seen = 0
    broken = 0
    for path in sorted(STUDY_GOAL.glob("runs/*/*/dialogue_*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for index, turn in enumerate(data["chat_history"]):
            note = turn.get("breakdown_annotation")
            if turn["role"] != "dialogue_system" or not note:
                continue
            seen += 1
            breakdown = note["decision"] == "breakdown"
            broken += breakdown
            if seen % 10 and not (breakdown and broken % 3 == 0):
                continue
            types = ", ".join(note.get("breakdown_types") or []) or "no type"
            reasoning = " ".join(str(note.get("reasoning", "")).split())[:240]
            items.append(
                {"file": f"../{path.relative_to(ROOT.parent).as_posix()}",
                 "turn": index, "breakdown": breakdown,
                 "why": f"ChatChecker GPT-4o (silver): {note['decision']} ({types}): {reasoning}"}
            )  # fmt: skip
    return items


def main() -> None:
    conversations = [
        *slot_conversations(),
        *hotel_conversations(),
        *faq_conversations(),
        *test_bot_conversations(),
    ]
    chatchecker = chatchecker_items() if STUDY_GOAL.is_dir() else []
    header = (
        "# Labelled task-bot turns for the typed breakdown detectors: written by\n"
        "# benchmarks/breakdowns/make_task_items.py (see its docstring for how each label is\n"
        "# decided), read by benchmarks/bench_typed_breakdowns.py. ChatChecker items are paths\n"
        "# from the repository root into ../shared/data (never copied) and a turn index.\n"
    )
    body = yaml.safe_dump(
        {"conversations": conversations, "chatchecker": chatchecker},
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    OUT.write_text(header + body, encoding="utf-8")
    counts: Counter[tuple[str, bool]] = Counter()
    for conversation in conversations:
        for label in conversation["labels"].values():
            counts[(conversation["source"], label["breakdown"])] += 1
    for item in chatchecker:
        counts[("chatchecker", item["breakdown"])] += 1
    print(f"wrote {sum(counts.values())} labelled turns to {OUT}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
