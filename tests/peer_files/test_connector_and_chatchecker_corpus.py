"""Every connector file, SENSEI run.yml, ChatChecker chatbot config and ChatChecker persona
in ../shared/data: each loads, loads with a warning, or is refused with a reason — none is
silently lost (docs/peer-files-connectors.md lists the outcomes)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from sparring.connectors import is_chatbot_file, load_chatbot_config
from sparring.errors import ConfigError
from sparring.profiles import is_chatchecker_persona, load_persona_file

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def _outcome(path: Path, data: object) -> str:
    try:
        if is_chatchecker_persona(data):
            load_persona_file(path)
            return "persona loads"
        config = load_chatbot_config(path)
    except ConfigError as exc:
        assert all(p.message and p.file for p in exc.problems)
        return "refused"
    return "chatbot loads with a warning" if config.warnings else "chatbot loads"


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")
def test_every_published_connector_and_chatchecker_file() -> None:
    outcomes: Counter[str] = Counter()
    for path in sorted(SHARED.rglob("*.y*ml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue  # not a file of these formats (part A's corpus test covers the rest)
        if is_chatchecker_persona(data) or is_chatbot_file(data):
            outcomes[_outcome(path, data)] += 1
    assert outcomes["persona loads"] >= 250  # ChatChecker's generated personas, all of them
    assert outcomes["chatbot loads"] >= 3  # ChatChecker's config, SENSEI's run.yml and file
    assert outcomes["refused"] == 0
