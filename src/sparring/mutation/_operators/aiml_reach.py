"""Which categories of an AIML set the test conversations reach, to sample mutants where
the tests can see them (``sparring mutate --exercised-only``).

A large set hides a small test suite: ALICE has about 98,000 categories, so a uniformly
sampled mutant almost never touches a category any profile's utterance reaches, and the
mutation score measures the sample, not the tests. Mutation tools for code restrict
mutants to covered lines for the same reason (PIT, Coles et al., ISSTA 2016); for a black
box the coverage comes from the original run's user utterances.

The matcher follows AIML 1.0's Graphmaster (Wallace, "The Elements of AIML Style", 2003):
the input is upper-cased, split into sentences and stripped of punctuation; at each word
``_`` is tried first, then the word itself, then ``*`` (each wildcard one word or more;
AIML 2.0's ``#`` and ``^`` zero or more, tried first and after the word). A reached
category's ``<srai>``/``<sr/>`` redirections are followed with the matched stars
substituted, five levels deep. A category's ``<that>`` is matched against the last sentence
of the bot's previous reply, as the interpreter does. It is an approximation, said so in
the docs: ``<topic>`` is taken to be unset, ``<that>`` inside a redirection is the
original reply's, and the interpreter's substitution tables are reduced to English
contractions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sparring.mutation._model import Location
from sparring.mutation._operators.aiml import Category, aiml_files, categories

CategoryKey = tuple[str, int]
"""A category: its file (relative, POSIX) and its 1-based number there."""

SRAI_DEPTH = 5
_SENTENCES = re.compile(r"[.!?;]+")
_NOT_WORD = re.compile(r"[^\w\s*#^]+")
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'m\b", re.I), " am"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'s\b", re.I), " is"),
    (re.compile(r"'ll\b", re.I), " will"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'d\b", re.I), " would"),
)
_XML_TAG = re.compile(r"<[^>]*>")
_SRAI = re.compile(r"<srai\b[^>]*>(.*?)</srai\s*>|<sr\s*/>", re.DOTALL)
_STAR = re.compile(r"<star\b(?:[^>]*?\bindex\s*=\s*[\"'](\d+)[\"'])?[^>]*/>")
_KEY_NUMBERS = re.compile(r"^category (\d+)(?:,(\d+))?")
_ONE_OR_MORE = ("_", "*")
_ZERO_OR_MORE = ("#", "^")
_THAT_TAG = re.compile(r"<that\b[^>]*>(.*?)</that\s*>", re.DOTALL)
THAT, TOPIC = "<THAT>", "<TOPIC>"
"""Markers between the input, the previous reply and the topic in a matching path."""
UNDEFINED = ("UNDEFINED",)
"""The previous reply (and topic) of the first turn, as PyAIML leaves them."""
Utterance = tuple[str, str | None]
"""A user utterance and the bot's reply just before it (``None`` on the first turn)."""


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    categories: list[Category] = field(default_factory=list)


def sentences(text: str) -> list[list[str]]:
    """``text`` as AIML input: upper-case word lists, one per sentence."""
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    found = []
    for sentence in _SENTENCES.split(text):
        words = _NOT_WORD.sub(" ", sentence).upper().split()
        if words:
            found.append(words)
    return found


class Graphmaster:
    """The patterns of a set of categories in a word trie (see the module docstring)."""

    def __init__(self, found: Iterable[Category]) -> None:
        self.root = _Node()
        for category in found:
            that = _THAT_TAG.search(category.text, category.start, category.end)
            path = [
                *_pattern_words(category.pattern),
                THAT,
                *(_pattern_words(that.group(1)) if that is not None else ["*"]),
                TOPIC,
                "*",
            ]
            node = self.root
            for word in path:
                node = node.children.setdefault(word, _Node())
            node.categories.append(category)

    def match(
        self, words: Sequence[str], that: Sequence[str] = UNDEFINED
    ) -> tuple[list[Category], list[str]]:
        """The categories of the best-matching path for the input ``words`` after the
        reply sentence ``that`` and the words each pattern wildcard took (the stars, in
        order, then the that-stars); ``([], [])`` when nothing matches."""
        path = [*words, THAT, *(that or UNDEFINED), TOPIC, *UNDEFINED]
        found = self._match(self.root, path, 0, [])
        return found if found is not None else ([], [])

    def _match(
        self, node: _Node, words: Sequence[str], at: int, stars: list[str]
    ) -> tuple[list[Category], list[str]] | None:
        if at == len(words):
            if node.categories:
                return node.categories, stars
            for wildcard in _ZERO_OR_MORE:  # a trailing zero-length wildcard
                child = node.children.get(wildcard)
                if child is not None and child.categories:
                    return child.categories, [*stars, ""]
            return None
        if words[at] in (THAT, TOPIC):
            child = node.children.get(words[at])
            return self._match(child, words, at + 1, stars) if child is not None else None
        order = ("#", "_", words[at], "^", "*")
        for key in order:
            child = node.children.get(key)
            if child is None:
                continue
            if key not in _ONE_OR_MORE and key not in _ZERO_OR_MORE:
                found = self._match(child, words, at + 1, stars)
            else:
                first = at if key in _ZERO_OR_MORE else at + 1
                found = None
                for end in range(first, len(words) + 1):
                    if end > at and words[end - 1] in (THAT, TOPIC):
                        break  # a wildcard never crosses into the reply or the topic
                    star = " ".join(words[at:end])
                    found = self._match(child, words, end, [*stars, star])
                    if found is not None:
                        break
            if found is not None:
                return found
        return None


def _pattern_words(text: str) -> list[str]:
    return _XML_TAG.sub(" * ", text).upper().split()


def _last_sentence(reply: str | None) -> tuple[str, ...]:
    if not reply:
        return UNDEFINED
    found = sentences(reply)
    return tuple(found[-1]) if found else UNDEFINED


def _redirections(category: Category, stars: Sequence[str]) -> list[str]:
    """The inputs a reached category's ``<srai>``/``<sr/>`` send back to the matcher."""
    template = category.template()
    if template is None:
        return []
    text = category.text[template[0] : template[1]]

    def star(match: re.Match[str]) -> str:
        index = int(match.group(1) or 1) - 1
        return stars[index] if 0 <= index < len(stars) else ""

    inputs = []
    for found in _SRAI.finditer(text):
        inner = found.group(1)
        if inner is None:  # <sr/> is <srai><star/></srai>
            inputs.append(stars[0] if stars else "")
        else:
            inputs.append(_XML_TAG.sub(" ", _STAR.sub(star, inner)))
    return [i for i in inputs if i.strip()]


def reached_categories(project: Path, utterances: Iterable[Utterance]) -> set[CategoryKey]:
    """The categories of the project's ``*.aiml`` files that ``utterances`` (each a user
    utterance and the bot's reply before it) reach, directly or through up to
    ``SRAI_DEPTH`` redirections (see the module docstring)."""
    every = [
        category
        for path in aiml_files(project)
        for category in categories(
            path.relative_to(project).as_posix(), path.read_text(encoding="utf-8")
        )
    ]
    graph = Graphmaster(every)
    reached: set[CategoryKey] = set()
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    pending = [
        (tuple(words), _last_sentence(before), 0)
        for text, before in utterances
        for words in sentences(text)
    ]
    while pending:
        words, that, depth = pending.pop()
        if (words, that) in seen:
            continue
        seen.add((words, that))
        matched, stars = graph.match(words, that)
        for category in matched:
            reached.add((category.file, category.number))
            if depth < SRAI_DEPTH:
                for redirected in _redirections(category, stars):
                    pending.extend((tuple(w), that, depth + 1) for w in sentences(redirected))
    return reached


def reached_filter(project: Path, utterances: Iterable[Utterance]) -> Callable[[Location], bool]:
    """A predicate on AIML mutant locations: true when the location's category (either
    category, for a swap) is reached by ``utterances``."""
    reached = reached_categories(project, utterances)

    def keep(location: Location) -> bool:
        found = _KEY_NUMBERS.match(location.key)
        if found is None:
            return True
        numbers = [int(n) for n in found.groups() if n is not None]
        return any((location.file, n) in reached for n in numbers)

    return keep
