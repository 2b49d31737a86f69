"""Fixtures of the metamorphic tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mt_fixtures import STORY


@pytest.fixture
def coqa_file(tmp_path: Path) -> Path:
    path = tmp_path / "story.json"
    path.write_text(json.dumps(STORY))
    return path
