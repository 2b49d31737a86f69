"""``repeated_answers``: chatbot utterances that repeat an earlier one.

Source: SENSEI-check (``_repeated_answers``, ``find_similar`` and
``text_comparison_utils.py`` of user-simulator 1.1.5). SENSEI walks the chatbot's
utterances in order; each is compared with the *first* utterance of every group found so
far, in order, and joins the first group whose similarity reaches ``threshold``, else it
starts a new group. Groups with at least one follower are returned as
``{first phrase: [later similar phrases]}`` (empty, hence falsy, when nothing repeats).

The comparators are SENSEI's: ``exact`` (string equality), ``jaccard`` (lower-cased
whitespace word sets), ``sequence-matcher`` (``difflib`` ratio) and ``tf-idf``: a
scikit-learn ``TfidfVectorizer`` with default options fitted on *the two phrases being
compared* and their cosine; the matrices of every pair come from ``sparring.similarity``.
"""

from __future__ import annotations

import math
from difflib import SequenceMatcher

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import conversation_of, note, utterances
from sparring.conversations import ConversationRecord
from sparring.similarity import (
    Matrix,
    exact_similarities,
    jaccard_similarities,
    tfidf_pair_similarities,
)


def _similarities(context: FunctionContext, key: object, method: str, phrases: list[str]) -> Matrix:
    import numpy as np

    cached = context.cache.get(key)
    if isinstance(cached, np.ndarray):
        return cached
    if method == "tf-idf":
        matrix = tfidf_pair_similarities(phrases)
    elif method == "jaccard":
        matrix = jaccard_similarities(phrases)
    elif method == "sequence-matcher":
        matrix = np.full((len(phrases), len(phrases)), np.nan)  # filled on demand
    else:
        matrix = exact_similarities(phrases)
    context.cache[key] = matrix
    return matrix


def _similarity(matrix: Matrix, method: str, phrases: list[str], i: int, j: int) -> float:
    value = float(matrix[i, j])
    if method == "sequence-matcher" and math.isnan(value):
        value = SequenceMatcher(None, phrases[i], phrases[j]).ratio()
        matrix[i, j] = value
    if math.isnan(value):
        raise ValueError(
            f"repeated_answers(method={method!r}) cannot compare two utterances without "
            f"words ({phrases[i]!r}, {phrases[j]!r}); SENSEI-check fails here too"
        )
    return value


def _group(
    matrix: Matrix, method: str, phrases: list[str], threshold: float
) -> dict[int, list[int]]:
    """SENSEI's greedy grouping: ``{first index: [follower indices]}`` for every group."""
    import numpy as np

    groups: dict[int, list[int]] = {}
    vectorised = method != "sequence-matcher"
    for i in range(len(phrases)):
        leaders = list(groups)
        if vectorised and leaders:
            row = matrix[i, leaders]
            hits = np.flatnonzero(~(row < threshold))  # nan (cannot compare) also stops
            leaders = [leaders[hits[0]]] if hits.size else []
        for leader in leaders:
            if _similarity(matrix, method, phrases, i, leader) >= threshold:
                groups[leader].append(i)
                break
        else:
            groups[i] = []
    return groups


def _to_new_prompts(
    record: ConversationRecord, turns: list[int], groups: dict[int, list[int]]
) -> dict[int, list[int]]:
    """``groups`` without the followers whose prompt (the user utterance before them,
    case and spacing aside) already got an utterance of their group."""

    def prompt(index: int) -> str:
        before = [t for t in record.turns[: turns[index]] if t.role == "user"]
        return " ".join(before[-1].text.lower().split()) if before else ""

    kept: dict[int, list[int]] = {}
    for leader, followers in groups.items():
        seen = {prompt(leader)}
        kept[leader] = []
        for follower in followers:
            if prompt(follower) not in seen:
                kept[leader].append(follower)
            seen.add(prompt(follower))
    return kept


@rule_function("repeated_answers")
def repeated_answers(
    context: FunctionContext,
    method: str = "exact",
    threshold: float = 0.4,
    new_prompts_only: bool = False,
) -> dict[str, list[str]]:
    """Chatbot utterances that repeat an earlier one, as ``{first phrase: [repetitions]}``;
    ``{}`` (falsy) when none does, so rules write ``not repeated_answers(...)``.

    ``method``: ``exact`` (the default, as in SENSEI; any unknown name also means exact),
    ``tf-idf``, ``jaccard`` or ``sequence-matcher``; ``threshold`` is the similarity (0..1)
    at which two utterances count as the same. Texts are compared as SENSEI stores them
    (buttons rendered). Raises ``ValueError`` where SENSEI-check fails too (``tf-idf`` or
    ``jaccard`` asked to compare two utterances that have no words).
    ``new_prompts_only`` (sparring's, off as in SENSEI): a repetition that answers the same
    user utterance as an earlier one of its group ("No, thanks." → "It can't hurt to ask."
    twice) is no repeated answer: the same input got the same answer.
    """
    record = conversation_of(context, "repeated_answers")
    name = method.lower()
    assistant = utterances(record, "assistant")
    phrases = [text for _, _, text in assistant]
    matrix = _similarities(context, ("repeated_answers", id(record), name), name, phrases)
    groups = _group(matrix, name, phrases, threshold)
    if new_prompts_only:
        groups = _to_new_prompts(record, [turn for turn, _, _ in assistant], groups)
    groups = {k: v for k, v in groups.items() if v}
    result: dict[str, list[str]] = {}
    for leader, followers in groups.items():
        result.setdefault(phrases[leader], []).extend(phrases[f] for f in followers)
    if groups:
        turns = sorted(assistant[i][0] for k, v in groups.items() for i in (k, *v))
        reason = (
            f"{sum(len(v) for v in groups.values())} repeated chatbot utterance(s) "
            f"({name}, threshold {threshold})"
        )
        note(context, "repeated_answers", reason=reason, turns=turns)
    return result
