"""The prompts of the LLM exploration, one per step (the step's name is the first line of
its system prompt, see ``_calls.STEP_MARKER``).

Written after TRACER's prompts (``src/chatbot_explorer/prompts/``: session,
fallback detection, language detection, functionality extraction and refinement,
classification, workflow), asking for JSON objects (``_schemas``) instead of text formats.
Analysis prompts (extraction onwards) live in ``_prompts_analysis``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.explore._model import Functionality

PROBE = """\
You are analysing how an unknown chatbot answers messages it cannot understand.
You get its greeting (if any) and its replies to deliberately nonsensical or out-of-scope
messages. Decide:
- languages: the ISO 639-1 codes (e.g. "en", "es") of the languages the chatbot answers
  in or says it supports, the one it used first;
- is_fallback: true when the replies are the same message, or one message with minor
  variations, that the chatbot uses when it does not understand;
- fallback: that message, copied from the replies (its common core if they vary);
  null when there is no such message."""


def probe_user(greeting: str | None, replies: Sequence[tuple[str, str]], known: str) -> str:
    """The probe call's user message: the greeting, each (message, reply) pair, and what
    offline probing found (``known``)."""
    lines = [f"GREETING: {greeting or '(none)'}", ""]
    for i, (sent, reply) in enumerate(replies, 1):
        lines += [f"MESSAGE {i}: {sent}", f"REPLY {i}: {reply}", ""]
    lines.append(f"FOUND BY OFFLINE PROBING: {known}")
    return "\n".join(lines)


EXPLORER = """\
You play a human user talking to a chatbot, to discover what it can do and how its
conversations flow. The chatbot's messages come to you as user messages; your replies
are sent to it. Rules:
1. Write only what a user would type: ONE short question, answer or request at a time.
2. Never write as the chatbot: do not greet users, offer help ("How can I help you?"),
   list options or repeat the chatbot's words. You are the customer, not the service.
3. When the chatbot offers choices (buttons listed under AVAILABLE BUTTONS, a numbered
   list, "A or B?"), reply with exactly one of the offered options, copied verbatim.
4. When the chatbot asks for a value, give a plausible one.
5. After an answer that offers nothing to choose, move to another plausible task of
   this chatbot; do not ask "what else?".
6. If the chatbot did not understand you, do not insist on the same request: switch to a
   different capability.
7. Follow the focus below. {language}
Reply with JSON: "message" (your next message) and "done" (true, with an empty message,
when the focus is explored or the conversation is at a dead end; at most {turns} messages).

FOCUS: {focus}"""

GENERAL_FOCUS = (
    "Discover the chatbot's main capabilities: ask what it can do, then follow the "
    "choices it offers to see where they lead."
)

FIRST_MESSAGE = "(The chatbot has not said anything yet. Write your first message.)"

ABANDON = (
    "[sparring] The chatbot failed to understand {count} times in a row on this topic. "
    "Abandon it now: ask about a different, plausible capability, or finish (done)."
)

CORRECTION = (
    "[sparring] Your last message read like the CHATBOT ({why}): {message!r}. You are the "
    "USER. Write the user's next message to the chatbot, as rule 2 says."
)


def explorer_system(focus: str, languages: Sequence[str], turns: int) -> str:
    """The explorer's system prompt (TRACER ``get_explorer_system_prompt``)."""
    language = (
        f"Write in the language with ISO 639-1 code '{languages[0]}' (the chatbot also "
        f"supports: {', '.join(languages)})."
        if languages
        else ""
    )
    return EXPLORER.format(focus=focus, language=language, turns=turns)


def general_focus(known: Sequence[Functionality]) -> str:
    """General exploration's focus; names what is already known so the explorer looks
    further."""
    if not known:
        return GENERAL_FOCUS
    names = ", ".join(f.name for f in known)
    return f"{GENERAL_FOCUS} Already discovered (look for other things): {names}."


def branch_focus(node: Functionality) -> str:
    """Branch exploration of one functionality (TRACER ``get_session_focus``)."""
    focus = (
        f"Use the functionality '{node.name}' ({node.description}) from start to end: "
        "start it with a direct request, give plausible values, pick offered options."
    )
    if node.parameters:
        focus += f" Give values for: {', '.join(p.name for p in node.parameters)}."
    return focus


REPHRASE = """\
The chatbot did not understand a user's message. Rephrase it with the same intent in
simpler, more direct words, as the user would. Reply with JSON: "message"."""


def rephrase_user(message: str, reply: str) -> str:
    """The rephrase call's user message."""
    return f"USER MESSAGE: {message}\nCHATBOT REPLY: {reply}"
