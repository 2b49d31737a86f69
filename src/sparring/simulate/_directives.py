"""A profile's ``context`` sentences read as directives and facts, offline.

SENSEI hands ``user.context`` to its model as free text ("if asked for more toppings,
reply 'No'", "your name is John Doe", "Do not ask for extra toppings, or discounts").
Without a model the agenda simulator reads the shapes people write most:

- **Directives** (what to answer when the chatbot asks about something):
  "if (you are) asked for/about/whether X, reply/answer/say 'Y'";
  "reply/answer/say 'Y' to/when asked about X";
  "do not / don't / never ask for / want / order X, Z or W" (→ "No, thanks." to a yes/no
  question about X, Z or W).
- **Facts** (values the chatbot may ask for that are not goal variables):
  "your/my K is V" (the key K, e.g. "name", "phone number");
  "you have a K called/named V" (the K's name).

Sentences that fit none are ignored (the LLM simulator reads them all); ``Directives.unread``
lists them so a run can say what the offline user did not follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sparring.simulate._matching import content_words, overlap

_IF_ASKED = re.compile(
    r"\bif\s+(?:you\s+are\s+|you're\s+|they\s+|it\s+|the\s+(?:bot|chatbot|assistant)\s+)?"
    r"(?:asks?|asked)\s+(?:you\s+)?(?:for|about|if|whether)?\s*(?P<trigger>[^,]+?),?\s+"
    r"(?:then\s+)?(?:reply|answer|say|respond|tell\s+(?:it|them))(?:\s+with)?\s*:?\s*"
    r"['\"“‘]?(?P<answer>[^'\"”’]+?)['\"”’]?\s*\.?$",
    re.IGNORECASE,
)
_ANSWER_TO = re.compile(
    r"\b(?:reply|answer|say|respond)(?:\s+with)?\s+['\"“‘](?P<answer>[^'\"”’]+)['\"”’]\s+"
    r"(?:to|when\s+(?:you\s+are\s+)?asked|if\s+(?:you\s+are\s+)?asked|when\s+(?:the\s+)?"
    r"(?:bot|chatbot|assistant|it)\s+asks)\s*(?:about|for|if|whether)?\s+(?P<trigger>.+?)\.?$",
    re.IGNORECASE,
)
_DO_NOT = re.compile(
    r"\b(?:do\s+not|don't|never)\s+(?:ask\s+(?:for|about)|want|order|add|request|need|"
    r"accept)\s+(?P<trigger>[^.]+)",
    re.IGNORECASE,
)
_YOUR_IS = re.compile(r"\b(?:your|my)\s+(?P<key>[a-z][\w ]{0,30}?)\s+is\s+(?P<value>[^,.;]+)",
                      re.IGNORECASE)  # fmt: skip
_CALLED = re.compile(
    r"\b(?:you|i)\s+(?:have|own)\s+an?\s+(?P<key>\w+)\s+(?:called|named)\s+(?P<value>[\w' -]+)",
    re.IGNORECASE,
)
_ITEMS = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s+nor\s+")


@dataclass(frozen=True)
class Directive:
    """Answer ``answer`` when the chatbot asks about ``trigger`` (a few words)."""

    trigger: str
    answer: str


@dataclass(frozen=True)
class Fact:
    """A value the user knows: ``key`` ("name", "dog name", "phone number") and ``value``."""

    key: str
    value: str


@dataclass
class Directives:
    """What the offline user read in its profile's context (see the module docstring)."""

    directives: list[Directive] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)

    def answer_for(self, question: str) -> str | None:
        """The directed answer to ``question``, the directive whose trigger the question
        mentions best (at least half of its content words); ``None`` when none does."""
        best: tuple[float, str] | None = None
        for directive in self.directives:
            score = overlap(directive.trigger, question)
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, directive.answer)
        return best[1] if best else None

    def fact_for(self, question: str) -> Fact | None:
        """The fact whose key the question asks about (all the key's content words)."""
        best: tuple[int, Fact] | None = None
        for fact in self.facts:
            words = content_words(fact.key)
            full = bool(words) and overlap(fact.key, question) == 1.0
            if full and (best is None or len(words) > best[0]):
                best = (len(words), fact)
        return best[1] if best else None


def read_context(sentences: tuple[str, ...] | list[str]) -> Directives:
    """Directives and facts from ``user.context`` sentences (see the module docstring)."""
    out = Directives()
    for sentence in sentences:
        found = _read(sentence, out)
        if not found:
            out.unread.append(sentence)
    return out


def _read(sentence: str, out: Directives) -> bool:
    found = False
    for pattern in (_IF_ASKED, _ANSWER_TO):
        for match in pattern.finditer(sentence):
            answer = match["answer"].strip().rstrip(".")
            out.directives.append(Directive(match["trigger"].strip(), answer))
            found = True
    for match in _DO_NOT.finditer(sentence):
        for item in _ITEMS.split(match["trigger"]):
            item = re.sub(r"^(?:any|extra|more|other)\s+", "", item.strip(), flags=re.I)
            if content_words(item):
                out.directives.append(Directive(item, "No, thanks."))
                found = True
    for match in _YOUR_IS.finditer(sentence):
        out.facts.append(Fact(match["key"].strip().lower(), match["value"].strip()))
        found = True
    for match in _CALLED.finditer(sentence):
        key = match["key"].lower()
        out.facts.append(Fact(f"{key} name", match["value"].strip()))
        out.facts.append(Fact(f"{key}'s name", match["value"].strip()))
        found = True
    return found
