"""Every analysis of a chatbot's reply runs in time linear in the reply (issue 36, defect
1): a long reply stalled the default user simulator for minutes (a quadratic regular
expression in ``offered_options``: 5,000 characters 3 s, 20,000 42 s), on the event loop,
and the stall was recorded as the bot's timeout.

The bound is asserted as relative scaling, not as a time limit: on prefixes of the reply
growing eightfold, the CPU time (``time.process_time``, unaffected by other processes, the
best of three) of each analysis may grow at most ``GROWTH`` times (a linear analysis grows
about 8 times, a bounded one not at all, a quadratic one 64 times), judged once the longer
prefix takes ``MEASURABLE`` seconds (below that the clock's resolution decides). The runner's
own analyses read a bounded part of the reply: their result on the whole reply is their
result on its ends (``sparring._window``), and they run off the event loop. Wall-clock
figures live in ``benchmarks/bench_long_replies.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_matrix import PROFILE
from typer.testing import CliRunner

from sparring._window import END_CHARS, ends
from sparring.cli import app
from sparring.connectors import Reply
from sparring.connectors._boundary import DEFAULT_MAX_REPLY_BYTES
from sparring.dialogue_acts import classify_dialogue_act, offered_options
from sparring.fallback import is_fallback
from sparring.leaks import template_leak
from sparring.simulate._runner import RunnerLimits, _analyse
from sparring.simulate._similarity import RepetitionTracker
from sparring.simulate._spec import ConversationSpec
from sparring.values import find_values, item_values

HERE = Path(__file__).parent
GROWTH = 24.0
"""Most an analysis's CPU time may grow when its reply grows eightfold (three times linear;
a quadratic analysis grows 64 times)."""
MEASURABLE = 0.02
"""CPU seconds from which the longer prefix's time is compared (shorter runs are within
the noise of the clock and the caches)."""
START_CHARS = 1_000

SPEC = ConversationSpec(id="long/0", profile="long", fallback="Sorry, I did not get that.")
LIMITS = RunnerLimits()
TRACKER = RepetitionTracker(3, 1.0)
KINDS = ("money", "int", "float", "time", "date", "email", "phone", "bool", "address")
TODAY = date(2026, 11, 28)
ANALYSES: dict[str, Callable[[str], object]] = {
    "classify_dialogue_act": classify_dialogue_act,
    "offered_options": offered_options,
    "is_fallback": lambda text: is_fallback(text, "Sorry, I did not get that."),
    "template_leak": template_leak,
    "runner": lambda text: _analyse(SPEC, Reply(messages=[text]), LIMITS, TRACKER, True),
    **{f"find_values[{k}]": (lambda text, k=k: find_values(k, text, TODAY)) for k in KINDS},
    **{f"item_values[{k}]": (lambda text, k=k: item_values(k, text, TODAY)) for k in KINDS},
}
FRAGMENTS = (
    "small ", "or ", "we can ", ", ", ". ", "?", "(", ")", "confirm ", "- ", "1. ", "\n",
    " ", "we have ", ", which one ", "the options are ", "more ", "1", "11", "1,000",
    "a@b", "@", ".", "$", "12:30 ", "1 hour ", "Street ", "None ", "{x} ", "tell me ",
)  # fmt: skip
"""Pieces whose repetition makes backtracking patterns slow: runs of list words, "or",
commas, digits, e-mail and number characters, cues without their question mark."""


def _cpu_seconds(analysis: Callable[[str], object], text: str, enough: float = 0.0) -> float:
    """The best of up to three CPU times of ``analysis(text)``; the first at most
    ``enough`` ends the trials."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        analysis(text)
        best = min(best, time.process_time() - started)
        if best <= enough:
            break
    return best


def _assert_linear(text: str) -> None:
    """Each analysis's CPU time grows at most ``GROWTH`` times from one prefix of ``text``
    to the next, eight times longer (the last one is ``text`` itself)."""
    for name, analysis in ANALYSES.items():
        size, spent = START_CHARS, _cpu_seconds(analysis, text[:START_CHARS])
        while size < len(text):
            longer = min(8 * size, len(text))
            allowed = GROWTH * max(spent, MEASURABLE / GROWTH) * longer / (8 * size)
            grown = _cpu_seconds(analysis, text[:longer], enough=allowed)
            assert grown <= allowed, (
                f"{name}: {spent:.4f} s on {size:,} characters, {grown:.4f} s on {longer:,}"
            )
            size, spent = longer, grown


def _repeat(piece: str, chars: int) -> str:
    return (piece * (chars // max(len(piece), 1) + 1))[:chars]


@pytest.mark.parametrize("chars", [8_000, 480_000])
def test_a_long_reply_of_plain_words_is_read_in_linear_time(chars: int) -> None:
    """The issue's reply: words and spaces (the 480 KB one is under the 1 MB reply cap)."""
    words = _repeat("the clinic opens early and closes late on weekdays ", chars) + "?"
    _assert_linear(words)
    assert classify_dialogue_act(words).value == "request"
    assert offered_options(words) == []


@pytest.mark.parametrize("chars", [8_000, 480_000])
def test_a_long_reply_still_offers_the_options_it_ends_with(chars: int) -> None:
    """Reading a bounded part keeps the question at the end: the options are found."""
    reply = _repeat("Our clinic is open every day. ", chars) + " Small, medium or large?"
    assert offered_options(reply) == ["Small", "medium", "large"]
    assert classify_dialogue_act(reply).value == "offer"


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    pieces=st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), min_size=1, max_size=5),
    chars=st.sampled_from([8_000, 64_000, DEFAULT_MAX_REPLY_BYTES]),
)
def test_every_reply_analysis_is_linear_in_the_reply(pieces: list[str], chars: int) -> None:
    """Random replies up to the reply cap, built by repeating hostile pieces."""
    _assert_linear(_repeat("".join(pieces) or "x", chars))


def _simulate_long_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, chars: int, conversations: int
) -> Result:
    """``simulate`` into ``tmp_path / "out"`` against the hostile bot answering ``chars``
    characters (a 3-second timeout), ``conversations`` conversations."""
    (tmp_path / "profiles").mkdir()
    profile = PROFILE.replace("number: 2", f"number: {conversations}")
    (tmp_path / "profiles" / "hello.yaml").write_text(profile)
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {HERE}\n  timeout: 3\n"
    )
    monkeypatch.setenv("HOSTILE", "long")
    monkeypatch.setenv("HOSTILE_CHARS", str(chars))
    monkeypatch.chdir(tmp_path)
    command = ["simulate", "profiles", "-c", str(chatbot), "-o", str(tmp_path / "out")]
    return CliRunner().invoke(app, command)


def test_a_long_reply_is_not_recorded_as_the_bots_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's run: a bot answering 8 KB in milliseconds, six conversations at the
    default concurrency, a 3-second timeout. Every conversation gets its answers."""
    out = tmp_path / "out"
    result = _simulate_long_replies(tmp_path, monkeypatch, chars=8000, conversations=6)
    records = [json.loads(f.read_text()) for f in out.rglob("conversations/*.json")]
    assert len(records) == 6, result.output
    errors = [e for r in records for e in r.get("errors", [])]
    assert not [e for e in errors if e.get("cause") == "timeout"], errors
    assert all(len(r["turns"]) >= 4 for r in records), [len(r["turns"]) for r in records]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    head=st.sampled_from(["", "Sorry, I did not get that. ", "Thanks None! ", "Hello {name}. "]),
    tail=st.sampled_from(["", " Could you rephrase?", " Anything else?", " Bye %s"]),
    pieces=st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), min_size=1, max_size=5),
    chars=st.sampled_from([3 * END_CHARS, 64_000]),
)
def test_the_runner_reads_only_the_ends_of_a_long_reply(
    head: str, tail: str, pieces: list[str], chars: int
) -> None:
    """What the runner sees in a long reply is what it sees in the reply's ends: a
    bounded text, whatever the reply's length, with what is said first and last."""
    reply = head + _repeat("".join(pieces) or "x", chars) + tail
    window = ends(reply)
    assert len(window) <= 2 * END_CHARS + 1
    assert window.startswith(head.rstrip()) and window.endswith(tail)
    whole = _analyse(SPEC, Reply(messages=[reply]), LIMITS, None, True)
    part = _analyse(SPEC, Reply(messages=[window]), LIMITS, None, True)
    assert (whole.leak, whole.fallback) == (part.leak, part.fallback)


def test_the_runner_analyses_each_reply_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reply is analysed in a worker thread: the loop that waits for the other
    conversations' replies (and times them out) is never the one reading a reply."""
    import threading

    from sparring.simulate import _runner

    threads: list[threading.Thread] = []
    classify = _runner.classify_dialogue_act

    def spy(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread())
        return classify(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_runner, "classify_dialogue_act", spy)
    result = _simulate_long_replies(tmp_path, monkeypatch, chars=100, conversations=2)
    assert threads, result.output
    assert threading.main_thread() not in threads
