"""Minimum spanning forests against NetworkX's ``minimum_spanning_tree``: the edge set and the
total weight on undirected graphs with distinct weights (where no tie-break can differ) —
disconnected pieces, isolated vertices, self-loops, heavier parallel edges, negative weights, a
hub, a long path, IDs of 2**63 and more — the total and edge count on an unweighted graph, and
the refusal of a directed graph."""

from __future__ import annotations

from typing import List, Set, Tuple

import networkx as nx
import numpy as np
import pytest

import diskgraph

Edge = Tuple[int, int]


def generated(kind: str, seed: int) -> Tuple[List[Edge], List[int]]:
    """Simple undirected edges (no loops, no parallels) over test vertices, and isolated ones."""
    if kind == "gnm":
        G = nx.gnm_random_graph(120, 260, seed=seed)
    elif kind == "pieces":
        G = nx.disjoint_union_all([nx.gnm_random_graph(n, 2 * n, seed=seed + n) for n in (30, 12, 5, 2)])
    elif kind == "hub":
        G = nx.star_graph(300)
        G.add_edges_from(nx.gnm_random_graph(301, 80, seed=seed).edges())
    elif kind == "path":
        G = nx.path_graph(1500)
        G.add_edges_from([(0, 1499), (300, 900), (10, 1200)])
    else:
        raise ValueError(kind)
    n = G.number_of_nodes()
    return [(int(u), int(v)) for u, v in G.edges() if u != v], [n, n + 1, n + 7]


CASES = [
    ("gnm", "identity", False, 1),
    ("gnm", "huge", True, 2),
    ("pieces", "sparse", False, 3),
    ("pieces", "identity", True, 4),
    ("hub", "huge", False, 5),
    ("path", "sparse", True, 6),
]


def original_id(mode: str, v: int) -> int:
    return {"identity": v, "sparse": 5 + 7919 * v, "huge": 2**63 + 1_000_003 * v}[mode]


def forest_edges(result: diskgraph.Result) -> Set[Edge]:
    """The forest's edges (smaller ID first): each vertex with its parent, roots aside."""
    assert result.values.dtype == np.uint64
    pairs = zip(result.vertex_ids.tolist(), result.values.tolist())
    return {(min(v, p), max(v, p)) for v, p in pairs if v != p}


def total_weight(result: diskgraph.Result) -> float:
    return float(result.stats["settings"]["total_weight"])


def check_roots(result: diskgraph.Result, G: nx.Graph) -> None:
    """Each tree is rooted at the smallest ID of its component, which is its own parent."""
    parent = dict(zip(result.vertex_ids.tolist(), result.values.tolist()))
    roots = {v for v, p in parent.items() if v == p}
    assert roots == {min(c) for c in nx.connected_components(G)}
    assert result.stats["settings"]["trees"] == len(roots)


@pytest.mark.parametrize("kind,ids,negative,seed", CASES)
def test_distinct_weights_as_networkx(kind: str, ids: str, negative: bool, seed: int, tmp_path) -> None:
    rng = np.random.default_rng(seed)
    edges, isolated = generated(kind, seed)
    m = len(edges)
    # Distinct integers, exact in float32; negative ones too when asked.
    weights = (rng.permutation(m) + 1 - (m // 2 if negative else 0)).astype(float)
    G = nx.Graph()
    G.add_nodes_from(original_id(ids, v) for v in isolated)
    for (u, v), w in zip(edges, weights):
        G.add_edge(original_id(ids, u), original_id(ids, v), weight=float(w))
    # diskgraph also gets self-loops and heavier parallel edges, which change nothing.
    loops = [int(v) for v in rng.choice(sorted({u for e in edges for u in e}), 5, replace=False)]
    parallel = [int(i) for i in rng.choice(m, m // 10, replace=False)]
    src = [u for u, _ in edges] + loops + [edges[i][0] for i in parallel]
    dst = [v for _, v in edges] + loops + [edges[i][1] for i in parallel]
    w_all = list(weights) + [0.5 - m] * len(loops) + [float(m + 1 + k) for k in range(len(parallel))]
    for keep_duplicates in (False, True):
        g = diskgraph.from_edges(
            np.array([original_id(ids, v) for v in src], dtype=np.uint64),
            np.array([original_id(ids, v) for v in dst], dtype=np.uint64),
            tmp_path / f"g{keep_duplicates}",
            weights=np.array(w_all),
            directed=False,
            vertices=[original_id(ids, v) for v in isolated],
            keep_self_loops=True,
            keep_duplicates=keep_duplicates,
        )
        result = g.mst()
        T = nx.minimum_spanning_tree(G)
        assert result.vertex_ids.tolist() == sorted(G.nodes())
        assert forest_edges(result) == {(min(u, v), max(u, v)) for u, v in T.edges()}
        assert total_weight(result) == pytest.approx(T.size(weight="weight"), rel=1e-12)
        assert result.stats["settings"]["forest_edges"] == T.number_of_edges()
        check_roots(result, G)


def test_unweighted_as_networkx(tmp_path) -> None:
    edges, isolated = generated("pieces", 11)
    src = np.array([u for u, _ in edges], dtype=np.uint64)
    dst = np.array([v for _, v in edges], dtype=np.uint64)
    g = diskgraph.from_edges(src, dst, tmp_path / "g", directed=False, vertices=isolated)
    G = nx.Graph(edges)
    G.add_nodes_from(isolated)
    T = nx.minimum_spanning_tree(G)
    result = g.mst()
    assert total_weight(result) == T.size(weight="weight") == T.number_of_edges()
    assert len(forest_edges(result)) == T.number_of_edges()
    check_roots(result, G)


def test_a_directed_graph_is_refused_as_by_networkx(tmp_path) -> None:
    g = diskgraph.from_edges(np.array([1, 2]), np.array([2, 3]), tmp_path / "g", directed=True)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.minimum_spanning_tree(nx.DiGraph([(1, 2), (2, 3)]))
    with pytest.raises(diskgraph.AlgorithmError, match="mst needs an undirected graph"):
        g.mst()


def test_a_root_is_its_own_parent_up_to_the_largest_id(tmp_path) -> None:
    top = 2**64 - 1
    g = diskgraph.from_edges(
        np.array([top, 2**63], dtype=np.uint64),
        np.array([2**63 + 5, 2**63 + 5], dtype=np.uint64),
        tmp_path / "g",
        weights=[2.0, 1.0],
        directed=False,
        vertices=[7],
    )
    result = g.mst()
    assert result.vertex_ids.tolist() == [7, 2**63, 2**63 + 5, top]
    assert result.values.tolist() == [7, 2**63, 2**63, 2**63 + 5]
    assert total_weight(result) == 3.0
