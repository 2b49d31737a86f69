"""The offline answerability analyser on a CoQA-format dialogue written for these tests
(``tom_and_lily.coqa.json``: a story, eight questions with pronouns and an ellipsis), with
verdicts worked out by hand for the source order and for MORTAR's follow-up orders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.metamorphic._answerability import (
    DialogueAnalysis,
    SeedDialogue,
    SeedRound,
    analyse_offline,
)
from sparring.types import Strategy

FIXTURE = Path(__file__).with_name("tom_and_lily.coqa.json")

HE_TOM = "he|refers to|tom"
IT_KITE = "it|refers to|kite"
SHE_LILY = "she|refers to|lily"
IT_CAT = "it|refers to|cat"
FOUND = "lily|find|cat"


def coqa_dialogue(path: Path) -> SeedDialogue:
    """The first dialogue of a CoQA file as a seed (questions with their gold answers)."""
    entry = json.loads(path.read_text(encoding="utf-8"))["data"][0]
    rounds = [
        SeedRound(question=q["input_text"], answer=a["input_text"])
        for q, a in zip(entry["questions"], entry["answers"], strict=True)
    ]
    return SeedDialogue(id=entry["id"], story=entry["story"], rounds=rounds)


@pytest.fixture(scope="module")
def analysis() -> DialogueAnalysis:
    (result,) = analyse_offline([coqa_dialogue(FIXTURE)])
    return result


def answerable(analysis: DialogueAnalysis, order: list[int]) -> list[bool]:
    return [v.answerable for v in analysis.follow_up(order)]


# round: (self-contained, needs) — worked out by hand from the questions:
# 0 "Where did Tom walk on Saturday?"   names Tom: self-contained
# 1 "What did he buy?"                  he = Tom (round 0)
# 2 "Who was it for?"                   it = the kite (round 1's answer)
# 3 "Why was she sad?"                  she = Lily (round 2's answer)
# 4 "Why did she leave the house?"      she = Lily
# 5 "Where did she find it?"            she = Lily, it = the cat (round 3's answer)
# 6 "Where?"                            ellipsis of round 5: where did Lily find the cat
# 7 "What did Tom buy for his sister?"  his = Tom, within the question: self-contained
EXPECTED = [
    (True, []),
    (False, [HE_TOM]),
    (False, [IT_KITE]),
    (False, [SHE_LILY]),
    (False, [SHE_LILY]),
    (False, [SHE_LILY, IT_CAT]),
    (False, [FOUND]),
    (True, []),
]


def test_each_source_round_is_judged_as_worked_out_by_hand(analysis: DialogueAnalysis) -> None:
    assert analysis.strategy is Strategy.OFFLINE
    assert [(r.self_contained, r.needs) for r in analysis.rounds] == EXPECTED
    assert analysis.rounds[6].continues == FOUND
    assert analysis.rounds[5].focus == FOUND


def test_rounds_introduce_what_later_rounds_refer_back_to(analysis: DialogueAnalysis) -> None:
    rounds = analysis.rounds
    assert HE_TOM in rounds[0].introduces
    assert {"kite", "apple", "tom|buy|kite", IT_KITE} <= set(rounds[1].introduces)
    assert {"lily", SHE_LILY} <= set(rounds[2].introduces)
    assert {"cat", IT_CAT} <= set(rounds[3].introduces)
    assert FOUND in rounds[5].introduces


def test_the_story_introduces_its_entities_and_no_ambiguous_reference(
    analysis: DialogueAnalysis,
) -> None:
    story = set(analysis.story_introduces)
    assert {"tom", "lily", "kite", "cat", "market", "park"} <= story
    # Tom and Rosa could both be "he", four people could be "she": the story alone
    # resolves neither, so the pronoun questions depend on earlier rounds.
    assert HE_TOM not in story and SHE_LILY not in story
    # A story never completes an ellipsis: its facts are not in context.
    assert FOUND not in story


def test_the_source_order_is_answerable_throughout(analysis: DialogueAnalysis) -> None:
    verdicts = analysis.follow_up(range(8))
    assert all(v.answerable for v in verdicts)
    assert [v.source_round for v in verdicts] == list(range(8))
    assert all(v.strategy is Strategy.OFFLINE for v in verdicts)


def test_shuffle(analysis: DialogueAnalysis) -> None:
    order = [5, 0, 6, 1, 3, 2, 7, 4]
    verdicts = analysis.follow_up(order)
    # 5 first: neither Lily nor the cat is in context yet.
    assert verdicts[0].answerable is False
    assert verdicts[0].missing == [SHE_LILY, IT_CAT]
    # 6 "Where?" now follows round 0 (Tom's walk): the ellipsis no longer continues
    # Lily finding the cat, although that fact is in context.
    assert verdicts[2].answerable is False
    assert verdicts[2].missing == [FOUND]
    assert "not the round before it" in verdicts[2].reason
    # 1 after 0 (Tom), 3 after 5 (Lily), 2 after 1 (the kite), 7 self-contained, 4 Lily.
    assert [v.answerable for v in verdicts] == [False, True, False, True, True, True, True, True]
    assert verdicts[6].self_contained and verdicts[6].reason == "self-contained question"


def test_reduction_that_removes_the_antecedent_round(analysis: DialogueAnalysis) -> None:
    # Round 1 (the kite) and round 4 removed, order kept.
    verdicts = analysis.follow_up([0, 2, 3, 5, 6, 7])
    assert [v.answerable for v in verdicts] == [True, False, True, True, True, True]
    assert verdicts[1].missing == [IT_KITE]
    # Round 2's gold answer still names Lily, so "she" stays answerable afterwards.


def test_reduction_that_removes_the_round_an_ellipsis_continues(
    analysis: DialogueAnalysis,
) -> None:
    verdicts = analysis.follow_up([0, 1, 2, 3, 4, 6, 7])
    assert answerable(analysis, [0, 1, 2, 3, 4, 6, 7]) == [True] * 5 + [False, True]
    assert verdicts[5].missing == [FOUND]


def test_duplication(analysis: DialogueAnalysis) -> None:
    # Round 1 and round 6 asked twice, each right after itself: still answerable.
    assert all(answerable(analysis, [0, 1, 1, 2, 3, 4, 5, 6, 6, 7]))
    # Duplicate-then-shuffle: round 1 first is unanswerable, its copy after round 0 is not.
    verdicts = analysis.follow_up([1, 0, 1, 2])
    assert [v.answerable for v in verdicts] == [False, True, True, True]
    assert verdicts[0].missing == [HE_TOM] and verdicts[0].source_round == 1
    assert [v.position for v in verdicts] == [0, 1, 2, 3]


def test_an_index_outside_the_dialogue_is_an_error(analysis: DialogueAnalysis) -> None:
    with pytest.raises(IndexError, match="source round 8"):
        analysis.follow_up([0, 8])


def test_an_empty_dialogue_gives_an_empty_analysis() -> None:
    (result,) = analyse_offline([SeedDialogue(id="empty", rounds=[])])
    assert result.rounds == [] and result.story_introduces == []
    assert result.follow_up([]) == []
    assert analyse_offline([]) == []


@pytest.mark.parametrize(
    "question",
    ["Why?", "Where?", "Tom's kite?", "Buy apples.", "Who knows?", "hello", "Lily left", "yes"],
)
def test_questions_of_one_or_two_words_are_never_self_contained(question: str) -> None:
    (result,) = analyse_offline([SeedDialogue(id="s", rounds=[SeedRound(question=question)])])
    assert result.rounds[0].self_contained is False
    assert "fewer than 3 words" in result.rounds[0].reason


def test_three_words_with_no_reference_are_self_contained() -> None:
    seed = SeedDialogue(id="s", rounds=[SeedRound(question="Who bought apples?")])
    (result,) = analyse_offline([seed])
    assert result.rounds[0].self_contained is True


def test_a_pronoun_with_no_antecedent_is_unanswerable_even_in_the_source() -> None:
    seed = SeedDialogue(
        id="s",
        rounds=[SeedRound(question="What did he buy?", answer="A kite.")],
    )
    (result,) = analyse_offline([seed])
    assert result.rounds[0].needs == ["he|refers to|?"]
    assert result.follow_up([0])[0].answerable is False
    assert "nothing before it" in result.rounds[0].reason


def test_a_pronoun_resolved_within_the_question_needs_nothing() -> None:
    seed = SeedDialogue(
        id="s",
        rounds=[SeedRound(question="Did Tom say that he was tired?", answer="Yes.")],
    )
    (result,) = analyse_offline([seed])
    assert result.rounds[0].self_contained is True and result.rounds[0].needs == []


def test_a_story_with_one_candidate_resolves_the_pronoun() -> None:
    seed = SeedDialogue(
        id="s",
        story="Marco found an old radio in the attic. He fixed it in one afternoon.",
        rounds=[
            SeedRound(question="What did Marco find in the attic?", answer="An old radio."),
            SeedRound(question="What did he do with it?", answer="He fixed it."),
        ],
    )
    (result,) = analyse_offline([seed])
    assert "he|refers to|marco" in result.story_introduces
    # "he" is Marco from the story alone, so round 1 is answerable even asked first;
    # "it" (the radio) needs round 0 — the story has an attic and a radio.
    assert result.rounds[1].needs == ["he|refers to|marco", "it|refers to|radio"]
    assert answerable(result, [1, 0]) == [False, True]
    assert result.follow_up([1, 0])[0].missing == ["it|refers to|radio"]


def test_chatbot_turns_with_participants_and_reply_particles() -> None:
    seed = SeedDialogue(
        id="kuki-like",
        rounds=[
            SeedRound(question="hi", answer="Hi there! What is your name?"),
            SeedRound(question="bob", answer="Nice to meet you, Bob. Do you like cats?"),
            SeedRound(question="yes", answer="Me too."),
            SeedRound(question="What is your favourite colour?", answer="Blue."),
        ],
    )
    (result,) = analyse_offline([seed])
    hi, bob, yes, colour = result.rounds
    assert hi.needs == [] and not hi.self_contained
    assert bob.needs == ["user|have|name"]  # "bob" answers the bot's question
    assert yes.needs == ["user|like|cat"]  # "yes" answers "Do you like cats?"
    assert colour.self_contained  # "your" is the chatbot: no context needed
    # Swapping the reply particle before the question it answers loses its answerability.
    assert answerable(result, [0, 2, 1, 3]) == [True, False, False, True]


def test_there_and_expletive_it() -> None:
    seed = SeedDialogue(
        id="s",
        rounds=[
            SeedRound(question="Did Anna walk to the library?", answer="Yes, she did."),
            SeedRound(question="What did she read there?", answer="A novel."),
            SeedRound(question="Was it raining outside?", answer="No."),
        ],
    )
    (result,) = analyse_offline([seed])
    assert result.rounds[1].needs == ["she|refers to|anna", "there|refers to|library"]
    # "it" in "was it raining" refers to nothing: the question stands alone.
    assert result.rounds[2].self_contained is True
    assert answerable(result, [1, 0, 2]) == [False, True, True]


def test_what_about_continues_the_previous_round_and_resolves_its_pronoun() -> None:
    seed = SeedDialogue(
        id="s",
        rounds=[
            SeedRound(question="What did Tom buy at the market?", answer="A kite."),
            SeedRound(question="What about his sister?", answer="She bought apples."),
        ],
    )
    (result,) = analyse_offline([seed])
    about = result.rounds[1]
    assert about.self_contained is False
    assert about.needs == ["he|refers to|tom", "tom|buy|kite"]
    assert about.continues == "tom|buy|kite"
    assert "what about" in about.reason


def test_an_ellipsis_after_a_round_with_nothing_extracted_continues_that_round() -> None:
    seed = SeedDialogue(
        id="s",
        rounds=[
            SeedRound(question="Hello there, how are you?", answer="Not too bad."),
            SeedRound(question="Why not?", answer="Nobody is asking me anything."),
        ],
    )
    (result,) = analyse_offline([seed])
    assert result.rounds[0].focus == "round 0" and "round 0" in result.rounds[0].introduces
    assert result.rounds[1].needs == ["round 0"] and result.rounds[1].continues == "round 0"
    assert answerable(result, [0, 1]) == [True, True]
    assert answerable(result, [1, 0]) == [False, True]


@pytest.mark.parametrize("greeting", ["Hi Alex", "hello there", "Thanks Kuki!", "ok then"])
def test_greetings_need_nothing(greeting: str) -> None:
    (result,) = analyse_offline([SeedDialogue(id="s", rounds=[SeedRound(question=greeting)])])
    assert result.rounds[0].needs == [] and result.rounds[0].self_contained is False
    assert result.follow_up([0])[0].answerable is True


def test_a_button_payload_is_a_command_that_needs_nothing() -> None:
    """A task bot's button sends ``/inform{"size": "small"}`` as the user turn: no words to
    resolve, under three "words", yet self-contained wherever it moves."""
    dialogue = SeedDialogue(
        id="buttons",
        rounds=[
            SeedRound(question="I want a pizza", answer="Which size?"),
            SeedRound(question='/inform{"size":"small"}', answer="Which drink?"),
            SeedRound(question="/deny", answer="Your order is confirmed."),
        ],
    )
    (analysis,) = analyse_offline([dialogue])
    assert [r.self_contained for r in analysis.rounds] == [True, True, True]
    assert "button payload" in analysis.rounds[1].reason
    assert all(v.answerable for v in analysis.follow_up([2, 1, 0]))
