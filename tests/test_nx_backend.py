"""The NetworkX backend: every implemented function through ``backend="diskgraph"`` against
NetworkX itself on nasty graphs (self-loops, isolated nodes, disconnected parts, a hub, string
nodes, weights), with identical return types; opened graphs passed straight to NetworkX;
fallback when an argument cannot be honoured; the entry points and NETWORKX_BACKEND_PRIORITY."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from typing import Any, Callable, Dict, List

import networkx as nx
import pytest

import diskgraph
from diskgraph.nx_backend import FUNCTIONS, get_info
from diskgraph.nx_backend.interface import BackendInterface, can_run

nx.config.warnings_to_ignore.add("cache")


def undirected() -> nx.Graph:
    """A hub, a path with a self-loop, triangles, a separate piece and isolated nodes."""
    G = nx.Graph()
    G.add_nodes_from(range(12))  # 10 and 11 stay isolated
    G.add_edges_from((0, i) for i in range(1, 7))
    G.add_edges_from([(1, 2), (2, 3), (6, 7), (7, 8), (8, 9), (3, 3)])
    G.add_edges_from([(20, 21), (21, 22), (22, 20), (22, 23), (23, 23)])
    return G


def directed() -> nx.DiGraph:
    """Cycles, a hub with in- and out-spokes, a sink chain, a self-loop, isolated nodes."""
    G = nx.DiGraph()
    G.add_nodes_from(range(10))
    G.add_edges_from([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (4, 5), (5, 5)])
    G.add_edges_from((6, i) for i in range(0, 6))
    G.add_edges_from((i, 7) for i in range(1, 5))
    G.add_edges_from([(30, 31), (31, 32)])
    return G


def weighted(G: nx.Graph, halves: bool) -> nx.Graph:
    """``G`` with exact float32 weights: halves on every edge, or ints (some missing: 1)."""
    H = G.copy()
    for i, (u, v) in enumerate(sorted(H.edges(), key=repr)):
        if halves:
            H.edges[u, v]["weight"] = (i % 7) / 2 + 0.5
        elif i % 5 != 4:
            H.edges[u, v]["weight"] = (i % 7) + 1
    return H


def strings() -> nx.Graph:
    """Les Misérables: string nodes, int weights."""
    return nx.les_miserables_graph()


GRAPHS: Dict[str, Callable[[], nx.Graph]] = {
    "undirected": undirected,
    "directed": directed,
    "undirected-weighted": lambda: weighted(undirected(), halves=False),
    "directed-weighted": lambda: weighted(directed(), halves=True),
    "strings": strings,
}


def same(got: Any, expected: Any, approx: bool = False) -> None:
    """Equal values of identical types, recursively (floats to 1e-9 if ``approx``)."""
    assert type(got) is type(expected), (got, expected)
    if isinstance(expected, dict):
        assert list(got) == list(expected) or set(got) == set(expected)
        for k in expected:
            same(got[k], expected[k], approx)
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            same(a, b, approx)
    elif isinstance(expected, float) and approx:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
    else:
        assert got == expected


def close(pair: List[Any]) -> None:
    """The backend's answer equals NetworkX's, floats to 1e-9."""
    same(pair[0], pair[1], approx=True)


def both(name: str, G: nx.Graph, *args: Any, **kwargs: Any) -> List[Any]:
    """``name`` run by the backend and by NetworkX."""
    f = getattr(nx, name)
    return [f(G, *args, backend="diskgraph", **kwargs), f(G, *args, backend="networkx", **kwargs)]


def first(G: nx.Graph) -> Any:
    return next(iter(G))


@pytest.mark.parametrize("kind", GRAPHS)
def test_pagerank(kind: str) -> None:
    G = GRAPHS[kind]()
    got, expected = both("pagerank", G, weight=None, tol=1e-12, max_iter=1000)
    same(got, expected, approx=True)


@pytest.mark.parametrize("kind", GRAPHS)
def test_pagerank_with_weights_alpha_personalization_and_dangling(kind: str) -> None:
    # What the engine's pagerank does not take runs as NetworkX's power iteration over spmv.
    G = GRAPHS[kind]()
    for i, (u, v) in enumerate(G.edges()):
        G[u][v]["weight"] = (0.5, 1.0, 2.0, 3.0)[i % 4]
    nodes = list(G)
    share = {n: 1.0 + i % 3 for i, n in enumerate(nodes[::2])}
    for kwargs in (
        {},
        {"alpha": 0.6},
        {"personalization": share},
        {"personalization": share, "dangling": {nodes[0]: 1.0}},
        {"nstart": share, "weight": None, "alpha": 0.9},
    ):
        assert can_run("pagerank", (G,), kwargs) is True, kwargs
        got, expected = both("pagerank", G, tol=1e-10, max_iter=1000, **kwargs)
        same(got, expected, approx=True)


def test_pagerank_unconverged_raises_as_networkx() -> None:
    G = directed()
    for backend in ("diskgraph", "networkx"):
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.pagerank(G, max_iter=2, backend=backend)


def test_pagerank_convergence_is_read_from_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend decides convergence from the run's ``stats["converged"]``: with the summary
    (prose for people) withheld, a run cut short still raises and a converged one does not."""
    from diskgraph.nx_backend import algorithms

    runs: List[diskgraph.Result] = []
    run = algorithms._run

    def withheld(*args: Any, **kwargs: Any) -> diskgraph.Result:
        result = run(*args, **kwargs)
        result.summary = "(withheld)"
        runs.append(result)
        return result

    monkeypatch.setattr(algorithms, "_run", withheld)
    G = directed()
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, backend="diskgraph")
    assert runs[-1].stats["converged"] is False
    got = nx.pagerank(G, max_iter=1000, backend="diskgraph")
    assert runs[-1].stats["converged"] is True
    assert got.keys() == set(G)


@pytest.mark.parametrize("kind", GRAPHS)
def test_components(kind: str) -> None:
    G = GRAPHS[kind]()
    if G.is_directed():
        for name in ("weakly_connected_components", "strongly_connected_components"):
            got, expected = both(name, G)
            assert isinstance(got, types.GeneratorType)
            got, expected = list(got), list(expected)
            assert all(type(c) is set for c in got)
            assert sorted(map(sorted, got)) == sorted(map(sorted, expected))
            if name == "weakly_connected_components":
                assert got == expected  # in order of first node
            count = "number_" + name
            same(*both(count, G))
        with pytest.raises(nx.NetworkXNotImplemented):
            nx.connected_components(G, backend="diskgraph")
    else:
        got, expected = both("connected_components", G)
        assert isinstance(got, types.GeneratorType)
        same(list(got), list(expected))
        same(*both("number_connected_components", G))
        with pytest.raises(nx.NetworkXNotImplemented):
            nx.strongly_connected_components(G, backend="diskgraph")


@pytest.mark.parametrize("kind", GRAPHS)
def test_shortest_paths(kind: str) -> None:
    G = GRAPHS[kind]()
    for source in list(G)[:4]:
        same(*both("single_source_shortest_path_length", G, source))
        same(*both("single_source_shortest_path_length", G, source, cutoff=2))
        for weight in ("weight", None):
            same(*both("single_source_dijkstra_path_length", G, source, weight=weight))
            same(*both("single_source_dijkstra_path_length", G, source, cutoff=3, weight=weight))
            got, expected = both("single_source_dijkstra_path", G, source, weight=weight)
            assert set(got) == set(expected)
            length = nx.single_source_dijkstra_path_length(G, source, weight=weight)
            for v, path in got.items():
                assert type(path) is list and path[0] == source and path[-1] == v
                cost = sum(G.edges[a, b].get(weight, 1) if weight else 1 for a, b in nx.utils.pairwise(path))
                assert cost == length[v]
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, "not a node", backend="diskgraph")


@pytest.mark.parametrize("kind", GRAPHS)
def test_bfs(kind: str) -> None:
    G = GRAPHS[kind]()
    nodes = list(G)
    for source in nodes[:4]:
        got, expected = both("bfs_layers", G, source)
        same(list(got), list(expected))
        got, expected = both("bfs_edges", G, source)
        same(list(got), list(expected))
        got, expected = both("bfs_edges", G, source, depth_limit=1)
        same(list(got), list(expected))
    got, expected = both("bfs_layers", G, nodes[:3])
    assert [sorted(map(str, x)) for x in got] == [sorted(map(str, x)) for x in expected]
    with pytest.raises(nx.NetworkXError):
        list(nx.bfs_layers(G, ["not a node"], backend="diskgraph"))


@pytest.mark.parametrize("kind", ["undirected", "strings"])
def test_core_number_and_triangles(kind: str) -> None:
    G = GRAPHS[kind]()
    same(*both("triangles", G))
    same(*both("triangles", G, first(G)))
    same(*both("triangles", G, list(G)[:5]))
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.core_number(undirected(), backend="diskgraph")  # self-loops, as NetworkX says
    H = G.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    same(*both("core_number", H))


@pytest.mark.parametrize("kind", GRAPHS)
def test_betweenness(kind: str) -> None:
    G = GRAPHS[kind]()
    for normalized in (True, False):
        close(both("betweenness_centrality", G, normalized=normalized))
        if not G.is_directed():
            close(both("betweenness_centrality", G, normalized=normalized, endpoints=True))
    # Every node sampled: the exact values, scaled as NetworkX scales a sample.
    close(both("betweenness_centrality", G, k=len(G), seed=7))
    # A sample without a seed is the engine's; with a seed only NetworkX draws NetworkX's sources.
    sampled = nx.betweenness_centrality(G, k=3, backend="diskgraph")
    assert set(sampled) == set(G)
    assert isinstance(can_run("betweenness_centrality", (G,), {"k": 3, "seed": 7}), str)


@pytest.mark.parametrize("kind", ["undirected", "strings"])
def test_maximal_independent_set(kind: str) -> None:
    G = GRAPHS[kind]()
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    got = nx.maximal_independent_set(G, backend="diskgraph")
    assert type(got) is list and len(set(got)) == len(got)
    assert not any(G.has_edge(u, v) for u in got for v in got)
    assert nx.is_dominating_set(G, got)
    # A given seed asks for NetworkX's own draws: NetworkX runs it.
    assert isinstance(can_run("maximal_independent_set", (G,), {"seed": 3}), str)
    with nx.config(backend_priority=["diskgraph"], fallback_to_nx=True):
        assert nx.maximal_independent_set(G, seed=3) == nx.maximal_independent_set(G, seed=3, backend="networkx")


@pytest.mark.parametrize("kind", ["undirected", "undirected-weighted", "strings"])
def test_minimum_spanning_tree(kind: str) -> None:
    G = GRAPHS[kind]()
    G.graph["name"] = kind
    nx.set_node_attributes(G, "x", "label")
    got, expected = both("minimum_spanning_tree", G)
    assert type(got) is type(expected)
    assert got.graph == expected.graph and dict(got.nodes(data=True)) == dict(expected.nodes(data=True))
    assert got.size(weight="weight") == expected.size(weight="weight")
    assert nx.number_connected_components(got) == nx.number_connected_components(expected)
    if kind == "strings":  # distinct weights on no cycle's heaviest edge: the same forest
        assert nx.utils.edges_equal(got.edges(data=True), expected.edges(data=True))
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.minimum_spanning_tree(directed(), backend="diskgraph")


def test_diameter() -> None:
    same(*both("diameter", nx.les_miserables_graph()))
    same(*both("diameter", nx.cycle_graph(9, create_using=nx.DiGraph)))
    same(*both("diameter", nx.path_graph(1)))
    for G in (undirected(), directed()):
        with pytest.raises(nx.NetworkXError, match="infinite path length"):
            nx.diameter(G, backend="diskgraph")


def test_opened_graph_passes_straight(tmp_path) -> None:
    G = weighted(directed(), halves=True)
    g = diskgraph.from_networkx(G, tmp_path / "g.dg", keep_self_loops=True)
    ranks = nx.pagerank(g, weight=None)
    same(ranks, nx.pagerank(G, weight=None), approx=True)
    assert list(nx.weakly_connected_components(g)) == list(nx.weakly_connected_components(G))
    same(nx.single_source_dijkstra_path_length(g, 0), nx.single_source_dijkstra_path_length(G, 0))
    assert nx.number_strongly_connected_components(g) == nx.number_strongly_connected_components(G)
    same(nx.pagerank(g), nx.pagerank(G), approx=True)  # weighted: power iteration over spmv
    with pytest.raises(NotImplementedError):
        nx.pagerank(g, weight=None, alpha=0.9)  # an opened graph's weights cannot be ignored there


def test_cannot_run_falls_back_or_refuses() -> None:
    G = undirected()
    tenths = nx.Graph(G)
    for u, v in tenths.edges():
        tenths[u][v]["weight"] = 0.1  # not a float32 value: NetworkX's answer would differ
    assert isinstance(can_run("pagerank", (tenths,), {}), str)
    assert can_run("pagerank", (weighted(G, halves=True),), {"alpha": 0.9}) is True
    mixed = weighted(G, halves=True)
    mixed.add_edge(0, 1, weight=2)
    assert isinstance(can_run("single_source_dijkstra_path_length", (mixed, 0), {}), str)
    assert isinstance(can_run("single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1}), str)
    assert isinstance(can_run("bfs_edges", (directed(), 0), {"reverse": True}), str)
    assert isinstance(can_run("diameter", (nx.path_graph(3),), {"weight": lambda u, v, d: 2}), str)
    assert isinstance(can_run("pagerank", (nx.MultiGraph(G),), {}), str)
    assert can_run("pagerank", (G,), {"weight": None}) is True
    with pytest.raises(NotImplementedError):
        nx.pagerank(tenths, backend="diskgraph")
    with nx.config(backend_priority=["diskgraph"], fallback_to_nx=True):
        same(nx.pagerank(tenths), nx.pagerank(tenths, backend="networkx"))


def test_null_graph() -> None:
    for G in (nx.Graph(), nx.DiGraph()):
        assert nx.pagerank(G, backend="diskgraph") == {}
        assert nx.betweenness_centrality(G, backend="diskgraph") == {}
    assert list(nx.connected_components(nx.Graph(), backend="diskgraph")) == []
    assert nx.number_connected_components(nx.Graph(), backend="diskgraph") == 0


def test_registered() -> None:
    info = get_info()
    assert set(info["functions"]) == set(FUNCTIONS)
    assert all(callable(getattr(BackendInterface, name)) for name in FUNCTIONS)
    assert "diskgraph" in nx.utils.backends.backends
    assert nx.config.backends.diskgraph.memory == 1 << 30


def test_one_function_table() -> None:
    """FUNCTIONS is the one table: the checks, the interface's attributes and ``__all__`` are
    derived from it, and no argument check names a function it lacks."""
    from diskgraph.nx_backend import algorithms, interface

    assert set(interface._LIMITS) <= set(FUNCTIONS)
    assert set(interface._CHECKS) == set(FUNCTIONS)
    assert set(algorithms.__all__) == set(FUNCTIONS) | {"view"}
    assert all(callable(getattr(algorithms, name)) for name in algorithms.__all__)


def test_backend_priority_environment() -> None:
    code = (
        "import logging, networkx as nx\n"
        "logging.basicConfig(level=logging.DEBUG, format='%(message)s')\n"
        "nx.config.warnings_to_ignore.add('cache')\n"
        "print(round(nx.pagerank(nx.path_graph(4), weight=None)[0], 6))\n"
    )
    env = dict(os.environ, NETWORKX_BACKEND_PRIORITY="diskgraph")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(round(nx.pagerank(nx.path_graph(4))[0], 6))
    assert "Using backend 'diskgraph' for call to 'pagerank'" in out.stderr


def test_opened_graph_with_names(tmp_path) -> None:
    """A graph whose vertices have names (here les_miserables' string nodes) keys every answer
    by name, reopened from disk too."""
    G = nx.les_miserables_graph()
    diskgraph.from_networkx(G, tmp_path / "les.dg")
    g = diskgraph.open(tmp_path / "les.dg")
    close([nx.pagerank(g, weight=None), nx.pagerank(G, weight=None)])
    same(nx.single_source_shortest_path_length(g, "Valjean"), nx.single_source_shortest_path_length(G, "Valjean"))
    # Layers in the order of the stored lists, which NetworkX sees in the graph's to_networkx().
    same(list(nx.bfs_layers(g, "Valjean")), list(nx.bfs_layers(g.to_networkx(), "Valjean")))
    assert nx.triangles(g) == nx.triangles(G)
