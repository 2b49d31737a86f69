"""The bot's acts in the relations (issue 31): a fallback to an utterance the bot did not
understand, and a pending question of the bot's own, are read as acts. Unit checks on the
hand-worked story, then the job on the free-text test bots of ``tests/bots``."""

from __future__ import annotations

from pathlib import Path

from mt_fixtures import anna_analysis, hand_analyser, make_run

from sparring.fallback import FallbackConfig
from sparring.metamorphic import (
    FollowUp,
    MetamorphicJob,
    MetamorphicSettings,
    Similarity,
    check_follow_up,
)
from sparring.metamorphic._acts import ActGuard, context_free, pending_question
from sparring.runner import start
from tests import bots

SIMILARITY = Similarity("tf-idf", 0.25)
FALLBACK = "Sorry, I didn't understand that. You can say 'help' to see what I can do."
CONFIG = FallbackConfig.of(FALLBACK)


def guard(alone: set[int] | None = None, **switches: bool) -> ActGuard:
    return ActGuard(CONFIG, SIMILARITY.similar, alone, **switches)


def story_follow_up(order: list[int], perturbation: str = "drs") -> FollowUp:
    questions = [anna_analysis().rounds[i].question for i in order]
    return FollowUp(
        id="anna@x", seed="anna", perturbation=perturbation, order=order, questions=questions
    )


def test_both_replies_the_fallback_no_context_relation_fires() -> None:
    """Round 2 loses its referent (MR2 wants another reply) but the bot fell back on it in
    the source too: the context shaped neither reply. MORTAR's reading (no guard) calls it
    a bug."""
    source = ["Anna has a red bike.", "It is red.", FALLBACK]
    replies = [FALLBACK, "Anna has a red bike.", "It is red."]
    follow_up = story_follow_up([2, 0, 1])
    as_text = check_follow_up(follow_up, anna_analysis(), source, replies, SIMILARITY)
    assert [(c.relation, c.passed) for c in as_text if c.position == 0] == [("MR2", False)]
    read = check_follow_up(
        follow_up, anna_analysis(), source, replies, SIMILARITY, guard=guard({0, 1})
    )
    assert [c.position for c in read] == [1, 2] and all(c.passed for c in read)


def test_a_fallback_that_asks_again_is_the_same_act_as_the_bare_fallback() -> None:
    acts = guard()
    reprompt = "Sorry, I didn't catch that. Which room type would you like: single or double?"
    decision, reason = acts.decide("MR1", 3, (FALLBACK, reprompt), ("Hello!", None))
    assert (decision, "same dialogue act" in reason) == ("pass", True)
    assert pending_question(reprompt, CONFIG) and not pending_question(FALLBACK, CONFIG)


def test_one_side_fallback_depends_on_whether_the_utterance_is_understood_alone() -> None:
    """A stray "single" gets the fallback in any context but one that asked for it: not
    asserted. "What are your prices?", understood alone, falling back elsewhere with the
    bot in the same state is the bot failing it: still judged (a bug)."""
    replies = ("What date would you like to check in?", FALLBACK)
    same_state = ("Goodbye!", "Goodbye!")
    assert guard({0})._not_understood("MR1", 4, replies, True)[0] == "skip"
    assert guard({0, 4}).decide("MR1", 4, replies, same_state)[0] == "judge"
    assert guard(None).decide("MR1", 4, replies, same_state)[0] == "skip"  # not probed
    # text noise (the same rounds before): a fallback on one side is a robustness bug
    assert guard(set()).decide("MR1", 4, replies, None)[0] == "judge"
    assert guard({0}, fallbacks=False).decide("MR1", 4, replies, same_state)[0] == "judge"


def test_a_round_answered_in_another_state_of_the_bot_is_not_held_to_mr1() -> None:
    acts = guard({0, 1, 2})
    replies = ("How much would you like to send?", "Done! 250 EUR is on its way.")
    asked_date = ("Hello, how can I help?", "Please check: 250 EUR to Maria. Shall I send it?")
    assert acts.decide("MR1", 2, replies, asked_date)[0] == "skip"
    assert acts.decide("MR1", 2, replies, (None, None))[0] == "judge"  # same (no) state
    assert guard({0, 1, 2}, states=False).decide("MR1", 2, replies, asked_date)[0] == "judge"
    next_slot = ("What's the 8-digit account number?", "When should it go out: today or later?")
    assert acts.decide("MR1", 2, next_slot, (None, None))[0] == "skip"
    assert acts.decide("MR1", 2, next_slot, None)[0] == "judge"  # the same rounds before
    both_ask = ("Which branch would you like?", "Which branch would you like?")
    assert acts.decide("MR2", 2, both_ask, asked_date)[0] == "skip"
    assert "bot acts:" in acts.note() and acts.note() == ""


def test_a_reply_repeating_the_bots_previous_one_is_its_pending_state() -> None:
    """The bike shop offers its prices without a question mark and says the offer again to
    whatever comes next: "When are you open?" after it is answered in that state, not in
    the source's (no pending question before it). A repeat after the same rounds, or
    with the state guard off, is still judged."""
    offer = "Of course! I can tell you the price of tune-up, new tire and new seat"
    hours = "We are open every weekday from 9am to 5:30pm"
    before = ("The cost can vary depending on the bike.", offer)
    decision, reason = guard({0, 3}).decide("MR1", 3, (hours, offer), before)
    assert (decision, "another state" in reason) == ("skip", True)
    assert guard({0, 3}).decide("MR1", 3, (hours, offer), None)[0] == "judge"
    assert guard({0, 3}, states=False).decide("MR1", 3, (hours, offer), before)[0] == "judge"
    moved = ("The cost can vary depending on the bike.", "Welcome to my bike shop!")
    assert guard({0, 3}).decide("MR1", 3, (hours, offer), moved)[0] == "judge"


def test_a_short_answer_to_the_same_question_of_the_bot_is_not_held_to_mr2() -> None:
    """Round 3 ("Grace Kim") lost the round the offline reading says it continues, but the
    bot asked for the name just before it in both contexts: the same confirmation is right."""
    confirmed = ("All set! Your whitening is booked for 22 March at 11:00 AM.",) * 2
    asked_name = ("May I have the patient's full name, please?",) * 2
    decision, reason = guard({0}).decide("MR2", 3, confirmed, asked_name, True)
    assert (decision, "same question before it" in reason) == ("skip", True)
    assert guard({0}, states=False).decide("MR2", 3, confirmed, asked_name, True)[0] == "judge"
    other = ("May I have the patient's full name, please?", "Which day suits you best?")
    assert guard({0}).decide("MR2", 3, confirmed, other, True)[0] == "judge"


def test_a_round_the_bot_answers_alike_alone_is_not_held_to_mr2_when_it_loses_context() -> None:
    """ "Can I pick it up at the Downtown branch?" reads as needing a referent for "it", but
    the bot gives its branch list asked alone too: the context did not shape the reply. A
    round that gains context (not answerable in the source) is still held to MR2."""
    branches = ("You can pick up at our Airport, Central Station or Downtown branch.",) * 2
    before = (FALLBACK, None)
    free = ActGuard(CONFIG, SIMILARITY.similar, {0, 6}, context_free={6})
    decision, reason = free.decide("MR2", 6, branches, before, True)
    assert (decision, "asked alone too" in reason) == ("skip", True)
    assert free.decide("MR2", 6, branches, before, False)[0] == "judge"  # it gained context
    assert guard({0, 6}).decide("MR2", 6, branches, before, True)[0] == "judge"  # not probed


def test_a_reply_that_refers_back_is_never_read_as_given_with_no_context() -> None:
    """ "It is red." asked alone presupposes a referent (a bot answering as if it knew:
    MORTAR's MR2 bug); the branch list refers to nothing before it."""
    branches = "You can pick up at our Airport, Central Station or Downtown branch."
    source: list[str | None] = ["Anna has a red bike.", "It is red.", branches, "Hello!"]
    alone: dict[int, str | None] = {1: "It is red.", 2: branches, 3: "Which one?"}
    assert context_free(source, alone, SIMILARITY.similar) == {2}


SEEDS = {  # each bot's task, an FAQ, and a stray slot value it rightly falls back on
    "dental": [*bots.TASKS["dental"], "cleaning", "How much is a check-up?"],
    "bank": [*bots.TASKS["bank"], "When are your branches open?", "Maria Lopez"],
    "carrental": [*bots.TASKS["carrental"], "Can I pick it up at the Downtown branch?"],
}


def run(
    tmp_path: Path, name: str, bugs: list[str], label: str, offline: bool = False, **kwargs: object
) -> list[str]:
    """The bugs metamorphic reports on bot ``name`` seeded with ``SEEDS[name]``, read by the
    hand analysis (every round self-contained) or, ``offline``, by spaCy's."""
    rounds = [(question, "…") for question in SEEDS[name]]
    seeds = make_run(tmp_path / f"seeds-{name}-{label}", {"task": rounds})
    settings = MetamorphicSettings(
        seeds=seeds,
        chatbot=bots.python_chatbot(name, bugs, tmp_path),
        similarity="tf-idf",
        seed=1,
        **kwargs,  # type: ignore[arg-type]
    )
    job = MetamorphicJob(analyser=None if offline else hand_analyser)
    result = start(job, settings, tmp_path / f"{name}-{label}").result
    assert sum(f.checks for f in result.follow_ups) >= 5  # relations were checked
    return [f"{b.relation} {b.question!r}: {b.reference!r} / {b.reply!r}" for b in result.bugs]


def test_correct_task_bots_get_no_bug_where_replies_compared_as_text_do(tmp_path: Path) -> None:
    for name in ("dental", "bank"):
        assert run(tmp_path, name, [], "acts") == [], name
        as_text = run(tmp_path, name, [], "text", fallback_guard=False, state_guard=False)
        assert as_text, f"{name}: the reading of acts is what removes the false reports"


def test_a_reply_the_bot_gives_with_no_context_is_no_mr2_bug(tmp_path: Path) -> None:
    """The car rental bot answers "Can I pick it up at the Downtown branch?" with its branch
    list in any context; the offline reading takes "it" to need an earlier round, and
    MORTAR's MR2 wants another reply where that round is gone."""
    assert run(tmp_path, "carrental", [], "acts", offline=True) == []
    as_text = run(tmp_path, "carrental", [], "text", True, fallback_guard=False, state_guard=False)
    assert any(b.startswith("MR2 'Can I pick it up") for b in as_text), as_text


def test_a_seeded_bug_the_job_can_see_is_still_caught(tmp_path: Path) -> None:
    """The bank bot's ``wrong_faq`` is consistent, and metamorphic relations cannot see a
    consistent wrong answer; a bot whose reply changes with the order of context-free
    rounds can be seen. Text noise on the dental bot: "How much is a check-up?" misspelt
    gets the fallback after the same rounds, a robustness bug the acts do not hide."""
    bugs = run(tmp_path, "dental", [], "typos", perturbations=["typos", "char-noise"])
    assert any("check-up" in b and "not sure I follow" in b for b in bugs), bugs
