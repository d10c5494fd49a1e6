"""diskgraph: an out-of-core graph engine.

Import an edge list once into a graph directory, then run BFS, SSSP, connected components,
PageRank, k-core, multi-source BFS and SpMV on it within a memory budget: in memory when the
CSR fits, or with the selective engine, which reads adjacency lists from disk per iteration
(io_uring, pread or mmap; see :class:`IoOptions`). The work happens in Rust with the GIL
released; results come back as numpy arrays indexed like :meth:`Graph.vertex_ids` (original
vertex IDs, ascending).

>>> import diskgraph
>>> g = diskgraph.import_file("wiki-Vote.txt", "wiki-vote.dg")
>>> g.num_vertices, g.num_edges
(7115, 103689)
>>> r = g.bfs(source=3)
>>> int((r.values >= 0).sum())
2316

Importers: :func:`import_file` (files, as the CLI), :func:`from_edges` (numpy arrays),
:func:`from_scipy`, :func:`from_networkx`, :func:`from_parquet`. :func:`algorithms` lists every
algorithm, the engines that run it and its options.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Dict, List

from ._native import (
    AlgorithmError,
    DiskgraphError,
    GraphFormatError,
    GraphNotFoundError,
    InputFormatError,
    InputNotFoundError,
    InvalidVertex,
    NotAGraphError,
    OutputExistsError,
    StaticCache,
    Suspended,
    SyncGraph,
    SyncQueue,
    VerificationError,
    __version__,
    algorithms,
    codecs,
    parse_size,
)

if TYPE_CHECKING:
    from ._algorithms import IoOptions, ReadOptions
    from .cluster import ClusterError, SplitGraph, open_split
    from ._graph import Graph, open
    from ._graph500 import graph500
    from ._importers import from_edges, import_file
    from ._networkx import from_networkx
    from ._parquet import from_parquet
    from ._progress import Progress
    from ._result import ConvergenceError, Result
    from ._scipy import from_scipy

#: The public names defined in Python modules, and the module of each. They load on first use
#: (PEP 562), so the ``diskgraph`` command, which needs only the extension module, starts
#: without importing numpy.
_LAZY: Dict[str, str] = {
    "IoOptions": "._algorithms",
    "ReadOptions": "._algorithms",
    "ClusterError": ".cluster",
    "SplitGraph": ".cluster",
    "open_split": ".cluster",
    "Graph": "._graph",
    "open": "._graph",
    "graph500": "._graph500",
    "from_edges": "._importers",
    "import_file": "._importers",
    "from_networkx": "._networkx",
    "from_parquet": "._parquet",
    "Progress": "._progress",
    "ConvergenceError": "._result",
    "Result": "._result",
    "from_scipy": "._scipy",
}


def __getattr__(name: str) -> Any:
    """Loads the module of a public name defined in Python on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    """The module's names, with the public ones not loaded yet."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "AlgorithmError",
    "ClusterError",
    "ConvergenceError",
    "DiskgraphError",
    "Graph",
    "GraphFormatError",
    "GraphNotFoundError",
    "InputFormatError",
    "InputNotFoundError",
    "InvalidVertex",
    "IoOptions",
    "NotAGraphError",
    "OutputExistsError",
    "Progress",
    "ReadOptions",
    "Result",
    "StaticCache",
    "Suspended",
    "SplitGraph",
    "SyncGraph",
    "SyncQueue",
    "VerificationError",
    "__version__",
    "algorithms",
    "codecs",
    "from_edges",
    "from_networkx",
    "from_parquet",
    "from_scipy",
    "graph500",
    "import_file",
    "open",
    "open_split",
    "parse_size",
]
