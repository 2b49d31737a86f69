"""The matching cost of a profile variable does not grow with its number of values (issue
36, defect 4): every turn tested every value word by word, so a variable of 2,000 values
made 2,000 conversations take 8 minutes instead of 27 s. Asserted on operation counts
(``matched_by`` calls) and on the results of the old word-by-word matching; the wall
times are in the issue's closing note."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.simulate import _matching
from sparring.simulate._matching import SUFFIXES, any_mentioned, matched_by, word_match, words

STEMS = ("make", "battery", "photograph", "topping", "exam", "city", "type", "cafe", "abc")
WORD = st.one_of(
    st.text(alphabet="abcdeysin", min_size=1, max_size=8),
    st.builds(
        lambda stem, ending, cut: stem[: len(stem) - cut] + ending,
        st.sampled_from(STEMS),
        st.sampled_from([*sorted(SUFFIXES), "", "y", "e"]),
        st.integers(0, 2),
    ),
)


@given(WORD, WORD)
def test_matched_by_is_word_match(a: str, b: str) -> None:
    """The forms generated from a word are exactly the words that match it."""
    assert (a in matched_by(b)) == word_match(a, b)


def _by_comparison(candidates: list[str], text: str) -> list[str]:
    """The matching as it was: every word of every candidate against every word."""
    have = words(text)
    found = []
    for candidate in candidates:
        wanted = _matching.content_words(candidate) or words(candidate)
        if wanted and all(any(word_match(w, h) for h in have) for w in wanted):
            found.append(candidate)
    return found


@pytest.mark.parametrize("values", [20, 2_000])
def test_a_variables_values_are_matched_at_the_cost_of_the_reply(
    values: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply is read word by word once, whatever the number of values: the forms
    looked up are those of the reply's distinct words (not a comparison per value), and
    the values found are those the word-by-word matching found."""
    candidates = [f"Ville{i} Saint-Gall{i}" for i in range(values)] + ["Photography", "Pizzas"]
    reply = "We take photographs of pizza in ville7 and Saint-Gall7. Which city?"
    calls: list[str] = []

    def counted(word: str) -> frozenset[str]:
        calls.append(word)
        return matched_by(word)

    monkeypatch.setattr(_matching, "matched_by", counted)
    found = any_mentioned(candidates, reply)
    assert (
        found
        == _by_comparison(candidates, reply)
        == ["Ville7 Saint-Gall7", "Photography", "Pizzas"]
    )
    assert sorted(calls) == sorted(set(words(reply)))
