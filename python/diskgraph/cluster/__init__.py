"""Algorithms over a split directory (``diskgraph split``) on a Ray cluster: one worker process
per slot, each owning some parts and running the engines over them, supersteps exchanging
vertex values through Ray's object store as numpy arrays.

``diskgraph run ALGO SPLIT --cluster SPEC`` parses and defaults the options with the algorithm
descriptors in Rust and calls :func:`run_job`; :meth:`SplitGraph.run` is the same from Python.
The split's routing, the parts' boundary vertices and kcore's ownership join are Rust
(``_native.SplitRouting``, ``part_boundary``, ``PartEdges``); the modules here place the workers
(:mod:`.placement`), are their body (:mod:`.worker`), run the session (:mod:`.session`) and
drive the supersteps (:mod:`.supersteps`).

Parts keep the graph's vertex numbers (every part has all V vertices), so the exchange needs no
ID translation. Vectors are in the order of the parts' internal IDs, which is ascending
original-ID order: splits of reordered graphs are refused.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .. import _native
from .._graph import PathLike
from .._result import Result, check_converged
from . import supersteps
from .session import ClusterError, Session

__all__ = ["ClusterError", "SplitGraph", "open_split", "run_job"]


class SplitGraph:
    """A split directory (``diskgraph split``), run on a Ray cluster.

    >>> s = diskgraph.open_split("k20.split")
    >>> s.run("pagerank", cluster="local:4").values.sum()
    1.0
    """

    def __init__(self, path: PathLike) -> None:
        self.path = os.fspath(path)
        #: The routing, the parts here checked against it (``_native.SplitRouting``).
        self.routing = _native.SplitRouting(self.path)
        self.num_vertices = int(self.routing.num_vertices)
        self.parts = list(self.routing.parts)
        self._vertex_ids = self.routing.vertex_ids()

    def run(self, algorithm: str, *, cluster: str, timeout: Optional[float] = None, **options: Any) -> Result:
        """Runs ``algorithm`` (one ``diskgraph algorithms`` shows a cluster scheme for) over the
        split on ``cluster`` (``"local:N"`` or ``"ray://HOST:PORT"``) with ``options``, as
        :meth:`Graph.run` takes them (parsed, checked and defaulted by the algorithm's
        descriptor; the run's and the engines' options go to every worker's engine runs).
        ``timeout``: seconds a worker may take to answer one call before it is restarted
        (default ``_native.DEFAULT_CLUSTER_TIMEOUT``). An unconverged pagerank raises as
        :meth:`Graph.run` does, unless ``allow_unconverged=True``."""
        wanted, engine = _native.cluster_job(algorithm, self.routing, options)
        limit = _native.DEFAULT_CLUSTER_TIMEOUT if timeout is None else timeout
        values, summary, stats = self._run(algorithm, cluster, float(limit), wanted, engine)
        result = Result(algorithm, values, self._vertex_ids, stats, summary)
        return check_converged(result, bool(options.get("allow_unconverged")))

    def pagerank(self, *, cluster: str, **options: Any) -> Result:
        """:meth:`run` of ``"pagerank"``."""
        return self.run("pagerank", cluster=cluster, **options)

    def bfs(self, source: Any, *, cluster: str, **options: Any) -> Result:
        """:meth:`run` of ``"bfs"`` from ``source`` (an ID, ``"smallest"`` or ``"max-degree"``)."""
        return self.run("bfs", cluster=cluster, source=source, **options)

    def sssp(self, source: Any, *, cluster: str, **options: Any) -> Result:
        """:meth:`run` of ``"sssp"`` from ``source`` (an ID, ``"smallest"`` or ``"max-degree"``)."""
        return self.run("sssp", cluster=cluster, source=source, **options)

    def wcc(self, *, cluster: str, **options: Any) -> Result:
        """:meth:`run` of ``"wcc"``."""
        return self.run("wcc", cluster=cluster, **options)

    def kcore(self, *, cluster: str, **options: Any) -> Result:
        """:meth:`run` of ``"kcore"``."""
        return self.run("kcore", cluster=cluster, **options)

    def _run(
        self, algorithm: str, cluster: str, timeout: float, options: Dict[str, Any], engine: Dict[str, Any]
    ) -> Tuple[np.ndarray, str, Dict[str, Any]]:
        """Runs ``algorithm`` with the options the descriptors made: its values, summary and
        statistics."""
        n = self.num_vertices
        with Session(self, cluster, engine, timeout) as run:
            if algorithm == "pagerank":
                values, extra = supersteps.pagerank(
                    run, n, options["alpha"], options["tolerance"], options["iterations"], options["max_iterations"]
                )
            elif algorithm == "bfs":
                values, extra = supersteps.bfs(run, n, options["source"])
            elif algorithm == "sssp":
                weighted = bool(self.routing.weighted)
                values, extra = supersteps.sssp(run, n, options["source"], weighted, self._vertex_ids, self.path)
            elif algorithm == "wcc":
                values, extra = supersteps.wcc(run, self._vertex_ids)
            else:
                values, extra = supersteps.kcore(run, n)
            return values, run.summary(algorithm), run.stats(extra)


def open_split(path: PathLike) -> SplitGraph:
    """Opens the split directory at ``path`` (``diskgraph split``) for cluster runs; parts that do
    not match the routing are refused (``diskgraph verify DIR`` checks them in full)."""
    return SplitGraph(path)


def run_job(
    algorithm: str, split: str, cluster: str, timeout: float, options: Dict[str, Any], engine: Dict[str, Any]
) -> Tuple[np.ndarray, str, Dict[str, Any]]:
    """What ``diskgraph run ALGO SPLIT --cluster SPEC`` calls, with the options the descriptors
    parsed and defaulted (a source as its vertex number): the values, in vertex-number order,
    the summary and the statistics."""
    return SplitGraph(split)._run(algorithm, cluster, timeout, options, engine)
