"""The offline answerability analyser: spaCy's small English pipeline and a knowledge graph
that grows round by round (MORTAR, Guo et al., arXiv 2412.15557, §3.3, the
equivalent-context check, with the graph built from the parse instead of an LLM).

For each source round, in order:

1. the question is read token by token: its noun phrases become graph nodes, its
   third-person pronouns resolve to the latest-mentioned node that agrees in person,
   gender and number (a pronoun whose antecedent is in the question itself is resolved
   *within the question*); an elliptical question (no verb, ``what about …``, ``else``, a
   bare auxiliary, a reply particle) continues the previous round;
2. it is **self-contained** when it has at least three words, no pronoun that refers
   outside it and no ellipsis (MORTAR's definition); otherwise it **needs** one reference
   element per outside pronoun (``he|refers to|tom``) and, for an ellipsis, the previous
   round's focus (its last fact, ``tom|buy|kite``);
3. the question's clauses, with the wh-word filled by a short answer (declarative
   rewriting: ``What did he buy?`` + ``A kite.`` → ``tom|buy|kite``), and the answer's own
   clauses become facts; the round **introduces** its entities, facts and the references
   its entities make available.

A story is parsed with the entity recogniser: its entities and the references it makes
unambiguous (a single male person → ``he|refers to|tom``) are ``story_introduces``. Its
facts are not: a story tells what happened, it does not put a question under discussion,
so it never completes an ellipsis.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.metamorphic._answerability._graph import (
    UNRESOLVED,
    Antecedent,
    DialogueGraph,
    fact,
    reference,
)
from sparring.metamorphic._answerability._lexicon import BUTTON_PAYLOAD, PAYLOAD_REASON
from sparring.metamorphic._answerability._nlp import Slot, Utterance, parse_texts
from sparring.metamorphic._answerability._types import (
    DialogueAnalysis,
    RoundAnalysis,
    SeedDialogue,
)
from sparring.types import Strategy

MIN_SELF_CONTAINED_WORDS = 3
"""MORTAR: a question under three words is never self-contained."""
NO_PREVIOUS_ROUND = fact("ellipsis", "continues", UNRESOLVED)


def analyse_offline(dialogues: Sequence[SeedDialogue]) -> list[DialogueAnalysis]:
    """Analyse each seed dialogue once with spaCy (``strategy="offline"``), one
    ``RoundAnalysis`` per round, in the order given. All questions and answers are parsed
    in one batch (each distinct text once), stories in another with entity recognition.

    An empty dialogue gives an analysis with no rounds. Raises ``ConfigError`` when the
    spaCy model package is not installed.
    """
    texts = [r.question for d in dialogues for r in d.rounds]
    texts += [r.answer for d in dialogues for r in d.rounds if r.answer]
    parsed = parse_texts(texts)
    stories = parse_texts([d.story for d in dialogues if d.story], entities=True)
    return [_analyse(d, parsed, stories[d.story] if d.story else None) for d in dialogues]


def _analyse(
    dialogue: SeedDialogue, parsed: dict[str, Utterance], story: Utterance | None
) -> DialogueAnalysis:
    graph = DialogueGraph()
    story_introduces: list[str] = []
    if story is not None:
        _walk(graph, story, 0)
        names = [m.name for m in story.mentions]
        story_introduces = list(dict.fromkeys(names + graph.unique_references()))
    rounds: list[RoundAnalysis] = []
    focus: str | None = None
    for index, seed in enumerate(dialogue.rounds):
        answer = parsed[seed.answer] if seed.answer else None
        analysis, focus = _round(graph, index, seed.question, parsed[seed.question], answer, focus)
        rounds.append(analysis)
    return DialogueAnalysis(
        dialogue_id=dialogue.id,
        strategy=Strategy.OFFLINE,
        story_introduces=story_introduces,
        rounds=rounds,
    )


def _round(
    graph: DialogueGraph,
    index: int,
    text: str,
    question: Utterance,
    answer: Utterance | None,
    previous_focus: str | None,
) -> tuple[RoundAnalysis, str | None]:
    """One source round: its analysis and its focus (what an ellipsis after it continues)."""
    q_part, a_part = 2 * index + 1, 2 * index + 2
    if BUTTON_PAYLOAD.match(text):
        a_refs = _walk(graph, answer, a_part) if answer is not None else []
        introduces, focus = _introduces(graph, index, (question, []), (answer, a_refs), None)
        payload = RoundAnalysis(
            index=index,
            question=text,
            self_contained=True,
            introduces=introduces,
            reason=PAYLOAD_REASON,
            focus=focus,
        )
        return payload, focus
    q_refs = _walk(graph, question, q_part)
    needs, notes = _needs(question, q_refs, q_part)
    continued = None
    if question.ellipsis:
        continued = previous_focus or NO_PREVIOUS_ROUND
        needs[continued] = None
        notes.append(f"{question.ellipsis}: continues {continued}")
    words_ok = question.words >= MIN_SELF_CONTAINED_WORDS
    self_contained = words_ok and not needs
    if self_contained:
        notes.append(f"self-contained: {question.words} words, nothing refers outside it")
    elif not words_ok:
        notes.insert(0, f"fewer than {MIN_SELF_CONTAINED_WORDS} words")
    a_refs = _walk(graph, answer, a_part) if answer is not None else []
    introduces, focus = _introduces(graph, index, (question, q_refs), (answer, a_refs), continued)
    analysis = RoundAnalysis(
        index=index,
        question=text,
        self_contained=self_contained,
        needs=list(needs),
        introduces=introduces,
        reason="; ".join(notes) or "greeting or filler: needs nothing from the context",
        focus=focus,
        continues=continued,
    )
    return analysis, focus


def _needs(
    question: Utterance, refs: list[Antecedent], part: int
) -> tuple[dict[str, None], list[str]]:
    """One reference element per pronoun resolved outside the question, with the notes."""
    needs: dict[str, None] = {}
    notes: list[str] = []
    for ref, ant in zip(question.references, refs, strict=True):
        if ant.part == part:
            continue
        needs[reference(ref.cls, ant.name or UNRESOLVED)] = None
        notes.append(f"{ref.word!r} refers back to {_origin(ant)}")
    return needs, notes


def _introduces(
    graph: DialogueGraph,
    index: int,
    asked_in: tuple[Utterance, list[Antecedent]],
    replied_in: tuple[Utterance | None, list[Antecedent]],
    continued: str | None,
) -> tuple[list[str], str]:
    """What the round adds to the context (entities, facts, references) and its focus:
    what the reply states, else what the question asked (its wh-slot filled by the
    answer), else its last fact, else its last reference, else the round itself."""
    question, q_refs = asked_in
    answer, a_refs = replied_in
    entities: dict[str, None] = {}
    for utterance, refs in (asked_in, replied_in):
        if utterance is not None:
            entities.update((m.name, None) for m in utterance.mentions)
            entities.update((a.name, None) for a in refs if a.name is not None)
    facts: dict[str, None] = {}
    if continued is not None and continued.count("|") == 2 and UNRESOLVED not in continued:
        facts[continued] = None
    head = _filler(answer, a_refs) if answer is not None else None
    asked, stated = _facts(graph, question, q_refs, "user", "bot", head)
    facts.update((f, None) for f in stated)
    replied: list[str] = []
    if answer is not None:
        replied = _facts(graph, answer, a_refs, "bot", "user", None)[1]
        facts.update((f, None) for f in replied)
    references: dict[str, None] = {}
    for name in entities:
        references.update((r, None) for r in graph.references_of(name))
    introduces = list(dict.fromkeys([*entities, *facts, *references]))
    candidates = [*replied[-1:], *asked[-1:], *list(facts)[-1:], *list(references)[-1:]]
    if candidates:
        return introduces, candidates[0]
    return [*introduces, round_element(index)], round_element(index)


def round_element(index: int) -> str:
    """The focus of a round the parse found no fact or referent in: the round itself
    (``round 3``), so that an ellipsis after it continues it as a whole."""
    return f"round {index}"


def _origin(ant: Antecedent) -> str:
    if ant.name is None:
        return "nothing before it"
    if ant.part == 0:
        return f"{ant.name} (story)"
    return f"{ant.name} (round {(ant.part - 1) // 2})"


def _walk(graph: DialogueGraph, utterance: Utterance, part: int) -> list[Antecedent]:
    """Add the utterance's mentions to the graph and resolve its references, in reading
    order; returns one ``Antecedent`` per reference."""
    resolved: list[Antecedent] = []
    mentions = iter(utterance.mentions)
    pending = next(mentions, None)
    for ref in utterance.references:
        while pending is not None and pending.position < ref.position:
            graph.mention(pending, part)
            pending = next(mentions, None)
        if ref.local:
            resolved.append(Antecedent(None, part))
            continue
        ant = graph.resolve(ref.cls, (part, ref.position))
        if ant.name is not None:
            graph.learn_gender(ant.name, ref.cls)
            graph.touch(ant.name, part, ref.position)
        resolved.append(ant)
    while pending is not None:
        graph.mention(pending, part)
        pending = next(mentions, None)
    return resolved


def _filler(answer: Utterance, refs: list[Antecedent]) -> str | None:
    """What a short answer fills the question's wh-slot with."""
    if answer.head is None:
        return None
    return _name(answer.head, refs, "bot", "user", None)


def _name(
    slot: Slot, refs: list[Antecedent], speaker: str, addressee: str, filler: str | None
) -> str | None:
    if slot.kind in ("entity", "value"):
        return slot.value
    if slot.kind == "ref":
        return refs[int(slot.value)].name
    if slot.kind == "participant":
        return speaker if slot.value == "speaker" else addressee
    return filler


def _facts(
    graph: DialogueGraph,
    utterance: Utterance,
    refs: list[Antecedent],
    speaker: str,
    addressee: str,
    filler: str | None,
) -> tuple[list[str], list[str]]:
    """The utterance's facts: (those whose wh-slot the filler filled, all of them)."""
    asked: list[str] = []
    out: list[str] = []
    for clause in utterance.clauses:
        subject = _name(clause.subject, refs, speaker, addressee, filler)
        obj = _name(clause.object, refs, speaker, addressee, filler)
        if subject and obj and subject != obj:
            out.append(graph.add_fact(subject, clause.relation, obj))
            if "wh" in (clause.subject.kind, clause.object.kind):
                asked.append(out[-1])
    return asked, out
