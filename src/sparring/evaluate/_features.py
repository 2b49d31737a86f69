"""Hand-made features of a chatbot turn in its context, for the offline breakdown classifier.

No download, no model: words, character n-grams and a few phrase lists. Each chatbot turn
is described from the turns before it (never the ones after) by ``FEATURE_NAMES``, in
that order; ``FEATURE_SET_VERSION`` changes whenever a name, an order or a definition
changes, and the shipped model records the version it was trained with.

The features follow the error types that can be decided lexically in Higashinaka et al.'s
taxonomy of dialogue breakdowns ("Integrated taxonomy of errors in chat-oriented dialogue
systems", SIGDIAL 2021: *ignore question*, *repetition*/redundancy, *lack of brevity*)
and the cues of the DBDC3 baselines (Higashinaka et al., "Overview of Dialogue Breakdown
Detection Challenge 3", DSTC6 2017): similarity to the context and the user turn, length,
repetition, the chatbot's fallback, and the user's signs of confusion.

Character n-gram TF-IDF (2–4 grams within words) is fitted on each conversation alone, so
nothing is learned beyond the conversation at hand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from sparring.values import find_values

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FEATURE_SET_VERSION = 1
"""Version of ``FEATURE_NAMES`` and their definitions (the model file records it)."""

FEATURE_NAMES: tuple[str, ...] = (
    "response_words",
    "user_words",
    "response_question",
    "user_question",
    "user_yes_no_question",
    "yes_no_answer",
    "user_similarity",
    "user_overlap",
    "context_similarity",
    "context_overlap",
    "novelty",
    "repetition",
    "repetition_fuzzy",
    "exact_repetition",
    "fallback_similarity",
    "fallback_phrase",
    "ignored_question",
    "user_confusion",
    "previous_user_confusion",
    "position",
    "short_reply",
    "long_reply",
    "sentences",
    "non_letters",
    "you_words",
)
"""The features, in the order of a feature vector. Units: word counts are ``log1p``;
similarities and overlaps are in [0, 1]; flags are 0 or 1."""

LONG_REPLY_WORDS = 60
"""A reply of more words than this lacks brevity (Higashinaka et al. 2021, "lack of
brevity"): about four sentences of chat, or a screen of a phone."""
REPETITION_SIMILARITY = 0.9
"""Character n-gram cosine above which a reply repeats an earlier chatbot turn."""
MAX_POSITION = 10
"""Chatbot turns counted by ``position`` (``log1p``): the DBDC3 dialogues have ten, so a
longer conversation reads as one at its tenth turn rather than beyond what was learned."""

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
_AUXILIARIES = (
    "do does did is are was were can could will would shall should may might have has am "
    "isn't aren't don't doesn't didn't won't can't"
)
_QUESTION_START = frozenset(re.findall(r"\S+", "what when where who whom whose which why how"))
_QUESTION_START |= frozenset(re.findall(r"\S+", _AUXILIARIES))
_YES_NO_START = frozenset(re.findall(r"\S+", _AUXILIARIES))
_YES_NO_WORDS = frozenset(
    re.findall(
        r"\S+",
        "yes yeah yep yup no nope nah sure certainly absolutely definitely never of maybe "
        "perhaps probably course not",
    )
)
_FALLBACK_PHRASES = (
    "i don't understand",
    "i do not understand",
    "i don t understand",
    "i didn't understand",
    "i didn't get that",
    "i can't answer",
    "i can t answer",
    "i cannot answer",
    "i'm not sure what you mean",
    "i am not sure what you mean",
    "could you rephrase",
    "can you rephrase",
    "please rephrase",
    "say that again",
    "i don't know what you mean",
    "sorry, i didn't",
    "i'm sorry, i don't",
)
_CONFUSION_PHRASES = (
    "what?",
    "huh",
    "what do you mean",
    "what are you talking about",
    "i don't understand",
    "i dont understand",
    "don't understand",
    "makes no sense",
    "doesn't make sense",
    "does not make sense",
    "you didn't answer",
    "you did not answer",
    "answer my question",
    "that's not what i",
    "not what i asked",
    "i didn't ask",
    "what does that mean",
    "what does that have to do",
    "are you even",
    "you're not making sense",
    "weird",
    "strange",
    "nonsense",
    "???",
)


@cache
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@dataclass(frozen=True)
class LexicalFindings:
    """What the features decide on their own about one chatbot turn: ``repeats`` is the
    index (in the turns given) of the earlier chatbot turn it repeats, else ``None``;
    ``ignored_question`` that the user's last turn asked a question the reply does not
    address; ``long_reply`` that it lacks brevity (more than ``LONG_REPLY_WORDS``)."""

    repeats: int | None = None
    ignored_question: bool = False
    long_reply: bool = False


@dataclass(frozen=True)
class ConversationFeatures:
    """The features of the chatbot turns of one conversation: ``turns`` their indices;
    ``matrix`` shape ``(len(turns), len(FEATURE_NAMES))``, float64; ``findings`` one per
    turn."""

    turns: list[int]
    matrix: NDArray[np.float64]
    findings: list[LexicalFindings]


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters, digits, one inner apostrophe)."""
    return _WORD.findall(text.lower().replace("’", "'"))


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not English stop words."""
    return {w for w in words(text) if w not in _stop_words() and len(w) > 1}


def is_question(text: str) -> bool:
    """A question mark, or a sentence opening with a question word or an auxiliary."""
    if "?" in text:
        return True
    tokens = words(text)
    return bool(tokens) and tokens[0] in _QUESTION_START and len(tokens) > 2


def is_yes_no_question(text: str) -> bool:
    """A question whose last sentence opens with an auxiliary (``do you…``, ``is it…``)."""
    if not is_question(text):
        return False
    last = [s for s in re.split(r"[.!]\s+", text.strip()) if s.strip()]
    tokens = words(last[-1]) if last else []
    return bool(tokens) and tokens[0] in _YES_NO_START


def answers_yes_no(text: str) -> bool:
    """The reply opens with a yes/no word (``yes``, ``no``, ``sure``, ``of course``…)."""
    tokens = words(text)
    return bool(tokens) and tokens[0] in _YES_NO_WORDS


_ASKED_KINDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(how much|cost|costs|price|prices|pay|charge|fee)\b"), ("money",)),
    (re.compile(r"\b(how long|when|what time|how soon|wait)\b"), ("time", "date")),
    (re.compile(r"\b(how many|how old|what number)\b"), ("int",)),
)
"""What a question asks for, read lexically, and the value kinds (``sparring.values``)
that answer it: "how much will it cost" is answered by "$14.00" though no word is shared."""


def answers_with_value(question: str, reply: str) -> bool:
    """Whether ``reply`` holds a value of the kind ``question`` asks for (a price for "how
    much", a time or duration for "how long"/"when", a number for "how many")."""
    asked = question.lower()
    today = date.today()
    for pattern, kinds in _ASKED_KINDS:
        if pattern.search(asked) and any(find_values(k, reply, today) for k in kinds):
            return True
    return False


def has_phrase(text: str, phrases: Sequence[str]) -> bool:
    """Any of ``phrases`` (lower case) occurs in ``text``."""
    low = " ".join(text.lower().replace("’", "'").split())
    return any(p in low for p in phrases)


def fallback_similarity(text: str, fallback: str | None) -> float:
    """How much ``text`` reads like the chatbot's fallback phrase, in [0, 1]: rapidfuzz's
    partial ratio with ``fallback`` when known, 1 for a generic "I don't understand"."""
    generic = 1.0 if has_phrase(text, _FALLBACK_PHRASES) else 0.0
    if not fallback or not text.strip():
        return generic
    known = fuzz.partial_ratio(text.lower(), fallback.lower()) / 100.0
    return max(generic, known if len(text) >= 0.5 * len(fallback) else 0.0)


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(b) if b else 0.0


def _cosines(texts: Sequence[str]) -> NDArray[np.float64]:
    """The cosine similarity of every pair of ``texts`` (char 2–4-gram TF-IDF)."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not any(t.strip() for t in texts):
        return np.zeros((len(texts), len(texts)))
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), lowercase=True)
    try:
        matrix = vectorizer.fit_transform([t or " " for t in texts])
    except ValueError:  # no n-gram at all (punctuation only)
        return np.zeros((len(texts), len(texts)))
    return np.asarray((matrix @ matrix.T).toarray(), dtype=np.float64)


def conversation_features(
    roles: Sequence[str], texts: Sequence[str], fallback: str | None = None
) -> ConversationFeatures:
    """The features of every ``assistant`` turn of a conversation, each from the turns
    before it. ``roles`` are ``"user"``/``"assistant"``, ``texts`` the utterances (same
    length); ``fallback`` the chatbot's fallback phrase when known."""
    import numpy as np

    sims = _cosines(texts)
    bags = [content_words(t) for t in texts]
    turns = [i for i, r in enumerate(roles) if r == "assistant"]
    rows: list[list[float]] = []
    findings: list[LexicalFindings] = []
    for n, i in enumerate(turns):
        row, found = _turn_features(i, n, roles, texts, bags, sims, fallback)
        rows.append(row)
        findings.append(found)
    matrix = np.asarray(rows, dtype=np.float64).reshape(len(turns), len(FEATURE_NAMES))
    return ConversationFeatures(turns, matrix, findings)


def _turn_features(
    i: int,
    n: int,
    roles: Sequence[str],
    texts: Sequence[str],
    bags: Sequence[set[str]],
    sims: NDArray[np.float64],
    fallback: str | None,
) -> tuple[list[float], LexicalFindings]:
    """Feature row and findings of assistant turn ``i`` (the ``n``-th chatbot turn)."""
    import numpy as np

    text = texts[i]
    users = [j for j in range(i) if roles[j] == "user"]
    bots = [j for j in range(i) if roles[j] == "assistant"]
    user = users[-1] if users and users[-1] > (bots[-1] if bots else -1) else None
    user_text = texts[user] if user is not None else ""
    earlier_user = texts[users[-2]] if len(users) > 1 else ""
    window = list(range(max(0, i - 4), i))
    tokens = words(text)
    bag = bags[i]
    context_bag: set[str] = set().union(*(bags[j] for j in range(i))) if i else set()
    window_bag: set[str] = set().union(*(bags[j] for j in window)) if window else set()

    asked = user is not None and is_question(user_text)
    yes_no = user is not None and is_yes_no_question(user_text)
    yes_no_answer = yes_no and answers_yes_no(text)
    user_overlap = _overlap(bag, bags[user]) if user is not None else 0.0
    repeat_sims = [float(sims[i, j]) for j in bots]
    repetition = max(repeat_sims, default=0.0)
    fuzzy = max((fuzz.token_set_ratio(text, texts[j]) / 100.0 for j in bots), default=0.0)
    norm = " ".join(tokens)
    exact = next((j for j in bots if norm and " ".join(words(texts[j])) == norm), None)
    repeats = exact
    if repeats is None and repetition >= REPETITION_SIMILARITY and len(tokens) > 2:
        repeats = bots[int(np.argmax(repeat_sims))]
    fallback_sim = fallback_similarity(text, fallback)
    ignored = (
        asked
        and not yes_no_answer
        and not answers_with_value(user_text, text)
        and user_overlap == 0.0
        and (float(sims[i, user]) < 0.2 if user is not None else True)
    )
    long_reply = len(tokens) > LONG_REPLY_WORDS
    row = [
        math.log1p(len(tokens)),
        math.log1p(len(words(user_text))),
        float("?" in text),
        float(asked),
        float(yes_no),
        float(yes_no_answer),
        float(sims[i, user]) if user is not None else 0.0,
        user_overlap,
        max((float(sims[i, j]) for j in window), default=0.0),
        _overlap(bag, window_bag) if window_bag else 0.0,
        len(bag - context_bag) / len(bag) if bag else 0.0,
        repetition,
        fuzzy,
        float(exact is not None),
        fallback_sim,
        float(has_phrase(text, _FALLBACK_PHRASES)),
        float(ignored),
        float(user is not None and has_phrase(user_text, _CONFUSION_PHRASES)),
        float(has_phrase(earlier_user, _CONFUSION_PHRASES)),
        math.log1p(min(n, MAX_POSITION)),
        float(len(tokens) <= 2),
        float(long_reply),
        math.log1p(len(_SENTENCE_END.findall(text.strip() + " "))),
        sum(not (c.isalpha() or c.isspace()) for c in text) / len(text) if text else 1.0,
        float(sum(t in ("you", "your", "you're", "yours") for t in tokens) > 0),
    ]
    return row, LexicalFindings(repeats, bool(ignored), long_reply)
