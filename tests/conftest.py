"""Shared fixtures of the Python test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
REAL_DATA = REPO / "testdata" / "real"


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The real graphs shipped in ``testdata/real`` (copies of the project's shared datasets)."""
    return REAL_DATA
