"""``from_networkx``: a NetworkX graph to a graph directory."""

from __future__ import annotations

import numbers
from typing import Any, Dict, Hashable, Iterator, List, Optional, Tuple

import numpy as np

from ._graph import DEFAULT_MEMORY, Graph, Memory, PathLike
from ._importers import CHUNK, run_import

_U64_LIMIT = 1 << 64


def _is_id(node: Any) -> bool:
    """Whether ``node`` can be a vertex ID as it is: a non-negative integer below 2**64."""
    return not isinstance(node, bool) and isinstance(node, numbers.Integral) and 0 <= int(node) < _U64_LIMIT


def _names(nodes: List[Any]) -> List[str]:
    """``str`` of every node; ValueError naming two nodes whose names are the same."""
    names = [str(node) for node in nodes]
    first: Dict[str, int] = {}
    for i, name in enumerate(names):
        j = first.setdefault(name, i)
        if j != i:
            raise ValueError(
                f"nodes {nodes[j]!r} and {nodes[i]!r} have the same name {name!r} (str of the node): "
                "stored names must be distinct, relabel one of them"
            )
    return names


def _weighted(G: Any, weight: Optional[str]) -> bool:
    """Whether every edge has the ``weight`` attribute (none: unweighted; some: ValueError)."""
    if weight is None:
        return False
    with_weight = 0
    missing: Optional[Tuple[Any, Any]] = None
    for u, v, data in G.edges(data=True):
        if weight in data:
            with_weight += 1
        elif missing is None:
            missing = (u, v)
    if with_weight == 0:
        return False
    if missing is not None:
        total = G.number_of_edges()
        raise ValueError(
            f"edge {missing!r} has no {weight!r} attribute but {with_weight} of {total} edges do: give every edge "
            "a weight, or pass weight=None to ignore weights"
        )
    return True


def _chunks(items: Iterator[Any], size: int) -> Iterator[List[Any]]:
    chunk: List[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def from_networkx(
    G: Any,
    path: Optional[PathLike] = None,
    *,
    weight: Optional[str] = "weight",
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: Memory = DEFAULT_MEMORY,
    force: bool = False,
) -> Graph:
    """Builds a graph directory from a NetworkX graph and opens it.

    The graph is directed iff ``G.is_directed()``. Every node becomes a vertex (isolated nodes
    included). When every node is a non-negative integer below 2**64, the nodes are the vertex
    IDs. Otherwise (strings, tuples, any hashable nodes) the nodes get the IDs ``0 .. n-1`` in
    ``G``'s node order, ``str(node)`` is stored as each vertex's name (so a reopened graph has
    string names), and the returned graph keeps the node objects: :attr:`Graph.nodes`,
    :attr:`Result.nodes` and :meth:`Result.to_dict` give them, and sources may be given as
    nodes. Edges are weighted iff every edge has the ``weight`` attribute. Parallel edges of a MultiGraph are kept only with
    ``keep_duplicates`` (otherwise merged, keeping the smallest weight).

    Args:
        G: A ``Graph``, ``DiGraph``, ``MultiGraph`` or ``MultiDiGraph``.
        path: The graph directory to create; ``None`` makes a temporary graph, deleted when
            it is closed (see :class:`Graph`).
        weight: Edge attribute holding the weight; ``None`` ignores weights.
        keep_self_loops, keep_duplicates, memory, force: as in :func:`import_file`.

    Raises:
        ValueError: only some edges have the ``weight`` attribute, a weight is not a finite
            number, or two non-integer graph's nodes have the same ``str``.

    >>> g = diskgraph.from_networkx(nx.les_miserables_graph(), "les.dg")
    >>> max(g.pagerank().to_dict().items(), key=lambda kv: kv[1])[0]
    'Valjean'

    >>> g = diskgraph.from_networkx(nx.path_graph(4), "p4.dg")
    >>> g.num_edges, g.directed
    (3, False)
    """
    directed = bool(G.is_directed())
    if G.number_of_nodes() == 0:
        raise ValueError("G has no nodes: a graph needs at least one vertex")
    nodes = list(G)
    named = not all(_is_id(node) for node in nodes)
    names = _names(nodes) if named else []
    index: Dict[Hashable, int] = {node: i for i, node in enumerate(nodes)} if named else {}
    weighted = _weighted(G, weight)

    def vertex(node: Any) -> int:
        return index[node] if named else int(node)

    def feed(importer: Any) -> None:
        for start in range(0, len(nodes), CHUNK):
            chunk = nodes[start : start + CHUNK]
            importer.add_vertices(np.fromiter((vertex(x) for x in chunk), dtype=np.uint64, count=len(chunk)))
            if named:
                importer.add_names(names[start : start + CHUNK])
        edges = G.edges(data=weight) if weighted else G.edges()
        for chunk in _chunks(iter(edges), CHUNK):
            src = np.fromiter((vertex(e[0]) for e in chunk), dtype=np.uint64, count=len(chunk))
            dst = np.fromiter((vertex(e[1]) for e in chunk), dtype=np.uint64, count=len(chunk))
            w = None
            if weighted:
                w = np.empty(len(chunk), dtype=np.float32)
                for i, e in enumerate(chunk):
                    w[i] = _weight_value(e, weight)
            importer.push(src, dst, w)

    g = run_import(
        path,
        feed,
        directed=directed,
        weighted=weighted,
        keep_self_loops=keep_self_loops,
        keep_duplicates=keep_duplicates,
        memory=memory,
        force=force,
        description=f"networkx {type(G).__name__} ({G.number_of_nodes()} nodes, {G.number_of_edges()} edges)",
    )
    if named:
        g._set_nodes(nodes)
    return g


def _weight_value(edge: Tuple[Any, Any, Any], weight: Optional[str]) -> float:
    u, v, w = edge
    try:
        x = float(w)
    except (TypeError, ValueError):
        raise ValueError(f"edge ({u!r}, {v!r}) has {weight!r} = {w!r}, which is not a number") from None
    with np.errstate(over="ignore"):
        x32 = np.float32(x)
    if not np.isfinite(x32):
        raise ValueError(f"edge ({u!r}, {v!r}) has {weight!r} = {w!r}: weights must be finite float32 values")
    return float(x32)
