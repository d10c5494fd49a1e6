"""The sync engine from Python: ``Graph.sync`` gives each vertex's lists (original IDs, weights)
equal to NetworkX's on seeded random graphs with the nasty cases, under every backend,
prefetch setting and index mode; a BFS written as a plain loop over its prefetched queue
equals NetworkX's; bad options and vertices raise; ``engine="sync"`` runs from ``Graph.run``."""

from __future__ import annotations

from typing import Any, Dict, List

import networkx as nx
import pytest

import diskgraph
from helpers import Case, build, kept_edges, random_case, reference_graph

SEEDS = range(12)

SETTINGS: List[Dict[str, Any]] = [
    {"ift": 0, "ift_seq": 0},
    {"ift": 4, "ift_seq": 1},
    {"ift": 64, "index_summary": True},
    {"io": "mmap"},
    {"io": "pread", "ift": 2},
]


def stored_lists(case: Case):
    """Each vertex's out- and in-list as stored: (neighbour, weight) with the case's self-loops
    and duplicates; an undirected edge both ways, a self-loop once."""
    out: Dict[int, List[Any]] = {v: [] for v in case.all_ids()}
    inn: Dict[int, List[Any]] = {v: [] for v in case.all_ids()}
    for u, v, w in kept_edges(case):
        out[u].append((v, w))
        inn[v].append((u, w))
        if not case.directed and u != v:
            out[v].append((u, w))
    return out, (inn if case.directed else out)


def bfs_levels(s: diskgraph.SyncGraph, source: int) -> Dict[int, int]:
    """The textbook loop, over the engine's prefetched queue."""
    q = s.queue()
    level = {source: 0}
    q.push(source)
    while len(q):
        v = q.pop()
        assert v is not None
        for x in s.neighbors(v):
            x = int(x)
            if x not in level:
                level[x] = level[v] + 1
                q.push(x)
    return level


@pytest.mark.parametrize("seed", SEEDS)
def test_lists_and_a_python_bfs_equal_networkx(seed: int, tmp_path) -> None:
    case = random_case(seed)
    g = build(case, tmp_path / "g")
    G = reference_graph(case)
    for settings in SETTINGS:
        s = g.sync("256KiB", in_edges=True, weights=case.weighted, **settings)
        out, inn = stored_lists(case)
        for v in G.nodes:
            got = [int(x) for x in s.neighbors(v)]
            assert sorted(got) == sorted(x for x, _ in out[v]), (settings, v)
            assert s.degree(v) == len(got)
            assert sorted(int(x) for x in s.neighbors(v, "in")) == sorted(x for x, _ in inn[v])
            if case.weighted:
                pairs = sorted(zip(got, (float(w) for w in s.weights(v))))
                assert pairs == sorted(out[v]), (settings, v)  # both f32-rounded
        if G.number_of_nodes():
            source = min(G.nodes)
            assert bfs_levels(s, source) == dict(nx.single_source_shortest_path_length(G, source))
        stats = s.stats()
        assert stats["engine"] == "sync" and stats["settings"]["io"] == settings.get("io", "uring")


def test_bad_options_and_vertices_raise(tmp_path) -> None:
    g = diskgraph.from_edges([1, 2, 3], [2, 3, 1], tmp_path / "g", directed=True)
    with pytest.raises(ValueError, match="ift"):
        g.sync("1MiB", ift=-1)
    with pytest.raises(ValueError, match="io"):
        g.sync("1MiB", io="tape")
    with pytest.raises(ValueError, match="too small"):
        g.sync(4096)
    s = g.sync("1MiB")
    with pytest.raises(diskgraph.InvalidVertex):
        s.neighbors(99)
    with pytest.raises(ValueError, match="direction"):
        s.neighbors(1, "sideways")
    with pytest.raises(ValueError, match="in_edges=True"):
        s.queue(["in"])
    with pytest.raises(ValueError, match="weights were not opened"):
        s.weights(1)


def test_runs_on_the_sync_engine(tmp_path) -> None:
    G = nx.gnm_random_graph(200, 800, seed=3, directed=True)
    src, dst = zip(*G.edges())
    g = diskgraph.from_edges(list(src), list(dst), tmp_path / "g", directed=True, vertices=list(G.nodes))
    r = g.bfs(source=0, engine="sync", memory="256KiB", ift=8)
    want = nx.single_source_shortest_path_length(G, 0)
    assert {int(v): int(l) for v, l in zip(r.vertex_ids, r.values) if l >= 0} == want
    assert r.stats["engine"] == "sync" and r.stats["settings"]["ift"] == 8
