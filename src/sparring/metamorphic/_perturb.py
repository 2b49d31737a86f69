"""Perturbations: follow-up dialogues made from a seed, seeded and reproducible.

Dialogue level (MORTAR, Guo et al., arXiv 2412.15557, §3.2): a follow-up is a sequence of
source-round indexes, so every round of it records the source round it came from.

- ``drs`` round shuffle: the rounds in another order;
- ``drr`` round reduction: 30 % of the rounds removed (at least one, at least one kept),
  order kept;
- ``drd`` round duplication: 20 % of the rounds (at least one) asked again at a random
  position after their first occurrence;
- ``dsr`` reduce, then shuffle; ``dsd`` duplicate, then shuffle.

Single turn (METAL, Hyun, Guo and Babar, ICST 2024, §III-B): every question's text is
perturbed, rounds in order: ``typos`` (one word in four: adjacent letters swapped, a
letter dropped, doubled or replaced by a keyboard neighbour; ``sparring.typos``),
``leetspeak`` (a third of a, e, i, o, s, t as 4 3 1 0 5 7), ``random-words`` (one filler
word per five words inserted) and ``char-noise`` (a random punctuation character
inserted per twenty characters). A perturbed question whose similarity to the original
falls below the filter threshold changed its meaning: it is dropped and the original
kept (``FILTER_THRESHOLDS``). Synonym replacement is not offered: no offline lexicon
serves (spaCy's small English model has no WordNet, and nothing may be downloaded at run
time).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from sparring.similarity import similarities
from sparring.typos import leetspeak as to_leetspeak
from sparring.typos import make_typos


class Perturbation(StrEnum):
    """The built-in perturbations (see the module docstring)."""

    DRS = "drs"
    DRR = "drr"
    DRD = "drd"
    DSR = "dsr"
    DSD = "dsd"
    TYPOS = "typos"
    LEETSPEAK = "leetspeak"
    RANDOM_WORDS = "random-words"
    CHAR_NOISE = "char-noise"

    @property
    def dialogue_level(self) -> bool:
        return self in DIALOGUE_PERTURBATIONS

    @property
    def reorders(self) -> bool:
        """Whether the follow-up may change the order of its rounds."""
        return self in (Perturbation.DRS, Perturbation.DSR, Perturbation.DSD)


DIALOGUE_PERTURBATIONS = (
    Perturbation.DRS,
    Perturbation.DRR,
    Perturbation.DRD,
    Perturbation.DSR,
    Perturbation.DSD,
)
TEXT_PERTURBATIONS = (
    Perturbation.TYPOS,
    Perturbation.LEETSPEAK,
    Perturbation.RANDOM_WORDS,
    Perturbation.CHAR_NOISE,
)
REDUCED_SHARE = 0.3
DUPLICATED_SHARE = 0.2
FILTER_THRESHOLDS = {"tf-idf": 0.3, "embeddings": 0.8}
"""Similarity (0..1) a perturbed question keeps with its original to count as the same
question (METAL's semantic filter). TF-IDF is over character n-grams, which typos lower
by themselves, hence its low value; set by looking at perturbed example-profile questions,
not measured on a labelled set."""


class FollowUp(BaseModel):
    """One follow-up test: the seed it comes from, the perturbation, and per round the
    source round (``order``) and the text sent (``questions``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    seed: str
    perturbation: str
    order: list[int]
    questions: list[str]
    notes: list[str] = Field(default_factory=list)


def shuffled(order: Sequence[int], rng: random.Random) -> list[int]:
    """``order`` in another sequence when one exists (up to 20 draws), else as is."""
    out = list(order)
    for _ in range(20):
        rng.shuffle(out)
        if out != list(order):
            break
    return out


def reduced(order: Sequence[int], rng: random.Random) -> list[int]:
    """``order`` with 30 % of its rounds removed (at least one, never all), order kept."""
    drop = min(len(order) - 1, max(1, round(REDUCED_SHARE * len(order))))
    removed = set(rng.sample(range(len(order)), drop))
    return [index for position, index in enumerate(order) if position not in removed]


def duplicated(order: Sequence[int], rng: random.Random) -> list[int]:
    """``order`` with 20 % of its rounds (at least one) inserted again, each at a random
    position after its first occurrence."""
    out = list(order)
    count = max(1, round(DUPLICATED_SHARE * len(order)))
    for index in rng.sample(list(order), min(count, len(order))):
        first = out.index(index)
        out.insert(rng.randint(first + 1, len(out)), index)
    return out


def dialogue_order(kind: Perturbation, rounds: int, rng: random.Random) -> list[int]:
    """The source-round order of a follow-up of a ``rounds``-round seed. Raises
    ``ValueError`` for a single-turn perturbation."""
    base = list(range(rounds))
    if kind is Perturbation.DRS:
        return shuffled(base, rng)
    if kind is Perturbation.DRR:
        return reduced(base, rng)
    if kind is Perturbation.DRD:
        return duplicated(base, rng)
    if kind is Perturbation.DSR:
        return shuffled(reduced(base, rng), rng)
    if kind is Perturbation.DSD:
        return shuffled(duplicated(base, rng), rng)
    raise ValueError(f"{kind} is not a dialogue-level perturbation")


TYPO_SHARE = 0.25
"""Share of a turn's words the ``typos`` perturbation misspells."""
_FILLERS = ("um", "like", "really", "just", "basically", "actually", "so", "well", "please")


def typos(text: str, rng: random.Random) -> str:
    """One word in four (of three letters or more; none in a turn of one) gets a typo:
    adjacent letters swapped, a letter dropped, doubled or replaced by a keyboard
    neighbour (the one typo generator, ``sparring.typos.make_typos``)."""
    return make_typos(text, rng, rate=TYPO_SHARE, at_least_one=False)


def leetspeak(text: str, rng: random.Random) -> str:
    """A third of the letters a, e, i, o, s, t written 4, 3, 1, 0, 5, 7
    (``sparring.typos.leetspeak``)."""
    return to_leetspeak(text, rng, share=1 / 3)


def random_words(text: str, rng: random.Random) -> str:
    """One filler word (um, like, really…) inserted per five words (at least one)."""
    words = text.split()
    for _ in range(max(1, len(words) // 5)):
        words.insert(rng.randint(0, len(words)), rng.choice(_FILLERS))
    return " ".join(words)


def char_noise(text: str, rng: random.Random) -> str:
    """One random punctuation character inserted per twenty characters (at least one)."""
    chars = list(text)
    for _ in range(max(1, len(chars) // 20)):
        chars.insert(rng.randint(0, len(chars)), rng.choice(string.punctuation))
    return "".join(chars)


TEXT_FUNCTIONS: dict[Perturbation, Callable[[str, random.Random], str]] = {
    Perturbation.TYPOS: typos,
    Perturbation.LEETSPEAK: leetspeak,
    Perturbation.RANDOM_WORDS: random_words,
    Perturbation.CHAR_NOISE: char_noise,
}


def text_follow_up(
    kind: Perturbation,
    seed: str,
    questions: Sequence[str],
    rng: random.Random,
    method: str = "tf-idf",
) -> FollowUp | None:
    """The follow-up with every question perturbed by ``kind``; a perturbation below the
    filter threshold is dropped (original kept, noted). ``None`` when none survived."""
    perturb = TEXT_FUNCTIONS[kind]
    threshold = FILTER_THRESHOLDS[method]
    out: list[str] = []
    notes: list[str] = []
    for position, question in enumerate(questions):
        changed = perturb(question, rng)
        score = similarities(question, [changed], method)[0] if changed != question else 1.0
        if score < threshold:
            notes.append(
                f"round {position}: {kind} perturbation dropped ({method} similarity "
                f"{score:.2f} < {threshold}): {changed!r}"
            )
            changed = question
        out.append(changed)
    if out == list(questions):
        return None
    return FollowUp(
        id=follow_up_id(seed, kind),
        seed=seed,
        perturbation=str(kind),
        order=list(range(len(questions))),
        questions=out,
        notes=notes,
    )


def follow_up_id(seed: str, perturbation: str) -> str:
    """The record id of a follow-up: ``<seed>@<perturbation>``."""
    return f"{seed}@{perturbation}"


def dialogue_follow_up(
    kind: Perturbation, seed: str, questions: Sequence[str], rng: random.Random
) -> FollowUp | None:
    """The follow-up of a dialogue-level perturbation; ``None`` when it equals the seed
    (a two-round dialogue has a single other order)."""
    order = dialogue_order(kind, len(questions), rng)
    if order == list(range(len(questions))):
        return None
    return FollowUp(
        id=follow_up_id(seed, kind),
        seed=seed,
        perturbation=str(kind),
        order=order,
        questions=[questions[i] for i in order],
    )


def seed_rng(seed: int, dialogue: str, perturbation: str) -> random.Random:
    """The generator of one follow-up: the same run seed, dialogue and perturbation give
    the same follow-up whatever else is generated."""
    return random.Random(f"{seed}:{dialogue}:{perturbation}")
