"""Opened graphs (:class:`Graph`) and algorithm results (:class:`Result`)."""

from __future__ import annotations

import numbers
import operator
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt

from . import _native
from ._native import InvalidVertex, StaticCache

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

#: A memory budget: bytes as an int, or a string such as ``"256MiB"`` or ``"1.5G"``.
Memory = Union[int, str]
PathLike = Union[str, "os.PathLike[str]"]

DEFAULT_MEMORY = 1 << 30
_U64_LIMIT = 1 << 64


def memory_bytes(memory: Optional[Memory]) -> int:
    """Converts a memory budget (int bytes, a size string like ``"256MiB"``, or ``None`` for the
    default 1 GiB) to bytes."""
    if memory is None:
        return DEFAULT_MEMORY
    if isinstance(memory, str):
        return int(_native.parse_size(memory))
    if isinstance(memory, bool) or not isinstance(memory, numbers.Integral):
        raise TypeError(f"memory must be an int (bytes) or a size string like '256MiB', got {memory!r}")
    value = int(memory)
    if not 1 <= value < _U64_LIMIT:
        raise ValueError(f"memory must be a positive number of bytes, got {value}")
    return value


#: A traversal source: an original vertex ID, ``"smallest"`` (the smallest ID, the default) or
#: ``"max-degree"`` (the vertex with the most out-edges, smallest ID on ties).
SourceSpec = Union[int, str, None]
_SOURCE_RULES = ("smallest", "max-degree")


def _source_id(source: SourceSpec) -> Union[int, str, None]:
    if source is None:
        return None
    if isinstance(source, str):
        if source not in _SOURCE_RULES:
            raise ValueError(f"source must be a vertex ID, 'smallest' or 'max-degree', got {source!r}")
        return source
    if isinstance(source, bool):
        raise TypeError("source must be an integer vertex ID, got a bool")
    s = operator.index(source)
    if not 0 <= s < _U64_LIMIT:
        raise InvalidVertex(f"source vertex {s} is not a vertex of the graph")
    return s


#: msbfs and apsp sources: a count K (K distinct vertices sampled with ``seed``; at most 64 for
#: msbfs) or a sequence (or numpy array) of original vertex IDs (1 to 64 for msbfs).
SourcesSpec = Union[int, Sequence[int], "npt.NDArray[np.integer[Any]]"]


class ReadOptions(TypedDict, total=False):
    """How the out-of-core engines read, accepted by :meth:`Graph.load_static_cache` and, as part
    of :class:`IoOptions`, by every run. Each defaults to the CLI's default.

    Keys:
        io: I/O backend: ``"uring"`` (io_uring, O_DIRECT), ``"pread"`` (pread with O_DIRECT)
            or ``"mmap"`` (page cache); ``None`` (default) takes uring when the kernel allows
            it, else pread. A backend that cannot run falls back (see
            ``stats["settings"]["io_backend"]`` and ``["io_fallback"]``).
        block_size: I/O block size in bytes (int or a string like ``"4KiB"``): a power of two
            from 512 to 65536 (default 512).
        max_gap: Largest gap, in blocks, merged into one read (default 32).
        max_request: Largest read in bytes (int or a string like ``"64KiB"``, the default);
            longer runs are cut. Must hold at least one block.
        scheduler: ``"bitmap"`` (global dedup, sort and merge per round; default) or
            ``"pluglist"`` (the Linux plug-list baseline).
        queue_depth: Reads in flight per I/O thread (uring; default 64).
        io_threads: Dedicated I/O threads (default 1).
    """

    io: Optional[str]
    block_size: Union[int, str, None]
    max_gap: Optional[int]
    max_request: Union[int, str, None]
    scheduler: Optional[str]
    queue_depth: Optional[int]
    io_threads: Optional[int]


class IoOptions(ReadOptions, total=False):
    """Settings of the out-of-core engines, accepted by :meth:`Graph.run` and every algorithm
    method (each engine ignores the others' settings). Each defaults to the CLI's default.

    Keys: those of :class:`ReadOptions`, and

        retain_lists: Keep the small lists a bottom-up (pull) round read that the next round
            reads again, in the budget the buffers leave (default True; False is the baseline).
        mrt: Stream engine: maximum reentry times, passes over each loaded block (default 5;
            1 is GridGraph's one pass).
        vertex_state: Stream engine: ``"memory"`` (default) or ``"mmap"`` (a mapped scratch
            file next to the graph, so vertex state may exceed RAM).
        layout: Stream engine: the grid layout to stream (default: the one the algorithm
            prefers among the graph's layouts; make them with :meth:`Graph.partition`).
        basc: Selective engine: a BAsC selection (``"gvs"`` or ``"basc-gvs"``; make them with
            :meth:`Graph.select`) loaded into a static cache of ``basc_fraction`` of ``memory``,
            or a :class:`StaticCache` loaded once by :meth:`Graph.load_static_cache` (the run
            then reads nothing to fill its static cache; ``memory`` and ``basc_fraction``
            default to the ones it was loaded for).
        basc_fraction: Share of ``memory`` given to the static cache (default 0.5).
        page_size: Selective engine: read through a page cache of pages of this many bytes (int
            or a string like ``"4KiB"``), holding what the budget leaves after the static cache
            and the I/O buffers.
        page_policy: The page cache's replacement, ``"clock"`` (default) or ``"lru"``.
        track_utilization: Track page utilisation (64-byte units touched while resident;
            ``stats["settings"]["page_cache"]["utilization"]``).

    The stream engine reads with ``io`` ``"uring"`` or ``"pread"`` and ``queue_depth`` reads in
    flight.
    """

    retain_lists: Optional[bool]
    mrt: Optional[int]
    vertex_state: Optional[str]
    layout: Optional[str]
    basc: Union[str, StaticCache, None]
    basc_fraction: Optional[float]
    page_size: Union[int, str, None]
    page_policy: Optional[str]
    track_utilization: Optional[bool]


_IO_OPTIONS = IoOptions.__optional_keys__


def _x_array(x: Optional["npt.ArrayLike"]) -> Optional["npt.NDArray[np.float64]"]:
    """spmv's ``x`` as a 1-D float64 array (None stays None: all ones)."""
    if x is None:
        return None
    array = np.asarray(x, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"x must be one-dimensional (one value per vertex), got shape {array.shape}")
    return array


def _optional_count(name: str, value: Optional[int], minimum: int) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool")
    v = operator.index(value)
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {v}")
    return v


def _flag(name: str, value: Optional[bool]) -> bool:
    """A boolean option (None means the default, True)."""
    if value is None:
        return True
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return bool(value)


class Result:
    """The answer of one algorithm run.

    Attributes:
        algorithm: The algorithm that ran (``"bfs"``, ``"pagerank"``, ...).
        values: One value per vertex, indexed like :attr:`vertex_ids`: int64 BFS levels or
            parents (original IDs), core numbers and msbfs distance sums (-1 = unreached),
            apsp's rows of hop distances (2-D, one column per source; -1 = unreached),
            uint64 component labels (the smallest original ID in the component), float64
            distances (``inf`` = unreached), ranks and spmv products.
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


class Graph:
    """A graph directory opened for reading (see :func:`diskgraph.open`).

    Opening checks the manifest, every file's size and the offset indexes (O(V));
    :meth:`verify` checks everything else. Every per-vertex array is indexed like
    :meth:`vertex_ids` (original IDs, ascending).

    >>> g = diskgraph.open("wiki-vote.dg")
    >>> g.num_vertices, g.directed
    (7115, True)
    >>> g.pagerank().values.sum()
    1.0
    """

    __slots__ = ("_g", "_import_summary", "reorder_summary")

    def __init__(self, path: PathLike) -> None:
        self._g = _native.Graph(os.fspath(path))
        self._import_summary: Optional[Dict[str, Any]] = None
        #: What :meth:`reorder` reported when it wrote this graph (None otherwise).
        self.reorder_summary: Optional[Dict[str, Any]] = None

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
        """Writes the edges as text in original IDs and returns the number of lines written.

        Args:
            path: Output file (written atomically).
            format: ``"el"`` (``u v``), ``"wel"`` (``u v w``, weighted graphs), ``"snap"``
                (``#`` header, tab-separated, weights if any) or ``"mtx"`` (Matrix Market; IDs
                shifted by one if the graph has vertex 0).
            force: Replace an existing file (else :class:`OutputExistsError`).

        Undirected graphs write each edge once (smaller ID first).
        """
        return int(self._g.export(os.fspath(path), format, force))

    # ----- algorithms -----------------------------------------------------------------------

    def partition(
        self,
        grid: Optional[int] = None,
        sort: str = "grid",
        memory: Optional[Memory] = None,
        force: bool = False,
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

        The graph is reopened afterwards, so the new layout can be streamed right away.
        """
        if grid is not None:
            grid = _optional_count("grid", grid, 1)
        summary = dict(self._g.partition(grid, str(sort), memory_bytes(memory), bool(force)))
        self._reopen()
        return summary

    def run(self, algorithm: str, **options: Any) -> Result:
        """Runs ``algorithm``: ``bfs``, ``sssp``, ``wcc``, ``scc``, ``pagerank``, ``kcore``,
        ``msbfs``, ``apsp``, ``spmv``, ``mis``, ``sp``, ``diameter`` or ``bc``.

        Options:
            source: bfs/sssp: an original ID, ``"smallest"`` (default) or ``"max-degree"``.
            parents: bfs: return the parent tree instead of levels.
            tolerance, iterations, max_iterations: pagerank.
            sources, seed: msbfs and apsp (see :meth:`msbfs`, :meth:`apsp`); ``seed`` also seeds
                mis's ``"luby"``.
            x: spmv (see :meth:`spmv`).
            method: wcc on the stream engine ``"union-find"`` (default) or
                ``"label-propagation"``; mis ``"greedy"`` (default) or ``"luby"``.
            engine: ``"auto"`` (default: ``"memory"`` when the CSR the algorithm needs fits in
                ``memory``, else ``"selective"`` — ``"stream"`` for mis;
                ``stats["settings"]["engine_choice"]`` says which and why), ``"memory"`` (load
                the CSR), ``"selective"`` (read adjacency lists from disk per iteration within
                ``memory``; not for ``scc`` and ``mis``) or ``"stream"`` (stream a grid layout,
                see :meth:`partition`, with loaded-data reentry; bfs, sssp, wcc, pagerank, spmv
                and mis).
            memory: Memory budget, int bytes or a string like ``"256MiB"`` (default 1 GiB).
            threads: Worker threads (default: all cores).
            io, block_size, max_gap, max_request, scheduler, queue_depth, io_threads,
                retain_lists, mrt, vertex_state, layout: the out-of-core engines' settings (see
                :class:`IoOptions`).

        Options an algorithm does not use are ignored. The GIL is released while running.

        Raises:
            InvalidVertex: a source is not a vertex of the graph.
            AlgorithmError: the algorithm refused the graph (e.g. sssp with negative weights).
            GraphFormatError: a graph file is damaged.
            ValueError: an unknown algorithm, engine, I/O backend or scheduler, or an option
                value out of range (including I/O settings the I/O layer refuses and a budget
                too small for the selective engine).
            TypeError: an unknown option, or an option of the wrong type.
        """
        known = {
            "source",
            "parents",
            "engine",
            "memory",
            "threads",
            "tolerance",
            "iterations",
            "max_iterations",
            "sources",
            "seed",
            "x",
            "method",
            "samples",
            "rounds",
        } | _IO_OPTIONS
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"run() got unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        memory, basc_fraction = options.get("memory"), options.get("basc_fraction")
        basc = options.get("basc")
        if isinstance(basc, StaticCache):
            memory = basc.memory if memory is None else memory
            basc_fraction = basc.basc_fraction if basc_fraction is None else basc_fraction
        tolerance = float(options.get("tolerance", 1e-9))
        max_iterations = _optional_count("max_iterations", options.get("max_iterations"), 1)
        values, ids, stats, summary = self._g.run(
            algorithm,
            source=_source_id(options.get("source")),
            parents=bool(options.get("parents", False)),
            engine=str(options.get("engine", "auto")),
            memory=memory_bytes(memory),
            threads=_optional_count("threads", options.get("threads"), 1),
            tolerance=tolerance,
            iterations=_optional_count("iterations", options.get("iterations"), 0),
            max_iterations=10_000 if max_iterations is None else max_iterations,
            sources=options.get("sources"),
            seed=options.get("seed"),
            x=_x_array(options.get("x")),
            io=options.get("io"),
            block_size=options.get("block_size"),
            max_gap=options.get("max_gap"),
            max_request=options.get("max_request"),
            scheduler=options.get("scheduler"),
            queue_depth=options.get("queue_depth"),
            io_threads=options.get("io_threads"),
            retain_lists=_flag("retain_lists", options.get("retain_lists", True)),
            mrt=_optional_count("mrt", options.get("mrt"), 1),
            vertex_state=options.get("vertex_state"),
            layout=options.get("layout"),
            method=options.get("method"),
            samples=_optional_count("samples", options.get("samples"), 1),
            rounds=_optional_count("rounds", options.get("rounds"), 1),
            basc=basc,
            basc_fraction=float(basc_fraction or 0.5),
            page_size=options.get("page_size"),
            page_policy=str(options.get("page_policy") or "clock"),
            track_utilization=bool(options.get("track_utilization", False)),
        )
        return Result(algorithm, values, ids, stats, summary)

    def sp(
        self,
        source: SourceSpec = None,
        *,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Unweighted shortest-path lengths (hops) from ``source`` along out-edges: int64, -1
        unreached (as :meth:`bfs`'s levels). ``engine`` is ``"auto"``, ``"memory"`` or
        ``"selective"``."""
        return self.run("sp", source=source, engine=engine, memory=memory, threads=threads, **io)

    def diameter(
        self,
        source: SourceSpec = None,
        *,
        rounds: int = 4,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """A lower bound on the diameter by up to ``rounds`` BFS sweeps from ``source``, each from
        the farthest vertex the last one found (the smallest original ID among ties, so every
        ordering of the graph sweeps alike): a real eccentricity (exact on trees). Values are
        the hop distances from the vertex whose eccentricity it is; ``stats["settings"]`` has
        ``bound``, ``from`` and ``to``."""
        return self.run(
            "diameter", source=source, rounds=rounds, engine=engine, memory=memory, threads=threads, **io
        )

    def bc(
        self,
        *,
        samples: Optional[int] = None,
        seed: int = 1,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Betweenness centrality (Brandes), float64, scaled as NetworkX's
        ``betweenness_centrality`` (normalized, endpoints excluded): exact from every vertex, or
        from ``samples`` sources sampled with ``seed`` by original ID (NetworkX's ``k``; any
        ordering of the graph samples the same sources)."""
        return self.run(
            "bc", samples=samples, seed=seed, engine=engine, memory=memory, threads=threads, **io
        )

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
            budget = memory_bytes(size)
        summary = dict(
            self._g.select(str(method), budget, int(k), memory_bytes(page_size), int(seed), name, bool(force))
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
        reading = ReadOptions.__optional_keys__
        unknown = sorted(set(io) - reading)
        if unknown:
            raise TypeError(
                f"load_static_cache() got unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(reading))}"
            )
        return self._g.load_static_cache(
            str(basc),
            memory=memory_bytes(memory),
            basc_fraction=float(basc_fraction),
            threads=_optional_count("threads", threads, 1),
            **io,
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
        Calling it again keeps the index already read.

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
        the call has lasted that long — call again with the same arguments to go on."""
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
                None if page_size is None else memory_bytes(page_size),
            )
        )
        g = Graph(output)
        g.reorder_summary = summary
        return g

    def bfs(
        self,
        source: SourceSpec = None,
        *,
        parents: bool = False,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Breadth-first search from ``source`` along out-edges.

        ``source`` is an original ID, ``"smallest"`` (the smallest ID; the default) or
        ``"max-degree"`` (the vertex with the most out-edges).

        Values are int64 levels (source 0, -1 unreached), or with ``parents=True`` the parent of
        every vertex as an original ID (the source is its own parent, -1 unreached). If the
        graph has IDs of 2**63 or more, which int64 cannot hold, parents come back as uint64
        with 2**64-1 for unreached (use the levels to tell if 2**64-1 is itself a vertex).

        ``engine`` is ``"auto"``, ``"memory"``, ``"selective"`` or ``"stream"`` (see
        :meth:`run`); ``**io`` takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run(
            "bfs", source=source, parents=parents, engine=engine, memory=memory, threads=threads, **io
        )

    def sssp(
        self,
        source: SourceSpec = None,
        *,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Single-source shortest path distances (float64, ``inf`` unreached) from ``source``
        (as in :meth:`bfs`).

        Unweighted graphs count hops. Raises :class:`AlgorithmError` if a weight is negative.
        ``engine`` is ``"auto"``, ``"memory"``, ``"selective"`` or ``"stream"`` (see
        :meth:`run`); ``**io`` takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run("sssp", source=source, engine=engine, memory=memory, threads=threads, **io)

    def wcc(
        self,
        *,
        method: Optional[str] = None,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Weakly connected components (connected components of undirected graphs): uint64
        labels, each the smallest original ID of its component.

        ``engine`` is ``"auto"``, ``"memory"``, ``"selective"`` or ``"stream"`` (see
        :meth:`run`); on the stream engine ``method`` is ``"union-find"`` (one pass; the
        default) or ``"label-propagation"`` (the iterative baseline), elsewhere None. ``**io``
        takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run("wcc", method=method, engine=engine, memory=memory, threads=threads, **io)

    def scc(
        self,
        *,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Strongly connected components: uint64 labels, each the smallest original ID of its
        component.

        Runs on the memory engine only: ``"auto"`` takes it whatever the budget, and
        ``engine="selective"`` raises ``ValueError``. ``**io`` is accepted (and ignored) so the
        same settings can be passed to every algorithm.
        """
        return self.run("scc", engine=engine, memory=memory, threads=threads, **io)

    def pagerank(
        self,
        *,
        tolerance: float = 1e-9,
        iterations: Optional[int] = None,
        max_iterations: int = 10_000,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """PageRank with NetworkX's semantics (alpha 0.85, weights ignored, dangling mass spread
        uniformly): float64 ranks summing to 1.

        Stops when the L1 change is below ``num_vertices * tolerance`` (NetworkX's rule), or
        after exactly ``iterations`` sweeps if given; gives up after ``max_iterations``.
        ``engine`` is ``"auto"``, ``"memory"``, ``"selective"`` or ``"stream"`` (see
        :meth:`run`); ``**io`` takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run(
            "pagerank",
            tolerance=tolerance,
            iterations=iterations,
            max_iterations=max_iterations,
            engine=engine,
            memory=memory,
            threads=threads,
            **io,
        )

    def kcore(
        self,
        *,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Core number of every vertex (int64) on the undirected simple view of the graph
        (directions, self-loops and parallel edges ignored).

        ``engine`` is ``"auto"``, ``"memory"`` or ``"selective"`` (see :meth:`run`); ``**io``
        takes the selective engine's I/O settings (:class:`IoOptions`).
        """
        return self.run("kcore", engine=engine, memory=memory, threads=threads, **io)

    def msbfs(
        self,
        sources: SourcesSpec = 64,
        *,
        seed: int = 1,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Multi-source BFS: up to 64 breadth-first searches along out-edges at once
        (bit-parallel, one pass over a vertex's list serves all of them).

        ``sources`` is a count K (K distinct vertices sampled uniformly with ``seed``, by
        original ID, so any ordering of the graph samples the same ones; at most 64, and at
        most the number of vertices) or a sequence of 1 to 64 original IDs (repeats
        allowed; each counts). Values are int64: for each vertex, the sum of its finite
        distances from the sources, or -1 when no source reaches it.
        ``stats["settings"]["sources"]`` lists the sources (original IDs, in bit order).

        ``engine`` is ``"auto"``, ``"memory"`` or ``"selective"`` (see :meth:`run`); ``**io``
        takes the selective engine's I/O settings (:class:`IoOptions`).

        Raises :class:`InvalidVertex` for an ID that is not a vertex and ``ValueError`` for a
        count or list outside 1..64.
        """
        if isinstance(sources, np.ndarray):
            sources = sources.tolist()
        return self.run(
            "msbfs", sources=sources, seed=seed, engine=engine, memory=memory, threads=threads, **io
        )

    def apsp(
        self,
        sources: SourcesSpec = 64,
        *,
        seed: int = 1,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Hop distances from many sources (sampled all-pairs shortest paths), built on
        :meth:`msbfs`: the sources run in batches of 64, one bit-parallel traversal each.

        ``sources`` is a count K (K distinct vertices sampled uniformly with ``seed``, by
        original ID, so any ordering of the graph samples the same ones; at most the number of
        vertices) or a sequence of original IDs (repeats allowed). Values are a
        2-D int64 array, one row per vertex (in ``vertex_ids`` order) and one column per source
        (in the order of ``stats["settings"]["sources"]``): hops along out-edges, -1 when
        unreached. The result takes ``8 × vertices × K`` bytes.

        ``engine`` is ``"auto"``, ``"memory"`` or ``"selective"`` (see :meth:`run`); ``**io``
        takes the selective engine's I/O settings (:class:`IoOptions`).

        Raises :class:`InvalidVertex` for an ID that is not a vertex and ``ValueError`` for an
        empty list or a count outside 1..vertices.
        """
        if isinstance(sources, np.ndarray):
            sources = sources.tolist()
        return self.run(
            "apsp", sources=sources, seed=seed, engine=engine, memory=memory, threads=threads, **io
        )

    def spmv(
        self,
        x: Optional["npt.ArrayLike"] = None,
        *,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Sparse matrix-vector product ``y = A.T @ x`` (float64), where ``A[u, v]`` is the
        weight of the edge ``u -> v`` (1 when unweighted; an undirected edge counts both ways):
        ``y[v]`` sums ``w(u, v) * x[u]`` over the in-edges of ``v``.

        ``x`` has one finite value per vertex, in the order of :meth:`vertex_ids` (converted to
        float64); ``None`` (default) means all ones, so ``y`` is the weighted in-degree.
        Raises ``ValueError`` for a wrong length, a non-finite value, or more than one
        dimension.

        ``engine`` is ``"auto"``, ``"memory"``, ``"selective"`` or ``"stream"`` (see
        :meth:`run`); ``**io`` takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run("spmv", x=x, engine=engine, memory=memory, threads=threads, **io)

    def mis(
        self,
        *,
        method: str = "greedy",
        seed: int = 1,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """A maximal independent set of the undirected view (edge directions and self-loops
        ignored): int64 values, 1 in the set and 0 not.

        ``method`` is ``"greedy"`` (vertices by ascending ID, each joins unless a smaller
        neighbour did: deterministic, one pass on the stream engine) or ``"luby"`` (Luby's
        randomized parallel rounds seeded with ``seed``: a valid but different set). ``engine`` is
        ``"auto"`` (memory when the CSR fits in ``memory``, else stream), ``"memory"`` or
        ``"stream"`` (greedy streams a ``source`` or ``grid`` layout, see :meth:`partition`);
        ``**io`` takes the out-of-core engines' settings (:class:`IoOptions`).
        """
        return self.run(
            "mis", method=method, seed=seed, engine=engine, memory=memory, threads=threads, **io
        )

    def __repr__(self) -> str:
        kind = ("directed" if self.directed else "undirected") + (", weighted" if self.weighted else "")
        return f"<diskgraph.Graph {self.path!r}: {self.num_vertices} vertices, {self.num_edges} edges ({kind})>"


def open(path: PathLike) -> Graph:  # noqa: A001 - the public name is diskgraph.open
    """Opens the graph directory at ``path``.

    Raises :class:`GraphFormatError` if it is missing, is not a graph directory, or fails the
    open-time checks (manifest, file sizes, offset indexes).

    >>> g = diskgraph.open("rome99.dg")
    >>> g.sssp(source=1).values.max()
    69102.0
    """
    return Graph(path)
