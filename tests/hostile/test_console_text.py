"""A chatbot's reply printed on the console cannot reorder what the user reads (issue 36,
re-attack): ``sparring chat`` printed the bidirectional override U+202E as is, so
"Your total is \\u202e$99" was shown reversed; control sequences were already stripped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sparring._terminal import escape, strip_control

ROOT = Path(__file__).resolve().parents[2]
BOT = """
def respond(text):
    return "Your total is \\u202e$99\\u202c, \\u2067isolated\\u2069 \\x1b[2Jok?"
"""


def test_bidirectional_controls_are_dropped_from_console_text() -> None:
    for control in ("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2069"):
        assert strip_control(f"pay {control}$99") == "pay $99"
    assert escape("ضريبة \u200f$5") == "ضريبة \u200f$5"  # a mark, and Arabic, are text


def test_chat_shows_a_reply_in_the_order_it_was_sent(tmp_path: Path) -> None:
    (tmp_path / "bidi_bot.py").write_text(BOT)
    (tmp_path / "chatbot.yaml").write_text(
        f"connector: python\nparams:\n  target: bidi_bot:respond\n  path: {tmp_path}\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "sparring", "chat", "-c", "chatbot.yaml"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        input="hi\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Your total is $99, isolated ok?" in result.stdout, result.stdout + result.stderr
    assert not any(c in result.stdout for c in "\u202e\u202c\u2067\u2069\x1b")
