"""diskgraph as a NetworkX backend (``backend="diskgraph"``).

Registered through the ``networkx.backends`` and ``networkx.backend_info`` entry points, so::

    nx.pagerank(G, backend="diskgraph")             # one call
    NETWORKX_BACKEND_PRIORITY=diskgraph python ...  # every call the backend can run
    nx.pagerank(diskgraph.open("g.dg"), weight=None)  # an opened graph, no conversion

A NetworkX graph is converted into a temporary graph directory (removed when the converted
graph is dropped); a :class:`diskgraph.Graph` is used as it is. Results have NetworkX's types
and keys. Where the engine cannot honour an argument (``alpha`` other than 0.85, a callable
weight, ...), ``can_run`` says why and NetworkX runs its own implementation (when called with
``backend="diskgraph"``, NetworkX raises ``NotImplementedError`` instead).

This module stays light (no NetworkX import): NetworkX calls :func:`get_info` while it is
being imported. The backend itself is :class:`diskgraph.nx_backend.interface.BackendInterface`.
"""

from __future__ import annotations

from typing import Any, Dict

from .._native import DEFAULT_MEMORY

#: The NetworkX functions the backend implements, each with what it cannot honour (NetworkX
#: runs its own implementation then).
FUNCTIONS: Dict[str, str] = {
    "betweenness_centrality": (
        "Unweighted (weight=None, or every weight equal). With k, sources are sampled by "
        "diskgraph's seeded sampler (an int seed; not NetworkX's random.sample), so the "
        "estimate differs from NetworkX's. endpoints=True only undirected and without k."
    ),
    "bfs_edges": "reverse=True on a directed graph and sort_neighbors are not supported.",
    "bfs_layers": "Several sources run as one multi-source BFS (apsp).",
    "connected_components": "",
    "core_number": "Undirected graphs only.",
    "diameter": "Exact (all-sources BFS in batches); unweighted only; no e.",
    "maximal_independent_set": (
        "Greedy by ascending vertex ID (seed=None) or Luby's rounds seeded with an int seed; "
        "nodes and self-loops are not supported."
    ),
    "minimum_spanning_tree": (
        "Kruskal in the engine for any algorithm; ties between equal weights are broken by "
        "vertex order. Weights must be exact float32 values."
    ),
    "number_connected_components": "",
    "number_strongly_connected_components": "",
    "number_weakly_connected_components": "",
    "pagerank": (
        "alpha 0.85 only, no personalization, nstart or dangling; unweighted (weight=None, or "
        "every weight equal)."
    ),
    "single_source_dijkstra_path": "Weights must be positive, exact float32 values.",
    "single_source_dijkstra_path_length": "Weights must be non-negative, exact float32 values.",
    "single_source_shortest_path_length": "",
    "strongly_connected_components": "",
    "triangles": "",
    "weakly_connected_components": "",
}


def get_info() -> Dict[str, Any]:
    """The backend's description for NetworkX (the ``networkx.backend_info`` entry point):
    its functions with their limits, and its configuration ``nx.config.backends.diskgraph``:
    ``memory`` (the budget of every conversion and run, bytes or a string like ``"256MiB"``)
    and ``tmpdir`` (where converted graphs are written; None: ``/dev/shm`` when writable, else
    the system's temporary directory)."""
    return {
        "backend_name": "diskgraph",
        "project": "diskgraph",
        "package": "diskgraph",
        "short_summary": "Out-of-core graph engine: runs from SSD within a memory budget.",
        "functions": {
            name: ({"additional_docs": docs} if docs else {}) for name, docs in sorted(FUNCTIONS.items())
        },
        "default_config": {"memory": DEFAULT_MEMORY, "tmpdir": None},
    }
