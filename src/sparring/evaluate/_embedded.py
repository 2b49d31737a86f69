"""How a chatbot turn relates to its context in meaning: sentence-embedding cosines for the
chit-chat breakdown classifier.

The lexical features (``_features``) see shared words; a reply that answers in other words,
or changes the subject in the user's words, escapes them. These features compare meanings:
each utterance is embedded by all-MiniLM-L6-v2 (``sparring.similarity.sentence_embeddings``,
the ``embeddings`` extra; nothing is downloaded) and each chatbot turn is described by
cosines to the turns before it (never after), ``EMBEDDING_FEATURE_NAMES`` in order.

Only *relations* are kept, never the embedding of the reply itself: a classifier on the
reply's own vector (or its words) learns how the training chatbots speak and fails on a
chatbot it never saw (DBDC3 English dev, each of its four chatbots held out in turn: AUC
0.64 with the vectors, 0.71 with these seven cosines; ``benchmarks/bench_chitchat_labels.py``).
The relations follow the coherence cues of the DBDC3 baselines (Higashinaka et al.,
"Overview of Dialogue Breakdown Detection Challenge 3", DSTC6 2017): similarity of the
reply to the user's turn and to the context, and repetition of the chatbot's own turns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Encoder = Callable[[Sequence[str]], "NDArray[np.float64]"]
"""Texts → their embeddings, shape ``(len(texts), d)``, each row L2-normalised."""

EMBEDDING_FEATURE_SET_VERSION = 1
"""Version of ``EMBEDDING_FEATURE_NAMES`` and their definitions."""
EMBEDDING_FEATURE_NAMES: tuple[str, ...] = (
    "meaning_user",
    "meaning_previous_reply",
    "meaning_earlier_user",
    "meaning_repetition",
    "meaning_user_to_previous_reply",
    "meaning_context",
    "meaning_user_gain",
)
"""Cosines (−1..1) of the reply's embedding with: the user's last turn before it; the
chatbot's previous turn; the user's turn before that; the most similar earlier chatbot turn
(0 when none); then the user's last turn with the chatbot's previous turn; the reply with
the mean of the (up to) four turns before it; and ``meaning_user`` minus the user-to-previous
cosine (how much closer the reply keeps to the user than the user kept to the chatbot). A
missing turn counts as a zero vector (cosine 0)."""
CONTEXT_WINDOW = 4
"""Turns before the reply that make up its context (``meaning_context``)."""


def default_encoder() -> Encoder:
    """``sparring.similarity.sentence_embeddings`` (raises ``UserInputError`` with the
    install hint when the ``embeddings`` extra is missing, on first use)."""
    from sparring.similarity import sentence_embeddings

    return sentence_embeddings


def embedding_features(
    roles: Sequence[str], texts: Sequence[str], encode: Encoder | None = None
) -> NDArray[np.float64]:
    """The features of every ``assistant`` turn of a conversation, in order: shape
    ``(assistant turns, len(EMBEDDING_FEATURE_NAMES))``. ``roles`` are
    ``"user"``/``"assistant"``, ``texts`` the utterances (same length); ``encode`` embeds
    texts (default: ``default_encoder``), each distinct text once."""
    import numpy as np

    turns = [i for i, r in enumerate(roles) if r == "assistant"]
    if not turns:
        return np.zeros((0, len(EMBEDDING_FEATURE_NAMES)))
    distinct = list(dict.fromkeys(texts))
    vectors = (encode or default_encoder())(distinct)
    row_of = {t: k for k, t in enumerate(distinct)}
    e = np.asarray([vectors[row_of[t]] for t in texts], dtype=np.float64)
    zero = np.zeros(e.shape[1])
    rows = []
    for i in turns:
        users = [j for j in range(i) if roles[j] == "user"]
        bots = [j for j in range(i) if roles[j] == "assistant"]
        reply = e[i]
        user = e[users[-1]] if users else zero
        earlier_user = e[users[-2]] if len(users) > 1 else zero
        previous = e[bots[-1]] if bots else zero
        window = e[max(0, i - CONTEXT_WINDOW) : i]
        context = window.mean(axis=0) if len(window) else zero
        norm = float(np.linalg.norm(context))
        context = context / norm if norm else zero
        to_user = float(reply @ user)
        user_to_previous = float(user @ previous)
        rows.append(
            [
                to_user,
                float(reply @ previous),
                float(reply @ earlier_user),
                max((float(reply @ e[j]) for j in bots), default=0.0),
                user_to_previous,
                float(reply @ context),
                to_user - user_to_previous,
            ]
        )
    return np.asarray(rows, dtype=np.float64)
