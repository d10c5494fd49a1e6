"""``bench/soak.py`` takes its baseline — RSS, descriptors, threads; for the separate processes,
each job's peak — once every job has run once, so that what a job keeps from its first run is
in the baseline. The runs are faked here: each measure reads how many runs were made."""

from __future__ import annotations

import importlib.util
import io
import sys
import types
from pathlib import Path
from typing import Any, List

import pytest

REPO = Path(__file__).resolve().parent.parent


def load_soak(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``bench/soak.py`` as a module (listed in ``sys.modules`` while the test runs, as its
    dataclasses need)."""
    spec = importlib.util.spec_from_file_location("soak", REPO / "bench" / "soak.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "soak", module)
    spec.loader.exec_module(module)
    return module


class Runs:
    """Counts the runs made; every measure the soak takes returns that count."""

    def __init__(self) -> None:
        self.made = 0

    def measure(self, *_: Any) -> int:
        return self.made


def test_the_python_baseline_is_taken_after_every_job_ran_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    soak = load_soak(monkeypatch)
    runs = Runs()

    class FakeGraph:
        def run(self, *_: Any, **__: Any) -> None:
            runs.made += 1

    import diskgraph

    monkeypatch.setattr(diskgraph, "open", lambda _: FakeGraph())
    monkeypatch.setattr(soak, "rss_kib", runs.measure)
    monkeypatch.setattr(soak, "count", runs.measure)
    jobs = len(soak.JOBS)
    r = soak.soak_python(tmp_path, tmp_path, 3 * jobs)
    assert r.rss_baseline_kib == jobs
    assert r.fds[1] == jobs and r.threads[1] == jobs
    assert (r.rss_end_kib, r.fds[2]) == (3 * jobs, 3 * jobs)


def test_the_cli_baseline_is_each_jobs_first_run_after_every_job_ran_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    soak = load_soak(monkeypatch)
    runs = Runs()

    def popen(*_: Any, **__: Any) -> Any:
        runs.made += 1
        return types.SimpleNamespace(pid=0, stderr=io.BytesIO(), returncode=None)

    # A run's peak RSS is 1000 plus its number (from 0).
    peaks: List[int] = []

    def wait4(*_: Any) -> Any:
        peaks.append(1000 + runs.made - 1)
        return 0, 0, types.SimpleNamespace(ru_maxrss=peaks[-1])

    monkeypatch.setattr(soak.subprocess, "Popen", popen)
    monkeypatch.setattr(soak.os, "wait4", wait4)
    monkeypatch.setattr(soak.os, "waitstatus_to_exitcode", lambda _: 0)
    monkeypatch.setattr(soak, "count", runs.measure)
    jobs = len(soak.JOBS)
    r = soak.soak_cli("diskgraph", tmp_path, tmp_path, 3 * jobs)
    # Job j's baseline is run jobs + j (its second), its last run 2·jobs + j.
    assert r.rss_baseline_kib == sum(1000 + jobs + j for j in range(jobs)) // jobs
    assert r.rss_end_kib == sum(1000 + 2 * jobs + j for j in range(jobs)) // jobs
    assert r.fds[1] == jobs and r.threads[1] == jobs
    assert r.failures == []
