"""Algorithm results (:class:`Result`)."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Optional

import numpy as np


class Result:
    """The answer of one algorithm run.

    Attributes:
        algorithm: The algorithm that ran (``"bfs"``, ``"pagerank"``, ...).
        values: One value per vertex, indexed like :attr:`vertex_ids`: int64 BFS levels or
            parents (original IDs), core numbers and msbfs distance sums (-1 = unreached),
            apsp's rows of hop distances (2-D, one column per source; -1 = unreached),
            uint64 component labels (the smallest original ID in the component) and random-walk
            visit counts, float64 distances (``inf`` = unreached), ranks and spmv products.
        vertex_ids: Original vertex IDs, ascending (uint64).
        nodes: The node keys of the rows: the vertex names (str) or the NetworkX nodes of a graph
            that has them, else :attr:`vertex_ids`.
        stats: What the run did and cost (the engine's ``RunStats`` as a dict): ``engine``,
            times, ``iterations``, ``edges_processed``, the I/O counters (``bytes_read``,
            ``io_requests``, ``blocks_requested``, ``blocks_after_dedup``, ``merged_runs``,
            ``io_utility``, ``io_wait_seconds``, ``io_rounds``: bytes, requests and seconds of each I/O
            round), ``peak_engine_memory``, and ``settings``
            (threads, memory, the source(s), and for the selective engine ``io_backend``,
            ``block_size``, ``scheduler``, ...; ``engine_choice`` says why ``auto`` chose).
        summary: A one-line description of the answer.

    >>> r = g.bfs(source=1)
    >>> r.to_dict()[1]
    0
    """

    __slots__ = ("algorithm", "values", "vertex_ids", "stats", "summary", "_keys")

    def __init__(
        self,
        algorithm: str,
        values: np.ndarray,
        vertex_ids: np.ndarray,
        stats: Dict[str, Any],
        summary: str,
        keys: Optional[np.ndarray] = None,
    ) -> None:
        self.algorithm = algorithm
        self.values = values
        self.vertex_ids = vertex_ids
        self.stats = stats
        self.summary = summary
        #: The rows' node keys (an object array) when the graph has names or nodes, else None.
        self._keys = keys

    @property
    def nodes(self) -> np.ndarray:
        """The node key of each row: a vertex's name (str) or its NetworkX node when the graph
        has them, else its original ID (then the same as :attr:`vertex_ids`)."""
        return self.vertex_ids if self._keys is None else self._keys

    def to_dict(self) -> Dict[Hashable, Any]:
        """Maps each node key (see :attr:`nodes`: names or NetworkX nodes when the graph has
        them, else original vertex IDs) to its value (Python ints and floats)."""
        return dict(zip(self.nodes.tolist(), self.values.tolist()))

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def __repr__(self) -> str:
        return f"Result({self.algorithm!r}, {len(self)} vertices, dtype={self.values.dtype}: {self.summary})"
