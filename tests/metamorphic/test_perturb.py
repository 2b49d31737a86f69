"""Perturbations: seeded, reproducible, with MORTAR's shares; METAL's text noise filtered."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from sparring.metamorphic import Perturbation, dialogue_order, make_follow_ups
from sparring.metamorphic._answerability import SeedDialogue, SeedRound
from sparring.metamorphic._perturb import leetspeak, text_follow_up, typos
from sparring.metamorphic._seeds import Seed


def seed(n: int, name: str = "d") -> Seed:
    rounds = [SeedRound(question=f"question number {i} about pizza", answer="a") for i in range(n)]
    return Seed(dialogue=SeedDialogue(id=name, rounds=rounds))


def test_shuffle_is_a_permutation_other_than_the_source() -> None:
    for s in range(20):
        order = dialogue_order(Perturbation.DRS, 10, random.Random(s))
        assert sorted(order) == list(range(10))
        assert order != list(range(10))


def test_reduction_removes_30_percent_and_keeps_order() -> None:
    order = dialogue_order(Perturbation.DRR, 10, random.Random(1))
    assert len(order) == 7
    assert order == sorted(order)
    assert len(dialogue_order(Perturbation.DRR, 2, random.Random(1))) == 1


def test_duplication_adds_20_percent_after_the_first_occurrence() -> None:
    for s in range(20):
        order = dialogue_order(Perturbation.DRD, 10, random.Random(s))
        counts = Counter(order)
        assert len(order) == 12
        assert sorted(counts) == list(range(10))
        assert sum(1 for c in counts.values() if c == 2) == 2
        # without the duplicates the source order is intact
        firsts = [i for p, i in enumerate(order) if i not in order[:p]]
        assert firsts == list(range(10))


@pytest.mark.parametrize(
    ("kind", "length", "multiset"),
    [(Perturbation.DSR, 7, False), (Perturbation.DSD, 12, True)],
)
def test_mixed_perturbations(kind: Perturbation, length: int, multiset: bool) -> None:
    order = dialogue_order(kind, 10, random.Random(3))
    assert len(order) == length
    assert (set(order) == set(range(10))) is multiset


def test_follow_ups_are_reproducible_and_record_their_sources() -> None:
    seeds = [seed(10, "a"), seed(10, "b")]
    kinds = list(Perturbation)[:5]
    first, _ = make_follow_ups(seeds, kinds, 7, "tf-idf")
    again, _ = make_follow_ups(seeds, kinds, 7, "tf-idf")
    other, _ = make_follow_ups(seeds, kinds, 8, "tf-idf")
    assert first == again
    assert first != other
    for follow_up in first:
        source = seeds[0] if follow_up.seed == "a" else seeds[1]
        texts = [source.dialogue.rounds[i].question for i in follow_up.order]
        assert follow_up.questions == texts


def test_two_rounds_shuffle_to_the_only_other_order() -> None:
    follow_ups, skipped = make_follow_ups([seed(2)], [Perturbation.DRS], 0, "tf-idf")
    assert [f.order for f in follow_ups] == [[1, 0]]
    assert skipped == []


def test_text_noise_is_seeded_and_changes_the_text() -> None:
    text = "Which toppings are available for the large pizza today"
    assert typos(text, random.Random(1)) == typos(text, random.Random(1))
    assert leetspeak(text, random.Random(2)) != text


def test_similarity_filter_drops_meaning_changing_perturbations() -> None:
    def garble(text: str, rng: random.Random) -> str:
        return "zzz qqq xxx"

    from sparring.metamorphic import _perturb

    _perturb.TEXT_FUNCTIONS[Perturbation.TYPOS], saved = (
        garble,
        _perturb.TEXT_FUNCTIONS[Perturbation.TYPOS],
    )
    try:
        made = text_follow_up(Perturbation.TYPOS, "d", ["What is the price?"], random.Random(0))
    finally:
        _perturb.TEXT_FUNCTIONS[Perturbation.TYPOS] = saved
    assert made is None  # the only question was garbled beyond the filter: nothing left
    kept = text_follow_up(
        Perturbation.RANDOM_WORDS, "d", ["What is the price of a large pizza?"], random.Random(0)
    )
    assert kept is not None and kept.questions[0] != "What is the price of a large pizza?"
