"""Shared fixtures of the Python test suite, and ``--cpu-load N``: N busy processes beside the
tests for the whole session, so that what passes on a quiet machine is also seen to pass on a
loaded one (scripts/test.sh runs the tests of waits and interrupts that way)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parent.parent
REAL_DATA = REPO / "testdata" / "real"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-load",
        type=int,
        default=0,
        metavar="N",
        help="keep N processes busy (at the tests' priority) for the whole session",
    )


@pytest.fixture(scope="session", autouse=True)
def python_handles_sigint() -> Iterator[None]:
    """Python's own Ctrl-C handler, however the suite was started. A shell starts a background
    job (``./scripts/test.sh &``, ``nohup``) with SIGINT ignored, and Python then leaves it
    ignored: the tests that interrupt a run with SIGINT would wait for an exception that never
    comes (``_thread.interrupt_main`` is ignored too)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="session", autouse=True)
def cpu_load(request: pytest.FixtureRequest) -> Iterator[int]:
    """The busy processes ``--cpu-load`` asks for, stopped when the session ends; yields their
    number."""
    count = request.config.getoption("--cpu-load")
    if count < 0:
        raise pytest.UsageError(f"--cpu-load {count}: expected a number of processes, 0 or more")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield count
    finally:
        for p in busy:
            p.kill()
        for p in busy:
            p.wait()


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The real graphs shipped in ``testdata/real`` (copies of the project's shared datasets)."""
    return REAL_DATA
