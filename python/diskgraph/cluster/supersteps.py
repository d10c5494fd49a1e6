"""The drivers of the algorithms that run on a cluster, over a :class:`~.session.Session`: each
takes the run's options as the descriptors made them (no defaults of its own) and returns the
per-vertex values, in vertex-number order, and what it recorded.

A superstep of pagerank, bfs and sssp is one sparse matrix-vector product ``y = Aᵀ x`` on every
part (the engines' ``spmv``). PageRank is a product per iteration; BFS one per level (the
frontier as an indicator vector: a vertex is reached when its sum is positive); sssp one
min-plus product (a Bellman-Ford relaxation of the vertices whose distance dropped) per round
until no distance drops. wcc joins the parts' own components; kcore peels the simple undirected
view a round per superstep after the ownership join."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from .session import Session, distinct

#: What a driver returns: the values and the statistics it recorded.
Answer = Tuple[np.ndarray, Dict[str, Any]]


def pagerank(
    run: Session, n: int, alpha: float, tolerance: float, iterations: Optional[int], max_iterations: int
) -> Answer:
    """PageRank with NetworkX semantics, as the single machine's: to ``tolerance`` (the L1 change
    below N × tolerance, at most ``max_iterations``) or exactly ``iterations``. An unconverged
    run returns its ranks with ``converged`` false (the caller decides)."""
    degree = np.zeros(n, dtype=np.float64)
    for part, deg in zip(run.parts, run.part_degrees):
        degree[part.sources] += deg  # a part lists each source once
    dangling = degree == 0
    x = np.full(n, 1.0 / n)
    limit = iterations if iterations is not None else max_iterations
    converged = False
    done = 0
    for _ in range(limit):
        contrib = np.divide(x, degree, out=np.zeros(n), where=~dangling)
        y = run.superstep(contrib)
        base = alpha * x[dangling].sum() / n + (1.0 - alpha) / n
        new = alpha * y + base
        err = float(np.abs(new - x).sum())
        x = new
        done += 1
        if iterations is None and err < n * tolerance:
            converged = True
            break
    stats: Dict[str, Any] = {"iterations": done}
    if iterations is None:
        stats["converged"] = converged
    return x, stats


def bfs(run: Session, n: int, source: int) -> Answer:
    """BFS levels from vertex number ``source`` (-1 unreached), a product per level."""
    level = np.full(n, -1, dtype=np.int64)
    level[source] = 0
    frontier = np.zeros(n)
    frontier[source] = 1.0
    depth = 0
    while frontier.any():
        reached = run.superstep(frontier) > 0
        fresh = reached & (level < 0)
        if not fresh.any():
            break
        depth += 1
        level[fresh] = depth
        frontier = fresh.astype(np.float64)
    return level, {"iterations": depth}


def sssp(run: Session, n: int, source: int, weighted: bool, vertex_ids: np.ndarray, path: str) -> Answer:
    """Distances from vertex number ``source`` along out-edges (inf unreached; hops when not
    ``weighted``): Bellman-Ford, a min-plus product per round from the vertices whose distance
    dropped, until none drops. Negative and NaN weights are refused first (a ``ValueError``
    naming an edge's head by its ID in ``vertex_ids``)."""
    if weighted:
        # One relaxation from 0 everywhere: y[v] is the least weight into v (NaN if any is).
        least = run.superstep(np.zeros(n), "min-plus", weighted=True)
        bad = np.flatnonzero(np.isnan(least) | (least < 0))
        if len(bad):
            v = bad[0]
            raise ValueError(
                f"sssp needs non-negative weights: an edge into vertex {vertex_ids[v]} of {path} weighs {least[v]}"
            )
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    changed = np.zeros(n, dtype=bool)
    changed[source] = True
    rounds = 0
    while changed.any():
        y = run.superstep(np.where(changed, dist, np.inf), "min-plus", weighted=True)
        changed = y < dist
        dist[changed] = y[changed]
        rounds += 1
    return dist, {"iterations": rounds}


def wcc(run: Session, vertex_ids: np.ndarray) -> Answer:
    """Weakly connected components, each vertex labelled with the smallest original ID (of
    ``vertex_ids``) in its component: every part's own components in one superstep, each vertex
    joined to its labels' vertices (a component of the whole graph is a chain of parts'
    components sharing vertices), each joined set labelled by its smallest ID."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(vertex_ids)
    labels = run.gather_labels()
    rows = np.concatenate([v for v, _ in labels]) if labels else np.empty(0, np.int64)
    cols = np.concatenate([np.searchsorted(vertex_ids, lab) for _, lab in labels]) if labels else rows
    joined = coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))
    _, comp = connected_components(joined, directed=False)
    # Vertices are numbered in ascending original-ID order: a set's first vertex has its
    # smallest ID.
    order = np.argsort(comp, kind="stable")
    _, size = distinct(comp[order], ascending=True)
    first = order[np.cumsum(size) - size]
    return np.asarray(vertex_ids[first[comp]], dtype=np.uint64), {"components": len(first)}


def kcore(run: Session, n: int) -> Answer:
    """Core numbers on the simple undirected view (directions, self-loops and parallel edges
    ignored). Level-synchronous peeling: at level ``k`` (the smallest remaining degree, never
    lowered) every remaining vertex of degree ≤ ``k`` is removed with core number ``k``, a
    superstep per round counting the removed vertices' neighbours."""
    degree = run.simple_view()
    core = np.zeros(n, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    k = 0
    # Within a level only the vertices a round touched can drop to k; a new level scans every
    # remaining vertex once.
    touched: Optional[np.ndarray] = None
    while True:
        if touched is None:
            if not alive.any():
                break
            k = max(k, int(degree[alive].min()))
            removed = np.flatnonzero(alive & (degree <= k))
        else:
            removed = touched[alive[touched] & (degree[touched] <= k)]
            if len(removed) == 0:
                touched = None
                continue
        core[removed] = k
        alive[removed] = False
        touched, lost = run.peel(removed)
        degree[touched] -= lost
    levels = int(np.count_nonzero(np.bincount(core)))
    return core, {"max_core": int(core.max(initial=0)), "levels": levels}
