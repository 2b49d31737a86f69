"""Goal templates as a person would say them, offline.

Profile authors write goals for a model to read ("First, order a {{size}} pizza",
"Setting an appointment for {{date}}, at {{hour}}", "Inform that you have a website with
{{visits}} visits", "Third, order a coke, after ordering the pizza toppings"). Sent word for
word they are instructions, not utterances. ``goal_utterances`` turns one rendered goal
into a few natural phrasings (the agenda picks one with its seeded generator and another
when the chatbot did not understand):

1. **Scaffolding dropped**: leading ordinals and sequencing words ("First,", "Then",
   "Finally", "Step 2:") and trailing sequencing clauses (", after ordering the toppings",
   ", once confirmed"); the sequence itself is the agenda's order.
2. **Instructions to the user become the user's words**: "Inform that you have X" → "I have
   X"; "Ask for X" → "I'd like X"; "Inquire if X" → "I'd like to know if X"; "Express
   interest in X" → "I'm interested in X"; outside questions, the second person is the user
   ("your phone number is 5" → "my phone number is 5").
3. **A frame by form**: questions stay questions; a gerund ("Setting an appointment…")
   gets "I need help setting an appointment…"; a noun phrase ("a small pizza") gets
   "I'd like a small pizza" / "Can I get a small pizza?" / "A small pizza, please."; a
   task verb ("order a coke") gets "I'd like to order a coke" / "Can I order a coke?".

Rephrasings are alternative phrasings of the goal itself, never a prefix on the previous
utterance, so they cannot nest. Interaction styles are applied afterwards by the caller.
"""

from __future__ import annotations

import re

_SCAFFOLD = re.compile(
    r"^\s*(?:(?:(?:first|second|third|fourth|fifth|last|step \d+)\s*[,:]|firstly|secondly|"
    r"thirdly|then|next|after that|afterwards|finally|lastly|at last|to (?:start|begin|"
    r"finish)\s*,|and then|\d+[.)])\s*[,:.]?\s+)+",
    re.IGNORECASE,
)
_SEQUENCE_CLAUSE = re.compile(
    r",?\s*(?:\b(?:only\s+)?(?:after|before|once|as soon as|when|following)\b[^,.;?!]*"
    r"(?:confirm\w*|done|finished|order\w*|ask\w*|given|receiv\w*|complet\w*|answer\w*)"
    r"[^,.;?!]*)\s*$",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:what|which|when|where|who|whom|whose|why|how|is|are|am|do|does|did|can|could|"
    r"will|would|should|shall|may|have|has)\b",
    re.IGNORECASE,
)
_INFORM = re.compile(
    r"^(?:inform|tell|say|mention|explain|state|indicate|specify|clarify|let (?:it|them|"
    r"the (?:chatbot|bot|assistant)) know)\b(?:\s+(?:the (?:chatbot|bot|assistant)|them|it))?"
    r"(?:\s+that)?\s+",
    re.IGNORECASE,
)
_ASK = re.compile(r"^(?:ask|request|inquire)\s+(?:for|about)\s+", re.IGNORECASE)
_ASK_IF = re.compile(r"^(?:ask|inquire|check|find out)\s+(?:if|whether)\s+", re.IGNORECASE)
_INTEREST = re.compile(r"^(?:express|show|state)\s+(?:your\s+)?interest\s+in\s+", re.IGNORECASE)
_ASK_QUESTION = re.compile(r"^ask\s+(?=(?:what|which|when|where|how|why|who)\b)", re.IGNORECASE)
_NOUN_START = re.compile(
    r"^(?:a|an|the|some|one|two|three|four|five|six|seven|eight|nine|ten|\d+|my|another|"
    r"any|more|extra|few|several)\b",
    re.IGNORECASE,
)
_ON_DAY = re.compile(r"\bon (today|tomorrow|tonight)\b", re.I)
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|does|do|did|will|can)\b", re.I)
_FOLLOWING = re.compile(r"^the following (\w+(?: \w+)?):\s*(.+)$", re.IGNORECASE)
TASK_VERBS = frozenset(
    [
        "order",
        "book",
        "buy",
        "get",
        "make",
        "schedule",
        "set",
        "reserve",
        "cancel",
        "change",
        "rent",
        "repair",
        "find",
        "check",
        "know",
        "see",
        "have",
        "add",
        "pay",
        "request",
        "arrange",
        "modify",
        "update",
        "return",
        "fix",
        "hire",
        "subscribe",
        "register",
        "sign",
        "open",
        "close",
        "track",
        "send",
        "deliver",
        "pick",
    ]
)
"""Verbs that start a task goal written as an imperative ("order a coke")."""
_SECOND_PERSON = (
    (re.compile(r"\byou are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou're\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou have\b", re.IGNORECASE), "I have"),
    (re.compile(r"\byou've\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byou\b(?=\s+(?:want|need|would|will|can|like|live|own|prefer|were|had))",
                re.IGNORECASE), "I"),
)  # fmt: skip


def strip_scaffolding(goal: str) -> str:
    """``goal`` without leading ordinals/sequencing words and trailing sequencing clauses
    (and without a closing full stop)."""
    text = _SCAFFOLD.sub("", goal.strip().rstrip("."))
    stripped = _SEQUENCE_CLAUSE.sub("", text).strip()
    return (stripped or text).strip().rstrip(",;")


def is_question(text: str) -> bool:
    """Whether ``text`` is written as a question (a question mark or a wh-/aux start)."""
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text.strip()))


def first_person(text: str) -> str:
    """The second person of an instruction to the user, as the user says it."""
    for pattern, replacement in _SECOND_PERSON:
        text = pattern.sub(replacement, text)
    return text


def goal_utterances(goal: str) -> list[str]:
    """Natural phrasings of one rendered goal (see the module docstring); the first is the
    plainest. Never empty: a goal that fits no form is sent as one tidy sentence."""
    core = strip_scaffolding(goal)
    if not core:
        return [goal.strip()]
    if _ASK_QUESTION.match(core):
        core = _ASK_QUESTION.sub("", core)
        return [_sentence(core, "?")]
    if is_question(core):
        return [_sentence(core, "?")]
    inform = _INFORM.match(core)
    if inform:
        said = first_person(core[inform.end() :])
        return [_sentence(said), _sentence("Just so you know, " + _lower_first(said))]
    core = first_person(_ON_DAY.sub(r"\1", core))  # "on tomorrow" → "tomorrow"
    asks_if = _ASK_IF.match(core)
    if asks_if:  # "Inquire if the shop sells electric bikes"
        rest = core[asks_if.end() :]
        return [
            _sentence("I'd like to know if " + rest),
            _sentence("Can you tell me if " + rest, "?"),
        ]
    interest = _INTEREST.match(core)
    if interest:  # "Express interest in learning more about X"
        rest = core[interest.end() :]
        return [_sentence("I'm interested in " + rest), _sentence("I'd like to hear about " + rest)]
    ask = _ASK.match(core)
    if ask and ask.group(0).rstrip().lower().endswith("about"):  # "Inquire about X"
        rest = core[ask.end() :]
        return [
            _sentence("Can you tell me about " + rest, "?"),
            _sentence("I'd like to know about " + rest),
        ]
    if ask:
        core = core[ask.end() :]
        return _noun_phrasings(core)
    following = _FOLLOWING.match(core)
    if following:
        noun, value = following.groups()
        return [
            f"I'd like {value} as the {noun}.",
            f"{_upper_first(value)} for the {noun}, please.",
        ]
    first = core.split(maxsplit=1)[0].lower()
    if first.endswith("ing") and len(first) > 4:
        return [
            _sentence("I need help " + _lower_first(core)),
            _sentence("Can you help me with " + _lower_first(core), "?"),
        ]
    if first in TASK_VERBS:
        return [
            _sentence("I'd like to " + _lower_first(core)),
            _sentence("Can I " + _lower_first(core), "?"),
            _sentence("I want to " + _lower_first(core)),
        ]
    if _NOUN_START.match(core) and not _FINITE.search(core):  # not "The details are wrong"
        return _noun_phrasings(core)
    return [_sentence(core)]


def rephrasings(utterance: str) -> list[str]:
    """Other ways to say a goal that fits no form (after a fallback): never nested."""
    core = utterance.rstrip("?!")
    end = utterance[len(core) :]
    return [_sentence("I mean, " + _lower_first(core), end), _sentence(core + ", please", end)]


def _noun_phrasings(phrase: str) -> list[str]:
    low = _lower_first(phrase)
    return [
        _sentence("I'd like " + low),
        _sentence("Can I get " + low, "?"),
        _sentence(_upper_first(phrase) + ("" if phrase.lower().endswith("please") else ", please")),
    ]


def _sentence(text: str, end: str = "") -> str:
    """A chat message: first letter up, no trailing full stop (people typing to a chatbot
    rarely add one), ``end`` ("?") added to questions."""
    text = text.strip().rstrip(",;:.")
    if not text:
        return text
    text = _upper_first(text)
    return text if text[-1] in "?!" else text + end


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    """Lower-cases the first letter unless the first word looks like a name or acronym."""
    word = text.split(maxsplit=1)[0] if text.split() else ""
    if word[1:2].isupper() or word == "I" or word.startswith("I'"):
        return text
    return text[:1].lower() + text[1:]
