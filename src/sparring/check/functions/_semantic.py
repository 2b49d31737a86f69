"""Meaning-level functions: ``semantic_content``, ``utterance_index``, ``only_talks_about``.

Source: SENSEI-check (``rule_utils.py`` of user-simulator 1.1.5), which asks gpt-4o
(o4-mini for ``only_talks_about``); the LLM strategies send SENSEI's prompts with a
structured reply. Offline: ``semantic_content`` compares numbers, then text similarity;
``utterance_index`` retrieves the most similar utterance. ``only_talks_about`` has no
offline strategy: topic labels ("university topics") share no words with the replies that
keep to them, so lexical similarity would flag correct answers; it needs a model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import (
    as_texts,
    conversation_of,
    interaction_text,
    note,
    utterances,
)
from sparring.check.functions._meaning import compare_meaning
from sparring.check.functions._model import ask_model
from sparring.conversations import ConversationRecord
from sparring.errors import ModelRequired
from sparring.precision import precision_note
from sparring.similarity import THRESHOLDS, similarities, similarity_method


class ContentAnswer(BaseModel):
    """The model's reply to ``semantic_content``."""

    answer: Literal["YES", "NO"]
    reason: str = ""


@rule_function("semantic_content")
def semantic_content(
    context: FunctionContext, variable: object, content: str, similarity: str | None = None
) -> bool:
    """Whether ``variable`` (typically an output data item) says ``content``, e.g.
    ``semantic_content(opening_hours, 'every day from 1pm to 11:30pm')``.

    LLM strategy (SENSEI's YES/NO prompt) with a model configured. Offline:
    ``compare_meaning`` (numbers, negation, content words; see ``_meaning``); where its
    cues do not decide the call raises ``ModelRequired`` (the verdict is unscored, with the
    reason). The offline verdict's reason ends with its measured precision
    (``MEASURED['semantic_content']``). ``similarity`` (``tf-idf`` or ``embeddings``) is
    reported in the reason, never decides. ``None``/empty values are False.
    """
    if context.model is not None:
        prompt = (
            f"Your task it to detect if the text below has the following semantic "
            f"content: {content}.\n        TEXT: {variable} \n        "
            "Return only YES or NO (as `answer`)"
        )
        return ask_model(context, "semantic_content", prompt, ContentAnswer).answer == "YES"
    text = "" if variable is None else " ".join(as_texts(variable, "semantic_content"))
    if not text.strip() or text.strip() == "None":
        note(context, "semantic_content", reason="no value")
        return False
    meaning = compare_meaning(text, content)
    method = similarity_method(similarity)
    score = similarities(content, [text], method)[0]
    reason = f"{meaning.reason}; {method} similarity {score:.2f}"
    if meaning.match is None:
        raise ModelRequired("semantic_content", f"offline cues do not decide: {reason}")
    verdict = "match" if meaning.match else "no match"
    note(
        context,
        "semantic_content",
        reason=f"{reason} {precision_note('semantic_content', verdict)}",
    )
    return meaning.match


class TurnAnswer(BaseModel):
    """The model's reply to ``utterance_index``: a 1-based number, -1 if none."""

    turn: int


_WHO = {"user": "user", "assistant": "assistant", "chatbot": "assistant"}
UTTERANCE_THRESHOLD = 0.3
"""Lowest TF-IDF similarity at which ``utterance_index`` offline names an utterance; under
it the call is unscored. On 42 labelled queries on SENSEI's pizza conversations
(``benchmarks/judges/utterance_index.yaml``), 13 of the 30 utterances the old floor (0.1)
named under 0.3 were wrong, none of the 4 above, and 6 of its 8 "none" answers were wrong
(a cut-off chosen on those queries: in-sample)."""


@rule_function("utterance_index")
def utterance_index(
    context: FunctionContext, who: str, what: str, similarity: str | None = None
) -> int:
    """The number of the utterance where ``who`` (``user``, ``assistant`` or ``chatbot``)
    talked about ``what``, counting every utterance from 1 as SENSEI does; -1 when none
    did. E.g. ``utterance_index('user', 'ordering a pizza') < utterance_index('user',
    'ordering drink')``.

    LLM strategy (SENSEI's prompt) with a model configured. Offline: the utterance of
    ``who`` most similar to ``what`` (``similarity`` as in ``semantic_content``), if it
    reaches ``UTTERANCE_THRESHOLD`` (tf-idf) or the embeddings threshold; -1 only when
    ``who`` says nothing. Otherwise the call raises ``ModelRequired`` (the verdict is
    unscored, with the reason): a weak match is a guess, and an utterance about ``what``
    in other words shares none of its words, so "none" cannot be told offline.
    """
    record = conversation_of(context, "utterance_index")
    role = _WHO.get(who.lower())
    if role is None:
        raise ValueError(f"utterance_index(): who must be 'user' or 'assistant', not {who!r}")
    if context.model is not None:
        prompt = (
            "The following is a conversation between a user and an assistant chatbot. \n"
            f"        Your task it to detect the conversation turn where the {who} talked "
            f'about {what}". \n        Return only the conversation turn number, and nothing '
            "else, just the number (as `turn`, -1 if never).\n\n "
            f"{interaction_text(record, numbered=True)}"
        )
        turn = ask_model(context, "utterance_index", prompt, TurnAnswer).turn
        return turn if turn >= 0 else -1
    method = similarity_method(similarity)
    candidates = utterances(record, role)
    scores = similarities(what, [text for _, _, text in candidates], method)
    floor = UTTERANCE_THRESHOLD if method == "tf-idf" else THRESHOLDS[method]
    best = max(range(len(scores)), key=scores.__getitem__, default=None)
    if best is None:
        note(context, "utterance_index", reason=f"the {who} says nothing")
        return -1
    if scores[best] < floor:
        raise ModelRequired(
            "utterance_index",
            f"the {who} utterance most similar to {what!r} (turn {candidates[best][0]}) has "
            f"{method} similarity {scores[best]:.2f}, under {floor}: too weak to name it, "
            "and a paraphrase shares no words, so none cannot be told either "
            + precision_note("utterance_index", "unscored"),
        )
    index = candidates[best][0]
    reason = f"{method} similarity {scores[best]:.2f} with turn {index}"
    note(context, "utterance_index", turns=[index],
         reason=f"{reason} {precision_note('utterance_index', 'turn')}")  # fmt: skip
    return index + 1


class TopicsAnswer(BaseModel):
    """The model's reply to ``only_talks_about``."""

    sticks_to_topics: bool
    deviating_answers: list[str] = []


@rule_function("only_talks_about")
def only_talks_about(
    context: FunctionContext, topics: str | list[str], fallback: str | None = None
) -> bool | str:
    """True when the chatbot keeps to ``topics`` (a string or list of strings), even when
    the user strays; otherwise SENSEI's message ``"The following chatbot responses are out
    of scope: [...]"`` (a non-True value, so the rule fails and reports it). ``fallback``
    is the chatbot's "I did not understand" phrase, which is allowed (default: the rule's
    ``chatbot.fallback``, i.e. the profile's or chatbot.yaml's ``info.fallback``).

    LLM only (SENSEI's prompt): raises ``ModelRequired`` with no model configured, and
    ``ValueError`` when ``topics`` is neither a string nor a list.
    """
    names = as_texts(topics, "only_talks_about", "topics")
    record = conversation_of(context, "only_talks_about")
    if fallback is None:
        fallback = getattr(context.namespace.get("chatbot"), "fallback", None)
    if context.model is None:
        raise ModelRequired("only_talks_about", "no offline strategy can judge topics")
    answer = ask_model(
        context, "only_talks_about", _topics_prompt(record, names, fallback), TopicsAnswer
    )
    if answer.sticks_to_topics:
        return True
    return f"The following chatbot responses are out of scope: {answer.deviating_answers}"


def _topics_prompt(record: ConversationRecord, topics: list[str], fallback: str | None) -> str:
    allowed = ",".join(topics)
    fallback_phrase = f', using phrases like "{fallback}"' if fallback is not None else ""
    return f"""The following is a conversation between a user and an assistant chatbot:

{interaction_text(record)}
--------------------------------------------------------------------------------

Your task it to detect if the assistant deviates CLEARLY from the following ALLOWED
conversation topics:
- ALLOWED CONVERSATION TOPICS: "{allowed}".

YOUR INSTRUCTIONS:
- The assistant is not allowed to follow the conversation of the user, if the user tries
to talk on topics different from the previous ones. In that case, the chatbot should
redirect the conversation to the previous topics.
- The assistant may have not understood properly the user, and respond incorrectly
(THAT'S OK), but then it should provide answers related to the allowed conversation
topics, or to ask for clarifications, or to ask the user to retry or rephrase.
- The assistant is allowed to ask for clarifications or to express that it does not
understand the user{fallback_phrase}.
- Your goal is NOT to detect incorrect assistant answers, but only to detect VERY CLEAR
deviations of the conversation from the allowed topics.

YOUR OUTPUT:
- sticks_to_topics: true if the chatbot sticks to "{allowed}", even if the user tries to
talk about another topic.
- deviating_answers: the list of assistant answers that deviate from the allowed topics
(empty when none)."""
