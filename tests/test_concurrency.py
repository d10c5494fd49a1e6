"""Many threads on one graph directory: runs on one opened ``diskgraph.Graph`` and on handles
opened separately, mixing every engine, give a lone run's results; readers running while a
writer publishes layouts never see a half layout."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np
import pytest

import diskgraph

# (algorithm, engine) pairs every engine runs; each run small (a few iterations, 64 MiB).
JOBS: List[Tuple[str, str]] = [
    (algorithm, engine)
    for engine in ("memory", "selective", "stream", "sync", "shards")
    for algorithm in ("pagerank", "wcc", "bfs")
    if not (algorithm == "bfs" and engine == "shards")
]


def run(g: diskgraph.Graph, algorithm: str, engine: str) -> np.ndarray:
    """One small run: its values in vertex-ID order."""
    options: Dict[str, object] = {"engine": engine, "memory": "64MiB", "threads": 2}
    if algorithm == "pagerank":
        options["iterations"] = 3
    return g.run(algorithm, **options).values


def same(algorithm: str, engine: str, got: np.ndarray, lone: np.ndarray) -> None:
    """Equal bit for bit, except PageRank on the stream and selective engines, whose atomic
    float sums are order-dependent: equal up to rounding, as their module docs promise."""
    if algorithm == "pagerank" and engine in ("stream", "selective"):
        np.testing.assert_allclose(got, lone, rtol=1e-12, atol=0, err_msg=f"{algorithm} on {engine}")
    else:
        np.testing.assert_array_equal(got, lone, err_msg=f"{algorithm} on {engine}")


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    """A random graph (20k vertices, 150k edges) with a grid layout and shards."""
    rng = np.random.default_rng(7)
    n, m = 20_000, 150_000
    g = diskgraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), tmp_path_factory.mktemp("conc") / "g")
    g.partition(grid=4)
    g.partition_shards(4)
    return g


@pytest.fixture(scope="module")
def lone(graph: diskgraph.Graph) -> Dict[Tuple[str, str], np.ndarray]:
    """Every job's result, run alone."""
    return {(a, e): run(graph, a, e) for a, e in JOBS}


def in_threads(
    jobs: List[Tuple[str, str]], work: Callable[[str, str], np.ndarray], workers: int = 6
) -> List[np.ndarray]:
    """Runs ``work`` for every job on ``workers`` threads at once (all started together)."""
    start = threading.Barrier(workers)

    def task(job: Tuple[str, str]) -> np.ndarray:
        try:
            start.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass  # fewer jobs than workers left: go on alone
        return work(*job)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(task, jobs))


def test_threads_on_one_handle_agree_with_lone_runs(
    graph: diskgraph.Graph, lone: Dict[Tuple[str, str], np.ndarray]
) -> None:
    jobs = JOBS * 2
    for (a, e), got in zip(jobs, in_threads(jobs, lambda a, e: run(graph, a, e))):
        same(a, e, got, lone[(a, e)])


def test_threads_on_separate_handles_agree_with_lone_runs(
    graph: diskgraph.Graph, lone: Dict[Tuple[str, str], np.ndarray]
) -> None:
    path = graph.path
    jobs = JOBS * 2
    for (a, e), got in zip(jobs, in_threads(jobs, lambda a, e: run(diskgraph.open(path), a, e))):
        same(a, e, got, lone[(a, e)])


def test_readers_never_see_a_half_layout(
    graph: diskgraph.Graph, lone: Dict[Tuple[str, str], np.ndarray], tmp_path: Path
) -> None:
    """A writer republishes the layouts the readers use (``force``) and adds new ones while
    readers open the graph and run the stream and shards engines over them: every run finds
    the layout, reads the old generation or the new one whole, and gives the lone run's
    answer (see docs/DESIGN.md, "Readers and a writer")."""
    stop = threading.Event()
    errors: List[BaseException] = []
    published = [0]

    def writer() -> None:
        try:
            w = diskgraph.open(graph.path)
            for i in range(6):
                w.partition(grid=4, force=True)
                w.partition_shards(4, force=True)
                w.partition(grid=5 + i)
                published[0] += 1
        except BaseException as e:  # surfaced below
            errors.append(e)
        finally:
            stop.set()

    def reader(algorithm: str, engine: str, layout: str) -> int:
        """Runs until the writer is done; returns the runs made."""
        runs = 0
        while not stop.is_set() or runs == 0:
            g = diskgraph.open(graph.path)
            got = g.run(algorithm, engine=engine, layout=layout, memory="64MiB", threads=1, iterations=3).values
            same(algorithm, engine, got, lone[(algorithm, engine)])
            runs += 1
        return runs

    w = threading.Thread(target=writer)
    with ThreadPoolExecutor(max_workers=3) as pool:
        w.start()
        readers = [
            pool.submit(reader, "pagerank", "stream", "grid-4"),
            pool.submit(reader, "pagerank", "shards", "shards-4"),
            pool.submit(reader, "pagerank", "stream", "grid-4"),
        ]
        counts = [r.result() for r in readers]
    w.join()
    if errors:
        raise errors[0]
    assert published[0] == 6
    assert min(counts) >= 1
    assert not [p.name for p in Path(graph.path).iterdir() if p.name.startswith(".")], "temporaries left"
    # Generations a run still read when they were replaced are left for the next writer.
    graph.partition(grid=4, force=True)
    layouts = {p.name for p in Path(graph.path).iterdir() if p.is_dir()}
    listed = {"grid-4", "shards-4"} | {f"grid-{5 + i}" for i in range(6)}
    assert len(layouts) == len(listed), sorted(layouts)
