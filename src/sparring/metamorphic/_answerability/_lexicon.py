"""Closed word lists the offline analyser reads: pronoun classes, gendered person nouns,
ellipsis markers and conversational formulae (English only, like the spaCy pipeline)."""

from __future__ import annotations

import re
from typing import Final


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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

PARTICIPANTS: Final[frozenset[str]] = _words(
    "i me mine my myself our ours ourselves us we you your yours yourself yourselves"
)
"""First and second person: the speakers themselves, present in every dialogue."""

MALE_NOUNS: Final[frozenset[str]] = _words(
    "boy boyfriend brother dad daddy father gentleman grandfather grandpa groom husband "
    "king man monk mr nephew prince sir son uncle"
)
"""Person nouns that carry male gender."""
FEMALE_NOUNS: Final[frozenset[str]] = _words(
    "aunt bride daughter girl girlfriend grandma grandmother lady madam miss mom mommy "
    "mother mrs ms mum niece nun princess queen sister wife woman"
)
"""Person nouns that carry female gender."""
PERSON_NOUNS: Final[frozenset[str]] = (
    MALE_NOUNS
    | FEMALE_NOUNS
    | _words(
        "actor actress author baby boss captain chef child cousin customer doctor driver "
        "family farmer friend grandparent guest kid neighbor neighbour nurse officer owner "
        "parent partner people person pilot player police president scientist sibling singer "
        "spouse student teacher team visitor waiter worker writer"
    )
)
"""Common nouns that name people (with gender where the word carries it)."""

PLACE_PREPOSITIONS: Final[frozenset[str]] = _words("at from in inside into near to")
"""A noun after one of these (and not a person or a time) is a place ``there`` can name."""

TIME_NOUNS: Final[frozenset[str]] = _words(
    "afternoon day evening friday hour minute monday month morning night saturday sunday "
    "thursday time today tomorrow tuesday wednesday week year yesterday"
)
"""Nouns of time: never what ``it`` or ``there`` refers to."""

WH_WORDS: Final[frozenset[str]] = _words("how what when where which who whom whose why")
"""Question words: a wh-slot the answer fills."""

CONTINUATION_OPENERS: Final[tuple[tuple[str, ...], ...]] = (
    ("what", "about"),
    ("how", "about"),
    ("and",),
    ("or",),
    ("but",),
    ("also",),
)
"""Openings that continue the previous question (``And the dog?``, ``What about her?``)."""

RESPONSE_PARTICLES: Final[frozenset[str]] = _words(
    "correct definitely exactly false maybe nah no nope perhaps probably right sure true "
    "yeah yep yes yup"
)
"""One-word replies to the other speaker: they continue the previous round."""

FORMULAE: Final[frozenset[str]] = _words(
    "afternoon ah alright awesome bye cheers cool cya evening fine good goodbye great "
    "haha hahaha hello hey hi hiya hm hmm howdy k lol morning nice night np oh ok okay "
    "oops please problem sorry thank thanks then there thx uh um welcome wow yay yo"
)
"""Greetings, thanks and fillers: they need nothing from the dialogue."""

NON_REFERRING_NOUNS: Final[frozenset[str]] = _words(
    "anything bit everything kind lot nothing one something sort thing way"
)
"""Nouns too vague to be a referent of the knowledge graph."""

AUXILIARIES: Final[frozenset[str]] = _words(
    "be can could do have may might must shall should will would"
)
"""Verbs that, alone in a question (``Did she?``), leave its verb phrase elided."""

GREETINGS: Final[frozenset[str]] = _words("hi hello hey hiya bye goodbye thanks thank cheers")
"""Words that open a greeting, which a name may follow (``Hi Alex``)."""

BUTTON_PAYLOAD: Final = re.compile(r"^/[A-Za-z_][\w.-]*(\{.*\})?\s*$", re.DOTALL)
"""A button's payload sent as the user turn (Rasa's ``/inform{"size": "small"}``): a
command that carries its own values, not language; it needs nothing from the context."""
PAYLOAD_REASON: Final = "a button payload (/intent{…}): a command, not language; needs nothing"
