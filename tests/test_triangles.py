"""Triangle counts against NetworkX's ``triangles`` of the simple undirected graph (direction
ignored, parallel arcs and the two directions of a pair once, self-loops dropped): directed and
undirected graphs imported with their self-loops and duplicates kept, a hub, disconnected pieces
with isolated vertices, IDs of 2**63 and more, on the memory engine and on the selective engine
at a budget small enough that it counts in several chunks."""

from __future__ import annotations

from typing import List, Tuple

import networkx as nx
import numpy as np
import pytest

import diskgraph

Arc = Tuple[int, int]


def generated(kind: str, seed: int) -> Tuple[List[Arc], List[int]]:
    """Arcs over test vertices (with self-loops, repeats and reversed pairs) and isolated ones."""
    rng = np.random.default_rng(seed)
    if kind == "clustered":
        G = nx.powerlaw_cluster_graph(5000, 8, 0.4, seed=seed)
    elif kind == "gnm":
        G = nx.gnm_random_graph(300, 2500, seed=seed, directed=True)
    elif kind == "hub":
        G = nx.star_graph(400)
        G.add_edges_from(nx.gnm_random_graph(401, 900, seed=seed).edges())
    elif kind == "pieces":
        G = nx.disjoint_union_all(
            [nx.complete_graph(12), nx.gnm_random_graph(60, 400, seed=seed), nx.path_graph(30), nx.cycle_graph(3)]
        )
    else:
        raise ValueError(kind)
    arcs = [(int(u), int(v)) for u, v in G.edges()]
    nodes = sorted({u for a in arcs for u in a})
    loops = [(v, v) for v in rng.choice(nodes, 20, replace=False).tolist()]
    repeats = [arcs[i] for i in rng.choice(len(arcs), len(arcs) // 5, replace=False)]
    reversed_pairs = [(v, u) for u, v in (arcs[i] for i in rng.choice(len(arcs), len(arcs) // 5, replace=False))]
    n = G.number_of_nodes()
    return arcs + loops + repeats + reversed_pairs, [n, n + 3, n + 10]


CASES = [
    ("clustered", "identity", False, 1),
    ("clustered", "huge", True, 2),
    ("gnm", "sparse", True, 3),
    ("gnm", "identity", False, 4),
    ("hub", "huge", False, 5),
    ("hub", "sparse", True, 6),
    ("pieces", "identity", True, 7),
    ("pieces", "huge", False, 8),
]


def original_id(mode: str, v: int) -> int:
    return {"identity": v, "sparse": 5 + 7919 * v, "huge": 2**63 + 1_000_003 * v}[mode]


@pytest.mark.parametrize("kind,ids,directed,seed", CASES)
def test_triangles_as_networkx(kind: str, ids: str, directed: bool, seed: int, tmp_path) -> None:
    arcs, isolated = generated(kind, seed)
    src = np.array([original_id(ids, u) for u, _ in arcs], dtype=np.uint64)
    dst = np.array([original_id(ids, v) for _, v in arcs], dtype=np.uint64)
    g = diskgraph.from_edges(
        src,
        dst,
        tmp_path / "g",
        directed=directed,
        vertices=[original_id(ids, v) for v in isolated],
        keep_self_loops=True,
        keep_duplicates=True,
    )
    G = nx.Graph()
    G.add_nodes_from(original_id(ids, v) for v in isolated)
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    want = nx.triangles(G)
    total = sum(want.values()) // 3
    for engine, memory in (("memory", None), ("selective", "640KiB"), ("selective", "64MiB")):
        result = g.triangles(engine=engine, memory=memory)
        assert result.values.dtype == np.uint64
        assert result.vertex_ids.tolist() == sorted(G.nodes())
        assert result.values.tolist() == [want[v] for v in result.vertex_ids.tolist()], (engine, memory)
        settings = result.stats["settings"]
        assert settings["triangles"] == total
        if kind == "clustered" and memory == "320KiB":
            assert settings["chunks"] > 1, settings["chunks"]


def test_a_directed_pair_is_one_edge(tmp_path) -> None:
    """Arcs both ways between three vertices make one triangle, as in ``G.to_undirected()``."""
    src = np.array([1, 2, 2, 3, 3, 1, 1], dtype=np.uint64)
    dst = np.array([2, 1, 3, 2, 1, 3, 1], dtype=np.uint64)
    g = diskgraph.from_edges(src, dst, tmp_path / "g", directed=True, vertices=[9], keep_self_loops=True)
    D = nx.DiGraph(list(zip(src.tolist(), dst.tolist())))
    D.add_node(9)
    U = D.to_undirected()
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    want = nx.triangles(U)
    for engine in ("memory", "selective"):
        result = g.triangles(engine=engine)
        assert result.values.tolist() == [want[v] for v in result.vertex_ids.tolist()] == [1, 1, 1, 0]
        assert result.stats["settings"]["triangles"] == 1
