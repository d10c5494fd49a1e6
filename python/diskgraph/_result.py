"""Algorithm results (:class:`Result`)."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from ._native import AlgorithmError


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

    __slots__ = ("algorithm", "values", "vertex_ids", "stats", "summary")

    def __init__(
        self, algorithm: str, values: np.ndarray, vertex_ids: np.ndarray, stats: Dict[str, Any], summary: str
    ) -> None:
        self.algorithm = algorithm
        self.values = values
        self.vertex_ids = vertex_ids
        self.stats = stats
        self.summary = summary

    def to_dict(self) -> Dict[int, Any]:
        """Maps each original vertex ID to its value (Python ints and floats)."""
        return dict(zip(self.vertex_ids.tolist(), self.values.tolist()))

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def __repr__(self) -> str:
        return f"Result({self.algorithm!r}, {len(self)} vertices, dtype={self.values.dtype}: {self.summary})"


class ConvergenceError(AlgorithmError):
    """An iterative run (pagerank) reached its iteration limit (``max_iterations``) before
    converging, and ``allow_unconverged=True`` was not given. As NetworkX raises
    ``PowerIterationFailedConvergence``, but the values are not lost: :attr:`result` holds the
    run's :class:`Result` as it stood, its ``stats["converged"]`` False.

    >>> try:
    ...     r = g.pagerank(max_iterations=2)
    ... except diskgraph.ConvergenceError as e:
    ...     r = e.result
    """

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        #: The run's result as it stood at the iteration limit.
        self.result = result


ConvergenceError.__module__ = "diskgraph"


def check_converged(result: Result, allowed: bool) -> Result:
    """``result``, unless it stopped at its iteration limit without converging and that is not
    ``allowed``: then :class:`ConvergenceError` holding it."""
    if result.stats.get("converged") is False and not allowed:
        raise ConvergenceError(
            f"{result.algorithm} stopped at its iteration limit ({result.stats['iterations']} iterations) "
            "without converging; raise max_iterations, or pass allow_unconverged=True to accept such a "
            "result (this exception holds it as .result)",
            result,
        )
    return result
