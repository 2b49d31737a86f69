"""Rasa operators on the domain's responses: delete an entity or slot parameter, swap two
responses.

After the operators for task-oriented chatbots of Gómez-Abajo et al., "A tool for the
definition and application of mutation operators for chatbots" (SENSEI §7.1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial

from sparring.mutation._operators.rasa_base import Candidate, RasaOperator, located
from sparring.mutation._operators.rasa_model import numbered, replace_span
from sparring.mutation._registry import mutation_operator
from sparring.rasa_project import Payload, RasaProject, Response, Span, YamlFile

_PLACEHOLDER = re.compile(r" ?\{(\w+)\}")
_PAYLOAD = re.compile(r"^(\s*/[^{]*?)\s*(\{.*\})\s*$", re.DOTALL)
_PLAIN_SAFE = re.compile(r"^[\w/.\-]+$")


def payload_entities(value: str) -> tuple[str, dict[str, object]] | None:
    """``/intent{"entity": "value", …}`` → ``("/intent", entities)``; ``None`` for a
    payload without entities."""
    match = _PAYLOAD.match(value)
    if not match:
        return None
    try:
        entities = json.loads(match.group(2))
    except json.JSONDecodeError:
        return None
    return (match.group(1), entities) if isinstance(entities, dict) and entities else None


def _quoted(value: str, style: str | None) -> str:
    """``value`` written as a YAML scalar in ``style`` (plain only when safe)."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style is None and _PLAIN_SAFE.match(value):
        return value
    return json.dumps(value, ensure_ascii=False)


@mutation_operator
class DeleteResponseParameter(RasaOperator):
    """A parameter deleted from a response: a ``{slot}`` placeholder of a text (with the
    space before it), or an entity of a button's payload (``/inform{"pizza":"hawaiian"}``
    → ``/inform``). Locations: ``response:<name>[<variation>]/{slot}`` and
    ``response:<name>[<variation>]/button <n>/<entity>``."""

    name = "rasa.delete_response_parameter"
    description = "delete a slot placeholder or a button's entity from a response"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        for domain in project.domains:
            for response in domain.responses:
                yield from self._in_texts(domain, response)
                yield from self._in_payloads(domain, response)

    def _in_texts(self, domain: YamlFile, response: Response) -> Iterator[Candidate]:
        for variation, span in response.texts:
            raw = domain.text[span.start : span.end]
            found = list(_PLACEHOLDER.finditer(raw))
            labels = numbered("{" + match.group(1) + "}" for match in found)
            for label, match in zip(labels, found, strict=True):
                where = Span(span.start + match.start(), span.start + match.end(), span.line)
                key = f"response:{response.name}[{variation}]/{label}"
                line = span.line + raw.count("\n", 0, match.start())
                edit = partial(self._cut, domain, response.name, where, match.group(1))
                yield located(domain.path, key, line, edit)

    @staticmethod
    def _cut(domain: YamlFile, response: str, where: Span, slot: str) -> tuple[dict[str, str], str]:
        said = f"Deleted the parameter {{{slot}}} from response `{response}`."
        return {domain.path: replace_span(domain.text, where.start, where.end, "")}, said

    def _in_payloads(self, domain: YamlFile, response: Response) -> Iterator[Candidate]:
        for variation, button, payload in response.payloads:
            parsed = payload_entities(payload.value)
            for entity in parsed[1] if parsed else ():
                key = f"response:{response.name}[{variation}]/button {button}/{entity}"
                edit = partial(self._drop, domain, response.name, button, payload, entity)
                yield located(domain.path, key, payload.span.line, edit)

    @staticmethod
    def _drop(
        domain: YamlFile, response: str, button: int, payload: Payload, entity: str
    ) -> tuple[dict[str, str], str]:
        parsed = payload_entities(payload.value)
        if parsed is None or entity not in parsed[1]:
            raise ValueError(f"payload {payload.value!r} has no entity {entity!r}")
        intent, entities = parsed
        rest = {name: value for name, value in entities.items() if name != entity}
        value = intent + (json.dumps(rest, ensure_ascii=False) if rest else "")
        text = replace_span(
            domain.text, payload.span.start, payload.span.end, _quoted(value, payload.style)
        )
        said = (
            f"Deleted entity `{entity}` from the payload of button {button} of response "
            f"`{response}`: {payload.value} → {value}."
        )
        return {domain.path: text}, said


@mutation_operator
class SwapResponses(RasaOperator):
    """The bodies (every variation, with buttons) of two responses exchanged, so each
    name says the other's text. Locations are each response with the next one in its
    domain file: ``response:<first><><second>``."""

    name = "rasa.swap_responses"
    description = "swap two responses (each response with the next one)"

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        for domain in project.domains:
            pairs = zip(domain.responses, domain.responses[1:], strict=False)
            for first, second in pairs:
                if first.block == second.block:
                    key = f"response:{first.name}<>{second.name}"
                    edit = partial(self._swap, domain, first, second)
                    yield located(domain.path, key, first.line, edit)

    @staticmethod
    def _swap(domain: YamlFile, first: Response, second: Response) -> tuple[dict[str, str], str]:
        text = domain.text
        a, b = first.body, second.body
        swapped = (
            text[: a.start]
            + text[b.start : b.end]
            + text[a.end : b.start]
            + text[a.start : a.end]
            + text[b.end :]
        )
        said = f"Swapped responses `{first.name}` and `{second.name}`."
        return {domain.path: swapped}, said
