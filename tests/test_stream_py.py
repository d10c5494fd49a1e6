"""The stream engine from Python: Graph.partition publishes grid layouts; bfs, sssp, wcc (both
methods), pagerank and spmv on ``engine="stream"`` agree with NetworkX (and the memory engine)
on seeded random graphs with the nasty cases (self-loops, duplicates, isolated vertices, sparse
and near-2**64 IDs, hubs, long paths, disconnected pieces), across MRT, vertex state and P; mis
is independent and maximal (greedy equal to the greedy set by ascending ID); the options reach
the engine and bad values raise."""

from __future__ import annotations

import math
from typing import Dict, List

import networkx as nx
import numpy as np
import pytest

import diskgraph
from helpers import build, min_labels, options_graph, random_case, reference_graph

#: Seeds covering every kind of random case (see helpers.random_case), both directions, all
#: weight kinds and ID modes, and (below) every P, MRT, vertex state and budget.
SEEDS = range(16)


def undirected_simple(G: nx.Graph) -> nx.Graph:
    U = nx.Graph(G.to_undirected())
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    return U


def check_mis(U: nx.Graph, ids: List[int], values: np.ndarray) -> None:
    chosen = {x for x, b in zip(ids, values.tolist()) if b == 1}
    assert set(values.tolist()) <= {0, 1}
    for x in ids:
        near = set(U.neighbors(x))
        if x in chosen:
            assert not near & chosen, f"{x} has a neighbour in the set"
        else:
            assert near & chosen, f"{x} could join the set"


def greedy_by_id(U: nx.Graph, ids: List[int]) -> List[int]:
    chosen = set()
    for x in ids:
        if not any(u in chosen for u in U.neighbors(x)):
            chosen.add(x)
    return [int(x in chosen) for x in ids]


@pytest.mark.parametrize("seed", SEEDS)
def test_stream_against_networkx(seed: int, tmp_path) -> None:
    case = random_case(seed)
    g = build(case, tmp_path / "g")
    G = reference_graph(case)
    U = undirected_simple(G)
    ids = [int(x) for x in g.vertex_ids()]
    p = (1, 4, 16)[seed % 3]
    summary = g.partition(grid=p)
    assert summary["name"] == f"grid-{p}" and summary["rows"] == p
    g.partition(grid=2, sort="source")
    opts: Dict[str, object] = {
        "engine": "stream",
        "mrt": (1, 5)[seed // 2 % 2],
        "vertex_state": ("memory", "mmap")[seed // 4 % 2],
        "memory": ("256KiB", "16MiB")[seed // 8 % 2],
        "threads": 2,
    }
    s = ids[seed % len(ids)]

    lev = nx.single_source_shortest_path_length(G, s)
    r = g.bfs(s, **opts)
    assert r.stats["engine"] == "stream" and r.stats["settings"]["layout"] == f"grid-{p}"
    assert r.stats["settings"]["mrt"] == opts["mrt"]
    assert r.stats["settings"]["vertex_state"] == opts["vertex_state"]
    assert r.values.tolist() == [lev.get(x, -1) for x in ids]

    dist = g.sssp(s, **opts).values
    ref = nx.single_source_dijkstra_path_length(G, s, weight="weight") if case.weighted else lev
    for i, x in enumerate(ids):
        if x in ref:
            assert math.isclose(dist[i], ref[x], rel_tol=1e-9, abs_tol=1e-12), (x, dist[i], ref[x])
        else:
            assert dist[i] == math.inf

    comps = nx.weakly_connected_components(G) if case.directed else nx.connected_components(G)
    want = min_labels(comps, ids)
    assert g.wcc(**opts).values.tolist() == want
    lp = g.wcc(method="label-propagation", **opts)
    assert lp.values.tolist() == want
    assert lp.stats["settings"]["method"] == "label-propagation"

    pr = g.pagerank(tolerance=1e-12, **opts).values
    ref_pr = nx.pagerank(options_graph(case), alpha=0.85, tol=1e-12, max_iter=100_000, weight=None)
    np.testing.assert_allclose(pr, [ref_pr[x] for x in ids], rtol=0, atol=1e-8)

    x = np.random.default_rng(seed).uniform(0.5, 2.0, len(ids))
    np.testing.assert_allclose(g.spmv(x, **opts).values, g.spmv(x, engine="memory").values, rtol=1e-12)

    greedy = g.mis(**opts)
    assert greedy.values.dtype == np.int64
    assert greedy.stats["settings"]["layout"] == "grid-2-source"
    assert greedy.values.tolist() == greedy_by_id(U, ids)
    assert g.mis(engine="memory").values.tolist() == greedy_by_id(U, ids)
    check_mis(U, ids, g.mis(method="luby", seed=seed, **opts).values)


def test_options_and_errors(tmp_path) -> None:
    case = random_case(5)
    g = build(case, tmp_path / "g")
    with pytest.raises(ValueError, match="diskgraph partition"):
        g.bfs(engine="stream")
    info = g.partition(grid=4)
    assert info["cols"] == 4 and info["num_arcs"] == g.num_arcs
    record = next(l for l in g.manifest["layouts"] if l["name"] == "grid-4")
    assert record["kind"] == "grid" and (record["rows"], record["cols"]) == (4, 4)
    assert record["sort"] == "grid" and record["num_arcs"] == g.num_arcs
    with pytest.raises(diskgraph.OutputExistsError):
        g.partition(grid=4)
    g.partition(grid=4, force=True)
    g.partition(sort="destination", memory="64KiB")
    with pytest.raises(ValueError):
        g.partition(grid=4, sort="diagonal")
    with pytest.raises(ValueError):
        g.partition(grid=0)
    with pytest.raises(ValueError, match="memory or mmap"):
        g.bfs(engine="stream", vertex_state="disk")
    with pytest.raises(ValueError):
        g.bfs(engine="stream", mrt=0)
    with pytest.raises(ValueError, match="no layout grid-9"):
        g.bfs(engine="stream", layout="grid-9")
    with pytest.raises(ValueError, match="union-find"):
        g.wcc(engine="stream", method="magic")
    with pytest.raises(ValueError, match="stream engine"):
        g.wcc(engine="memory", method="union-find")
    with pytest.raises(ValueError, match="no stream variant"):
        g.kcore(engine="stream")
    with pytest.raises(TypeError):
        g.bfs(engine="stream", layout=4)  # type: ignore[arg-type]
    r = g.bfs(engine="stream", layout="grid-4", mrt=3, io="pread", queue_depth=4)
    assert r.stats["settings"]["io_backend"] == "pread" and r.stats["settings"]["mrt"] == 3
    assert r.stats["bytes_read"] > 0 and r.stats["io_rounds"]
    # mis: auto takes memory when the CSR fits, the stream engine when it does not.
    assert g.mis().stats["engine"] == "memory"


def test_seeds_cover_the_cases() -> None:
    cases = [random_case(s) for s in SEEDS]
    assert {c.kind for c in cases} == {"er", "hub", "path", "parts", "dense"}
    assert {c.directed for c in cases} == {True, False}
    assert {c.weights_kind for c in cases} == {"none", "float", "int"}
    assert {c.id_mode for c in cases} == {"identity", "offset", "sparse60", "top64"}
