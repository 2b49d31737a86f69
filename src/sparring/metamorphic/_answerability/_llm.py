"""The LLM answerability analyser: MORTAR's knowledge-graph extraction pipeline (Guo et al.,
arXiv 2412.15557, §3.3, the dialogue information model) as seven structured-output calls
per dialogue, in MORTAR's order:

1. **declarative rewriting** — each question and its answer as one statement;
2. **topic** of the dialogue;
3. **entity types** — the ontology classes the topic calls for;
4. **graph extraction** — ``subject, relation, object`` triples per round (and the
   story's entities);
5. **decontextualisation** — each question rewritten to stand alone, whether it already
   did (self-contained) and whether it is elliptical;
6. **per-round subgraph** — the triples and entities each question needs from earlier
   rounds;
7. **canonicalisation** — one lower-case canonical name per entity, applied to every
   element.

The calls run one after the other (each reads the previous replies), with
``module="metamorphic"``; a caller fans out over dialogues within ``model.concurrency``.
MORTAR's rule is kept in code: a question under three words is never self-contained,
whatever the model says. A model failure (``ModelError``: a provider error after its
retries, or a reply that never validates) does not stop anything: the dialogue is
analysed offline instead (``strategy="offline"``, reasons saying why), as every model-backed
step falls back to its offline strategy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from sparring.errors import ModelError
from sparring.jobs import gather_bounded
from sparring.metamorphic._answerability._graph import fact
from sparring.metamorphic._answerability._lexicon import BUTTON_PAYLOAD, PAYLOAD_REASON
from sparring.metamorphic._answerability._offline import (
    MIN_SELF_CONTAINED_WORDS,
    NO_PREVIOUS_ROUND,
    analyse_offline,
    round_element,
)
from sparring.metamorphic._answerability._types import (
    DialogueAnalysis,
    RoundAnalysis,
    SeedDialogue,
)
from sparring.types import Strategy, TextModel

MODULE = "metamorphic"
"""The cost module of every answerability call."""

T = TypeVar("T", bound=BaseModel)


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Triple(_Reply):
    """One edge of the knowledge graph."""

    subject: str
    relation: str
    object: str


class DeclarativeRewriting(_Reply):
    """Step 1: one declarative statement per round, in order."""

    statements: list[str] = Field(description="One statement per round, in round order")


class TopicReply(_Reply):
    """Step 2: what the dialogue is about, in a few words."""

    topic: str


class EntityTypesReply(_Reply):
    """Step 3: the entity types (ontology classes) the topic calls for."""

    entity_types: list[str]


class RoundTriples(_Reply):
    """The triples one round's statement states."""

    round: int = Field(ge=0)
    triples: list[Triple] = Field(default_factory=list)


class GraphReply(_Reply):
    """Step 4: the knowledge graph, round by round, and the story's entities."""

    rounds: list[RoundTriples]
    story_entities: list[str] = Field(default_factory=list)


class DecontextualisedQuestion(_Reply):
    """Step 5, one question: whether it stands alone, and it rewritten to stand alone."""

    round: int = Field(ge=0)
    self_contained: bool = Field(
        description="True when the question can be understood without the dialogue before it"
    )
    elliptical: bool = Field(
        default=False, description="True when words left out must come from the previous round"
    )
    rewritten: str


class DecontextualisationReply(_Reply):
    """Step 5: every question decontextualised."""

    questions: list[DecontextualisedQuestion]


class RoundNeeds(_Reply):
    """Step 6, one round: what its question needs from earlier rounds."""

    round: int = Field(ge=0)
    triples: list[Triple] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)


class SubgraphReply(_Reply):
    """Step 6: the subgraph each question needs."""

    rounds: list[RoundNeeds]


class CanonicalName(_Reply):
    """One surface name and its canonical form."""

    name: str
    canonical: str


class CanonicalisationReply(_Reply):
    """Step 7: canonical names for every entity in the graph."""

    names: list[CanonicalName]


_SYSTEM = (
    "You build the knowledge graph of a question-answering dialogue for MORTAR, a "
    "metamorphic testing method. Reply with one JSON object that fits the schema, nothing "
    "else."
)

_STEPS = {
    "rewrite": "Rewrite every round (question + answer) as one declarative statement that "
    "keeps the meaning, resolving pronouns from the dialogue. Give exactly {n} statements.",
    "topic": "In a few words, what is this dialogue about?",
    "types": "The dialogue's topic is: {topic}. List the entity types (ontology classes, "
    "such as person, place, object, event) its knowledge graph needs.",
    "graph": "Entity types: {types}. Extract the knowledge graph stated by each round's "
    "statement as (subject, relation, object) triples, one list per round (round numbers "
    "from 0), relations as short verbs. Also list the entities the story names, if any.",
    "decontext": "For each question, decide whether it is self-contained (understandable "
    "without the rounds before it: no pronoun or ellipsis that refers outside it), whether "
    "it is elliptical (it leaves out words the previous round supplies), and rewrite it to "
    "stand alone.",
    "subgraph": "Knowledge graph per round: {graph}. For each question, list the triples "
    "and entities from EARLIER rounds that it needs to be understood (what its pronouns "
    "and ellipses refer to); empty lists for a self-contained question.",
    "canonical": "Give one canonical name per entity: lower case, singular lemma, no "
    "article ('the boys' -> 'boy'); the same name for every mention of the same entity "
    "('Tom', 'the boy' -> 'tom'). Entities: {entities}.",
}


async def analyse_llm(dialogue: SeedDialogue, model: TextModel) -> DialogueAnalysis:
    """Analyse one seed dialogue with MORTAR's extraction pipeline (``strategy="llm"``):
    seven calls with ``module="metamorphic"`` (none for an empty dialogue).

    Never raises ``ModelError``: on a model failure the dialogue is analysed offline and
    the result says so (``strategy="offline"``, each reason starting ``model failed``).
    ``BudgetExceeded`` propagates (the run's budget is spent: stop, do not degrade).
    """
    if not dialogue.rounds:
        return DialogueAnalysis(dialogue_id=dialogue.id, strategy=Strategy.LLM, rounds=[])
    try:
        return await _pipeline(dialogue, model)
    except ModelError as exc:
        return _fallback(dialogue, exc)


async def analyse_llm_many(
    dialogues: Sequence[SeedDialogue], model: TextModel
) -> list[DialogueAnalysis]:
    """``analyse_llm`` for each dialogue, at most ``model.concurrency`` dialogues at once
    (each one's seven calls run in turn); results in the order given."""
    return await gather_bounded((analyse_llm(d, model) for d in dialogues), model.concurrency)


def _fallback(dialogue: SeedDialogue, exc: ModelError) -> DialogueAnalysis:
    (offline,) = analyse_offline([dialogue])
    note = f"model failed ({_short(str(exc))}), analysed offline: "
    rounds = [r.model_copy(update={"reason": note + r.reason}) for r in offline.rounds]
    return offline.model_copy(update={"rounds": rounds})


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def _pipeline(dialogue: SeedDialogue, model: TextModel) -> DialogueAnalysis:
    n = len(dialogue.rounds)
    transcript = _transcript(dialogue)
    rewriting = await _ask(model, "rewrite", transcript, DeclarativeRewriting, n=n)
    if len(rewriting.statements) != n:
        raise ModelError(
            f"declarative rewriting gave {len(rewriting.statements)} statements for {n} rounds"
        )
    statements = "\n".join(f"Round {i}: {s}" for i, s in enumerate(rewriting.statements))
    topic = await _ask(model, "topic", transcript, TopicReply)
    types = await _ask(model, "types", transcript, EntityTypesReply, topic=topic.topic)
    graph = await _ask(
        model,
        "graph",
        _with_story(dialogue, statements),
        GraphReply,
        types=", ".join(types.entity_types),
    )
    triples: list[list[Triple]] = [[] for _ in range(n)]
    for entry in graph.rounds:
        if entry.round < n:
            triples[entry.round].extend(entry.triples)
    decontext = await _ask(model, "decontext", transcript, DecontextualisationReply)
    questions = {q.round: q for q in decontext.questions if q.round < n}
    listing = "; ".join(
        f"round {i}: " + ", ".join(f"({t.subject}, {t.relation}, {t.object})" for t in ts)
        for i, ts in enumerate(triples)
    )
    subgraph = await _ask(model, "subgraph", transcript, SubgraphReply, graph=listing)
    needs = {r.round: r for r in subgraph.rounds if r.round < n}
    surface = _surface_names(triples, needs.values(), graph.story_entities)
    canon = await _ask(
        model, "canonical", transcript, CanonicalisationReply, entities=", ".join(surface)
    )
    names = {_plain(c.name): _plain(c.canonical) for c in canon.names if _plain(c.canonical)}
    return _assemble(dialogue, triples, questions, needs, graph.story_entities, names)


def _assemble(
    dialogue: SeedDialogue,
    triples: list[list[Triple]],
    questions: Mapping[int, DecontextualisedQuestion],
    needs: Mapping[int, RoundNeeds],
    story_entities: Sequence[str],
    names: Mapping[str, str],
) -> DialogueAnalysis:
    canon = _Canon(names)
    story = list(dict.fromkeys(canon.entity(e) for e in story_entities))
    seen = set(story)
    rounds: list[RoundAnalysis] = []
    previous_focus: str | None = None
    for index, seed in enumerate(dialogue.rounds):
        analysis = _round(
            index,
            seed.question,
            triples[index],
            questions.get(index),
            needs.get(index),
            previous_focus,
            seen,
            canon,
        )
        rounds.append(analysis)
        seen.update(analysis.introduces)
        previous_focus = analysis.focus
    return DialogueAnalysis(
        dialogue_id=dialogue.id, strategy=Strategy.LLM, story_introduces=story, rounds=rounds
    )


class _Canon:
    """Elements in canonical form, by the canonicalisation step's names."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def entity(self, name: str) -> str:
        plain = _plain(name)
        return self.names.get(plain, plain)

    def fact(self, t: Triple) -> str:
        relation = " ".join(t.relation.lower().split())
        return fact(self.entity(t.subject), relation, self.entity(t.object))


def _round(
    index: int,
    question: str,
    triples: Sequence[Triple],
    decontextualised: DecontextualisedQuestion | None,
    wanted: RoundNeeds | None,
    previous_focus: str | None,
    seen: set[str],
    canon: _Canon,
) -> RoundAnalysis:
    """One round from the replies. A needed triple that no earlier round introduced (the
    model worded it another way) is reduced to the two entities it links."""
    facts = [canon.fact(t) for t in triples]
    introduced = [canon.entity(x) for t in triples for x in (t.subject, t.object)]
    if BUTTON_PAYLOAD.match(question):
        focus = facts[-1] if facts else round_element(index)
        introduces = list(dict.fromkeys([*introduced, *facts, *([] if facts else [focus])]))
        return RoundAnalysis(
            index=index,
            question=question,
            self_contained=True,
            introduces=introduces,
            reason=PAYLOAD_REASON,
            focus=focus,
        )
    words = sum(any(c.isalnum() for c in w) for w in question.split())
    said = decontextualised.self_contained if decontextualised is not None else False
    self_contained = said and words >= MIN_SELF_CONTAINED_WORDS
    required: list[str] = []
    for t in wanted.triples if wanted is not None else []:
        element = canon.fact(t)
        linked = [canon.entity(t.subject), canon.entity(t.object)]
        required += [element] if element in seen else linked
    required += [canon.entity(e) for e in wanted.entities] if wanted is not None else []
    elliptical = decontextualised is not None and decontextualised.elliptical
    continues = (previous_focus or NO_PREVIOUS_ROUND) if elliptical else None
    if continues is not None:
        required.append(continues)
    notes = []
    if words < MIN_SELF_CONTAINED_WORDS:
        notes.append(f"fewer than {MIN_SELF_CONTAINED_WORDS} words")
    if decontextualised is not None:
        notes.append(f"stands alone as {decontextualised.rewritten!r}")
    else:
        notes.append("the model did not decontextualise it")
    required = [] if self_contained else list(dict.fromkeys(required))
    if required:
        notes.append("needs " + ", ".join(required))
    focus = facts[-1] if facts else round_element(index)
    return RoundAnalysis(
        index=index,
        question=question,
        self_contained=self_contained,
        needs=required,
        introduces=list(dict.fromkeys([*introduced, *facts, *([] if facts else [focus])])),
        reason="; ".join(notes),
        focus=focus,
        continues=continues,
    )


async def _ask(model: TextModel, step: str, content: str, schema: type[T], **fields: object) -> T:
    messages = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": f"{_STEPS[step].format(**fields)}\n\n{content}"},
    ]
    generation = await model.generate(messages, schema, module=MODULE)
    parsed = generation.parsed
    if not isinstance(parsed, schema):
        raise ModelError(f"{model.name}: the {step} step gave no {schema.__name__}")
    return parsed


def _transcript(dialogue: SeedDialogue) -> str:
    lines = [f"Story: {dialogue.story}"] if dialogue.story else []
    for index, seed in enumerate(dialogue.rounds):
        lines.append(f"Round {index}\nQ: {seed.question}\nA: {seed.answer or '(no answer)'}")
    return "\n".join(lines)


def _with_story(dialogue: SeedDialogue, statements: str) -> str:
    story = f"Story: {dialogue.story}\n" if dialogue.story else ""
    return f"{story}Statements:\n{statements}"


def _surface_names(
    triples: list[list[Triple]], needs: Iterable[RoundNeeds], story: Sequence[str]
) -> list[str]:
    found = [x for ts in triples for t in ts for x in (t.subject, t.object)]
    for entry in needs:
        found += [x for t in entry.triples for x in (t.subject, t.object)] + entry.entities
    return list(dict.fromkeys(_plain(x) for x in [*found, *story] if _plain(x)))


_ARTICLE = re.compile(r"^(the|a|an)\s+")


def _plain(name: str) -> str:
    """Lower case, single spaces, no leading article, no ``|`` (the element separator)."""
    text = " ".join(name.lower().replace("|", " ").split())
    return _ARTICLE.sub("", text) or text
