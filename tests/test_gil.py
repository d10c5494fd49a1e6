"""The GIL is released while diskgraph works: Python threads keep running during an algorithm
run and during an import."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, List, Tuple

import numpy as np
import pytest

import diskgraph


def spin_while(call: Callable[[], object]) -> Tuple[float, float, List[float]]:
    """Runs ``call`` in a thread while this thread records timestamps in a Python loop.

    Returns the call's start and end times and the timestamps. If the call held the GIL, the
    main thread could not record anything between start and end (beyond one switch interval).
    """
    span: List[float] = []
    errors: List[BaseException] = []
    done = threading.Event()

    def worker() -> None:
        try:
            span.append(time.perf_counter())
            call()
            span.append(time.perf_counter())
        except BaseException as e:  # pragma: no cover - surfaced below
            errors.append(e)
        finally:
            done.set()

    stamps: List[float] = []
    t = threading.Thread(target=worker)
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    t.join()
    if errors:
        raise errors[0]
    return span[0], span[1], stamps


def inside(start: float, end: float, stamps: List[float], margin: float) -> int:
    return sum(1 for s in stamps if start + margin < s < end - margin)


@pytest.fixture(scope="module")
def big_graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    rng = np.random.default_rng(0)
    n, m = 100_000, 600_000
    path = tmp_path_factory.mktemp("gil") / "g"
    return diskgraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), path)


def test_run_releases_the_gil(big_graph: diskgraph.Graph) -> None:
    # Calibrate a PageRank run long enough to judge (>= 0.3 s), whatever the machine speed.
    iterations = 10
    while True:
        t0 = time.perf_counter()
        big_graph.pagerank(iterations=iterations)
        took = time.perf_counter() - t0
        if took >= 0.3 or iterations >= 100_000:
            break
        iterations = int(iterations * min(50.0, max(2.0, 0.4 / max(took, 1e-4))))
    start, end, stamps = spin_while(lambda: big_graph.pagerank(iterations=iterations))
    margin = 0.05
    assert end - start > 2 * margin
    # Holding the GIL would allow no timestamps at all in the window; expect many, spread out.
    count = inside(start, end, stamps, margin)
    assert count > 1000, f"main thread recorded only {count} timestamps during a {end - start:.2f} s run"
    window = [s for s in stamps if start + margin < s < end - margin]
    assert max(np.diff([start + margin] + window + [end - margin])) < 0.5 * (end - start)


def test_import_releases_the_gil(big_graph: diskgraph.Graph, tmp_path: Path) -> None:
    text = tmp_path / "edges.el"
    big_graph.export(text, "el")
    lines = text.read_bytes()
    # Calibrate an import long enough to judge (>= 0.3 s): the edge list repeated (the
    # duplicates are parsed, then removed), whatever the machine speed.
    copies = 1
    while True:
        text.write_bytes(lines * copies)
        out = tmp_path / f"copy{copies}"
        start, end, stamps = spin_while(lambda: diskgraph.import_file(text, out, memory="32MiB"))
        if end - start >= 0.3 or copies >= 64:
            break
        copies *= 4
    if end - start < 0.1:
        pytest.skip(f"an import of {copies} copies took only {end - start:.3f} s: too short to judge")
    count = inside(start, end, stamps, 0.02)
    assert count > 100, f"main thread recorded only {count} timestamps during a {end - start:.2f} s import"


def test_concurrent_runs_agree(big_graph: diskgraph.Graph) -> None:
    results: List[np.ndarray] = []
    lock = threading.Lock()

    def work() -> None:
        r = big_graph.wcc(threads=1).values
        with lock:
            results.append(r)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results[1:]:
        assert np.array_equal(r, results[0])
