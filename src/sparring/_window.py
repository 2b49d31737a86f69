"""The bounded part of a chatbot's reply that a per-turn analysis reads.

A reply may be up to a megabyte (``ReplyLimits.max_bytes``); the user simulator analyses
every reply, for every conversation, on the run's event loop. An analysis that reads the
whole reply costs time proportional to it, whatever the analysis; reading a bounded part
keeps each reply's analyses within a constant time (issue 36):

- ``ends(text, chars)``: the first and the last ``chars`` characters, joined by a line
  break, each cut at a word boundary when one is near. What a chatbot says about the
  conversation itself, a fallback ("Sorry, I did not get that. Here is the menu: …"), an
  unfilled slot in a template's greeting or sign-off, is said first or last.

``sparring.dialogue_acts.analysis_window`` reads the end only (the question a chatbot
asks comes last).
"""

from __future__ import annotations

END_CHARS = 2_000
"""Characters read at each end of a long reply (``ends``)."""
_CUT_SEARCH = 80
"""Characters near a cut searched for a line or word boundary to cut at."""


def ends(text: str, chars: int = END_CHARS) -> str:
    """``text`` itself when it has at most ``2 * chars`` characters; else its first and
    last ``chars`` characters (each cut at a line or word boundary within ``_CUT_SEARCH``
    characters of the cut, when there is one) joined by ``"\\n"``. At most
    ``2 * chars + 1`` characters; linear in ``chars``, not in ``len(text)``."""
    if len(text) <= 2 * chars:
        return text
    head, tail = text[:chars], text[-chars:]
    head_cut = max(head.rfind("\n", chars - _CUT_SEARCH), head.rfind(" ", chars - _CUT_SEARCH))
    tail_cut = max(tail.find("\n", 0, _CUT_SEARCH), tail.find(" ", 0, _CUT_SEARCH))
    head = head[:head_cut] if head_cut > 0 else head
    tail = tail[tail_cut + 1 :] if tail_cut >= 0 else tail
    return f"{head}\n{tail}"
