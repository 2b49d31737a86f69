"""Hostile in-process bots for the hostile-bot matrix (``tests/hostile/test_matrix.py``).

``respond`` misbehaves as the environment variable ``HOSTILE`` says; every job of the
matrix talks to it through ``connector: python``.
"""

from __future__ import annotations

import os
import threading


def respond(text: str) -> str:
    mode = os.environ.get("HOSTILE", "")
    if mode == "system_exit":
        raise SystemExit(0)
    if mode == "keyboard_interrupt":
        raise KeyboardInterrupt
    if mode == "os_exit":
        os._exit(3)
    if mode == "frozen":
        threading.Event().wait()  # never set
    if mode == "long":  # plain words, then a question: what an LLM-backed bot may answer
        chars = int(os.environ.get("HOSTILE_CHARS", "8000"))
        words = "the clinic opens early and closes late on weekdays "
        return (words * (chars // len(words) + 1))[:chars] + " anything else?"
    return f"You said: {text}"
