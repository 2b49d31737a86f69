"""``sparring run`` on the third-party Rasa 1.10 bots nobody on the team wrote (issue 20):
black box and with ``--project``, offline, the run passes (or fails only on the bot's own
crashes, each with a traceback in its action server's log) — every failure these runs
used to report was sparring's own (a profile without an answer for a question the bot
asks on the way, an answer the bot took for another request, a value said with the
parameter's name in front, a form question written as a statement, synonyms taken for a
wrong value) — and it is backed by conversations that reached the bot's confirmations.
Skips without the shared data or the Rasa 1.10 runtime (``scripts/third_party_rasa.py``).
The bots keep state in module-level variables: concurrency 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from integration_support import ThirdPartyBot

from sparring.conversations import RunStore
from sparring.pipeline import PipelineResult, RunSettings, run_job

CONFIRMED = ("I have received your request", "I have scheduled your appointment")


def _run(bot: ThirdPartyBot, out: Path, project: bool) -> PipelineResult:
    settings = RunSettings(
        chatbot=bot.chatbot_yaml, concurrency=1, project=bot.project if project else None
    )
    result = run_job(settings, out)
    assert result.check is not None, result.untested
    if result.exit_code != 0:
        _assert_only_the_bots_own_crashes(bot, out, result)
    confirmed = [
        record.id
        for record in RunStore.open(out).iter_records()
        if any(t.role == "assistant" and any(c in t.text for c in CONFIRMED) for t in record.turns)
    ]
    assert confirmed, "no simulated conversation reached a booking confirmation"
    assert result.coverage is not None and (result.coverage.functionality_share or 0) >= 0.8
    return result


def _assert_only_the_bots_own_crashes(
    bot: ThirdPartyBot, out: Path, result: PipelineResult
) -> None:
    """A FAIL is right only when every failure is the bot's own: an empty reply
    (``no_response``) for each of which its action server logged a traceback. The bike
    shop's date validator crashes on some dates depending on the day the test runs (a list
    of two ``date`` entities reaches ``ctparse``; an underspecified time), so a run may meet
    it or not; any other failure is sparring's and fails the test."""
    assert result.check is not None
    failed = [record for record in RunStore.open(out).iter_records() if record.errors]
    codes = {error.cause for record in failed for error in record.errors}
    assert codes == {"empty_reply"}, result.check.outcome
    assert result.check.outcome.reasons == [f"generic failures: no_response {len(failed)}"]
    tracebacks = sum(
        log.read_text(errors="replace").count("Traceback")
        for log in bot.log_dir.glob("actions-*.log")
    )
    assert tracebacks >= len(failed), (tracebacks, result.check.outcome)


_VET_PROJECT_KNOWN = pytest.mark.xfail(
    strict=False,
    reason=(
        "issue 31, open (2026-11-28): with --project the profile drawn from the bot's data "
        "asks for 'noon' and the bot confirms '11:00' (its action parses the time with "
        "ctparse, whose 'noon' resolves to 11:00 in the bot's environment; the action log "
        "says 'Parsing time: noon'): a real wrong value that confirmation_mismatch now "
        "catches, so the run is right to FAIL there. Beside it one false red of sparring's "
        "own: after a confirmation stating 'physical examination' the user asks again for "
        "'check-up' (a synonym not read as met), and no_repeated_answers fires on the bot's "
        "second, identical confirmation. Remove this mark once synonyms count as met and "
        "the test names the bot's defect."
    ),
)


@pytest.mark.integration
@pytest.mark.parametrize(
    "project",
    [False, pytest.param(True, marks=_VET_PROJECT_KNOWN)],
    ids=["black-box", "project"],
)
def test_run_passes_the_veterinary_clinic_on_what_it_does(
    veterinary_bot: ThirdPartyBot, tmp_path: Path, project: bool
) -> None:
    result = _run(veterinary_bot, tmp_path / "run", project)
    if project:
        assert result.definition is not None
        assert result.definition.unreachable == {"services": "no NLU example, no story or rule"}
        assert len(result.definition.slots.reached) >= 2


@pytest.mark.integration
@pytest.mark.parametrize("project", [False, True], ids=["black-box", "project"])
def test_run_passes_the_bike_shop_on_what_it_does(
    bikeshop_bot: ThirdPartyBot, tmp_path: Path, project: bool
) -> None:
    result = _run(bikeshop_bot, tmp_path / "run", project)
    if project:
        assert result.definition is not None
        assert sorted(result.definition.slots.reached) == [
            "appointmentType",
            "costElement",
            "date",
            "time",
        ]
