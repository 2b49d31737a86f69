"""MORTAR's LLM extraction pipeline with the ``scripted`` model: seven structured replies,
in the pipeline's order, turned into per-round needs and introductions; a failing model
falls back to the offline analysis."""

from __future__ import annotations

from typing import Any

from sparring.llm import ScriptedModel
from sparring.metamorphic._answerability import (
    DialogueAnalysis,
    SeedDialogue,
    SeedRound,
    analyse_llm,
)
from sparring.types import Strategy

DIALOGUE = SeedDialogue(
    id="kite",
    rounds=[
        SeedRound(question="Where did Tom walk on Saturday?", answer="To the market."),
        SeedRound(question="What did he buy?", answer="A red kite."),
        SeedRound(question="Where?", answer="At the toy stall."),
        SeedRound(question="Who was it for?", answer="His sister Lily."),
    ],
)


def triple(subject: str, relation: str, obj: str) -> dict[str, str]:
    return {"subject": subject, "relation": relation, "object": obj}


def replies(*, where_self_contained: bool = False) -> list[Any]:
    """The seven replies of MORTAR's pipeline for ``DIALOGUE``, in call order."""
    return [
        {
            "statements": [
                "Tom walked to the market on Saturday.",
                "Tom bought a red kite.",
                "Tom bought the red kite at the toy stall.",
                "The red kite was for Tom's sister Lily.",
            ]
        },
        {"topic": "Tom's trip to the market"},
        {"entity_types": ["person", "place", "object"]},
        {
            "rounds": [
                {"round": 0, "triples": [triple("Tom", "walked to", "the market")]},
                {"round": 1, "triples": [triple("Tom", "bought", "a red kite")]},
                {"round": 2, "triples": [triple("Tom", "bought at", "the toy stall")]},
                {
                    "round": 3,
                    "triples": [
                        triple("Lily", "sister of", "Tom"),
                        triple("the kite", "for", "Lily"),
                    ],
                },
            ],
            "story_entities": [],
        },
        {
            "questions": [
                {"round": 0, "self_contained": True, "rewritten": "Where did Tom walk?"},
                {"round": 1, "self_contained": False, "rewritten": "What did Tom buy?"},
                {
                    "round": 2,
                    "self_contained": where_self_contained,
                    "elliptical": True,
                    "rewritten": "Where did Tom buy the red kite?",
                },
                {"round": 3, "self_contained": False, "rewritten": "Who was the kite for?"},
            ]
        },
        {
            "rounds": [
                {"round": 0},
                {"round": 1, "entities": ["Tom"]},
                {"round": 2, "triples": [triple("Tom", "bought", "a red kite")]},
                {"round": 3, "entities": ["the red kite"]},
            ]
        },
        {
            "names": [
                {"name": "tom", "canonical": "Tom"},
                {"name": "market", "canonical": "market"},
                {"name": "red kite", "canonical": "kite"},
                {"name": "kite", "canonical": "kite"},
                {"name": "toy stall", "canonical": "toy stall"},
                {"name": "lily", "canonical": "lily"},
            ]
        },
    ]


async def analysed(model: ScriptedModel) -> DialogueAnalysis:
    return await analyse_llm(DIALOGUE, model)


async def test_the_pipeline_builds_needs_and_introductions_from_the_replies() -> None:
    model = ScriptedModel(replies())
    analysis = await analysed(model)
    assert analysis.strategy is Strategy.LLM
    assert len(model.requests) == 7
    assert "Q: What did he buy?" in model.requests[0][-1]["content"]
    # Canonicalisation applies to everything: "a red kite" and "the kite" are both "kite".
    first, bought, where, whom = analysis.rounds
    assert first.self_contained and first.needs == []
    assert first.introduces == ["tom", "market", "tom|walked to|market"]
    assert (bought.self_contained, bought.needs) == (False, ["tom"])
    assert bought.introduces == ["tom", "kite", "tom|bought|kite"]
    assert bought.focus == "tom|bought|kite"
    assert where.continues == "tom|bought|kite" and where.needs == ["tom|bought|kite"]
    assert whom.needs == ["kite"]
    assert "lily|sister of|tom" in whom.introduces and "kite|for|lily" in whom.introduces
    assert "stands alone as 'Who was the kite for?'" in whom.reason


async def test_follow_ups_are_judged_from_the_llm_analysis() -> None:
    analysis = await analysed(ScriptedModel(replies()))
    assert all(v.answerable for v in analysis.follow_up([0, 1, 2, 3]))
    shuffled = analysis.follow_up([1, 0, 2, 3])
    assert [v.answerable for v in shuffled] == [False, True, False, True]
    assert shuffled[0].missing == ["tom"]
    assert all(v.strategy is Strategy.LLM for v in shuffled)
    reduced = analysis.follow_up([0, 2, 3])
    assert [v.answerable for v in reduced] == [True, False, False]
    assert reduced[2].missing == ["kite"]


async def test_a_question_under_three_words_is_never_self_contained_whatever_the_model_says() -> (
    None
):
    analysis = await analysed(ScriptedModel(replies(where_self_contained=True)))
    where = analysis.rounds[2]
    assert where.self_contained is False
    assert where.reason.startswith("fewer than 3 words")


async def test_a_model_failure_falls_back_to_the_offline_analysis() -> None:
    model = ScriptedModel(replies()[:3])  # exhausted at the graph extraction
    analysis = await analysed(model)
    assert analysis.strategy is Strategy.OFFLINE
    assert len(model.requests) == 4
    assert all(r.reason.startswith("model failed") for r in analysis.rounds)
    assert "analysed offline" in analysis.rounds[1].reason
    # The offline analysis still resolves "he" to Tom.
    assert analysis.rounds[1].needs == ["he|refers to|tom"]
    assert analysis.follow_up([1, 0])[0].strategy is Strategy.OFFLINE


async def test_a_reply_with_the_wrong_number_of_statements_falls_back() -> None:
    bad = replies()
    bad[0] = {"statements": ["Tom walked to the market."]}
    model = ScriptedModel(bad)
    analysis = await analysed(model)
    assert analysis.strategy is Strategy.OFFLINE
    assert "1 statements for 4 rounds" in analysis.rounds[0].reason
    assert len(model.requests) == 1


async def test_a_reply_that_never_validates_falls_back() -> None:
    model = ScriptedModel(["not json", "still not json"])
    analysis = await analysed(model)
    assert analysis.strategy is Strategy.OFFLINE
    assert "did not validate" in analysis.rounds[0].reason


async def test_an_empty_dialogue_makes_no_call() -> None:
    model = ScriptedModel([])
    analysis = await analyse_llm(SeedDialogue(id="empty", rounds=[]), model)
    assert analysis.rounds == [] and analysis.strategy is Strategy.LLM
    assert model.requests == []


async def test_a_needed_triple_worded_unlike_any_earlier_one_is_reduced_to_its_entities() -> None:
    script = replies()
    script[5]["rounds"][3] = {"round": 3, "triples": [triple("Tom", "purchased", "the kite")]}
    analysis = await analysed(ScriptedModel(script))
    assert analysis.rounds[3].needs == ["tom", "kite"]
    assert [v.answerable for v in analysis.follow_up([0, 1, 3])] == [True, True, True]
    assert [v.answerable for v in analysis.follow_up([0, 3])] == [True, False]


async def test_an_ellipsis_after_a_round_without_triples_continues_that_round() -> None:
    script = replies()
    script[3]["rounds"][1] = {"round": 1, "triples": []}
    script[5]["rounds"][2] = {"round": 2}
    analysis = await analysed(ScriptedModel(script))
    assert analysis.rounds[1].focus == "round 1" and "round 1" in analysis.rounds[1].introduces
    assert analysis.rounds[2].continues == "round 1" and analysis.rounds[2].needs == ["round 1"]
    assert [v.answerable for v in analysis.follow_up([0, 1, 2])] == [True, True, True]
    assert [v.answerable for v in analysis.follow_up([1, 0, 2])] == [False, True, False]


STEP_MARKERS = [
    "Rewrite every round",  # declarative rewriting
    "what is this dialogue about",  # topic
    "The dialogue's topic is",  # entity types
    "Extract the knowledge graph",  # graph extraction
    "decide whether it is self-contained",  # decontextualisation
    "from EARLIER rounds",  # per-round subgraph
    "canonical name",  # canonicalisation
]


def by_step(messages: list[dict[str, str]]) -> Any:
    """A scripted responder that answers each step from its prompt (order-free)."""
    prompt = messages[-1]["content"]
    for index, marker in enumerate(STEP_MARKERS):
        if marker in prompt:
            return replies()[index]
    raise AssertionError(f"unexpected prompt: {prompt[:80]}")


async def test_many_dialogues_are_analysed_concurrently_in_order() -> None:
    from sparring.metamorphic._answerability import analyse_llm_many

    model = ScriptedModel(by_step, latency=0.01, concurrency=4)
    seeds = [DIALOGUE.model_copy(update={"id": f"kite-{i}"}) for i in range(6)]
    analyses = await analyse_llm_many(seeds, model)
    assert [a.dialogue_id for a in analyses] == [f"kite-{i}" for i in range(6)]
    assert all(a.strategy is Strategy.LLM for a in analyses)
    assert all(a.rounds[1].needs == ["tom"] for a in analyses)
    assert len(model.requests) == 6 * 7


async def test_the_story_is_shown_and_its_entities_are_in_context() -> None:
    script = replies()
    script[3]["story_entities"] = ["Tom", "the red kite"]
    seed = DIALOGUE.model_copy(update={"story": "Tom bought a red kite on Saturday."})
    model = ScriptedModel(script)
    analysis = await analyse_llm(seed, model)
    assert "Story: Tom bought a red kite on Saturday." in model.requests[0][-1]["content"]
    assert analysis.story_introduces == ["tom", "kite"]
    # With Tom and the kite in the story, rounds 1 and 3 are answerable anywhere.
    assert [v.answerable for v in analysis.follow_up([3, 1, 0])] == [True, True, True]
