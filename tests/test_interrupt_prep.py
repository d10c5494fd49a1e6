"""KeyboardInterrupt during the calls that import, prepare or check graphs: Ctrl-C (here
``_thread.interrupt_main``, 0.3 s into the call) raises KeyboardInterrupt within 2 s, the output
is absent (importers, ``reorder``, ``export``) or the graph unchanged (layouts: ``partition``,
``partition_shards``, ``compress``, ``select``), no temporary is left, and the graph still
verifies."""

from __future__ import annotations

import _thread
import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List

import numpy as np
import pytest

import diskgraph
from helpers import interrupted_after
from diskgraph import _native

# The longest a call may take to raise after the interrupt.
PROMPT = 2.0
# When the interrupt is sent, after the call started.
DELAY = 0.3


def entries(path: Path) -> List[str]:
    """The names in ``path``, sorted."""
    return sorted(p.name for p in path.iterdir())


def random_edges(m: int, n: int, seed: int) -> "tuple[np.ndarray, np.ndarray]":
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m, dtype=np.uint64), rng.integers(0, n, m, dtype=np.uint64)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    """A random directed graph of 4M edges on 256k named vertices (names make a CSV export
    slow enough to interrupt)."""
    n = 1 << 18
    src, dst = random_edges(4_000_000, n, 47)
    path = tmp_path_factory.mktemp("prep") / "g"
    importer = _native.EdgeImporter(str(path))
    importer.push(src, dst)
    importer.add_vertices(np.arange(n, dtype=np.uint64))
    importer.add_names([f"vertex number {i}" for i in range(n)])
    importer.finish()
    return diskgraph.open(path)


@pytest.fixture(scope="module")
def gridded(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    """A random graph of 1M edges with a grid layout of a million blocks, which ``verify``
    checks block by block: seconds of work."""
    src, dst = random_edges(1_000_000, 1 << 18, 50)
    g = diskgraph.from_edges(src, dst, tmp_path_factory.mktemp("prep") / "gridded")
    g.partition(grid=1024)
    return g


def test_import_file_of_an_endless_input_is_interrupted(tmp_path: Path) -> None:
    """An import reading an edge list from a pipe that never ends stops at the interrupt."""
    fifo = tmp_path / "edges.fifo"
    os.mkfifo(fifo)
    written: List[int] = []

    def write() -> None:
        lines = "".join(f"{i % 100_003} {(i * 7919) % 100_003}\n" for i in range(100_000)).encode()
        try:
            with open(fifo, "wb") as f:
                while True:
                    f.write(lines)
                    written.append(len(lines))
        except BrokenPipeError:
            pass  # the import stopped and closed the pipe

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = tmp_path / "g"
    try:
        took = interrupted_after(DELAY, _thread.interrupt_main, lambda: diskgraph.import_file(fifo, out, format="snap"))
    finally:
        writer.join(timeout=10)
    assert took < PROMPT, f"KeyboardInterrupt {took:.2f} s after the interrupt"
    assert len(written) > 1, "the import read nothing"
    assert not out.exists(), "a half-imported graph was left"
    assert entries(tmp_path) == ["edges.fifo"], "temporaries left beside the output"


def test_from_edges_of_millions_of_edges_is_interrupted(tmp_path: Path) -> None:
    src, dst = random_edges(4_000_000, 1 << 20, 48)
    out = tmp_path / "g"
    took = interrupted_after(DELAY, _thread.interrupt_main, lambda: diskgraph.from_edges(src, dst, out, memory="4MiB"))
    assert took < PROMPT, f"KeyboardInterrupt {took:.2f} s after the interrupt"
    assert entries(tmp_path) == [], "a graph or temporaries were left"


def test_an_edge_importer_is_interrupted_while_it_finishes(tmp_path: Path) -> None:
    """Once the input is in, ``finish()`` waits for the sort and the writes: the interrupt stops
    them and nothing is published."""
    src, dst = random_edges(4_000_000, 1 << 20, 49)
    out = tmp_path / "g"
    importer = _native.EdgeImporter(str(out), memory=4 << 20)
    importer.push(src, dst)
    took = interrupted_after(0.05, _thread.interrupt_main, importer.finish)
    assert took < PROMPT, f"KeyboardInterrupt {took:.2f} s after the interrupt"
    assert importer.closed
    assert entries(tmp_path) == [], "a graph or temporaries were left"


# Each call works on the graph for seconds (a GVS of a million rounds, for ever): many times
# DELAY, on an idle machine too.
CALLS: Dict[str, Callable[[diskgraph.Graph, Path], object]] = {
    "partition": lambda g, out: g.partition(grid=2048, memory="1MiB"),
    "partition_shards": lambda g, out: g.partition_shards(1024, block_size="4KiB", compress="vbyte"),
    "select": lambda g, out: g.select("gvs", 0.2, k=10**6),
    "reorder": lambda g, out: g.reorder(out / "r", "gorder"),
    "export": lambda g, out: g.export(out / "edges.csv", format="csv"),
}


def check_interrupted(g: diskgraph.Graph, what: str, call: Callable[[], object], out: Path) -> None:
    """``call`` on ``g``, interrupted after DELAY, raises within PROMPT and leaves the graph
    directory and ``out`` as they were, the graph verifying."""
    before = entries(Path(g.path))
    took = interrupted_after(DELAY, _thread.interrupt_main, call)
    assert took < PROMPT, f"{what}: KeyboardInterrupt {took:.2f} s after the interrupt"
    assert entries(Path(g.path)) == before, f"{what}: a layout or temporary was left in the graph"
    assert entries(out) == [], f"{what}: an output or temporary was left"
    assert g.verify()["arcs_checked"] == 2 * g.num_arcs


@pytest.mark.parametrize("call", list(CALLS))
def test_a_call_on_a_graph_is_interrupted_and_leaves_it_as_it_was(
    graph: diskgraph.Graph, call: str, tmp_path: Path
) -> None:
    check_interrupted(graph, call, lambda: CALLS[call](graph, tmp_path), tmp_path)


def test_compress_is_interrupted_and_publishes_nothing(graph: diskgraph.Graph, tmp_path: Path) -> None:
    """Compressing 8M arcs takes a fraction of a second: it starts here while another writer
    holds the graph directory's lock, which is let go only once the interrupt has come, so the
    stop request is set before the first chunk is encoded."""
    held = os.open(graph.path, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)

    def let_go() -> None:
        time.sleep(DELAY + 0.5)
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)

    other_writer = threading.Thread(target=let_go)
    other_writer.start()
    try:
        check_interrupted(graph, "compress", lambda: graph.compress("zeta"), tmp_path)
    finally:
        other_writer.join()


def test_verify_is_interrupted(gridded: diskgraph.Graph, tmp_path: Path) -> None:
    check_interrupted(gridded, "verify", gridded.verify, tmp_path)
