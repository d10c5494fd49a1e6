"""Seeded random test graphs with the nasty cases, and NetworkX references with diskgraph's
cleaning semantics (self-loops dropped, duplicates merged keeping the minimum weight)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import networkx as nx
import numpy as np
import pytest

import diskgraph

KINDS = ("er", "hub", "path", "parts", "er", "dense")
ID_MODES = ("identity", "offset", "sparse60", "top64")


@dataclass
class Case:
    """One random graph: edges in original IDs, options, and what was generated."""

    seed: int
    kind: str
    directed: bool
    weights_kind: str  # "none", "float" or "int"
    id_mode: str
    src: List[int]
    dst: List[int]
    weights: Optional[List[float]]
    isolated: List[int]
    keep_self_loops: bool = False
    keep_duplicates: bool = False
    dtype: str = "uint64"
    notes: Dict[str, int] = field(default_factory=dict)

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    def all_ids(self) -> List[int]:
        return sorted(set(self.src) | set(self.dst) | set(self.isolated))

    def arrays(self) -> Tuple[object, object]:
        """src/dst in the dtype this case exercises."""
        if self.dtype == "list":
            return list(self.src), list(self.dst)
        return np.array(self.src, dtype=self.dtype), np.array(self.dst, dtype=self.dtype)


def build(case: Case, path, **options: Any) -> diskgraph.Graph:
    """Stores ``case`` as a graph directory at ``path`` (through ``diskgraph.from_edges``, with
    ``options`` such as ``compress=`` besides the case's own)."""
    src, dst = case.arrays()
    return diskgraph.from_edges(
        src,
        dst,
        path,
        weights=case.weights,
        directed=case.directed,
        vertices=case.isolated,
        keep_self_loops=case.keep_self_loops,
        keep_duplicates=case.keep_duplicates,
        memory="32MiB",
        **options,
    )


def random_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % len(KINDS)]
    directed = (seed // len(KINDS)) % 2 == 0
    weights_kind = ("none", "float", "int")[(seed // 2) % 3]
    id_mode = ID_MODES[(seed // 3) % len(ID_MODES)]
    if kind == "er":
        n = int(rng.integers(1, 60))
        m = int(rng.integers(0, 3 * n + 1))
        u = rng.integers(0, n, m)
        v = rng.integers(0, n, m)
    elif kind == "dense":
        n = int(rng.integers(2, 25))
        m = int(rng.integers(n, n * n))
        u = rng.integers(0, n, m)
        v = rng.integers(0, n, m)
    elif kind == "hub":
        n = int(rng.integers(200, 1500))
        spokes = np.arange(1, n)
        out = rng.random(n - 1) < 0.5
        u = np.where(out, 0, spokes)
        v = np.where(out, spokes, 0)
        extra = int(rng.integers(0, n // 4))
        u = np.concatenate([u, rng.integers(1, n, extra)])
        v = np.concatenate([v, rng.integers(1, n, extra)])
    elif kind == "path":
        n = int(rng.integers(1000, 3000))
        u = np.arange(n - 1)
        v = np.arange(1, n)
        if rng.random() < 0.3:  # a few chords
            c = int(rng.integers(1, 6))
            u = np.concatenate([u, rng.integers(0, n, c)])
            v = np.concatenate([v, rng.integers(0, n, c)])
    else:  # "parts": disconnected random pieces
        parts = int(rng.integers(2, 6))
        us, vs, base = [], [], 0
        for _ in range(parts):
            k = int(rng.integers(1, 20))
            m = int(rng.integers(0, 2 * k + 1))
            us.append(base + rng.integers(0, k, m))
            vs.append(base + rng.integers(0, k, m))
            base += k
        n = base
        u, v = np.concatenate(us), np.concatenate(vs)
    u = u.astype(np.int64)
    v = v.astype(np.int64)
    # Self-loops and duplicates (also reversed, which duplicates an undirected edge).
    loops = int(rng.integers(0, 4))
    if loops:
        x = rng.integers(0, n, loops)
        u, v = np.concatenate([u, x]), np.concatenate([v, x])
    dups = int(rng.integers(0, 5)) if u.size else 0
    if dups:
        pick = rng.integers(0, u.size, dups)
        flip = rng.random(dups) < 0.5
        u2 = np.where(flip, v[pick], u[pick])
        v2 = np.where(flip, u[pick], v[pick])
        u, v = np.concatenate([u, u2]), np.concatenate([v, v2])
    order = rng.permutation(u.size)
    u, v = u[order], v[order]
    # Isolated vertices beyond the edge range (and sometimes ones that do have edges).
    iso_count = int(rng.integers(0, 5))
    isolated_idx = list(range(n, n + iso_count))
    if n and rng.random() < 0.3:
        isolated_idx.append(int(rng.integers(0, n)))
    total = n + iso_count
    if total == 0 or (u.size == 0 and not isolated_idx):
        isolated_idx.append(0)
        total = max(total, 1)
    # Original IDs.
    if id_mode == "identity":
        ids = np.arange(total, dtype=np.uint64)
    elif id_mode == "offset":
        ids = np.arange(total, dtype=np.uint64) * np.uint64(7) + np.uint64(3)
    elif id_mode == "sparse60":
        ids = np.unique(rng.integers(0, 1 << 60, total + 16, dtype=np.uint64))[:total]
        rng.shuffle(ids)
    else:  # "top64": IDs near 2**64 - 1
        ids = np.uint64(2**64 - 1) - np.unique(rng.integers(0, 1 << 40, total + 16, dtype=np.uint64))[:total]
        rng.shuffle(ids)
    assert ids.size == total
    id_list = [int(x) for x in ids]
    src = [id_list[i] for i in u.tolist()]
    dst = [id_list[i] for i in v.tolist()]
    isolated = [id_list[i] for i in isolated_idx]
    weights = None
    if weights_kind == "float":
        weights = rng.uniform(0.05, 10.0, len(src)).tolist()
    elif weights_kind == "int":
        weights = rng.integers(0, 20, len(src)).astype(float).tolist()
    max_id = max(id_list)
    dtypes = ["uint64", "list"]
    if max_id < 2**63:
        dtypes.append("int64")
    if max_id < 2**31:
        dtypes += ["int32", "uint32"]
    return Case(
        seed=seed,
        kind=kind,
        directed=directed,
        weights_kind=weights_kind,
        id_mode=id_mode,
        src=src,
        dst=dst,
        weights=weights,
        isolated=isolated,
        keep_self_loops=seed % 7 == 3,
        keep_duplicates=seed % 5 == 2,
        dtype=dtypes[seed % len(dtypes)],
    )


def f32(w: float) -> float:
    """A weight as diskgraph stores it."""
    return float(np.float32(w))


def cleaned_edges(case: Case) -> Dict[Tuple[int, int], Optional[float]]:
    """Edges after the default cleaning: no self-loops, duplicates merged with the min weight."""
    best: Dict[Tuple[int, int], Optional[float]] = {}
    for i, (u, v) in enumerate(zip(case.src, case.dst)):
        if u == v:
            continue
        key = (u, v) if case.directed or u < v else (v, u)
        w = None if case.weights is None else f32(case.weights[i])
        if key not in best or (w is not None and w < best[key]):  # type: ignore[operator]
            best[key] = w
    return best


def reference_graph(case: Case) -> nx.Graph:
    """The cleaned graph as NetworkX sees it (all vertices, min weights as float32)."""
    G = nx.DiGraph() if case.directed else nx.Graph()
    G.add_nodes_from(case.all_ids())
    for (u, v), w in cleaned_edges(case).items():
        if w is None:
            G.add_edge(u, v)
        else:
            G.add_edge(u, v, weight=w)
    return G


def kept_edges(case: Case) -> List[Tuple[int, int, Optional[float]]]:
    """Edges as the import keeps them under the case's options (for counts and PageRank)."""
    out: List[Tuple[int, int, Optional[float]]] = []
    index: Dict[Tuple[int, int], int] = {}
    for i, (u, v) in enumerate(zip(case.src, case.dst)):
        if u == v and not case.keep_self_loops:
            continue
        key = (u, v) if case.directed or u < v else (v, u)
        w = None if case.weights is None else f32(case.weights[i])
        if case.keep_duplicates:
            out.append((key[0], key[1], w))
        elif key in index:
            j = index[key]
            if w is not None and w < out[j][2]:  # type: ignore[operator]
                out[j] = (key[0], key[1], w)
        else:
            index[key] = len(out)
            out.append((key[0], key[1], w))
    return out


def options_graph(case: Case) -> nx.Graph:
    """The graph with the case's options applied (Multi(Di)Graph when duplicates are kept)."""
    if case.keep_duplicates:
        G = nx.MultiDiGraph() if case.directed else nx.MultiGraph()
    else:
        G = nx.DiGraph() if case.directed else nx.Graph()
    G.add_nodes_from(case.all_ids())
    G.add_edges_from((u, v) for u, v, _ in kept_edges(case))
    return G


def min_labels(components, ids: List[int]) -> List[int]:
    """Component label of every vertex: the smallest ID in its component."""
    label = {}
    for comp in components:
        m = min(comp)
        for x in comp:
            label[x] = m
    return [label[x] for x in ids]


def interrupted_after(delay: float, send: Callable[[], None], call: Callable[[], object]) -> float:
    """Runs ``call`` while a timer thread calls ``send`` after ``delay`` seconds; the call must
    raise KeyboardInterrupt. Returns the seconds from ``send`` to the exception."""
    sent: List[float] = []

    def fire() -> None:
        sent.append(time.perf_counter())
        send()

    timer = threading.Timer(delay, fire)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        raised = time.perf_counter()
    finally:
        timer.cancel()
        timer.join()
    assert sent, "the call ended before the interrupt was sent"
    return raised - sent[0]
