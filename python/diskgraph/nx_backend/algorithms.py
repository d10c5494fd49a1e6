"""The NetworkX functions the backend implements, with NetworkX's signatures and return types.

Each runs diskgraph's algorithm on the stored graph and maps the per-vertex result back to
node keys. ``G`` is a :class:`~diskgraph.nx_backend.graph.BackendGraph` or an opened
:class:`diskgraph.Graph` (NetworkX passes those straight through); which arguments each can
honour is :func:`diskgraph.nx_backend.interface.can_run`'s business.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Hashable, Iterator, List, Optional, Set, Tuple, Union

import networkx as nx
import numpy as np

from .._graph import DEFAULT_MEMORY, Graph
from .._result import Result
from . import FUNCTIONS
from .graph import BackendGraph, config

#: Sources per apsp run of diameter: its result holds (vertices × this) int64 hop counts.
_APSP_BATCH_BYTES = 64 << 20


def view(G: Any) -> BackendGraph:
    """The backend graph of ``G`` (an opened :class:`diskgraph.Graph` is wrapped)."""
    if isinstance(G, BackendGraph):
        return G
    if isinstance(G, Graph):
        return BackendGraph.from_disk(G)
    raise TypeError(f"the diskgraph backend got {type(G).__name__}, not a diskgraph graph")


def _run(bg: BackendGraph, algorithm: str, weight: Optional[str] = None, **options: Any) -> Result:
    result = bg.graph(weight).run(algorithm, memory=config("memory", DEFAULT_MEMORY), **options)
    if result.values.shape[0] != len(bg):
        raise AssertionError(f"{algorithm} gave {result.values.shape[0]} values for {len(bg)} nodes")
    return result


def _not_directed(G: BackendGraph) -> None:
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")


def _not_undirected(G: BackendGraph) -> None:
    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")


def seedable(seed: Any) -> bool:
    """Whether :func:`engine_seed` takes ``seed``."""
    return seed is None or isinstance(seed, numbers.Integral) or hasattr(seed, "getrandbits")


def engine_seed(seed: Any) -> int:
    """The engine's int seed for a NetworkX ``seed`` (NetworkX hands its functions a
    ``random.Random``, made from the caller's int or the global one for None): drawn from it,
    so the same caller's seed gives the same run."""
    if seed is None:
        return 1
    if isinstance(seed, numbers.Integral):
        return int(seed) & ((1 << 63) - 1)
    return int(seed.getrandbits(63))


def _source_position(bg: BackendGraph, source: Any) -> int:
    i = bg.position(source)
    if i is None:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return i


# ----- components -------------------------------------------------------------------------


def _groups(labels: np.ndarray) -> List[np.ndarray]:
    """Positions grouped by label, groups in order of their first position, each ascending."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    group = rank[inverse.reshape(-1)]
    order = np.argsort(group, kind="stable")
    return np.split(order, np.cumsum(np.bincount(group))[:-1])


def _components(bg: BackendGraph, algorithm: str) -> Iterator[Set[Hashable]]:
    if len(bg) == 0:
        return
    nodes = bg.nodes
    for members in _groups(_run(bg, algorithm).values):
        yield {nodes[i] for i in members.tolist()}


def _count(bg: BackendGraph, algorithm: str) -> int:
    return 0 if len(bg) == 0 else int(np.unique(_run(bg, algorithm).values).shape[0])


def connected_components(G: Any) -> Iterator[Set[Hashable]]:
    """The connected components, as sets of nodes, in the order of their first node."""
    bg = view(G)
    _not_directed(bg)
    return _components(bg, "wcc")


def number_connected_components(G: Any) -> int:
    """The number of connected components."""
    bg = view(G)
    _not_directed(bg)
    return _count(bg, "wcc")


def weakly_connected_components(G: Any) -> Iterator[Set[Hashable]]:
    """The weakly connected components, as sets of nodes, in the order of their first node."""
    bg = view(G)
    _not_undirected(bg)
    return _components(bg, "wcc")


def number_weakly_connected_components(G: Any) -> int:
    """The number of weakly connected components."""
    bg = view(G)
    _not_undirected(bg)
    return _count(bg, "wcc")


def strongly_connected_components(G: Any) -> Iterator[Set[Hashable]]:
    """The strongly connected components, as sets of nodes, in the order of their first node."""
    bg = view(G)
    _not_undirected(bg)
    return _components(bg, "scc")


def number_strongly_connected_components(G: Any) -> int:
    """The number of strongly connected components."""
    bg = view(G)
    _not_undirected(bg)
    return _count(bg, "scc")


# ----- pagerank ---------------------------------------------------------------------------


def pagerank(
    G: Any,
    alpha: float = 0.85,
    personalization: Optional[Dict[Any, float]] = None,
    max_iter: int = 100,
    tol: float = 1.0e-6,
    nstart: Optional[Dict[Any, float]] = None,
    weight: Optional[str] = "weight",
    dangling: Optional[Dict[Any, float]] = None,
) -> Dict[Hashable, float]:
    """PageRank with NetworkX's iteration and stopping rule; raises
    ``PowerIterationFailedConvergence`` after ``max_iter`` iterations without converging."""
    bg = view(G)
    if len(bg) == 0:
        return {}
    plain = alpha == 0.85 and personalization is None and nstart is None and dangling is None
    if not (plain and (weight is None or bg.facts(weight).uniform)):
        return _pagerank_by_spmv(bg, alpha, personalization, max_iter, tol, nstart, weight, dangling)
    result = _run(bg, "pagerank", tolerance=tol, max_iterations=max_iter, allow_unconverged=True)
    if result.stats.get("converged") is False:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return bg.mapped(result.values.tolist())


def _pagerank_by_spmv(
    bg: BackendGraph,
    alpha: float,
    personalization: Optional[Dict[Any, float]],
    max_iter: int,
    tol: float,
    nstart: Optional[Dict[Any, float]],
    weight: Optional[str],
    dangling: Optional[Dict[Any, float]],
) -> Dict[Hashable, float]:
    """NetworkX's power iteration (``_pagerank_scipy``) for what the engine's pagerank does not
    take (another alpha, personalization, nstart, dangling, differing weights): each iteration's
    ``x A`` is one ``spmv`` run over the stored graph; the out-weights come from one pass over
    its edges."""
    n = len(bg)
    g = bg.graph(weight) if weight is not None else bg.unweighted()
    assert g is not None, "can_run refuses weight=None on a weighted opened graph here"
    src, dst, w = g.edges()
    ids = g.vertex_ids()
    u, v = np.searchsorted(ids, src), np.searchsorted(ids, dst)
    weights = np.ones(u.shape[0]) if weight is None or w is None else w.astype(np.float64)
    out = np.bincount(u, weights, minlength=n)
    if not bg.is_directed():
        loop = u == v
        out += np.bincount(v[~loop], weights[~loop], minlength=n)
    inverse = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    is_dangling = out == 0

    def vector(values: Optional[Dict[Any, float]], default: np.ndarray) -> np.ndarray:
        if values is None:
            return default
        x = np.zeros(n)
        for node, value in values.items():
            i = bg.position(node)
            if i is not None:
                x[i] = value
        if x.sum() == 0:
            raise ZeroDivisionError  # as NetworkX does
        return x / x.sum()

    p = vector(personalization, np.full(n, 1.0 / n))
    x = vector(nstart, np.full(n, 1.0 / n))
    dangling_weights = vector(dangling, p)
    for _ in range(max_iter):
        last = x
        moved = g.run("spmv", memory=config("memory", DEFAULT_MEMORY), x=last * inverse).values
        x = alpha * (moved + last[is_dangling].sum() * dangling_weights) + (1 - alpha) * p
        if np.abs(x - last).sum() < n * tol:
            return bg.mapped(x.tolist())
    raise nx.PowerIterationFailedConvergence(max_iter)


# ----- traversals -------------------------------------------------------------------------


def _bfs_tree(bg: BackendGraph, dist: np.ndarray, first: List[int]) -> Tuple[List[np.ndarray], np.ndarray]:
    """NetworkX's BFS order from hop distances ``dist`` (-1 unreached) and the first layer
    ``first``: the layers, each ordered as NetworkX discovers it — by the node's first parent in
    the layer before, then by its place in that parent's adjacency — and that parent of each
    node."""
    n = len(bg)
    parent = np.full(n, -1, dtype=np.int64)
    layers = [np.asarray(first, dtype=np.int64)]
    if int(dist.max(initial=0)) < 1:
        return layers, parent
    u, v, rank = bg.arcs()
    tight = (dist[u] >= 0) & (dist[v] == dist[u] + 1)
    u, v, rank = u[tight], v[tight], rank[tight]
    by_level = np.argsort(dist[v], kind="stable")
    u, v, rank = u[by_level], v[by_level], rank[by_level]
    bounds = np.searchsorted(dist[v], np.arange(1, int(dist.max()) + 2))
    pos = np.zeros(n, dtype=np.int64)
    pos[layers[0]] = np.arange(layers[0].shape[0])
    for level in range(1, bounds.shape[0]):
        cut = slice(int(bounds[level - 1]), int(bounds[level]))
        lu, lv, lr = u[cut], v[cut], rank[cut]
        if lv.shape[0] == 0:
            break
        pu = pos[lu]
        o = np.lexsort((lr, pu, lv))
        lu, lv, lr, pu = lu[o], lv[o], lr[o], pu[o]
        head = np.concatenate(([True], lv[1:] != lv[:-1]))
        nodes, key, within, par = lv[head], pu[head], lr[head], lu[head]
        o = np.lexsort((within, key))
        nodes = nodes[o]
        parent[nodes] = par[o]
        pos[nodes] = np.arange(nodes.shape[0])
        layers.append(nodes)
    return layers, parent


def _levels(bg: BackendGraph, sources: List[int]) -> np.ndarray:
    """Hop distances (-1 unreached) from the nearest of the source positions ``sources``."""
    ids = [bg.id_at(i) for i in sources]
    if len(ids) == 1:
        return _run(bg, "bfs", source=ids[0]).values
    hops = _run(bg, "apsp", sources=ids).values
    reached = np.where(hops >= 0, hops, np.iinfo(np.int64).max)
    dist = reached.min(axis=1)
    return np.where(dist == np.iinfo(np.int64).max, -1, dist)


def bfs_layers(G: Any, sources: Any) -> Iterator[List[Hashable]]:
    """The layers of a breadth-first search from ``sources`` (a node or nodes), as lists."""
    bg = view(G)
    if bg.position(sources) is not None:
        sources = [sources]
    first = list(set(sources))
    return _bfs_layers(bg, first)


def _bfs_layers(bg: BackendGraph, first: List[Any]) -> Iterator[List[Hashable]]:
    positions = []
    for source in first:
        i = bg.position(source)
        if i is None:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
        positions.append(i)
    if not positions:
        return
    layers, _ = _bfs_tree(bg, _levels(bg, positions), positions)
    nodes = bg.nodes
    for layer in layers:
        yield [nodes[i] for i in layer.tolist()]


def bfs_edges(
    G: Any, source: Any, reverse: bool = False, depth_limit: Optional[int] = None, sort_neighbors: Any = None
) -> Iterator[Tuple[Hashable, Hashable]]:
    """The tree edges of a breadth-first search from ``source``, in NetworkX's order."""
    bg = view(G)
    return _bfs_edges(bg, source, depth_limit)


def _bfs_edges(bg: BackendGraph, source: Any, depth_limit: Optional[int]) -> Iterator[Tuple[Hashable, Hashable]]:
    s = bg.position(source)
    if s is None:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    limit = len(bg) if depth_limit is None else depth_limit
    layers, parent = _bfs_tree(bg, _levels(bg, [s]), [s])
    nodes = bg.nodes
    for depth, layer in enumerate(layers[1:], start=1):
        if depth > limit:
            return
        for v in layer.tolist():
            yield nodes[int(parent[v])], nodes[v]


def single_source_shortest_path_length(G: Any, source: Any, cutoff: Optional[float] = None) -> Dict[Hashable, int]:
    """Hop distances from ``source`` to every node it reaches (within ``cutoff``), nearest
    first."""
    bg = view(G)
    s = _source_position(bg, source)
    dist = _levels(bg, [s])
    return _by_distance(bg, s, dist, dist >= 0, cutoff, int)


def _by_distance(
    bg: BackendGraph, s: int, dist: np.ndarray, reached: np.ndarray, cutoff: Optional[float], kind: Any
) -> Dict[Hashable, Any]:
    """Node → distance from position ``s`` (of type ``kind``; the source's 0 an int, as
    NetworkX's), nearest first."""
    keep = reached if cutoff is None else reached & (dist <= cutoff)
    rows = np.flatnonzero(keep)
    rows = rows[np.argsort(dist[rows], kind="stable")]
    nodes = bg.nodes
    return {nodes[i]: 0 if i == s else kind(d) for i, d in zip(rows.tolist(), dist[rows].tolist())}


def _distances(bg: BackendGraph, s: int, weight: Optional[str]) -> Tuple[np.ndarray, np.ndarray, Any]:
    """Distances from position ``s`` (weighted by ``weight``; None: hops), which are reached,
    and the Python type NetworkX's sums would have."""
    if weight is None:
        dist = _levels(bg, [s])
        return dist, dist >= 0, int
    facts = bg.facts(weight)
    dist = _run(bg, "sssp", weight, source=bg.id_at(s)).values
    return dist, np.isfinite(dist), int if facts.integral else float


def single_source_dijkstra_path_length(
    G: Any, source: Any, cutoff: Optional[float] = None, weight: Optional[str] = "weight"
) -> Dict[Hashable, Union[int, float]]:
    """Weighted distances from ``source`` to every node it reaches (within ``cutoff``), nearest
    first."""
    bg = view(G)
    s = _source_position(bg, source)
    dist, reached, kind = _distances(bg, s, weight)
    return _by_distance(bg, s, dist, reached, cutoff, kind)


def single_source_dijkstra_path(
    G: Any, source: Any, cutoff: Optional[float] = None, weight: Optional[str] = "weight"
) -> Dict[Hashable, List[Hashable]]:
    """A shortest path from ``source`` to every node it reaches (within ``cutoff``): each node's
    predecessor is a neighbour on a shortest path, the nearest to the source among them (then
    the first in node order)."""
    bg = view(G)
    s = _source_position(bg, source)
    dist, reached, _ = _distances(bg, s, weight)
    keep = reached if cutoff is None else reached & (dist <= cutoff)
    A = bg.graph(weight).to_scipy()
    u = np.repeat(np.arange(len(bg)), np.diff(A.indptr))
    v = A.indices.astype(np.int64)
    w = np.ones(v.shape[0]) if weight is None else A.data
    tight = keep[u] & keep[v] & (v != s) & (dist[u] + w == dist[v])
    u, v = u[tight], v[tight]
    o = np.lexsort((u, dist[u], v))
    u, v = u[o], v[o]
    head = np.concatenate(([True], v[1:] != v[:-1]))
    pred = np.full(len(bg), -1, dtype=np.int64)
    pred[v[head]] = u[head]
    nodes = bg.nodes
    paths: Dict[Hashable, List[Hashable]] = {nodes[s]: [nodes[s]]}
    rows = np.flatnonzero(keep)
    for i in rows[np.argsort(dist[rows], kind="stable")].tolist():
        if i != s:
            paths[nodes[i]] = paths[nodes[int(pred[i])]] + [nodes[i]]
    return paths


# ----- structure --------------------------------------------------------------------------


def core_number(G: Any) -> Dict[Hashable, int]:
    """The core number of every node (undirected graphs without self-loops)."""
    bg = view(G)
    if bg.number_of_selfloops() > 0:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )
    if len(bg) == 0:
        return {}
    return bg.mapped(_run(bg, "kcore").values.tolist())


def triangles(G: Any, nodes: Any = None) -> Union[int, Dict[Hashable, int]]:
    """The number of triangles through each node (of ``nodes``; a single node: its number)."""
    bg = view(G)
    _not_directed(bg)
    if len(bg) == 0:
        return {}
    counts = bg.mapped(_run(bg, "triangles").values.tolist())
    if nodes is None:
        return counts
    if bg.position(nodes) is not None:
        return int(counts[nodes])
    return {v: counts[v] for v in nodes if v in counts}


def maximal_independent_set(G: Any, nodes: Any = None, seed: Optional[int] = None) -> List[Hashable]:
    """A maximal independent set: greedy by vertex order (``seed`` None) or Luby's rounds seeded
    from NetworkX's generator (a call given a seed runs on NetworkX: only its algorithm gives
    its set for that seed)."""
    bg = view(G)
    _not_directed(bg)
    options: Dict[str, Any] = {"method": "greedy"} if seed is None else {"method": "luby", "seed": engine_seed(seed)}
    chosen = np.flatnonzero(_run(bg, "mis", **options).values == 1)
    nodes_ = bg.nodes
    return [nodes_[i] for i in chosen.tolist()]


def minimum_spanning_tree(
    G: Any, weight: str = "weight", algorithm: str = "kruskal", ignore_nan: bool = False
) -> Any:
    """The minimum spanning forest as a NetworkX graph of G's class, with G's graph, node and
    edge attributes (an opened graph's edges carry their weights as ``weight``)."""
    bg = view(G)
    _not_directed(bg)
    source = bg._source
    T = source.__class__() if source is not None else nx.Graph()
    if source is not None:
        T.graph.update(source.graph)
        T.add_nodes_from(source.nodes.items())
    else:
        T.add_nodes_from(bg.nodes)
    if len(bg) == 0:
        return T
    parents = _run(bg, "mst", weight).values
    g = bg.graph(weight)
    ids = g.vertex_ids()
    child = np.flatnonzero(parents != ids)
    parent = np.searchsorted(ids, parents[child])
    nodes = bg.nodes
    if source is not None:
        T.add_edges_from((nodes[p], nodes[c], source.edges[nodes[p], nodes[c]]) for c, p in zip(child.tolist(), parent.tolist()))
        return T
    if not g.weighted:
        T.add_edges_from((nodes[p], nodes[c]) for c, p in zip(child.tolist(), parent.tolist()))
        return T
    A = g.to_scipy()
    for c, p in zip(child.tolist(), parent.tolist()):
        start, end = int(A.indptr[c]), int(A.indptr[c + 1])
        at = start + int(np.searchsorted(A.indices[start:end], p))
        T.add_edge(nodes[p], nodes[c], weight=float(A.data[at]))
    return T


def diameter(G: Any, e: Any = None, usebounds: bool = False, weight: Optional[str] = None) -> int:
    """The exact diameter in hops: the largest distance of all-sources BFS (multi-source runs
    in batches); NetworkXError when some pair is not connected."""
    bg = view(G)
    n = len(bg)
    if n == 0:
        raise ValueError("diameter is not defined for the null graph")
    if bg.is_directed():
        if _count(bg, "scc") > 1:
            raise nx.NetworkXError("Found infinite path length because the digraph is not strongly connected")
    elif _count(bg, "wcc") > 1:
        raise nx.NetworkXError("Found infinite path length because the graph is not connected")
    ids = bg.graph().vertex_ids()
    batch = max(64, _APSP_BATCH_BYTES // (8 * n) // 64 * 64)
    best = 0
    for start in range(0, n, batch):
        hops = _run(bg, "apsp", sources=ids[start : start + batch]).values
        best = max(best, int(hops.max()))
    return best


# ----- centrality -------------------------------------------------------------------------


def betweenness_centrality(
    G: Any,
    k: Optional[int] = None,
    normalized: bool = True,
    weight: Optional[str] = None,
    endpoints: bool = False,
    seed: Optional[int] = None,
) -> Dict[Hashable, float]:
    """Brandes' betweenness with NetworkX's scaling; ``k`` sampled sources by diskgraph's
    sampler, drawn from NetworkX's generator (a call given a seed runs on NetworkX:
    :func:`~diskgraph.nx_backend.interface.can_run`)."""
    bg = view(G)
    n = len(bg)
    if n == 0:
        return {}
    if k is not None and not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    options: Dict[str, Any] = {}
    if k is not None:
        options["samples"] = k
        options["seed"] = engine_seed(seed)
    values = _run(bg, "bc", **options).values
    pairs = n - 1
    correction = 1.0 if bg.is_directed() else 2.0
    if endpoints:
        # Every pair (s, t) in a component adds 1 to both ends, in each direction.
        raw = values * (pairs * (pairs - 1)) if pairs >= 2 else values
        labels = _run(bg, "wcc").values
        _, inverse, sizes = np.unique(labels, return_inverse=True, return_counts=True)
        raw = raw + 2.0 * (sizes[inverse.reshape(-1)] - 1)
        if normalized:
            values = raw / (n * (n - 1)) if n >= 2 else raw
        else:
            values = raw / correction
    elif not normalized and pairs >= 2:
        values = values * (pairs * (pairs - 1)) / correction
    return bg.mapped(values.tolist())


#: The implemented functions (:data:`diskgraph.nx_backend.FUNCTIONS`) and :func:`view`.
__all__ = ["view", *FUNCTIONS]
