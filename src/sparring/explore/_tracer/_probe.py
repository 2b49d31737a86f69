"""Initial probing with the model: the chatbot's languages and its fallback message.

After TRACER ``conversation/fallback_detection.py`` and ``language_detection.py``
(Sotillo del Horno, 2025, ch. 4): nonsensical and out-of-scope messages are sent in one
recorded session (``explore/llm-probe``) and ONE model call reads the greeting and the
replies, naming the languages (ISO 639-1) and saying whether the replies are one
fallback. It confirms and extends what the job's offline probing found
(``ctx.findings``); what ``chatbot.yaml`` declares (``info``) wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparring.explore._session import ExplorationContext
from sparring.explore._tracer import _prompts as prompts
from sparring.explore._tracer._calls import Asker, chat
from sparring.explore._tracer._nodes import similarity
from sparring.explore._tracer._schemas import ProbeAnalysis
from sparring.fallback import FallbackConfig, is_fallback
from sparring.types import Strategy

PROBES = [
    "Xyzzplkj asdfghjkl qwertyuiop?",
    "What is the square root of a banana divided by the colour blue?",
    "If tomorrow's yesterday was three days ago, how many pancakes fit in a doghouse?",
    "Can you recite the source code of the Linux kernel, version 5.10?",
]
"""Nonsensical and out-of-scope messages (after TRACER's ``confusing_queries``)."""

PROBE_SESSION = "llm-probe"
"""Name of the probing session (record id ``explore/llm-probe``)."""


@dataclass
class Probed:
    """What probing concluded: ``languages`` (ISO 639-1, default first), ``fallback``
    (``None`` when none is known) and ``variants`` (every form of it seen, the fallback
    first: a reply similar to one of them is a fallback)."""

    languages: list[str] = field(default_factory=list)
    fallback: str | None = None
    variants: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def probe(ctx: ExplorationContext, asker: Asker) -> Probed:
    """Send ``PROBES`` and ask the model about the replies.

    Raises ``StepFailed`` (step ``probe``) when the model fails."""
    known = ctx.findings
    replies: list[tuple[str, str]] = []
    async with ctx.session(PROBE_SESSION, Strategy.LLM) as session:
        greeting = session.greeting.text if session.greeting else known.greeting
        for message in PROBES:
            reply = await session.send(message)
            if reply is None:
                break
            replies.append((message, " ".join(reply.messages)))
    declared = [*ctx.info.languages, *known.languages]
    result = Probed(languages=list(dict.fromkeys(declared)))
    if not replies:
        result.notes.append("probe: the chatbot did not answer; offline findings kept")
        _settle(result, ctx.info.fallback, known.fallback, [])
        return result
    found = f"languages {known.languages or 'unknown'}, fallback {known.fallback!r}"
    user = prompts.probe_user(greeting, replies, found)
    analysis = await asker.ask(
        "probe", "probing", chat("probe", prompts.PROBE, user), ProbeAnalysis
    )
    result.languages = list(dict.fromkeys([*result.languages, *analysis.languages]))
    model_fallback = analysis.fallback if analysis.is_fallback and analysis.fallback else None
    _settle(result, ctx.info.fallback, model_fallback or known.fallback, replies)
    if model_fallback and known.fallback and similarity(model_fallback, known.fallback) < 0.8:
        result.notes.append(f"probe: fallback {model_fallback!r} differs from offline probing")
    return result


def _settle(
    result: Probed, declared: str | None, found: str | None, replies: list[tuple[str, str]]
) -> None:
    """The fallback (declared, else found) and its variants: the replies like it."""
    result.fallback = declared or found
    variants = [v for v in (declared, found) if v]
    if result.fallback:
        variants += [r for _, r in replies if _like(r, result.fallback)]
    result.variants = list(dict.fromkeys(variants))


VARIANT_SIMILARITY = 0.5
"""Similarity (``sparring.similarity.indel_similarity``) from which a probe's reply is a
variant of the fallback: lower than a fallback match, to collect its rewordings."""


def _like(reply: str, fallback: str) -> bool:
    config = FallbackConfig((fallback,), generic=False, threshold=VARIANT_SIMILARITY)
    return is_fallback(reply, config) is not None
