"""The object NetworkX loads through the ``networkx.backends`` entry point: the conversions,
``can_run`` / ``should_run`` and one attribute per implemented function."""

from __future__ import annotations

import inspect
import numbers
import random
from typing import Any, Callable, Dict, Optional, Union

from .._graph import Graph
from . import FUNCTIONS, algorithms
from .graph import BackendGraph, WeightFacts

Reason = Union[bool, str]
#: An argument check: the graph and the bound arguments to whether the backend can run them.
Check = Callable[[Any, Dict[str, Any]], Reason]


def _weight_facts(G: Any, weight: Any) -> WeightFacts:
    """The facts of the weights ``weight`` of ``G`` (a NetworkX or a backend graph)."""
    if weight is None:
        return WeightFacts.of([])
    if isinstance(G, BackendGraph):
        return G.facts(weight)
    return WeightFacts.of([d.get(weight, 1) for _, nbrs in G.adjacency() for d in nbrs.values()])


def _weight(positive: bool, nonnegative: bool) -> Callable[[Any, Any], Reason]:
    """A check that the weights of ``weight`` are exact float32 values (and positive or
    non-negative, if asked)."""

    def check(G: Any, weight: Any) -> Reason:
        if weight is not None and not isinstance(weight, str):
            return "weight is not an attribute name"
        facts = _weight_facts(G, weight)
        if not facts.exact:
            return f"the {weight!r} weights are not all exact float32 numbers"
        if positive and facts.minimum <= 0:
            return f"some {weight!r} weight is not positive"
        if nonnegative and facts.minimum < 0:
            return f"some {weight!r} weight is negative"
        return True

    return check


def _unweighted(G: Any, weight: Any) -> Reason:
    """The algorithm ignores weights: only equal positive ones (or none) give NetworkX's answer."""
    if weight is None:
        return True
    if not isinstance(weight, str):
        return "weight is not an attribute name"
    facts = _weight_facts(G, weight)
    if not (facts.exact and facts.uniform and facts.minimum > 0):
        return f"the {weight!r} weights differ (the algorithm is unweighted here)"
    return True


def _pagerank(G: Any, a: Dict[str, Any]) -> Reason:
    for name in ("personalization", "nstart", "dangling"):
        if a[name] is not None and not isinstance(a[name], dict):
            return f"{name} is not a dict"
    if not isinstance(a["max_iter"], numbers.Integral) or a["max_iter"] < 1:
        return "max_iter must be a positive int"
    if not a["tol"] > 0:
        return "tol must be positive"
    plain = a["alpha"] == 0.85 and all(a[name] is None for name in ("personalization", "nstart", "dangling"))
    if a["weight"] is None and not plain and isinstance(G, BackendGraph) and not G.has_unweighted_view():
        return "weight=None on a weighted graph takes the engine's pagerank's defaults only"
    return _weight(positive=False, nonnegative=True)(G, a["weight"])


def _dijkstra(positive: bool) -> Check:
    def check(G: Any, a: Dict[str, Any]) -> Reason:
        if a["weight"] is not None and _weight_facts(G, a["weight"]).mixed:
            return "int and float weights mixed (NetworkX's distances would mix the types)"
        return _weight(positive, nonnegative=True)(G, a["weight"])

    return check


def _bfs_edges(G: Any, a: Dict[str, Any]) -> Reason:
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["reverse"] and G.is_directed():
        return "reverse=True is not supported"
    return True


def _core_number(G: Any, a: Dict[str, Any]) -> Reason:
    return "core_number of a directed graph (NetworkX counts in- and out-edges)" if G.is_directed() else True


def _seeded(seed: Any) -> bool:
    """Whether the caller gave a seed (NetworkX's ``py_random_state`` turns ``seed=None`` into
    the ``random`` module's own generator before dispatching): a seeded call asks for NetworkX's
    own random draws, which the engine's samplers do not reproduce."""
    return seed is not None and seed is not random._inst  # type: ignore[attr-defined]


def _betweenness(G: Any, a: Dict[str, Any]) -> Reason:
    k, seed = a["k"], a["seed"]
    if k is not None and (not isinstance(k, numbers.Integral) or k < 1):
        return "k must be a positive int"
    if k is not None and not algorithms.seedable(seed):
        return "seed must be an int or a random.Random"
    if k is not None and k < len(G) and _seeded(seed):
        return "k sources drawn with a given seed: only NetworkX's sampler draws NetworkX's sources"
    if a["endpoints"] and (k is not None or G.is_directed()):
        return "endpoints=True only on undirected graphs without k"
    return _unweighted(G, a["weight"])


def _mis(G: Any, a: Dict[str, Any]) -> Reason:
    if a["nodes"]:
        return "nodes is not supported"
    if not algorithms.seedable(a["seed"]):
        return "seed must be an int or a random.Random"
    if _seeded(a["seed"]):
        return "a given seed: only NetworkX's algorithm gives NetworkX's set for it"
    if len(G) == 0:
        return "the null graph"
    if G.number_of_selfloops() if isinstance(G, BackendGraph) else _nx_selfloops(G):
        return "self-loops are not supported"
    return True


def _nx_selfloops(G: Any) -> int:
    import networkx as nx

    return int(nx.number_of_selfloops(G))


def _mst(G: Any, a: Dict[str, Any]) -> Reason:
    if a["algorithm"] not in ("kruskal", "prim", "boruvka"):
        return f"unknown algorithm {a['algorithm']!r}"
    return _weight(positive=False, nonnegative=False)(G, a["weight"])


def _diameter(G: Any, a: Dict[str, Any]) -> Reason:
    if a["e"] is not None:
        return "e is not supported"
    if a["usebounds"] and G.is_directed():
        return "usebounds on a directed graph"
    if len(G) == 0:
        return "the null graph"
    if a["weight"] is not None:
        if not isinstance(a["weight"], str):
            return "weight is not an attribute name"
        facts = _weight_facts(G, a["weight"])
        if not (facts.exact and facts.uniform and facts.minimum == 1):
            return "weighted diameter is not supported"
    return True


def _always(G: Any, a: Dict[str, Any]) -> Reason:
    return True


#: The argument checks of the functions that cannot honour every argument, by function name
#: (a name of :data:`diskgraph.nx_backend.FUNCTIONS`).
_LIMITS: Dict[str, Check] = {
    "betweenness_centrality": _betweenness,
    "bfs_edges": _bfs_edges,
    "core_number": _core_number,
    "diameter": _diameter,
    "maximal_independent_set": _mis,
    "minimum_spanning_tree": _mst,
    "pagerank": _pagerank,
    "single_source_dijkstra_path": _dijkstra(positive=True),
    "single_source_dijkstra_path_length": _dijkstra(positive=False),
}

#: The argument check of each implemented function: its limits', or one that takes anything.
_CHECKS: Dict[str, Check] = {name: _LIMITS.get(name, _always) for name in FUNCTIONS}


def can_run(name: str, args: Any, kwargs: Dict[str, Any]) -> Reason:
    """Whether the backend can run NetworkX function ``name`` on these arguments (as given to
    it): True, or the reason it cannot (NetworkX then runs its own implementation)."""
    check = _CHECKS.get(name)
    if check is None:
        return f"{name} is not implemented"
    try:
        bound = inspect.signature(getattr(algorithms, name)).bind(*args, **kwargs)
    except TypeError as e:
        return f"arguments not understood: {e}"
    bound.apply_defaults()
    G = bound.arguments["G"]
    if isinstance(G, Graph):
        G = BackendGraph.from_disk(G)
    if G.is_multigraph():
        return "multigraphs are not supported"
    return check(G, bound.arguments)


def should_run(name: str, args: Any, kwargs: Dict[str, Any]) -> Reason:
    """Whether the backend should run ``name`` when it can: always (a graph too small to gain
    from the engine was still asked to run here)."""
    return True


def convert_from_nx(
    G: Any,
    edge_attrs: Optional[Dict[str, Any]] = None,
    node_attrs: Optional[Dict[str, Any]] = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: Optional[str] = None,
    graph_name: Optional[str] = None,
) -> BackendGraph:
    """Writes NetworkX graph ``G`` to a temporary graph directory, with the weights of the one
    edge attribute the function reads (``edge_attrs``: ``{attribute: default}``), if any.
    Other variants (a function preserving every attribute) are written when first needed."""
    weight, default = None, 1
    if edge_attrs is not None and len(edge_attrs) == 1:
        [(weight, default)] = edge_attrs.items()
        default = 1 if default is None else default
    return BackendGraph.from_networkx(G, weight, default)


def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
    """A backend graph (or an opened :class:`diskgraph.Graph`) as a NetworkX graph; any other
    result as it is."""
    if isinstance(obj, (BackendGraph, Graph)):
        return obj.to_networkx()
    return obj


class BackendInterface:
    """The diskgraph backend as NetworkX loads it: conversions, ``can_run``, ``should_run`` and
    the implemented functions (:data:`diskgraph.nx_backend.FUNCTIONS`)."""

    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)


for _name in FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(getattr(algorithms, _name)))
