"""The prompts of the model-backed evaluations.

- Breakdown detection after ChatChecker (Mayr, Schimpf, Bohné 2025, §3.2): a system prompt
  with the breakdown definition, the taxonomy and the chatbot's description; a user prompt
  with the numbered dialogue context and the chatbot utterance to judge.
- Ghassel et al.'s zero-shot prompt ("Are Large Language Models General-Purpose Solvers for
  Dialogue Breakdown Detection? An Empirical Investigation", CCECE 2024), kept close to the
  paper's wording since it is the baseline compared against.
- Dialogue rating after ChatChecker (§3.3): the dimensions with their questions and a strict,
  human-like calibration policy.

The wording of the ChatChecker-style prompts is sparring's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.connectors import ChatbotInfo
from sparring.conversations import Turn

CONTEXT_TURNS = 60
"""Most turns of context shown before the judged utterance; earlier ones are summarised as
a count (a 200-turn conversation stays within a model's context window)."""


def history(
    turns: Sequence[Turn], *, user: str = "User", bot: str = "Chatbot", quote: bool = True
) -> str:
    """``turns`` as numbered lines (``3. Chatbot: "…"``, 1-based), the last
    ``CONTEXT_TURNS`` only; ``quote=False`` leaves texts unquoted (Ghassel's format)."""
    start = max(0, len(turns) - CONTEXT_TURNS)
    lines = [f"({start} earlier turns not shown)"] if start else []
    for index in range(start, len(turns)):
        lines.append(utterance(index, turns[index], user=user, bot=bot, quote=quote))
    return "\n".join(lines) if lines else "(the conversation starts here)"


def utterance(
    index: int, turn: Turn, *, user: str = "User", bot: str = "Chatbot", quote: bool = True
) -> str:
    """One numbered line: ``{index + 1}. {speaker}: "{text}"`` (buttons rendered)."""
    speaker = user if turn.role == "user" else bot
    text = turn.sensei_text
    return f'{index + 1}. {speaker}: "{text}"' if quote else f"{index + 1}. {speaker}: {text}"


def chatbot_facts(chatbot: ChatbotInfo | None) -> str:
    """What is known of the chatbot, one fact a line (empty when nothing is): chatbot.yaml's
    info — with ChatChecker's task, constraints and known limitations when its config.yaml
    gave them (``ChatbotInfo.prompt_text``) — and the fallback message."""
    if chatbot is None:
        return ""
    lines = [f"- {line}" if not line.startswith("- ") else f"  {line}"
             for line in chatbot.prompt_text().splitlines()]  # fmt: skip
    if chatbot.fallback:
        lines.append(f"- Fallback message: {chatbot.fallback}")
    return "\n".join(lines)


# Breakdown detection (ChatChecker) -----------------------------------------------------

DETECTION_SYSTEM = """\
# Role
You are an expert in dialogue breakdowns: you judge one chatbot utterance of a \
conversation between a chatbot and a user, in the context of the turns before it.

# What a breakdown is
A dialogue breakdown is a chatbot response that makes it hard for the user to carry on \
the conversation smoothly.

## Error types
These are the usual kinds of breakdown; name every one that fits:
{taxonomy}
{chatbot}
# Task
Decide whether the latest chatbot utterance causes a dialogue breakdown. Give a score from \
0 to 1, where 0 means a complete breakdown and 1 a seamless continuation. If there is a \
breakdown, list every error type above that fits it (an empty list otherwise).

Reason step by step and explain your decision. Answer with a JSON object with the fields \
"reasoning" (string), "score" (number from 0 to 1), "decision" ("breakdown" or \
"no_breakdown") and "breakdown_types" (list of error type names)."""

DETECTION_CHATBOT = """
## The chatbot
{facts}

Take the chatbot's purpose and limits into account: a reply is judged against what this \
chatbot is for.
"""

DETECTION_USER = """\
# Dialogue context
{context}

# Latest chatbot utterance to judge
{utterance}

# Your judgement
"""


def detection_messages(
    turns: Sequence[Turn],
    index: int,
    taxonomy: Sequence[tuple[str, str]],
    chatbot: ChatbotInfo | None,
) -> list[dict[str, str]]:
    """The system and user messages judging ``turns[index]`` with the turns before it as
    context; ``taxonomy`` is ``(name, description)`` pairs. With no chatbot description
    the prompt simply says less."""
    facts = chatbot_facts(chatbot)
    listing = "\n".join(f"- {name}: {description}" for name, description in taxonomy)
    system = DETECTION_SYSTEM.format(
        taxonomy=listing or "- (no error types given)",
        chatbot=DETECTION_CHATBOT.format(facts=facts) if facts else "",
    )
    user = DETECTION_USER.format(
        context=history(turns[:index]), utterance=utterance(index, turns[index])
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# Breakdown detection (Ghassel et al., zero-shot) ----------------------------------------

GHASSEL_DEFINITION = (
    "Dialogue breakdown is characterized by incoherence, irrelevance, or any disruption "
    "that significantly hampers the flow of the conversation, making it challenging for the "
    "user to continue the conversation smoothly."
)

GHASSEL_PROMPT = """\
Assume you are an expert in dialogue analysis. You are presented with a series of \
conversations between a bot and a user. Your primary task is to scrutinize the latest bot \
utterance for potential dialogue breakdown.
{definition}

Analyze the latest bot utterance and determine whether there is a dialogue breakdown or \
non-breakdown. Briefly justify your reasoning and provide a score ranging from 0 to 1, \
where 0 indicates a complete breakdown and 1 indicates a seamless conversation.

Include your decision as either "decision: BREAKDOWN" or "decision: NON-BREAKDOWN".

Here is the conversation segment for analysis:
"
**Dialogue**
{context}

**Determine if the following bot utterance leads to a dialogue breakdown:**
{utterance}
"

Please output your response in JSON format as a list of objects. For each bot's last \
utterance, provide a JSON object with the fields: 'reasoning', 'decision', and 'score'. \
Format each object as follows:

    "reasoning": "Your explanation here",
    "decision": "BREAKDOWN" or "NON-BREAKDOWN",
    "score": Your score here

Ensure each object is separated by a comma and the list ends with a closing square bracket.
"""


def ghassel_messages(turns: Sequence[Turn], index: int) -> list[dict[str, str]]:
    """Ghassel et al.'s zero-shot prompt for ``turns[index]``, as one system message (their
    setup); speakers ``User``/``Bot``, texts unquoted."""
    prompt = GHASSEL_PROMPT.format(
        definition=GHASSEL_DEFINITION,
        context=history(turns[:index], bot="Bot", quote=False),
        utterance=utterance(index, turns[index], bot="Bot", quote=False),
    )
    return [{"role": "system", "content": prompt}]


# Dialogue rating (ChatChecker) ----------------------------------------------------------

RATING_SYSTEM = """\
# Role
You are an expert evaluator of dialogue systems. You read one conversation between a user \
and a chatbot and rate the chatbot's performance in it.
{chatbot}
# Task
Rate the chatbot on each dimension below from 1 (worst) to 5 (best):
{dimensions}

Reason step by step and give the reason for each rating, following this policy.

## Evaluation policy: strict, like a critical human evaluator
- Be strict, realistic and specific; do not give the benefit of the doubt.
- Small flaws count: awkward or robotic wording, an unnatural tone, vague answers, poor \
formatting or needless repetition lower the rating of the dimension they touch.

## What the ratings mean (for every dimension)
- 5, excellent: close to perfect; smooth, natural and correct, nothing to fault.
- 4, good: solid, with minor flaws (slightly robotic wording, a small slip, a missed nuance).
- 3, acceptable: noticeable problems (awkward replies, confusion, clumsy recovery, partly \
wrong or incomplete answers), yet it still works.
- 2, poor: several problems with flow, accuracy or tone; misunderstandings, missing \
confirmations, disjointed logic.
- 1, very poor: does not meet the user's needs; confusing, full of errors or off-task.

Read these meanings in the light of each dimension's question.

Answer with a JSON object holding, for each dimension key, an object with "reasoning" \
(string) and "rating" (integer from 1 to 5)."""

RATING_CHATBOT = """
# The chatbot
{facts}

Rate with the chatbot's purpose in mind; for requests outside it, rate how well the \
chatbot handled them.
"""

RATING_USER = """\
# Conversation to rate
{conversation}

# Your ratings
"""


def rating_messages(
    turns: Sequence[Turn],
    dimensions: Sequence[tuple[str, str, str]],
    chatbot: ChatbotInfo | None,
) -> list[dict[str, str]]:
    """The rating prompt for a whole conversation; ``dimensions`` are ``(key, title,
    question)`` triples."""
    facts = chatbot_facts(chatbot)
    listing = "\n".join(f"- {title} (key={key}): {question}" for key, title, question in dimensions)
    system = RATING_SYSTEM.format(
        chatbot=RATING_CHATBOT.format(facts=facts) if facts else "", dimensions=listing
    )
    conversation = "\n".join(utterance(i, t) for i, t in enumerate(turns)) or "(no turns)"
    user = RATING_USER.format(conversation=conversation)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """Messages as one stored text: ``role:`` then the content, blank lines between."""
    return "\n\n".join(f"{m['role']}:\n{m['content']}" for m in messages)
