"""The body of a cluster run's Ray actor: it opens its parts and runs the engines' ``spmv`` and
``wcc`` on them through :meth:`Graph.run` (the run's engine options passed through), or kcore's
peeling rounds over the simple edges it owns (the join in Rust: ``_native.PartEdges``)."""

from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Tuple

import numpy as np

from .. import _native
from .._graph import Graph


class Worker:
    """A worker over some parts of a split: ``paths`` their directories, ``engine`` the run's
    and engines' options for every engine run on them."""

    def __init__(self, paths: List[str], engine: Dict[str, Any]) -> None:
        self.paths = paths
        self.graphs = [Graph(p) for p in paths]
        # Every superstep runs an engine on each part: the index is read once, not per run.
        for g in self.graphs:
            g.load_index()
        self.engine = engine
        self.bytes_read = 0
        self.seconds = 0.0
        found = [_native.part_boundary(p) for p in paths]
        self.sources = [s for s, _, _ in found]
        self.source_degrees = [d for _, d, _ in found]
        self.destinations = [d for _, _, d in found]
        self.edges: List[Any] = []

    def pid(self) -> int:
        """The worker's process ID, for the messages about it."""
        return os.getpid()

    def boundary(self) -> List[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per part: its boundary sources, their out-degrees in the part, its boundary
        destinations."""
        return list(zip(self.sources, self.source_degrees, self.destinations))

    def spmv(self, xs: List[np.ndarray], semiring: str, weighted: bool) -> List[np.ndarray]:
        """Per part, ``y = Aᵀ x`` in ``semiring`` with ``x`` given on its boundary sources (the
        semiring's zero elsewhere: 0 or +inf); ``y`` on its boundary destinations."""
        out = []
        start = time.perf_counter()
        fill = 0.0 if semiring == "plus-times" else np.inf
        for g, s, d, xv in zip(self.graphs, self.sources, self.destinations, xs):
            x = np.full(g.num_vertices, fill, dtype=np.float64)
            x[s] = xv
            r = g.run("spmv", x=x, weighted=weighted, semiring=semiring, **self.engine)
            self.bytes_read += int(r.stats.get("bytes_read") or 0)
            out.append(np.asarray(r.values, dtype=np.float64)[d])
        self.seconds += time.perf_counter() - start
        return out

    def simple_edges(self) -> List[np.ndarray]:
        """Reads each part's simple edges; returns, per part, the keys (``min << 32 | max``) of
        those it holds only as ``max → min``, which the part holding ``min → max`` owns instead."""
        start = time.perf_counter()
        self.edges = [_native.PartEdges(p) for p in self.paths]
        self.bytes_read += sum(e.bytes_read for e in self.edges)
        self.seconds += time.perf_counter() - start
        return [e.asked() for e in self.edges]

    def holds(self, keys: List[np.ndarray]) -> List[np.ndarray]:
        """Per part, which of ``keys`` it holds as ``min → max``."""
        return [e.holds(k) for e, k in zip(self.edges, keys)]

    def own(self, held_elsewhere: List[np.ndarray]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Keeps, per part, the edges it owns (``held_elsewhere``: which of the asked edges
        another part holds as ``min → max``); returns per part its kcore boundary, ascending,
        and each vertex's number of owned edges."""
        return [e.own(h) for e, h in zip(self.edges, held_elsewhere)]

    def neighbours_of(self, removed: List[np.ndarray]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Per part, the neighbours of the ``removed`` vertices (positions on its kcore
        boundary) along the edges it owns: their positions and how many removed neighbours
        each has."""
        start = time.perf_counter()
        out = [e.neighbours_of(r.astype(np.int64)) for e, r in zip(self.edges, removed)]
        self.seconds += time.perf_counter() - start
        return out

    def components(self) -> List[np.ndarray]:
        """Per part, the ``wcc`` labels (smallest original ID of the vertex's component in the
        part) of its boundary vertices, sources and destinations together, ascending."""
        out = []
        start = time.perf_counter()
        for g, s, d in zip(self.graphs, self.sources, self.destinations):
            r = g.run("wcc", **self.engine)
            self.bytes_read += int(r.stats.get("bytes_read") or 0)
            out.append(np.asarray(r.values, dtype=np.uint64)[vertices_in(g.num_vertices, s, d)])
        self.seconds += time.perf_counter() - start
        return out

    def counters(self) -> Dict[str, Any]:
        """Bytes the engines read and seconds spent in products so far."""
        return {"bytes_read": self.bytes_read, "seconds": self.seconds}


def vertices_in(n: int, *arrays: np.ndarray) -> np.ndarray:
    """The distinct vertex numbers (below ``n``) in ``arrays``, ascending, through a mask."""
    mask = np.zeros(n, dtype=bool)
    for a in arrays:
        mask[a] = True
    return np.flatnonzero(mask)
