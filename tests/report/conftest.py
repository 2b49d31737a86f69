"""Fixtures of the report tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sparring.report import REPORT_SECTIONS


@pytest.fixture
def report_sections() -> Iterator[None]:
    """``REPORT_SECTIONS`` from its built-ins (no plug-in loaded), restored afterwards."""
    with REPORT_SECTIONS.snapshot():
        REPORT_SECTIONS.reset()
        yield
