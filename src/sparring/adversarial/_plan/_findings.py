"""Typed findings of the static scan and the graph they come with.

A ``Finding`` is one design gap the scan saw in the agent's code or Rasa project: its
``kind`` (what is wrong), ``severity``, the ``file`` (relative to the scanned folder) and
1-based ``line`` where it shows, the ``subject`` (an intent, slot, function…) and a
sentence for people. A ``ScanResult`` holds the findings, the NetworkX graph of states
and transitions the scan built, and which scanner ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import networkx as nx


class FindingKind(StrEnum):
    """What a finding says is wrong (Python scan, then Rasa scan)."""

    UNGUARDED_TOOL_CALL = "unguarded-tool-call"
    """A tool, HTTP or I/O call with no enclosing ``try``/``except``: a failure crashes the
    turn instead of being answered."""
    MISSING_FALLBACK_BRANCH = "missing-fallback-branch"
    """An intent dispatch (``if``/``elif`` on one value, ``match``) with no ``else``/``case
    _``: an unexpected input falls through."""
    UNCHECKED_DISPATCH = "unchecked-dispatch"
    """A handler table indexed with ``table[key]`` outside a ``try``: an unknown key raises
    ``KeyError``."""
    UNCHECKED_STATE_READ = "unchecked-state-read"
    """Memory or session state read with ``state[key]`` without a membership test or
    ``try``: a turn that comes before the key is set crashes."""
    SHARED_STATE_WRITE = "shared-state-write"
    """A handler writes module-level state (``global``): one user's conversation leaks
    into another's."""
    SWALLOWED_EXCEPTION = "swallowed-exception"
    """An ``except`` that only passes: a failure is hidden and the user gets no answer."""
    INTENT_UNHANDLED = "intent-unhandled"
    """A Rasa intent that no rule, story or slot mapping uses."""
    INTENT_ONLY_IN_FORM = "intent-only-in-form"
    """A Rasa intent used only by a form's slot mapping: outside the form nothing handles
    it."""
    INTENT_WITHOUT_EXAMPLES = "intent-without-examples"
    """A Rasa intent in the domain with no NLU training examples."""
    UNDECLARED_NAME = "undeclared-name"
    """An intent or action used in rules or stories but missing from the domain."""
    RESPONSE_UNUSED = "response-unused"
    """A response no rule, story, form or action uses."""
    ACTION_UNUSED = "action-unused"
    """A custom action no rule or story runs."""
    SLOT_NEVER_ASKED = "slot-never-asked"
    """A form's required slot with no ``utter_ask_…``/``action_ask_…``."""
    SLOT_WITHOUT_MAPPING = "slot-without-mapping"
    """A form's required slot that no mapping (or validation action) can fill."""
    SLOT_NEVER_FILLED = "slot-never-filled"
    """A slot with only custom mappings that no action code sets."""
    MAPPING_UNKNOWN_ENTITY = "mapping-unknown-entity"
    """A ``from_entity`` slot mapping names an entity the domain does not declare."""
    NO_NLU_FALLBACK = "no-nlu-fallback"
    """No ``FallbackClassifier`` in the pipeline, or no rule for ``nlu_fallback``."""
    FORM_INTERRUPTION_UNHANDLED = "form-interruption-unhandled"
    """An intent handled outside a form that no rule or story handles while the form is
    active (and whose examples fill none of the form's slots)."""
    STORIES_WITHOUT_FALLBACK = "stories-without-fallback"
    """No story shows a fallback, an out-of-scope message, a denial or an interrupted
    form: the dialogue policy learns happy paths only."""


Severity = Literal["high", "medium", "low"]


class Finding(BaseModel):
    """One design gap found by the static scan, located in the scanned folder."""

    model_config = ConfigDict(extra="forbid")

    kind: FindingKind
    severity: Severity
    file: str = Field(description="Path relative to the scanned folder (POSIX separators).")
    line: int | None = Field(default=None, description="1-based line, None when unknown.")
    subject: str = Field(description="What the finding is about: an intent, slot, function…")
    message: str
    evidence: list[str] = Field(
        default_factory=list,
        description="What the scan saw, verbatim: an intent's NLU examples (at most three); "
        "the source line of a call, then the called tool's docstring.",
    )

    @property
    def id(self) -> str:
        """``kind:subject``, unique within one scan."""
        return f"{self.kind.value}:{self.subject}"

    def located(self) -> str:
        """``file:line`` (``file`` alone when the line is unknown)."""
        return self.file if self.line is None else f"{self.file}:{self.line}"


SEVERITY_ORDER: dict[str, int] = {"high": 0, "medium": 1, "low": 2}


def _new_graph() -> nx.DiGraph[str]:
    import networkx as nx

    return nx.DiGraph()


@dataclass
class ScanResult:
    """What the static scan of one folder found.

    ``scanner`` is ``python`` or ``rasa``; ``graph`` is a ``networkx.DiGraph`` whose nodes
    are states (``kind`` attribute: handler, tool, function, branch, intent, action,
    response, form, slot) and whose edges are transitions (``kind``: calls, dispatches,
    predicts, asks, fills, follows); ``findings`` are sorted by severity, file and line.
    """

    source: str
    scanner: Literal["python", "rasa"]
    findings: list[Finding] = field(default_factory=list)
    graph: nx.DiGraph[str] = field(default_factory=lambda: _new_graph())
    files: int = 0

    def sort(self) -> None:
        """Order the findings by severity, then file and line."""
        self.findings.sort(
            key=lambda f: (SEVERITY_ORDER[f.severity], f.file, f.line or 0, f.subject)
        )
