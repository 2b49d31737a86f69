"""Typed offline breakdown detectors: the breakdowns a program can see in a task bot's turn.

Each detector looks at one chatbot turn in its context (the turns before it, never after)
and says why the turn is a breakdown of one type of ChatChecker's taxonomy (Mayr, Schimpf,
Bohné 2025, §3.2, table 1, after Higashinaka et al., SIGDIAL 2021), or nothing:

- ``error reply`` → ``chatbot crash``: an empty reply, the chatbot's failure (500/504,
  ``crash_turns``), or an error text ("Internal Server Error", a traceback);
- ``template`` → ``lack of information``: an unfilled or null slot
  (``sparring.leaks.template_leak``: ``{name}``, ``None``…);
- ``fallback`` → ``task performance failure``: the fallback (``sparring.fallback``) after
  an in-scope user turn — an answer to the chatbot's own question, or words of the
  chatbot's domain (chatbot.yaml's name, description, task);
- ``re-ask`` → ``redundancy``: the chatbot asks again for what the user's last turn gave
  it — the same question answered by a value of its kind, or one of the options offered;
- ``repetition`` → ``repetition``: the reply repeats an earlier chatbot reply (normalised
  text, or ≥ 0.9 similar) when the user said something new and did not ask for a repeat;
- ``ignored question`` → ``ignore question``: the user asked, the reply shares no content
  word, no value of the kind asked, no yes/no;
- ``confirmation`` → ``contradiction``: a confirmation or summary states another value, or
  none, for one the user gave: an option chosen among those the chatbot offered, or a
  typed value (time, date, number of something, amount, name) given in answer to its
  question (``_given``);
- ``language`` → ``uninterpretable``: the reply is confidently in another language than
  everything the user wrote before it;
- ``long reply`` → ``lack of brevity``: more than 60 words (measured no better than the
  base rate — 0.21 on the labelled task-bot turns, 0.06 on ChatChecker's study-goal
  turns —, so it is written in the reasoning and weighs nothing in the ranking).

A detector labels only where its measured precision is high (``TypedDetector.labels``: ≥ 0.9 on the
labelled task-bot turns of ``benchmarks/breakdowns/``; docs/breakdowns-offline.md gives
the figures); the others are *hints*: written in the reasoning and raising the turn's
ranking score, never a label.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparring.dialogue_acts import DialogueAct
from sparring.evaluate._features import (
    LONG_REPLY_WORDS,
    answers_with_value,
    answers_yes_no,
    content_words,
    is_question,
    is_yes_no_question,
    words,
)
from sparring.evaluate._given import typed_given
from sparring.evaluate._results import CHATBOT_CRASH
from sparring.evaluate._view import (
    DialogueView,
    answers,
    last_question,
    names_option,
    offered,
    stem,
    stems,
)
from sparring.leaks import template_leak
from sparring.precision import JudgeQuality, Measurement
from sparring.similarity import indel_similarity, normalize_text

if TYPE_CHECKING:
    from sparring.confirmation import GivenValue

REPEAT_SIMILARITY = 0.9
"""Indel similarity (0..1) from which a reply repeats an earlier one."""
LANGUAGE_CONFIDENCE = 0.5
"""Lingua's confidence (0..1, relative among ``COMMON_LANGUAGES``) each side needs before
the user's and the reply's languages are said to differ."""
MIN_LANGUAGE_LETTERS = 25
"""Letters a turn needs before its language is read (shorter turns decide nothing)."""

_ERROR_TEXT = re.compile(
    r"internal server error|traceback \(most recent call last\)|\b(?:bad gateway|"
    r"service unavailable|gateway time-?out)\b|\b(?:an?|unexpected|unknown) (?:internal )?"
    r"error (?:has )?occurred\b|\bsomething went wrong\b|\berror (?:code )?5\d\d\b|"
    r"^\s*(?:error|exception)\s*:",
    re.IGNORECASE,
)
_CAPABILITIES = re.compile(
    r"\bi (?:can|could) only\b|\bi can(?:not|'t|’t) help with\b|\bi(?:'m| am) only able\b|"
    r"\bi can help (?:you )?with\b|\bi(?:'m| am) (?:only )?(?:able|here) to help with\b",
    re.IGNORECASE,
)
"""A statement of what the chatbot can do: said again to every request it cannot serve,
which is no repetition."""
_IGNORANCE = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:i (?:do not|don'?t|don ?'?t|dunno)\s*know|i(?:'m| am) not sure|"
    r"i (?:can ?not|can'?t|can ?'?t) (?:answer|say|tell)|no idea)\b",
    re.IGNORECASE,
)
"""A reply that says the chatbot does not know ("I don't know.", "Uhh, I can't answer
this."): said again to a new question, it answers that question (uninformatively), which
is no repetition."""
_REPEAT_ASKED = re.compile(
    r"\b(?:repeat|again|say that|come again|pardon|what\?|sorry\?|huh)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Finding:
    """One typed detector's finding on one chatbot turn: the ``detector``'s name, the
    taxonomy ``error_type`` and the ``reason`` (what was seen, quoting the text)."""

    detector: str
    error_type: str
    reason: str


def _quote(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def error_reply(view: DialogueView, i: int) -> str | None:
    """The chatbot failed at turn ``i``: a crash (``crash_turns``) or an error text. An
    empty reply of a chit-chat bot (``DialogueView.task_oriented`` false) is left to
    ``silence``: people split on it (DBDC3)."""
    if i in view.crashes:
        if view.silent(i) and not view.task_oriented:
            return None
        return view.crashes[i]
    hit = _ERROR_TEXT.search(view.texts[i])
    return f"the reply is an error message: {_quote(hit.group(0))}" if hit else None


def silence(view: DialogueView, i: int) -> str | None:
    """A chit-chat bot said nothing at turn ``i`` (an empty reply, no failure recorded).
    On DBDC3's chat dialogues 21 of 26 such turns are breakdowns by the annotators'
    majority (0.81; never more than 14 of 30 annotators said *not a breakdown*), so it
    hints, ranked first, and does not label."""
    if view.silent(i) and not view.task_oriented:
        return "the chatbot said nothing (an empty reply in a chit-chat dialogue)"
    return None


def template(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` shows an unfilled or null slot."""
    leak = template_leak(view.texts[i])
    return f"the reply shows an unfilled slot {leak!r}" if leak is not None else None


def fallback(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` is the fallback (or only says what the chatbot can do), though the user's
    turn before it was in scope: it answered the chatbot's question, or used words of the
    chatbot's domain."""
    user = view.user_before(i)
    refused = view.fallbacks.get(i) or _CAPABILITIES.search(view.texts[i]) is not None
    if not refused or user is None or not words(view.texts[user]):
        return None
    asker = view.bot_before(user)
    if asker is not None and not view.fallbacks.get(asker) and is_question(view.texts[asker]):
        how = answers(view, asker, user)
        if how is not None:
            return f"the fallback after the user answered the chatbot's question with {how}"
    shared = sorted(w for w in content_words(view.texts[user]) if stem(w) in view.domain)
    if shared:
        return f"the fallback after an in-domain request ({', '.join(shared[:3])})"
    return None


def reask(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` asks for what the user's turn before it just gave: the chatbot's
    previous question asked again (≥ 0.8 similar) after the user answered it, or a
    question offering an option the user had named."""
    user = view.user_before(i)
    if user is None or view.act(i) not in (DialogueAct.REQUEST, DialogueAct.OFFER):
        return None
    question = last_question(view.texts[i])
    asker = view.bot_before(user)
    if asker is not None and question and not view.fallbacks.get(asker):
        before = last_question(view.texts[asker])
        if before and indel_similarity(question, before) >= 0.8:
            how = answers(view, asker, user)
            if how is not None:
                return f"asks again {_quote(question)} though the user answered with {how}"
    options = offered(view, i)
    named = [o for o in options if names_option(view.texts[user], o)]
    if len(named) == 1 and len(options) >= 2:
        return f"asks to choose among {len(options)} options though the user said {named[0]!r}"
    return None


def repetition(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` repeats an earlier chatbot reply (the same text, ≥ 0.9 similar, or
    contained in it) although the user said something new (its turn differs from the one
    the earlier reply answered), did not ask for a repeat, and the reply does not address
    the new turn (no content word shared, no value of the kind asked); a question asked
    again when no user turn since answered it is a re-prompt, no repetition. Fallbacks and
    statements of what the chatbot can do are not repetitions."""
    text, user = view.texts[i], view.user_before(i)
    if len(words(text)) < 4 or view.fallbacks.get(i) or user is None:
        return None
    said_now = view.texts[user]
    if _REPEAT_ASKED.search(said_now) or _CAPABILITIES.search(text):
        return None
    if is_question(said_now) and _IGNORANCE.search(text):
        return None  # "I don't know" to a new question answers it
    if stems(said_now) & stems(text) or answers_with_value(said_now, text):
        return None
    for j in range(i - 2, -1, -1):
        if view.roles[j] != "assistant" or view.fallbacks.get(j):
            continue
        if _repeats(text, view.texts[j]):
            if _reprompt(view, i):
                return None  # a question asked again, no answer since: a re-prompt
            prompt = view.user_before(j)
            if prompt is not None and _same_request(view.texts[prompt], said_now):
                return None  # the user asked the same again: the same reply is right
            return f"repeats chatbot turn {j} ({_quote(text)}) though the user said something new"
    return None


def _reprompt(view: DialogueView, i: int) -> bool:
    """Whether chatbot turn ``i`` asks again a question that no user turn answered since
    the chatbot last asked it (≥ 0.8 similar; a fallback that asks it counts)."""
    question = last_question(view.texts[i])
    if not question:
        return False
    for k in range(i - 2, -1, -1):
        before = last_question(view.texts[k]) if view.roles[k] == "assistant" else ""
        if before and indel_similarity(question, before) >= 0.8:
            users = [u for u in range(k + 1, i) if view.roles[u] == "user"]
            return all(answers(view, k, u) is None for u in users)
    return False


def _same_request(earlier: str, now: str) -> bool:
    """The user said the same again: ≥ 0.8 similar, or the same content words for the most
    part (half the stems of the shorter one shared)."""
    if indel_similarity(earlier, now) >= 0.8:
        return True
    a, b = stems(earlier), stems(now)
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= 0.5


def _repeats(text: str, earlier: str) -> bool:
    """``text`` is ``earlier`` again: the same normalised text, ≥ ``REPEAT_SIMILARITY``
    similar, or contained in it."""
    now, before = normalize_text(text), normalize_text(earlier)
    if not now or not before:
        return False
    return now == before or now in before or indel_similarity(text, earlier) >= REPEAT_SIMILARITY


def ignored_question(view: DialogueView, i: int) -> str | None:
    """The user's turn before ``i`` asked a question the reply does not address: no
    content word shared, no value of the kind asked, no yes/no to a yes/no question."""
    user = view.user_before(i)
    if user is None or not is_question(view.texts[user]) or view.fallbacks.get(i):
        return None
    asked, reply = view.texts[user], view.texts[i]
    if content_words(asked) & content_words(reply) or answers_with_value(asked, reply):
        return None
    if is_yes_no_question(asked) and answers_yes_no(reply):
        return None
    return f"does not address the user's question {_quote(asked)}"


def language(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` (≥ ``MIN_LANGUAGE_LETTERS`` letters) is in another language than the user
    wrote in: Lingua's reading of everything the user said before it and of the reply, each
    with confidence ≥ ``LANGUAGE_CONFIDENCE``, differ."""
    from sparring.language import identify_language

    users = " ".join(view.texts[j] for j in range(i) if view.roles[j] == "user")
    if _letters(view.texts[i]) < MIN_LANGUAGE_LETTERS or _letters(users) < MIN_LANGUAGE_LETTERS:
        return None
    spoken, sure = identify_language(users)
    reply, confident = identify_language(view.texts[i])
    if spoken is None or reply is None or reply == spoken:
        return None
    if min(sure, confident) < LANGUAGE_CONFIDENCE:
        return None
    return f"the reply is in {reply.title()}, the user wrote {spoken.title()}"


def confirmation(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` reads back what the user gave and states another value, or none (``None``,
    an unfilled slot), for one of them: compared by ``compare_confirmation`` (*differs* or
    *empty*; it abstains where it cannot tell which value is the slot's) with the options
    the user chose among those the chatbot offered, and the typed values — times, dates,
    numbers of something, amounts, names — the user gave in answer to its questions
    (``_given.typed_given``). A read-back is a confirmation or summary
    (``sparring.confirmation.is_confirmation``) or a turn that states at least
    ``SUMMARY_AGREES`` of the user's values as given ("Booked: London → York on
    2027-03-12, departing 06:45, first class, 2 passengers")."""
    from sparring.confirmation import SlotOutcome, compare_confirmation, is_confirmation

    given = _chosen_options(view, i) + typed_given(view, i)
    if not given:
        return None
    check = compare_confirmation(view.texts[i], given, turn=i)
    agreeing = sum(r.outcome == SlotOutcome.AGREES for r in check.readings)
    if not is_confirmation(view.texts[i], view.act(i)) and agreeing < SUMMARY_AGREES:
        return None
    wrong = [r for r in check.mismatches if r.outcome in ("differs", "empty")]
    if not wrong:
        return None
    first = wrong[0]
    return f"the confirmation states {first.stated!r} where the user gave {first.given!r}"


SUMMARY_AGREES = 2
"""Values of the user's a turn must state as given to be read as a summary."""


def _chosen_options(view: DialogueView, i: int) -> list[GivenValue]:
    """For each set of options the chatbot offered before turn ``i``, the one the user's
    latest turn naming exactly one of them chose."""
    from sparring.confirmation import GivenValue

    given: dict[tuple[str, ...], GivenValue] = {}
    for j in range(i):
        if view.roles[j] != "assistant":
            continue
        options = tuple(offered(view, j))
        if len(options) < 2 or options in given:
            continue
        for k in range(i - 1, j, -1):
            named = [
                o for o in options if view.roles[k] == "user" and names_option(view.texts[k], o)
            ]
            if len(named) == 1:
                given[options] = GivenValue(f"choice {j}", named[0], "text", options, k)
                break
    return list(given.values())


def long_reply(view: DialogueView, i: int) -> str | None:
    """Turn ``i`` has more than ``LONG_REPLY_WORDS`` words (Higashinaka et al. 2021, "lack
    of brevity")."""
    count = len(words(view.texts[i]))
    return f"a long reply ({count} words)" if count > LONG_REPLY_WORDS else None


def _letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


@dataclass(frozen=True)
class TypedDetector:
    """One typed detector: its ``name``, the taxonomy ``error_type`` it gives, whether it
    ``labels`` (measured precision ≥ 0.9) or only hints, its measured ``precision`` (``None``:
    not measured) and the function ``find(view, turn) -> reason | None``."""

    name: str
    error_type: str
    labels: bool
    precision: float | None
    find: Callable[[DialogueView, int], str | None]


TYPED_DETECTORS: tuple[TypedDetector, ...] = (
    TypedDetector("error reply", CHATBOT_CRASH, True, 1.0, error_reply),
    TypedDetector("silence", CHATBOT_CRASH, False, 0.81, silence),
    TypedDetector("template", "lack of information", True, 1.0, template),
    TypedDetector("fallback", "task performance failure", True, 1.0, fallback),
    TypedDetector("re-ask", "redundancy", True, 1.0, reask),
    TypedDetector("repetition", "repetition", True, 1.0, repetition),
    TypedDetector("ignored question", "ignore question", False, 0.44, ignored_question),
    TypedDetector("language", "uninterpretable", True, 1.0, language),
    TypedDetector("confirmation", "contradiction", True, 1.0, confirmation),
    TypedDetector("long reply", "lack of brevity", False, 0.0, long_reply),
)
"""Every typed detector, in the order their findings are written."""
SUPERSEDED: dict[str, set[str]] = {
    "repetition": {"re-ask"},
    "ignored question": {"fallback"},
    "confirmation": {"template"},
}
"""A finding dropped when a more specific one fired on the same turn (a slot question asked
again is a redundancy more than a repetition)."""


def typed_findings(
    view: DialogueView, i: int, detectors: Sequence[TypedDetector] = TYPED_DETECTORS
) -> list[tuple[TypedDetector, Finding]]:
    """What each of ``detectors`` finds on chatbot turn ``i`` of ``view``."""
    found = []
    for detector in detectors:
        reason = detector.find(view, i)
        if reason is not None:
            found.append((detector, Finding(detector.name, detector.error_type, reason)))
    names = {d.name for d, _ in found}
    return [(d, f) for d, f in found if not SUPERSEDED.get(d.name, set()) & names]


TASK_BOT_FIGURES = Measurement(
    data="1,080 labelled task-bot turns of benchmarks/breakdowns/task_items.yaml: slot bots "
    "of two domains, the shared hotel bot, the FAQ bot, the four test bots of tests/bots "
    "(each correct and with seeded faults) and 247 of ChatChecker's study-goal turns",
    labels="by construction (seeded faults, in-scope fallbacks), ChatChecker's GPT-4o for "
    "the study-goal turns (silver)",
    turns=1080,
    auc=0.88,
    precision=1.0,
    recall=0.46,
    flagged=round(103 / 1080, 4),
)
"""The typed detectors' labels and the ranking, measured by
``benchmarks/bench_typed_breakdowns.py`` (2026-11-28)."""
CHAT_FIGURES = Measurement(
    data="4,150 annotated system turns of DBDC3's English development set (415 chat "
    "dialogues of four chatbots); the chatbot's type read from each dialogue",
    labels="people's majority label (30 annotators a turn), T or X a breakdown",
    turns=4150,
    auc=0.65,
    precision=round(36 / 39, 4),
    recall=round(36 / 2793, 4),
    flagged=round(39 / 4150, 4),
)
"""The typed detectors' labels (39 repetitions) and the ranking on chit-chat, measured by
``benchmarks/bench_typed_breakdowns.py`` (2026-11-28)."""


def typed_quality(ranking: JudgeQuality | None) -> JudgeQuality:
    """What the offline detector's verdicts are worth: the typed detectors' labels (their
    measured precision) and the ``ranking``'s measurements (the classifier's, when
    shipped) beside the task-bot figures."""
    labelling = [d for d in TYPED_DETECTORS if d.labels]
    names = ", ".join(d.name for d in labelling)
    return JudgeQuality(
        judge="offline",
        labels=True,
        precision={"breakdown": TASK_BOT_FIGURES.precision or 0.0},
        recall={"breakdown": TASK_BOT_FIGURES.recall or 0.0},
        items=TASK_BOT_FIGURES.turns,
        measured_on=TASK_BOT_FIGURES.data,
        summary=f"labels the breakdowns its typed detectors see ({names}): precision "
        f"{TASK_BOT_FIGURES.precision:.2f}, recall {TASK_BOT_FIGURES.recall:.2f} on "
        f"{TASK_BOT_FIGURES.turns} labelled task-bot turns; ranks the other turns, unscored "
        f"(AUC {TASK_BOT_FIGURES.auc:.2f} on those task bots, 0.64 on ChatChecker's "
        f"study-goal turns, silver labels); on chit-chat (DBDC3) label precision "
        f"{CHAT_FIGURES.precision:.2f} on {CHAT_FIGURES.flagged or 0:.1%} of the turns, "
        f"ranking AUC {CHAT_FIGURES.auc:.2f}; python benchmarks/bench_typed_breakdowns.py"
        + (f". The {ranking.summary}" if ranking is not None and ranking.labels else ""),
        measurements=[
            TASK_BOT_FIGURES,
            CHAT_FIGURES,
            *(ranking.measurements if ranking else []),
        ],
    )
