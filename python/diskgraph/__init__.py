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

from ._algorithms import IoOptions, ReadOptions
from ._graph import Graph, open
from ._importers import from_edges, import_file
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
    __version__,
    algorithms,
    parse_size,
)
from ._networkx import from_networkx
from ._parquet import from_parquet
from ._progress import Progress
from ._result import ConvergenceError, Result
from ._scipy import from_scipy

__all__ = [
    "AlgorithmError",
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
    "SyncGraph",
    "SyncQueue",
    "__version__",
    "algorithms",
    "from_edges",
    "from_networkx",
    "from_parquet",
    "from_scipy",
    "import_file",
    "open",
    "parse_size",
]
