"""Every analysis of a chatbot's reply runs in time linear in the reply (issue 36, defect
1): a long reply stalled the default user simulator for minutes (a quadratic regular
expression in ``offered_options``: 5,000 characters 3 s, 20,000 42 s), on the event loop,
and the stall was recorded as the bot's timeout.

The bound is measured robustly, not raced: CPU time (``time.process_time``, unaffected by
other processes), the best of three, against a generous per-character budget, on prefixes
of length growing eightfold so that a quadratic analysis fails on a few kilobytes instead of
hanging on the whole reply. Wall-clock figures live in ``benchmarks/bench_long_replies.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_matrix import PROFILE
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors._boundary import DEFAULT_MAX_REPLY_BYTES
from sparring.dialogue_acts import classify_dialogue_act, offered_options
from sparring.fallback import is_fallback
from sparring.leaks import template_leak
from sparring.values import find_values, item_values

HERE = Path(__file__).parent
SECONDS_PER_CHAR = 25e-6
"""CPU budget per character of reply for one analysis (the slowest linear analysis takes
about 4 µs per character on these machines; a quadratic one 600 µs at 5,000 characters)."""
SECONDS_FIXED = 0.25
"""CPU budget of one analysis whatever the length (imports, caches, the first call)."""
START_CHARS = 1_000

KINDS = ("money", "int", "float", "time", "date", "email", "phone", "bool", "address")
TODAY = date(2026, 11, 28)
ANALYSES: dict[str, Callable[[str], object]] = {
    "classify_dialogue_act": classify_dialogue_act,
    "offered_options": offered_options,
    "is_fallback": lambda text: is_fallback(text, "Sorry, I did not get that."),
    "template_leak": template_leak,
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


def _cpu_seconds(analysis: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        analysis(text)
        best = min(best, time.process_time() - started)
        if best <= SECONDS_FIXED:
            break
    return best


def _assert_linear(text: str) -> None:
    """Each analysis of prefixes of ``text`` growing eightfold stays within the budget."""
    size = START_CHARS
    while True:
        prefix = text[:size]
        for name, analysis in ANALYSES.items():
            spent = _cpu_seconds(analysis, prefix)
            budget = SECONDS_FIXED + SECONDS_PER_CHAR * len(prefix)
            assert spent <= budget, f"{name} took {spent:.2f} s on {len(prefix):,} characters"
        if size >= len(text):
            return
        size = min(8 * size, len(text))


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


def test_a_long_reply_is_not_recorded_as_the_bots_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's run: a bot answering 8 KB in milliseconds, six conversations at the
    default concurrency, a 3-second timeout. Every conversation gets its answers."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hello.yaml").write_text(PROFILE.replace("number: 2", "number: 6"))
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        f"connector: python\nparams:\n  target: hostile_bot:respond\n  path: {HERE}\n  timeout: 3\n"
    )
    monkeypatch.setenv("HOSTILE", "long")
    monkeypatch.setenv("HOSTILE_CHARS", "8000")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    command = ["simulate", "profiles", "-c", str(chatbot), "-o", str(out)]
    result = CliRunner().invoke(app, command)
    records = [json.loads(f.read_text()) for f in out.rglob("conversations/*.json")]
    assert len(records) == 6, result.output
    errors = [e for r in records for e in r.get("errors", [])]
    assert not [e for e in errors if e.get("cause") == "timeout"], errors
    assert all(len(r["turns"]) >= 4 for r in records), [len(r["turns"]) for r in records]
