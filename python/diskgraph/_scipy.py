"""``from_scipy``: a scipy.sparse adjacency matrix to a graph directory."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._graph import DEFAULT_MEMORY, Graph, Memory, PathLike
from ._importers import CHUNK, as_weights, push_vertices, run_import


def from_scipy(
    A: Any,
    path: Optional[PathLike] = None,
    *,
    directed: bool = True,
    weighted: Optional[bool] = None,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: Memory = DEFAULT_MEMORY,
    force: bool = False,
) -> Graph:
    """Builds a graph directory from a square scipy.sparse matrix and opens it.

    Every stored entry ``A[i, j]`` is an arc ``i -> j`` (with ``directed=False``, an
    undirected edge; a symmetric matrix then gives each edge twice, which is merged). Vertices
    are ``0 .. n-1``, all present even if isolated. Any format works (csr, csc, coo, ...; both
    ``sparray`` and ``spmatrix``); explicitly stored zeros are edges too. Duplicate coo entries
    are parallel edges: merged keeping the smallest value unless ``keep_duplicates``.

    Args:
        A: The adjacency matrix (n × n).
        path: The graph directory to create; ``None`` makes a temporary graph, deleted when
            it is closed (see :class:`Graph`).
        directed: Whether entries are arcs (default) or undirected edges.
        weighted: Store the entries as float32 weights; ``None`` (default) means weighted
            unless every stored value equals 1.
        keep_self_loops, keep_duplicates, memory, force: as in :func:`import_file`.

    Raises:
        TypeError: ``A`` is not a scipy.sparse matrix or holds non-real values.
        ValueError: ``A`` is not square, or a weight is NaN or infinite.

    >>> g = diskgraph.from_scipy(scipy.sparse.csr_array([[0, 2.5], [0, 0]]), "g.dg")
    >>> g.num_vertices, g.num_edges, g.weighted
    (2, 1, True)
    """
    import scipy.sparse as sp

    if not sp.issparse(A):
        raise TypeError(f"A must be a scipy.sparse array or matrix, got {type(A).__name__}")
    if len(A.shape) != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square adjacency matrix, got shape {A.shape}")
    n = int(A.shape[0])
    if n == 0:
        raise ValueError("A is 0 x 0: a graph needs at least one vertex")
    coo = A.tocoo()
    rows, cols, data = coo.row, coo.col, coo.data
    if data.dtype.kind not in "biuf":
        raise TypeError(f"A must hold real values, got dtype {data.dtype}")
    if weighted is None:
        weighted = bool(data.size) and not bool(np.all(data == 1))
    m = int(rows.shape[0])

    def feed(importer: Any) -> None:
        for start in range(0, m, CHUNK):
            end = min(start + CHUNK, m)
            w = as_weights(data[start:end], "A.data", start) if weighted else None
            importer.push(
                np.ascontiguousarray(rows[start:end], dtype=np.uint64),
                np.ascontiguousarray(cols[start:end], dtype=np.uint64),
                w,
            )
        push_vertices(importer, (np.arange(i, min(i + CHUNK, n), dtype=np.uint64) for i in range(0, n, CHUNK)))

    return run_import(
        path,
        feed,
        directed=directed,
        weighted=bool(weighted),
        keep_self_loops=keep_self_loops,
        keep_duplicates=keep_duplicates,
        memory=memory,
        force=force,
        description=f"scipy.sparse {type(A).__name__} {n}x{n} with {m} stored entries",
    )
