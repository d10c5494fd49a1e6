"""KeyboardInterrupt during a run: Ctrl-C (SIGINT, or ``_thread.interrupt_main``) stops a run on
any engine within 2 s, raises KeyboardInterrupt, leaves no scratch files or threads behind, and
the graph gives the same answers afterwards."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Set

import numpy as np
import pytest

import diskgraph
from helpers import interrupted_after

ENGINES = ["memory", "selective", "stream", "sync", "shards"]

# The longest a run may take to stop after the interrupt.
PROMPT = 2.0


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    """A random graph (50k vertices, 400k edges) with a grid layout and shards."""
    rng = np.random.default_rng(34)
    n, m = 50_000, 400_000
    g = diskgraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), tmp_path_factory.mktemp("intr") / "g")
    g.partition(memory="4MiB")
    g.partition_shards(4)
    return g


def threads() -> Set[int]:
    """This process's threads (their IDs)."""
    return {int(t) for t in os.listdir("/proc/self/task")}


def long_pagerank(g: diskgraph.Graph, engine: str, **options: object) -> Callable[[], object]:
    """A PageRank run of hours on any engine (ten million iterations)."""
    return lambda: g.pagerank(
        engine=engine,  # type: ignore[arg-type]
        memory="64MiB",
        iterations=10**7,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture()
def no_leftover_threads() -> Iterator[None]:
    before = threads()
    yield
    # The run's thread, its worker pool and its engine's I/O threads are gone by then (a pool's
    # threads end on their own once it is dropped: a moment is allowed). Threads of earlier
    # tests may end meanwhile: only new ones count.
    deadline = time.monotonic() + 5
    while threads() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not threads() - before, "threads the run started are still there"


@pytest.mark.parametrize("engine", ENGINES)
def test_keyboard_interrupt_stops_a_run_promptly(
    graph: diskgraph.Graph, engine: str, tmp_path: Path, no_leftover_threads: None
) -> None:
    expected = graph.pagerank(engine=engine, iterations=2, memory="64MiB").values  # type: ignore[arg-type]
    options = {"scratch": str(tmp_path)} if engine == "shards" else {}
    took = interrupted_after(0.5, _thread.interrupt_main, long_pagerank(graph, engine, **options))
    assert took < PROMPT, f"{engine}: KeyboardInterrupt {took:.2f} s after the interrupt"
    assert list(tmp_path.iterdir()) == [], "the run's scratch files were left behind"
    assert not [p for p in Path(graph.path).iterdir() if p.name.startswith(".")], "temporaries left in the graph"
    # The graph is as usable as before: the same answer as before the interrupt (the stream and
    # selective engines' atomic float sums agree up to rounding, the others bit for bit).
    again = graph.pagerank(engine=engine, iterations=2, memory="64MiB").values  # type: ignore[arg-type]
    if engine in ("stream", "selective"):
        np.testing.assert_allclose(again, expected, rtol=1e-12, atol=0)
    else:
        np.testing.assert_array_equal(again, expected)


def test_sigint_stops_a_run_with_a_progress_callback(graph: diskgraph.Graph, no_leftover_threads: None) -> None:
    """A real SIGINT to the process, during a run that calls back into Python at every step."""
    steps: list = []
    took = interrupted_after(
        0.5,
        lambda: os.kill(os.getpid(), signal.SIGINT),
        long_pagerank(graph, "stream", progress=steps.append),
    )
    assert took < PROMPT
    assert len(steps) > 1, "the callback was not called"
    assert len(graph.wcc().values) == graph.num_vertices


def test_interrupt_handler_of_the_caller_is_honoured(graph: diskgraph.Graph) -> None:
    """A SIGINT handler of the program's own decides: one that raises another exception stops
    the run with that exception."""

    class Stop(Exception):
        pass

    def handler(signum: int, frame: object) -> None:
        raise Stop()

    old = signal.signal(signal.SIGINT, handler)
    try:
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        t0 = time.perf_counter()
        with pytest.raises(Stop):
            long_pagerank(graph, "memory")()
        timer.join()
        assert time.perf_counter() - t0 < 0.3 + PROMPT
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_run_in_another_thread_is_not_interrupted(graph: diskgraph.Graph) -> None:
    """Python delivers signals to the main thread: a run in a worker thread goes on, and the
    main thread gets its KeyboardInterrupt."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(graph.pagerank(iterations=20, engine="stream")))
    worker.start()
    with pytest.raises(KeyboardInterrupt):
        _thread.interrupt_main()
        # The interrupt is raised at the main thread's next check: here, while it sleeps.
        time.sleep(5)
    worker.join()
    assert len(result) == 1 and result[0].values.shape == (graph.num_vertices,)

