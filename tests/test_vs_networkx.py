"""Every algorithm against NetworkX on 200 seeded random graphs: directed and undirected,
self-loops, duplicates, isolated vertices, sparse 60-bit and near-2**64 IDs, hubs, long paths,
disconnected pieces, float and integer weights, and the keep_* import options."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import diskgraph
from helpers import build, kept_edges, min_labels, options_graph, random_case, reference_graph

SEEDS = range(200)


@pytest.mark.parametrize("seed", SEEDS)
def test_against_networkx(seed: int, tmp_path) -> None:
    case = random_case(seed)
    g = build(case, tmp_path / "g")
    G = reference_graph(case)
    ids = [int(x) for x in g.vertex_ids()]

    # Structure: vertex set, counts, degrees, flags.
    assert ids == case.all_ids()
    kept = kept_edges(case)
    assert g.num_vertices == len(ids)
    assert g.num_edges == len(kept)
    assert g.directed == case.directed
    assert g.weighted == case.weighted
    K = options_graph(case)
    if case.directed:
        assert g.out_degree().tolist() == [K.out_degree(x) for x in ids]
        assert g.in_degree().tolist() == [K.in_degree(x) for x in ids]
    else:
        # diskgraph stores a kept self-loop once; NetworkX counts it twice in the degree.
        loops = {x: 0 for x in ids}
        for u, v, _ in kept:
            if u == v:
                loops[u] += 1
        assert g.out_degree().tolist() == [K.degree(x) - loops[x] for x in ids]
    g.verify()

    rng = np.random.default_rng(seed + 10_000)
    source = None if seed % 4 == 0 else ids[int(rng.integers(len(ids)))]
    s = ids[0] if source is None else source

    # BFS levels and a valid parent tree.
    lev = nx.single_source_shortest_path_length(G, s)
    levels = g.bfs(source).values
    assert levels.dtype == np.int64
    assert levels.tolist() == [lev.get(x, -1) for x in ids]
    parents = g.bfs(source, parents=True).values
    # IDs of 2**63 and more do not fit int64: then parents are uint64 with 2**64-1 unreached.
    assert parents.dtype == (np.uint64 if ids[-1] >= 2**63 else np.int64)
    unreached = 2**64 - 1 if parents.dtype == np.uint64 else -1
    for i, x in enumerate(ids):
        p = int(parents[i])
        if x not in lev:
            assert p == unreached
        elif x == s:
            assert p == s
        else:
            assert p in lev and lev[p] == lev[x] - 1, (x, p)
            assert G.has_edge(p, x), (p, x)

    # SSSP: Dijkstra on float32 weights, or hop counts when unweighted.
    dist = g.sssp(source).values
    assert dist.dtype == np.float64
    if case.weighted:
        ref = nx.single_source_dijkstra_path_length(G, s, weight="weight")
    else:
        ref = lev
    for i, x in enumerate(ids):
        if x in ref:
            assert math.isclose(dist[i], ref[x], rel_tol=1e-9, abs_tol=1e-12), (x, dist[i], ref[x])
        else:
            assert dist[i] == math.inf

    # Components, labelled by their smallest original ID.
    wcc = g.wcc().values
    scc = g.scc().values
    assert wcc.dtype == np.uint64 and scc.dtype == np.uint64
    if case.directed:
        assert wcc.tolist() == min_labels(nx.weakly_connected_components(G), ids)
        assert scc.tolist() == min_labels(nx.strongly_connected_components(G), ids)
    else:
        cc = min_labels(nx.connected_components(G), ids)
        assert wcc.tolist() == cc
        assert scc.tolist() == cc

    # PageRank on the graph as imported (multiplicities and kept self-loops count).
    pr = g.pagerank(tolerance=1e-12).values
    ref_pr = nx.pagerank(options_graph(case), alpha=0.85, tol=1e-12, max_iter=100_000, weight=None)
    np.testing.assert_allclose(pr, [ref_pr[x] for x in ids], rtol=0, atol=1e-8)
    assert math.isclose(float(pr.sum()), 1.0, abs_tol=1e-9)

    # k-core on the undirected simple view without self-loops.
    U = nx.Graph(G.to_undirected())
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    core = nx.core_number(U)
    assert g.kcore().values.tolist() == [core[x] for x in ids]


def test_cases_cover_the_nasty_ones() -> None:
    """The seeds really produce every feature the suite claims to test."""
    cases = [random_case(s) for s in SEEDS]
    assert {c.kind for c in cases} == {"er", "hub", "path", "parts", "dense"}
    assert {c.directed for c in cases} == {True, False}
    assert {c.weights_kind for c in cases} == {"none", "float", "int"}
    assert {c.id_mode for c in cases} == {"identity", "offset", "sparse60", "top64"}
    assert {c.dtype for c in cases} >= {"uint64", "int64", "int32", "uint32", "list"}
    assert any(any(u == v for u, v in zip(c.src, c.dst)) for c in cases)
    assert any(c.keep_self_loops for c in cases) and any(c.keep_duplicates for c in cases)
    assert any(len(set(zip(c.src, c.dst))) < len(c.src) for c in cases)
    assert any(set(c.isolated) - set(c.src) - set(c.dst) for c in cases)
    assert max(max(c.all_ids()) for c in cases) > 2**63
    assert max(len(c.all_ids()) for c in cases if c.kind == "path") >= 2000
    hub = next(c for c in cases if c.kind == "hub")
    assert len(set(hub.all_ids())) >= 200
