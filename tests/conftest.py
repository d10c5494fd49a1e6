"""Shared fixtures of the Python test suite.

Real graphs come from ``$DISKGRAPH_SHARED_DATA`` (default: ``<repo>/../shared/data``); tests
that need them skip with the path in the reason when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("DISKGRAPH_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real-graph folder (skips the test if absent)."""
    if not (SHARED_DATA / "answers.json").is_file():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set DISKGRAPH_SHARED_DATA)")
    return SHARED_DATA
