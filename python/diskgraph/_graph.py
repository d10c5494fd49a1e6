"""Opened graphs (:class:`Graph`)."""

from __future__ import annotations

import json
import numbers
import operator
import os
import shutil
import sys
import tempfile
import weakref
from functools import lru_cache
from types import TracebackType
from typing import TYPE_CHECKING, Any, Dict, Hashable, Iterable, List, NamedTuple, Optional, Type, Union, cast

import numpy as np

from . import _native, _progress
from ._algorithms import AlgorithmMethods, Memory, ReadOptions
from ._native import StaticCache
from ._result import Result, check_converged

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

PathLike = Union[str, "os.PathLike[str]"]

#: The memory budget when none is given: the ``memory`` run option's default (1 GiB), from the
#: engine's declaration.
DEFAULT_MEMORY: int = _native.DEFAULT_MEMORY
_U64_LIMIT = 1 << 64


def memory_bytes(memory: Optional[Memory], name: str = "memory") -> int:
    """Converts a size (int bytes, or a string like ``"256MiB"``, exactly, as
    :func:`diskgraph.parse_size`; ``None`` for the default 1 GiB) given as argument ``name`` to
    bytes."""
    if memory is None:
        return DEFAULT_MEMORY
    return int(_native.parse_size(memory, name))


def _optional_count(name: str, value: Optional[int], minimum: int) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool")
    v = operator.index(value)
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {v}")
    return v


class Edges(NamedTuple):
    """The edges of a graph (:meth:`Graph.edges`): original IDs and weights, one entry per edge."""

    #: Source of each edge (uint64 original IDs).
    src: np.ndarray
    #: Target of each edge (uint64 original IDs).
    dst: np.ndarray
    #: Weight of each edge (float32), or None for an unweighted graph.
    weight: Optional[np.ndarray]


def _vertex_id(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"a vertex is an original ID (a non-negative integer), got {v!r}")
    value = int(v)
    if not 0 <= value < _U64_LIMIT:
        raise ValueError(f"a vertex ID is in 0 .. 2**64-1, got {value}")
    return value


def _direction(direction: str) -> str:
    if direction not in ("out", "in"):
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    return direction


class Graph(AlgorithmMethods):
    """A graph directory opened for reading (see :func:`diskgraph.open`).

    Opening checks the manifest, every file's size and the offset indexes (O(V));
    :meth:`verify` checks everything else. Every per-vertex array is indexed like
    :meth:`vertex_ids` (original IDs, ascending).

    A graph is a context manager: leaving the ``with`` block closes it (:meth:`close`). A graph
    imported without a path (``from_edges(src, dst)``, ``from_networkx(G)``, ...) lives in a
    temporary directory, deleted when it is closed, garbage-collected, or at interpreter exit.

    >>> g = diskgraph.open("wiki-vote.dg")
    >>> g.num_vertices, g.directed
    (7115, True)
    >>> g.pagerank().values.sum()
    1.0
    >>> with diskgraph.from_edges([1, 2], [2, 3]) as t:
    ...     t.num_vertices
    3
    """

    __slots__ = (
        "_g",
        "_import_summary",
        "reorder_summary",
        "_remove",
        "__weakref__",
        "_node_keys",
        "_keys_read",
        "_key_ids",
    )

    #: NetworkX dispatches its functions on this graph to the ``diskgraph`` backend
    #: (:mod:`diskgraph.nx_backend`): ``networkx.pagerank(g)`` runs here, without conversion.
    __networkx_backend__ = "diskgraph"

    def __init__(self, path: PathLike) -> None:
        self._g = _native.Graph(os.fspath(path))
        self._import_summary: Optional[Dict[str, Any]] = None
        #: Node keys by original ID (names, or the nodes :func:`from_networkx` was given), once read.
        self._node_keys: Optional[np.ndarray] = None
        self._keys_read = False
        self._key_ids: Optional[Dict[Hashable, int]] = None
        #: What :meth:`reorder` reported when it wrote this graph (None otherwise).
        self.reorder_summary: Optional[Dict[str, Any]] = None
        self._remove: Optional[weakref.finalize] = None

    # ----- lifetime -------------------------------------------------------------------------

    def _own_directory(self, directory: PathLike) -> None:
        """Makes ``directory`` (the temporary directory holding this graph) this graph's to
        delete: on :meth:`close`, when the graph is garbage-collected, or at interpreter exit."""
        self._remove = weakref.finalize(self, shutil.rmtree, os.fspath(directory), ignore_errors=True)

    @property
    def temporary(self) -> bool:
        """Whether the graph lives in a temporary directory that closing it deletes."""
        return self._remove is not None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (any use but ``path`` then raises ValueError)."""
        return isinstance(self._g, _ClosedGraph)

    def close(self) -> None:
        """Releases the graph's files and, for a temporary graph, deletes its directory. Any
        later use of the graph raises ValueError; closing again does nothing."""
        if self.closed:
            return
        path = os.fspath(self._g.path)
        self._g = cast(Any, _ClosedGraph(path))
        if self._remove is not None:
            self._remove()

    def __enter__(self) -> "Graph":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    # ----- metadata -------------------------------------------------------------------------

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
        return int(self._g.num_vertices)

    @property
    def num_edges(self) -> int:
        """Number of edges: arcs if directed, each undirected edge once otherwise."""
        return int(self._g.num_edges)

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs (each undirected non-loop edge is stored both ways)."""
        return int(self._g.num_arcs)

    @property
    def directed(self) -> bool:
        """Whether the graph is directed."""
        return bool(self._g.directed)

    @property
    def weighted(self) -> bool:
        """Whether the edges carry (float32) weights."""
        return bool(self._g.weighted)

    @property
    def path(self) -> str:
        """The graph directory."""
        return os.fspath(self._g.path)

    @property
    def manifest(self) -> Dict[str, Any]:
        """The graph's ``manifest.json`` as a dict."""
        return dict(self._g.manifest)

    @property
    def import_summary(self) -> Optional[Dict[str, Any]]:
        """What the import did (counts of input edges, dropped self-loops, merged duplicates,
        ...), when this graph was just created by one of diskgraph's importers; else ``None``."""
        return self._import_summary

    def vertex_ids(self) -> np.ndarray:
        """Original vertex IDs, ascending (uint64). Every per-vertex result is indexed like this."""
        return self._g.vertex_ids()

    @property
    def nodes(self) -> np.ndarray:
        """The graph's node keys, indexed like :meth:`vertex_ids` (and every per-vertex result):
        the NetworkX nodes of a graph :func:`from_networkx` made from non-integer nodes, the
        vertex names (str) of a graph that has them (a CSV of names, or such a graph reopened),
        else the original IDs (uint64). Algorithm sources may be given as node keys."""
        keys = self._keys()
        return self.vertex_ids() if keys is None else keys

    def _keys(self) -> Optional[np.ndarray]:
        """The node keys (an object array by original ID) of a graph with names, else None."""
        if not self._keys_read:
            has_names = "names.idx" in self._g.manifest["files"]
            names = _native.read_names(self.path) if has_names else None
            self._node_keys = None if names is None else object_array(names)
            self._keys_read = True
        return self._node_keys

    def _set_nodes(self, nodes: Iterable[Any]) -> None:
        """Keeps ``nodes`` (one per original ID) as the node keys."""
        self._node_keys = object_array(nodes)
        self._keys_read = True
        self._key_ids = None

    def _vertex_options(self, algorithm: str, options: Dict[str, Any]) -> Dict[str, Any]:
        """``options`` with every node key given as a source turned into its original ID."""
        keys = self._keys()
        if keys is None:
            return options
        if self._key_ids is None:
            self._key_ids = {key: i for i, key in enumerate(keys.tolist())}
        ids = self._key_ids
        kinds = _vertex_option_kinds().get(algorithm, {})
        out = dict(options)
        for name, kind in kinds.items():
            value = options.get(name)
            if value is None or isinstance(value, bool):
                continue
            if kind == "source" and not (isinstance(value, str) and value in ("smallest", "max-degree")):
                out[name] = _key_id(ids, value)
            elif kind == "sources" and not isinstance(value, (int, np.integer)):
                out[name] = [_key_id(ids, v) for v in value]
        return out

    def out_degree(self) -> np.ndarray:
        """Out-degree of every vertex (int64; undirected: the degree, self-loops counted once)."""
        return self._g.out_degree()

    def in_degree(self) -> np.ndarray:
        """In-degree of every vertex (int64; the out-degree for undirected graphs)."""
        return self._g.in_degree()

    def verify(self) -> Dict[str, int]:
        """Checks every checksum, neighbour ID and list order (O(E)).

        Returns counts of what was checked; raises :class:`GraphFormatError` on corruption.
        """
        return dict(self._g.verify())

    def export(self, path: PathLike, format: str = "el", force: bool = False) -> int:
        """Writes the edges in original IDs and returns the number of edges written.

        Args:
            path: Output file (written atomically; not inside the graph's directory, else
                ValueError).
            format: ``"el"`` (``u v``), ``"wel"`` (``u v w``, weighted graphs), ``"snap"``
                (``#`` header, tab-separated, weights if any), ``"mtx"`` (Matrix Market; IDs
                shifted by one if the graph has vertex 0) or ``"parquet"`` (uint64 columns
                ``src`` and ``dst``, float32 ``weight`` if weighted: what :func:`from_parquet`
                reads) or ``"csv"`` (a ``source,target[,weight]`` header, then vertex names when
                the graph has them, else IDs).
            force: Replace an existing file (else :class:`OutputExistsError`).

        Undirected graphs write each edge once (smaller ID first).
        """
        return int(self._g.export(os.fspath(path), format, force))

    # ----- adjacency ------------------------------------------------------------------------

    def neighbors(self, v: Any, direction: str = "out") -> np.ndarray:
        """The out-neighbours of vertex ``v`` as node keys, in ascending original-ID order (a
        parallel edge repeats its neighbour): original IDs (uint64) in and out, or on a graph
        with names (:attr:`nodes`) a node key in and an object array of node keys out.
        ``direction="in"`` gives the in-neighbours of a directed graph (an undirected graph's
        are the same list).

        Reads one list from disk; the first call reads the vertex index and keeps it, as
        :meth:`load_index` does. Raises :class:`InvalidVertex` if ``v`` is not a vertex.

        >>> g.neighbors(3)  # doctest: +SKIP
        array([  4,  28, 6505], dtype=uint64)
        """
        keys = self._keys()
        if keys is None:
            return self._g.neighbors(_vertex_id(v), _direction(direction))
        if self._key_ids is None:
            self._key_ids = {key: i for i, key in enumerate(keys.tolist())}
        ids = self._g.neighbors(_vertex_id(_key_id(self._key_ids, v)), _direction(direction))
        return keys[ids.astype(np.intp)]  # a graph with names has the original IDs 0..V-1

    def edges(self) -> "Edges":
        """Every edge as numpy arrays ``Edges(src, dst, weight)`` of original IDs, sorted by
        ``(src, dst)``: the arcs of a directed graph; each undirected edge once, with
        ``src <= dst``. ``weight`` is the float32 weights, or None for an unweighted graph. A
        multigraph repeats its parallel edges.

        Holds the whole graph in memory (16 to 20 bytes per edge in the result).

        >>> src, dst, weight = g.edges()  # doctest: +SKIP
        """
        indptr, indices, weights = self._g.csr("out")
        ids = self.vertex_ids()
        rows = np.repeat(np.arange(ids.shape[0]), (indptr[1:] - indptr[:-1]).astype(np.int64))
        if not self.directed:
            keep = rows <= indices
            rows, indices = rows[keep], indices[keep]
            weights = None if weights is None else weights[keep]
        return Edges(ids[rows], ids[indices], weights)

    def degree(self) -> np.ndarray:
        """The degree of every vertex (int64), NetworkX's ``G.degree``: in- plus out-degree of a
        directed graph; the number of incident edges of an undirected one, a self-loop counting
        twice. Reads only the offset indexes, and the lists too when the graph has self-loops
        (undirected)."""
        if self.directed:
            return self.out_degree() + self.in_degree()
        degree = self.out_degree()
        if int(self._g.manifest.get("num_self_loops", 0)) == 0:
            return degree
        indptr, indices, _ = self._g.csr("out")
        rows = np.repeat(np.arange(degree.shape[0]), (indptr[1:] - indptr[:-1]).astype(np.int64))
        return degree + np.bincount(rows[rows == indices], minlength=degree.shape[0])

    def to_scipy(self, dtype: Any = np.float64) -> Any:
        """The adjacency matrix as a ``scipy.sparse.csr_array`` of ``dtype``, rows and columns in
        :meth:`vertex_ids` order: ``A[i, j]`` is the weight of the edge from ``vertex_ids()[i]``
        to ``vertex_ids()[j]`` (1 when unweighted; parallel edges summed, as
        ``networkx.to_scipy_sparse_array`` does). Undirected graphs give a symmetric matrix.
        Holds the whole graph in memory."""
        import scipy.sparse as sp

        indptr, indices, weights = self._g.csr("out")
        n = self.num_vertices
        data = np.ones(indices.shape[0], dtype=dtype) if weights is None else weights.astype(dtype)
        index_dtype = np.int32 if max(n, indices.shape[0]) < 2**31 else np.int64
        A = sp.csr_array(
            (data, indices.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, n)
        )
        A.sum_duplicates()
        return A

    def is_directed(self) -> bool:
        """Whether the graph is directed (NetworkX's name for :attr:`directed`)."""
        return self.directed

    def is_multigraph(self) -> bool:
        """Whether parallel edges were kept on import (``keep_duplicates``)."""
        return bool(self._g.manifest.get("multi_edges", False))

    def to_networkx(self, weight: Optional[str] = "weight") -> Any:
        """The graph as a NetworkX graph: ``DiGraph`` or ``Graph`` (``MultiDiGraph`` or
        ``MultiGraph`` when parallel edges were kept), nodes the node keys (:attr:`nodes`: the
        original IDs in ascending order, or the names / NetworkX nodes of a graph that has them;
        isolated vertices included), each edge carrying its weight as the ``weight`` attribute
        when the graph is weighted (``weight=None``: no attributes). Holds the whole graph in
        memory, as NetworkX does."""
        import networkx as nx

        multi = self.is_multigraph()
        cls = {
            (True, False): nx.DiGraph,
            (False, False): nx.Graph,
            (True, True): nx.MultiDiGraph,
            (False, True): nx.MultiGraph,
        }[(self.directed, multi)]
        G = cls()
        keys = self._keys()
        G.add_nodes_from(self.vertex_ids().tolist() if keys is None else keys.tolist())
        src_ids, dst_ids, w = self.edges()
        if keys is None:
            src, dst = src_ids.tolist(), dst_ids.tolist()
        else:  # a graph with names has the original IDs 0..V-1, which index its keys
            src, dst = keys[src_ids.astype(np.intp)].tolist(), keys[dst_ids.astype(np.intp)].tolist()
        if w is None or weight is None:
            G.add_edges_from(zip(src, dst))
        else:
            G.add_weighted_edges_from(zip(src, dst, w.tolist()), weight=weight)
        return G

    # ----- algorithms -----------------------------------------------------------------------

    def partition(
        self,
        grid: Optional[int] = None,
        sort: str = "grid",
        memory: Optional[Memory] = None,
        force: bool = False,
        compress: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Publishes a grid layout inside the graph directory for the stream engine (as
        ``diskgraph partition``) and returns its summary (``name``, ``rows``, ``cols``, ...).

        Args:
            grid: Number of vertex ranges P, 1 to 4096 (None: chosen from ``memory``).
            sort: ``"grid"`` (P×P blocks, (src, dst) inside; layout ``grid-P``), ``"source"``
                (P×1 source-sorted stripes, ``grid-P-source``: greedy mis prefers it) or
                ``"destination"`` (``grid-P-destination``).
            memory: Memory budget of the partitioning, int bytes or a string like ``"256MiB"``.
            force: Replace an existing layout of the same name (else
                :class:`OutputExistsError`).
            compress: A codec of :func:`diskgraph.codecs` to compress the blocks with (layout
                ``grid-P…-<codec>``, as ``--compress``); None keeps them plain.

        The graph is reopened afterwards, so the new layout can be streamed right away.
        """
        if grid is not None:
            grid = _optional_count("grid", grid, 1)
        codec = None if compress is None else str(compress)
        summary = dict(self._g.partition(grid, str(sort), memory_bytes(memory), bool(force), codec))
        self._reopen()
        return summary

    def partition_shards(
        self,
        shards: Optional[int] = None,
        memory: Optional[Memory] = None,
        block_size: Optional[Memory] = None,
        force: bool = False,
        compress: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Publishes GraphChi's shards inside the graph directory for the shard engine (as
        ``diskgraph partition --shards``) and returns its summary (``name``, ``num_shards``,
        ``block_bytes``, ``min_memory``: the least the shards engine runs it in, ...).

        Args:
            shards: Number of shards N, 1 to 4096 (None: chosen with the block size so that
                the shards engine runs the layout within ``memory``; a ``ValueError`` names the
                smallest budget that would work when none does).
            memory: Memory budget, int bytes or a string like ``"256MiB"``: this call's, and the
                shards engine's the layout is made for.
            block_size: Edge-value block the engine reads, writes and caches: a multiple of
                4 KiB up to 64 MiB (None: chosen for ``memory``, at most the mean window's
                column and 1 MiB).
            force: Replace an existing layout of the same name (else
                :class:`OutputExistsError`).
            compress: A codec of :func:`diskgraph.codecs` to compress the windows with (layout
                ``shards-N-<codec>``, run with ``layout=``); None keeps the plain columns.

        The graph is reopened afterwards, so ``engine="shards"`` runs over it right away.
        """
        if shards is not None:
            shards = _optional_count("shards", shards, 1)
        codec = None if compress is None else str(compress)
        summary = dict(
            self._g.partition_shards(
                shards,
                memory_bytes(memory),
                None if block_size is None else memory_bytes(block_size, "block_size"),
                bool(force),
                codec,
            )
        )
        self._reopen()
        return summary

    def compress(self, codec: str = "vbyte", force: bool = False) -> Dict[str, Any]:
        """Encodes every adjacency list into the compressed layout ``compressed-<codec>``
        inside the graph directory (as ``diskgraph compress``), which runs then read by default
        (their ``adjacency`` option: ``"auto"``; ``"plain"`` reads the plain lists).

        Args:
            codec: A codec of :func:`diskgraph.codecs` (``"vbyte"``: Stream VByte over gaps).
            force: Replace an existing layout of that codec (else :class:`OutputExistsError`).

        Returns:
            What it made: ``name``, ``path``, ``codec``, ``arcs`` (both directions of a
            directed graph), ``plain_bytes`` (4 per arc), ``list_bytes`` (the encoded lists),
            ``bytes_per_arc``, ``seconds``.

        The graph is reopened afterwards, so runs read the new layout right away.
        """
        summary = dict(self._g.compress(str(codec), bool(force)))
        self._reopen()
        return summary

    def sync(
        self,
        memory: Optional[Memory] = None,
        *,
        ift: Optional[int] = None,
        ift_seq: Optional[int] = None,
        index_summary: bool = False,
        io: Optional[str] = None,
        adjacency: Optional[str] = None,
        in_edges: bool = False,
        weights: bool = False,
    ) -> "_native.SyncGraph":
        """Opens the graph on the sync engine, for traversals written as plain Python loops:
        ``neighbors(v)`` returns a vertex's list (original IDs) from the engine's cache of
        ``memory`` bytes, blocking on a miss, while a prefetcher thread reads ahead of the
        queues made with ``queue()`` — slower per call than a run, but prefetched and correct::

            s = g.sync(memory="64MiB")
            q = s.queue()
            level = {source: 0}
            q.push(source)
            while len(q):
                v = q.pop()
                for x in s.neighbors(v):
                    if x not in level:
                        level[x] = level[v] + 1
                        q.push(x)

        ``ift`` / ``ift_seq``: random / sequential reads kept in flight ahead (``ift=0``: no
        prefetching); ``index_summary``: keep the row index on disk; ``io``: ``"uring"``,
        ``"pread"`` or ``"mmap"``; ``adjacency``: ``"auto"`` (the default: the graph's compressed
        lists when it has them, see :meth:`compress`), ``"plain"`` or a codec;
        ``in_edges`` / ``weights``: open those too. An option that is None takes the engine's
        default. ``stats()`` gives the cache's and prefetcher's counters.
        """
        given = {
            "memory": memory,
            "ift": ift,
            "ift_seq": ift_seq,
            "index_summary": index_summary,
            "io": io,
            "adjacency": adjacency,
            "in_edges": in_edges,
            "weights": weights,
        }
        return self._g.sync({k: v for k, v in given.items() if v is not None})

    def run(self, algorithm: str, **options: Any) -> Result:
        """Runs ``algorithm`` (see :func:`diskgraph.algorithms` or ``diskgraph algorithms``)
        with ``options``: the algorithm's own (its method's keyword arguments), the run's, and
        the out-of-core engines' settings (:class:`IoOptions`). An option that is None takes its
        default. Every algorithm also has a method of its own name (:meth:`bfs`,
        :meth:`pagerank`, ...), typed and documented, which calls this.

        The run's options:
            engine: ``"auto"`` (the default: ``"memory"`` when the CSR the algorithm needs fits
                in ``memory``, else an out-of-core engine that runs it;
                ``stats["settings"]["engine_choice"]`` says which and why), or an engine by
                name: ``"memory"``, ``"selective"``, ``"stream"``, ``"sync"`` or ``"shards"``
                (:func:`diskgraph.algorithms` lists which run each algorithm).
            memory: The budget: the whole run (the engine's buffers and caches, and the O(V)
                state), as int bytes or a string like ``"256MiB"`` (default 1 GiB).
            threads: Worker threads (default: all cores).
            verify: Checks the answer against the graph after the run with the algorithm's
                verifier, which streams the graph within ``memory``: ``stats["verified"]`` says
                what it checked, ``stats["verify_seconds"]`` and ``stats["verify_bytes_read"]``
                what it cost (neither in the run's own times). A wrong answer raises
                VerificationError naming the first violation.
            progress: Shows the run's engine steps as they end: True for a tqdm bar (a line on
                stderr without tqdm), or a callable taking each step's record, a dict (see
                :data:`diskgraph.Progress`). Each record is also in ``stats["steps"]``.
            report: Writes the run's HTML report to this path, as ``diskgraph run --report``
                does (plots of the I/O throughput against the device's measured rates, of each
                step's active vertices and bytes, of the caches' hit ratios; the stats). Its
                directory must exist (FileNotFoundError before the run), and it may not lie
                inside the graph's directory (ValueError before the run), nor may ``scratch``.

        An engine's settings are refused when another engine is asked for by name; under
        ``"auto"`` they are used if that engine is picked.

        The GIL is released while running.

        Raises:
            InvalidVertex: a source is not a vertex of the graph.
            AlgorithmError: the algorithm refused the graph (e.g. sssp with negative weights).
            VerificationError: ``verify=True`` and the verifier found the answer wrong (an
                AlgorithmError).
            ConvergenceError: an iterative run (pagerank) reached ``max_iterations`` before
                converging, without ``allow_unconverged=True``; the exception's ``result`` holds
                what it computed. (An AlgorithmError.)
            GraphFormatError: a graph file is damaged.
            ValueError: an unknown algorithm, engine or choice, an option value out of range
                (``threads`` is 1 to 1024, a size 1 to 2**64 - 1 bytes), an option that does not
                apply to the engine asked for (the I/O layer's refusals and a budget too small
                for the engine included), a ``report`` or ``scratch`` inside the graph.
            TypeError: an option the algorithm does not take, or an option of the wrong type.
        """
        report = options.pop("report", None)
        if report is not None:
            _progress.check_report(report)
        scratch = options.get("scratch") if isinstance(options.get("scratch"), str) else None
        if report is not None or scratch is not None:
            _native.check_outputs(
                [("graph", self.path)],
                [] if report is None else [("report", report)],
                [] if scratch is None else [("scratch", scratch)],
            )
        shown, done = _progress.callback(options.pop("progress", None), algorithm)
        if shown is not None:
            options["progress"] = shown
        try:
            values, ids, stats, summary = self._g.run(algorithm, self._vertex_options(algorithm, options))
        finally:
            done()
        if report is not None:
            _native.write_report(report, self.path, summary, json.dumps(stats))
        keys = self._keys()
        rows = None if keys is None else keys[ids.astype(np.intp)]
        result = Result(algorithm, values, ids, stats, summary, rows)
        return check_converged(result, bool(options.get("allow_unconverged")))

    def select(
        self,
        method: str = "gvs",
        size: Union[int, str, float] = 0.2,
        *,
        k: int = 100,
        page_size: Union[int, str] = 4096,
        seed: int = 1,
        name: Optional[str] = None,
        force: bool = False,
    ) -> Dict[str, Any]:
        """Chooses the vertices of a BAsC static cache and publishes them inside the graph as
        ``basc-<name>`` (``name`` defaults to the method), as ``diskgraph select`` does.

        Args:
            method: ``"gvs"`` (Greedy Vertex Selection in ``k`` rounds, modelling pages of
                ``page_size`` bytes), ``"highd"``, ``"lowd"`` or ``"random"`` (``seed``).
            size: Bytes of the static cache the selection fills (int or a string like
                ``"64MiB"``; 4 per edge, 5 per list, 12 per 64 vertices of the graph), or a
                float in [0, 1]: that fraction of the size of the graph's out-lists.
            force: Replace an existing selection of that name.

        The graph is reopened afterwards, so ``basc=`` can use the selection right away.
        """
        if isinstance(size, float):
            if not 0.0 <= size <= 1.0:
                raise ValueError(f"a fraction size must be between 0 and 1, got {size}")
            budget = int(size * 4 * self._g.num_arcs)
        else:
            budget = memory_bytes(size, "size")
        summary = dict(
            self._g.select(str(method), budget, int(k), memory_bytes(page_size, "page_size"), int(seed), name, bool(force))
        )
        self._reopen()
        return summary

    def load_static_cache(
        self,
        basc: str,
        *,
        memory: Optional[Memory] = None,
        basc_fraction: float = 0.5,
        threads: Optional[int] = None,
        **io: Unpack[ReadOptions],
    ) -> StaticCache:
        """Loads the BAsC selection ``basc`` (``"gvs"`` or ``"basc-gvs"``; see :meth:`select`)
        into a static cache of ``basc_fraction`` of ``memory`` once, for several runs: pass the
        result as ``basc=`` to any selective run on this graph and it reads nothing to fill its
        static cache (``stats["settings"]["basc_preloaded"]`` is true, ``basc_load_bytes`` 0).
        A static cache never changes, so this is what a session running several algorithms
        wants; the lists stay in memory, outside any run's budget, until the returned object
        is dropped.

        ``io``: how to read (:class:`ReadOptions`).

        Raises:
            ValueError: a selection larger than its share, or bad settings.
            GraphFormatError: no such selection, or its files are damaged.

        >>> cache = g.load_static_cache("gvs", memory="4GiB", basc_fraction=0.2)  # doctest: +SKIP
        >>> levels = g.bfs(engine="selective", basc=cache)  # doctest: +SKIP
        """
        return self._g.load_static_cache(
            str(basc), dict(io, memory=memory, basc_fraction=basc_fraction, threads=threads)
        )

    def load_index(self) -> int:
        """Reads the graph's vertex index — its original IDs and the offsets of each stored
        direction, 16 to 24 bytes per vertex — once, and keeps it for every later run on this
        object, which then starts without reading it from disk (``stats["settings"]
        ["index_preloaded"]`` is true): 0.13 s of a 0.8 s selective bfs on Kronecker 24. On a
        reordered graph it also keeps the IDs' ranking (1.5 bits per vertex when the IDs are
        dense), which puts each run's results in ID order without ranking them again. A
        session running several algorithms wants this, as an engine that keeps a graph open
        does. Returns the bytes held (outside any run's budget) until the object is dropped.
        Calling it again keeps the index already read. Each run still reads ``manifest.json``:
        a graph another process replaced at this path since it was opened raises
        :class:`GraphFormatError` (``the graph was replaced since it was opened``) on every
        engine, as it does without a loaded index.

        >>> held = g.load_index()  # doctest: +SKIP
        """
        return int(self._g.load_index())

    def _reopen(self) -> None:
        """Opens the directory again (its manifest changed), keeping a loaded index."""
        self._g = self._g.reopen()

    def cost(self) -> Dict[str, Any]:
        """The locality of this graph's ordering before running anything, as ``diskgraph cost``
        prints it: ``cost`` is the I/O cost model of the BAsC paper (Σ over vertices of the
        in-degree times the variance of the internal IDs in the vertex's list) and
        ``cost_vs_random`` its ratio to the expectation under random IDs (about 1 for a random
        ordering; lower is better); ``mean_gap`` / ``gap_vs_random`` the mean ID distance of an
        arc; ``neighbourhood_pages`` the 4 KiB pages holding a vertex's out-neighbours' lists and
        ``page_utility`` the share of their bytes those lists fill; ``ordering``,
        ``num_vertices``, ``num_arcs`` and ``seconds``. Compare orderings of one graph with it."""
        return dict(self._g.cost())

    def reorder(
        self,
        output: PathLike,
        method: str = "norder",
        *,
        window: Optional[int] = None,
        page_size: Union[int, str, None] = None,
        seed: Optional[int] = None,
        memory: Optional[Memory] = None,
        force: bool = False,
        checkpoint: Optional[PathLike] = None,
        checkpoint_every: float = 600.0,
        time_limit: Optional[float] = None,
    ) -> "Graph":
        """Writes this graph relabelled by an ordering to ``output`` (as ``diskgraph reorder``:
        ``"norder"``, ``"degree"``, ``"random"`` with ``seed``, ``"pagerank"``, ``"gorder"`` with
        ``window`` — by default the average number of lists per ``page_size`` page, 4 KiB
        unless given —, ``"original"``) and returns it opened; results on it still come out in
        original IDs. The summary (ordering and writing times) is in the new graph's
        ``reorder_summary``.

        Gorder takes hours on large graphs: with ``checkpoint`` (a file) it saves its state
        every ``checkpoint_every`` seconds and resumes from the file when it exists (same graph
        and window); with ``time_limit`` (seconds) it saves and raises :class:`Suspended` once
        the call has lasted that long — call again with the same arguments to go on.

        ``output`` and ``checkpoint`` are refused (ValueError) when one is the other or lies
        inside the other, or lies inside this graph's directory, or (``output``) holds it."""
        summary = dict(
            self._g.reorder(
                os.fspath(output),
                str(method),
                window,
                seed,
                memory_bytes(memory),
                bool(force),
                None if checkpoint is None else os.fspath(checkpoint),
                float(checkpoint_every),
                None if time_limit is None else float(time_limit),
                None if page_size is None else memory_bytes(page_size, "page_size"),
            )
        )
        g = Graph(output)
        g.reorder_summary = summary
        if self._node_keys is not None:
            g._set_nodes(self._node_keys)  # names follow original IDs, which a reordering keeps
        return g

    def __repr__(self) -> str:
        if self.closed:
            return f"<diskgraph.Graph {self.path!r} (closed)>"
        kind = ("directed" if self.directed else "undirected") + (", weighted" if self.weighted else "")
        return f"<diskgraph.Graph {self.path!r}: {self.num_vertices} vertices, {self.num_edges} edges ({kind})>"


def object_array(items: Iterable[Any]) -> np.ndarray:
    """A one-dimensional object array of ``items`` (tuples stay elements, not rows)."""
    listed: List[Any] = list(items)
    return np.fromiter(listed, dtype=object, count=len(listed))


@lru_cache(maxsize=1)
def _vertex_option_kinds() -> Dict[str, Dict[str, str]]:
    """Per algorithm, its options that take vertices, with their kind (source or sources)."""
    return {
        a["name"]: {o["name"]: o["kind"] for o in a["options"] if o["kind"] in ("source", "sources")}
        for a in _native.algorithms()["algorithms"]
    }


def _key_id(ids: Dict[Hashable, int], key: Any) -> Any:
    """The original ID of node ``key``; an integer that is no key is taken as an ID, anything
    else is refused."""
    try:
        return ids[key]
    except KeyError:
        if isinstance(key, (int, np.integer)):
            return key
        raise _native.make_error("invalid_vertex", f"{key!r} is not a node of the graph") from None
    except TypeError:
        raise TypeError(f"a vertex must be a node key (hashable), got {key!r}") from None


def open(path: PathLike) -> Graph:  # noqa: A001 - the public name is diskgraph.open
    """Opens the graph directory at ``path``.

    Raises :class:`GraphNotFoundError` (a ``FileNotFoundError``) if it is missing,
    :class:`NotAGraphError` (a ``NotADirectoryError``) if it is a file or a directory without
    ``manifest.json``, and :class:`GraphFormatError` (the base of both) if it fails the
    open-time checks (manifest, file sizes, offset indexes).

    >>> g = diskgraph.open("rome99.dg")
    >>> g.sssp(source=1).values.max()
    69102.0
    """
    return Graph(path)


def temporary_graph_path() -> str:
    """A path for a graph imported without one: ``graph.dg`` inside a new private directory
    (``tempfile.mkdtemp``, so under ``TMPDIR``), which :meth:`Graph._own_directory` then hands to
    the graph to delete."""
    return os.path.join(tempfile.mkdtemp(prefix="diskgraph-"), "graph.dg")


class _ClosedGraph:
    """Stands in for the native graph of a closed :class:`Graph`: any use raises ValueError."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __getattr__(self, name: str) -> Any:
        raise ValueError(f"the graph {self.path} is closed (Graph.close(), or the end of its with block)")
