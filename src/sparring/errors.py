"""The exception tree shared by every sparring package.

Three families, as in the project's style guide:

- ``UserInputError`` — the user's mistake: a bad YAML file, profile, rule or chatbot
  config. Carries file, line and key so the CLI can point at it; the CLI exits with code 2.

  - ``ConfigError`` — several located problems found in one file (``problems``).
  - ``UnknownName`` (also a ``LookupError``) — no connector, model provider, rule function
    or schema is registered under a name: says which are, "did you mean", and why a
    plug-in of that name failed to load (``sparring.registry``).

- ``ChatbotFailure`` — the chatbot under test failed (crash, timeout, garbage). Recorded
  on the conversation with a SENSEI error code; the run goes on.

  - ``ChatbotCrash`` (code 500), ``ChatbotTimeout`` (code 504), ``BadPayload`` (code 500),
    ``ReplyTooLarge`` (code 500, a reply over the connector's ``max_reply_bytes``).

- ``SparringError`` — the root; our own failures (e.g. ``ModelError``) derive from it
  directly.

  - ``ModelError`` — a model call failed after retries, or its reply never validated
    (``raw`` keeps the last text). ``BudgetExceeded`` — a cost limit stops further calls.
  - ``ModelRequired`` — a step that has no offline strategy was asked to run without a
    model (the message names the ``--model`` setting); a rule reports it as ``unscored``.
  - ``DuplicateName`` — code (ours or a plug-in's) registered a name twice without
    asking to replace it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError


class SparringError(Exception):
    """Root of every error sparring raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One located problem in a user's file.

    ``line`` is 1-based (``None`` when unknown); ``key`` is a dotted path such as
    ``user.goals[2].size.function``.
    """

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        key = f" [{self.key}]" if self.key else ""
        if not where and not key:
            return self.message
        return f"{where}{key}: {self.message}"


class UserInputError(SparringError):
    """A user's file or argument is wrong. ``problems`` lists every located problem."""

    def __init__(self, problems: list[Problem] | Problem | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(file="", line=None, key="", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = problems
        super().__init__("\n".join(str(p) for p in problems))


class ConfigError(UserInputError):
    """A configuration file (profile, rule, chatbot.yaml) failed to load."""


class UnknownName(UserInputError, LookupError):
    """Nothing of kind ``kind`` (``connector``, ``schema``…) is registered as ``name``.

    ``available`` lists the registered names (sorted), ``suggestions`` the close ones
    ("did you mean"), ``reason`` why a plug-in of that name failed to load (``None`` when
    none did). ``at(file, line, key)`` returns the same error located in a user's file.
    """

    template = "unknown {kind} {name!r}{hint}; available: {available}"
    """The message when no plug-in failed; subclasses may reword it."""

    def __init__(
        self,
        kind: str,
        name: str,
        available: list[str],
        *,
        suggestions: list[str] | None = None,
        reason: str | None = None,
        where: Problem | None = None,
    ) -> None:
        self.kind, self.name, self.available = kind, name, available
        self.suggestions = suggestions or []
        self.reason = reason
        hint = (
            f" (did you mean {' or '.join(map(repr, self.suggestions))}?)"
            if self.suggestions
            else ""
        )
        message = self.template.format(
            kind=kind, name=name, hint=hint, available=", ".join(available) or "(none)"
        )
        if reason:
            message = f"{kind} plug-in {name!r} failed to load: {reason}"
        where = where or Problem("", None, "", "")
        super().__init__(Problem(where.file, where.line, where.key, message))

    @property
    def message(self) -> str:
        """The problem's text, without its location."""
        return self.problems[0].message

    def at(self, file: str, line: int | None, key: str) -> UnknownName:
        """This error located at ``file:line [key]`` (same class and fields)."""
        return type(self)(
            self.kind,
            self.name,
            self.available,
            suggestions=self.suggestions,
            reason=self.reason,
            where=Problem(file, line, key, ""),
        )


class ChatbotFailure(SparringError):
    """The chatbot under test failed. ``code`` is SENSEI's error code for it."""

    code: int = 500
    name: str = "no_response"
    cause: str = "crash"
    """Which failure exactly (``crash``, ``timeout``, ``bad_payload``, ``too_large``), kept
    on the record."""


class ChatbotCrash(ChatbotFailure):
    """The chatbot answered with an HTTP error, closed the connection or raised."""

    code = 500
    name = "no_response"
    cause = "crash"


class ChatbotTimeout(ChatbotFailure):
    """The chatbot did not answer within the configured timeout (seconds)."""

    code = 504
    name = "timeout"
    cause = "timeout"


class BadPayload(ChatbotFailure):
    """The chatbot answered, but with something that is not a readable reply."""

    code = 500
    name = "no_response"
    cause = "bad_payload"


class ReplyTooLarge(ChatbotFailure):
    """The chatbot's reply is larger than the connector's ``max_reply_bytes``: it was read
    no further than that limit (so a huge body cannot exhaust memory)."""

    code = 500
    name = "no_response"
    cause = "too_large"


class ModelError(SparringError):
    """A model call failed after its retries, or its reply never validated.

    ``raw`` keeps the last reply text (``None`` when the provider never answered).
    """

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class ModelRequired(SparringError):
    """A step with no offline strategy ran with no model configured.

    ``step`` names it (e.g. ``only_talks_about``); the message says how to configure one
    (``--model`` on the command line, ``model:`` in the configuration).
    """

    def __init__(self, step: str, detail: str = "") -> None:
        self.step = step
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"{step} needs a language model{extra}: none is configured; pass --model NAME "
            "(e.g. --model gpt-4o-mini, or a local model) or set `model:` in the configuration"
        )


class DuplicateName(SparringError, ValueError):
    """``name`` is already registered as a ``kind`` and replacing it was not asked for."""

    def __init__(self, kind: str, name: str, existing: object) -> None:
        self.kind, self.name, self.existing = kind, name, existing
        owner = getattr(existing, "__module__", None) or type(existing).__module__
        super().__init__(
            f"{kind} {name!r} is already registered (by {owner}); choose another name, or "
            "register with replace=True to replace it"
        )


class BudgetExceeded(SparringError):
    """A cost limit (US dollars) forbids the next model call.

    ``scope`` is ``"run"`` (SENSEI code 2000) or ``"conversation"`` (code 2001).
    """

    def __init__(self, scope: str, limit: float, spent: float) -> None:
        self.scope = scope
        self.limit = limit
        self.spent = spent
        super().__init__(f"{scope} budget of ${limit:.4f} reached (spent ${spent:.4f})")

    @property
    def code(self) -> int:
        """SENSEI's error code: 2000 (run budget) or 2001 (conversation budget)."""
        return 2001 if self.scope == "conversation" else 2000


def validation_problems(
    exc: ValidationError, file: str, *, prefix: tuple[str, ...] = (), what: str | None = None
) -> list[Problem]:
    """One located ``Problem`` per error of a Pydantic ``ValidationError``: in ``file``, at
    the dotted key (under ``prefix``); ``what`` names the model in the message (``not a
    valid <what>: …``)."""
    lead = f"not a valid {what}: " if what else ""
    return [
        Problem(
            file, None, ".".join([*prefix, *(str(p) for p in error["loc"])]), lead + error["msg"]
        )
        for error in exc.errors()
    ]
