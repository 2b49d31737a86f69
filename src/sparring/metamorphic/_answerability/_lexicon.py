"""Closed word lists the offline analyser reads: pronoun classes, gendered person nouns,
ellipsis markers and conversational formulae (English only, like the spaCy pipeline)."""

from __future__ import annotations

from typing import Final

PRONOUN_CLASSES: Final[dict[str, str]] = {
    "he": "he",
    "him": "he",
    "his": "he",
    "himself": "he",
    "she": "she",
    "her": "she",
    "hers": "she",
    "herself": "she",
    "it": "it",
    "its": "it",
    "itself": "it",
    "they": "they",
    "them": "they",
    "their": "they",
    "theirs": "they",
    "themselves": "they",
}
"""Third-person pronouns → their class (the nominative form): what they must refer back to."""

DEMONSTRATIVES: Final[dict[str, str]] = {
    "this": "it",
    "that": "it",
    "these": "they",
    "those": "they",
}
"""Demonstratives used as pronouns (not as determiners) refer back like ``it``/``they``."""

PARTICIPANTS: Final[frozenset[str]] = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)
"""First and second person: the speakers themselves, present in every dialogue."""

MALE_NOUNS: Final[frozenset[str]] = frozenset(
    [
        "man",
        "boy",
        "father",
        "dad",
        "daddy",
        "son",
        "brother",
        "uncle",
        "husband",
        "king",
        "prince",
        "grandfather",
        "grandpa",
        "nephew",
        "gentleman",
        "sir",
        "mr",
        "boyfriend",
        "groom",
        "monk",
    ]
)
FEMALE_NOUNS: Final[frozenset[str]] = frozenset(
    [
        "woman",
        "girl",
        "mother",
        "mom",
        "mum",
        "mommy",
        "daughter",
        "sister",
        "aunt",
        "wife",
        "queen",
        "princess",
        "grandmother",
        "grandma",
        "niece",
        "lady",
        "madam",
        "mrs",
        "ms",
        "miss",
        "girlfriend",
        "bride",
        "nun",
    ]
)
PERSON_NOUNS: Final[frozenset[str]] = (
    MALE_NOUNS
    | FEMALE_NOUNS
    | frozenset(
        [
            "person",
            "people",
            "friend",
            "child",
            "kid",
            "baby",
            "parent",
            "teacher",
            "student",
            "doctor",
            "nurse",
            "farmer",
            "owner",
            "neighbor",
            "neighbour",
            "player",
            "team",
            "family",
            "customer",
            "driver",
            "officer",
            "police",
            "boss",
            "worker",
            "author",
            "writer",
            "singer",
            "actor",
            "actress",
            "president",
            "chef",
            "waiter",
            "cousin",
            "grandparent",
            "sibling",
            "spouse",
            "partner",
            "guest",
            "visitor",
            "captain",
            "pilot",
            "scientist",
        ]
    )
)
"""Common nouns that name people (with gender where the word carries it)."""

PLACE_PREPOSITIONS: Final[frozenset[str]] = frozenset(
    ["in", "at", "to", "from", "into", "near", "inside"]
)
"""A noun after one of these (and not a person or a time) is a place ``there`` can name."""

TIME_NOUNS: Final[frozenset[str]] = frozenset(
    [
        "time",
        "day",
        "night",
        "morning",
        "evening",
        "afternoon",
        "week",
        "month",
        "year",
        "today",
        "tomorrow",
        "yesterday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "hour",
        "minute",
    ]
)

WH_WORDS: Final[frozenset[str]] = frozenset(
    ["what", "who", "whom", "whose", "which", "where", "when", "why", "how"]
)

CONTINUATION_OPENERS: Final[tuple[tuple[str, ...], ...]] = (
    ("what", "about"),
    ("how", "about"),
    ("and",),
    ("or",),
    ("but",),
    ("also",),
)
"""Openings that continue the previous question (``And the dog?``, ``What about her?``)."""

RESPONSE_PARTICLES: Final[frozenset[str]] = frozenset(
    [
        "yes",
        "yeah",
        "yep",
        "yup",
        "no",
        "nope",
        "nah",
        "sure",
        "maybe",
        "perhaps",
        "right",
        "correct",
        "exactly",
        "true",
        "false",
        "definitely",
        "probably",
    ]
)
"""One-word replies to the other speaker: they continue the previous round."""

FORMULAE: Final[frozenset[str]] = frozenset(
    [
        "hi",
        "hello",
        "hey",
        "hiya",
        "howdy",
        "yo",
        "bye",
        "goodbye",
        "cya",
        "thanks",
        "thank",
        "thx",
        "ok",
        "okay",
        "k",
        "cool",
        "nice",
        "lol",
        "haha",
        "hahaha",
        "hmm",
        "hm",
        "wow",
        "great",
        "good",
        "morning",
        "evening",
        "afternoon",
        "night",
        "please",
        "sorry",
        "oops",
        "welcome",
        "cheers",
        "fine",
        "there",
        "then",
        "problem",
        "alright",
        "awesome",
        "np",
        "yay",
        "ah",
        "oh",
        "uh",
        "um",
    ]
)
"""Greetings, thanks and fillers: they need nothing from the dialogue."""

NON_REFERRING_NOUNS: Final[frozenset[str]] = frozenset(
    [
        "thing",
        "something",
        "anything",
        "nothing",
        "everything",
        "one",
        "kind",
        "sort",
        "lot",
        "bit",
        "way",
    ]
)
"""Nouns too vague to be a referent of the knowledge graph."""

AUXILIARIES: Final[frozenset[str]] = frozenset(
    ["be", "do", "have", "can", "could", "will", "would", "shall", "should", "may", "might", "must"]
)
"""Verbs that, alone in a question (``Did she?``), leave its verb phrase elided."""
