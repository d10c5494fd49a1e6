"""The Graph500 benchmark (specification 3.0) on diskgraph, as ``diskgraph graph500`` runs it."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from . import _native
from ._graph import DEFAULT_MEMORY, memory_bytes


def graph500(
    scale: Optional[int] = None,
    graph: Union[str, "os.PathLike[str]", None] = None,
    *,
    edgefactor: int = 16,
    seed: int = 1,
    roots: int = 64,
    engine: str = "auto",
    memory: Union[int, str] = DEFAULT_MEMORY,
    threads: Optional[int] = None,
    force: bool = False,
    bfs_only: bool = False,
) -> Dict[str, Any]:
    """Runs the Graph500 benchmark: kernel 1 generates and imports a Kronecker graph of
    ``2**scale`` vertices and ``edgefactor * 2**scale`` edges, weights uniform in (0, 1] (timed
    as the construction) — into ``graph`` if given, else a temporary directory removed at the
    end; without ``scale``, ``graph`` is an existing undirected graph to search. Kernel 2 runs a
    BFS from each of ``roots`` search keys (drawn with ``seed`` among the vertices with edges),
    kernel 3 an SSSP from the same keys, each timed on ``engine`` within ``memory`` and then
    validated by the algorithm's verifier (Graph500's rules). ``bfs_only`` skips kernel 3.

    Returns the reference implementation's fields as a dict: ``scale``, ``edgefactor``,
    ``nbfs``, ``construction_time`` (None for a given graph), ``engine``, ``memory``,
    ``roots`` (original IDs), and ``bfs`` and ``sssp`` (None with ``bfs_only``), each with ``time``, ``nedge`` and
    ``teps`` statistics (``min``, ``firstquartile``, ``median``, ``thirdquartile``, ``max``,
    ``mean``, ``stddev``), ``harmonic_mean_teps``, ``harmonic_stddev_teps``, ``validated``,
    ``mean_validate_time`` and the ``engine`` that ran.

    Raises:
        VerificationError: a search's answer failed validation (the message names the
            violation).
        ValueError: a bad setting (an unknown engine, a budget too small for it).
        GraphFormatError: ``graph`` is missing or damaged.
        DiskgraphError: ``graph`` is directed, or neither ``scale`` nor ``graph`` is given.
    """
    path = None if graph is None else os.fspath(graph)
    return dict(
        _native.graph500(
            scale,
            path,
            int(edgefactor),
            int(seed),
            int(roots),
            str(engine),
            memory_bytes(memory),
            None if threads is None else int(threads),
            bool(force),
            bool(bfs_only),
        )
    )
