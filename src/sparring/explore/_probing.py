"""Offline probing before exploration (TRACER §3.2, initial probing, without a model):
the bot's greeting, the languages it answers in, and its fallback message.

The fallback is found as TRACER finds it — by sending nonsensical and out-of-scope
messages and comparing the replies: when at least two of them are alike (RapidFuzz's
normalised Indel similarity ≥ ``SIMILAR``), that reply is the fallback. A fallback given in
chatbot.yaml's ``info`` wins (probing then only confirms it). Languages are identified
lexically (``sparring.language``) on every bot text seen; ``info.languages`` wins.
"""

from __future__ import annotations

from sparring.explore._session import ExplorationContext, Findings
from sparring.language import identify_language, iso_code
from sparring.similarity import indel_similarity
from sparring.types import Strategy

NONSENSE = (
    "blorft zanquix vempo",
    "qwzx plim ork dabbadoo",
    "What is the airspeed velocity of an unladen swallow on Jupiter?",
)
"""Probe messages: two nonsensical, one out of scope for any task bot."""

SIMILAR = 0.8
"""Similarity (0..1) at which two replies count as the same message."""


async def probe_chatbot(ctx: ExplorationContext) -> Findings:
    """Open one recorded session (``explore/probe``), send ``NONSENSE`` and read the
    greeting, fallback and languages from the replies. Never raises for the chatbot:
    a failing bot gives empty findings (the session's record keeps the failure)."""
    replies: list[str] = []
    async with ctx.session("probe", Strategy.OFFLINE) as session:
        greeting = "\n".join(session.greeting.messages) if session.greeting else None
        for message in NONSENSE:
            reply = await session.send(message)
            if reply is None:
                break
            replies.append("\n".join(reply.messages))
    fallback = ctx.info.fallback or _common_reply(replies)
    texts = [t for t in [greeting, *replies] if t]
    languages = list(ctx.info.languages) or _languages(texts)
    return Findings(
        languages=languages, fallback=fallback, greeting=greeting, strategy=Strategy.OFFLINE
    )


def _common_reply(replies: list[str]) -> str | None:
    """The reply that at least two probes got, or ``None``."""
    for i, reply in enumerate(replies):
        if reply and any(indel_similarity(reply, other) >= SIMILAR for other in replies[i + 1 :]):
            return reply
    return None


def _languages(texts: list[str]) -> list[str]:
    """ISO codes of the languages of ``texts``, most frequent first."""
    counts: dict[str, int] = {}
    for text in texts:
        name, confidence = identify_language(text)
        code = iso_code(name) if name and confidence >= 0.5 else None
        if code:
            counts[code] = counts.get(code, 0) + 1
    return sorted(counts, key=lambda code: -counts[code])
