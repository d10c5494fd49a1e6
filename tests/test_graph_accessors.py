"""Graph.neighbors, edges, degree, to_scipy and to_networkx against NetworkX on the seeded
random graphs (self-loops, parallel edges, isolated vertices, IDs up to 2**64-1), stored as
imported and relabelled by a reordering (whose internal order is not ID order)."""

from __future__ import annotations

from typing import List, Tuple

import networkx as nx
import numpy as np
import pytest

import diskgraph
from helpers import Case, build, kept_edges, random_case

SEEDS = list(range(12))


def reference(case: Case) -> nx.Graph:
    """The graph as stored: the case's cleaning options applied, weights as float32."""
    multi = case.keep_duplicates
    cls = {
        (True, False): nx.DiGraph,
        (False, False): nx.Graph,
        (True, True): nx.MultiDiGraph,
        (False, True): nx.MultiGraph,
    }[(case.directed, multi)]
    G = cls()
    G.add_nodes_from(case.all_ids())
    for u, v, w in kept_edges(case):
        if w is None:
            G.add_edge(u, v)
        else:
            G.add_edge(u, v, weight=w)
    return G


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def stored(request, tmp_path_factory) -> Tuple[Case, List[diskgraph.Graph]]:
    """A case stored as imported and reordered (built once for every test of the module)."""
    case = random_case(request.param)
    tmp_path = tmp_path_factory.mktemp(f"seed{request.param}")
    g = build(case, tmp_path / "g.dg")
    reordered = g.reorder(tmp_path / "r.dg", "random", seed=5)
    return case, [g, reordered]


def test_neighbors(stored) -> None:
    case, graphs = stored
    G = reference(case)
    ids = case.all_ids()
    probe = ids[:: max(1, len(ids) // 40)]
    for g in graphs:
        for v in probe:
            out = sorted(t for _, t in G.out_edges(v)) if case.directed else sorted(t for _, t in G.edges(v))
            got = g.neighbors(v)
            assert got.dtype == np.uint64
            assert got.tolist() == out
            if case.directed:
                assert g.neighbors(v, "in").tolist() == sorted(s for s, _ in G.in_edges(v))
            else:
                assert g.neighbors(v, "in").tolist() == out


def test_edges(stored) -> None:
    case, graphs = stored
    expected = sorted((u, v, w) for u, v, w in kept_edges(case))
    for g in graphs:
        src, dst, weight = g.edges()
        assert src.dtype == np.uint64 and dst.dtype == np.uint64
        got = list(zip(src.tolist(), dst.tolist()))
        assert got == sorted(got), "edges are sorted by (src, dst)"
        if weight is None:
            assert not case.weighted
            assert sorted(got) == [(u, v) for u, v, _ in expected]
        else:
            assert weight.dtype == np.float32
            assert sorted(zip(src.tolist(), dst.tolist(), weight.tolist())) == expected


def test_degree(stored) -> None:
    case, graphs = stored
    G = reference(case)
    expected = [G.degree(v) for v in case.all_ids()]
    for g in graphs:
        degree = g.degree()
        assert degree.dtype == np.int64
        assert degree.tolist() == expected


def test_to_scipy(stored) -> None:
    case, graphs = stored
    G = reference(case)
    A = nx.to_scipy_sparse_array(G, nodelist=case.all_ids(), weight="weight", dtype=np.float64, format="csr")
    for g in graphs:
        B = g.to_scipy()
        assert B.format == "csr" and B.dtype == np.float64 and B.shape == A.shape
        assert (abs(B - A) > 0).nnz == 0


def test_to_networkx(stored) -> None:
    case, graphs = stored
    G = reference(case)
    for g in graphs:
        H = g.to_networkx()
        assert type(H) is type(G)
        assert list(H) == case.all_ids()
        if G.is_multigraph():
            assert sorted(H.edges(data="weight")) == sorted(G.edges(data="weight"))
        else:
            assert nx.utils.edges_equal(H.edges(data=True), G.edges(data=True))


def test_to_networkx_without_weights(tmp_path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "w.dg", weights=[0.5, 2.0], directed=False)
    assert nx.utils.edges_equal(g.to_networkx().edges(data=True), [(1, 2, {"weight": 0.5}), (2, 3, {"weight": 2.0})])
    assert list(g.to_networkx(weight=None).edges(data=True)) == [(1, 2, {}), (2, 3, {})]
    assert nx.utils.edges_equal(g.to_networkx(weight="w").edges(data=True), [(1, 2, {"w": 0.5}), (2, 3, {"w": 2.0})])


def test_neighbors_refuses(tmp_path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "g.dg")
    with pytest.raises(diskgraph.InvalidVertex):
        g.neighbors(7)
    with pytest.raises(ValueError, match="direction"):
        g.neighbors(1, "both")
    with pytest.raises(TypeError):
        g.neighbors("1")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        g.neighbors(-1)
    assert g.neighbors(3).tolist() == [] and g.neighbors(3, "in").tolist() == [2]


def test_is_directed_and_multigraph(tmp_path) -> None:
    g = diskgraph.from_edges([1, 1], [2, 2], tmp_path / "m.dg", directed=False, keep_duplicates=True)
    assert not g.is_directed() and g.is_multigraph()
    assert g.degree().tolist() == [2, 2]
    assert g.to_scipy().toarray().tolist() == [[0.0, 2.0], [2.0, 0.0]]
    assert g.to_scipy(dtype=np.float32).dtype == np.float32


def test_neighbors_by_name(tmp_path) -> None:
    """A graph with names takes and gives node keys (les_miserables' string nodes)."""
    G = nx.les_miserables_graph()
    g = diskgraph.from_networkx(G, tmp_path / "les.dg")
    for node in ("Valjean", "Myriel", "Napoleon"):
        got = g.neighbors(node)
        assert got.dtype == object
        assert sorted(got.tolist()) == sorted(G[node])
    reopened = diskgraph.open(tmp_path / "les.dg")
    assert sorted(reopened.neighbors("Javert").tolist()) == sorted(G["Javert"])
    with pytest.raises(diskgraph.InvalidVertex):
        g.neighbors("Nobody")
