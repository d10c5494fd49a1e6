"""The algorithm methods of :class:`diskgraph.Graph` and the out-of-core engines' settings.

Generated from the algorithm descriptors by ``python3 scripts/generate_python.py``; do not edit
by hand (the test suite checks it is up to date).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Hashable, Literal, Optional, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt

from ._native import StaticCache
from ._progress import Progress
from ._result import Result

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

#: A memory budget: bytes as an int, or a string such as ``"256MiB"`` or ``"1.5G"``.
Memory = Union[int, str]
#: A traversal source: a node key (an original vertex ID; on a graph with names, a name or the
#: NetworkX node, see :attr:`Graph.nodes`), ``"smallest"`` (the smallest ID) or ``"max-degree"``
#: (the vertex with the most out-edges, the smallest ID among equals).
SourceSpec = Hashable
#: Sources: a count K (K distinct vertices sampled with ``seed``) or a sequence (or numpy array)
#: of node keys (original vertex IDs, or names / NetworkX nodes on a graph with names).
SourcesSpec = Union[int, Sequence[Hashable], "npt.NDArray[np.integer[Any]]"]


class ReadOptions(TypedDict, total=False):
    """How the out-of-core engines read, accepted by :meth:`Graph.load_static_cache` and, as part of
    :class:`IoOptions`, by every run. A key left out (or None) takes the engine's default.

    Keys:
        io: selective, stream, sync: I/O backend: uring, pread or mmap (selective and sync);
            default: uring when the kernel allows it, else pread: ``"uring"``, ``"pread"`` or
            ``"mmap"``.
        block_size: selective: I/O block size, a power of two from 512 B to 64 KiB.
        max_gap: selective: largest gap, in blocks, merged into a read.
        max_request: selective: largest read; longer runs are cut.
        scheduler: selective: I/O scheduler: bitmap (global dedup/sort/merge) or pluglist (the
            baseline): ``"bitmap"`` or ``"pluglist"``.
        queue_depth: selective, stream, sync: reads in flight per I/O thread.
        io_threads: selective: dedicated I/O threads, 1 to 64.
    """

    io: Optional[Literal["uring", "pread", "mmap"]]
    block_size: Optional[Union[int, str]]
    max_gap: Optional[int]
    max_request: Optional[Union[int, str]]
    scheduler: Optional[Literal["bitmap", "pluglist"]]
    queue_depth: Optional[int]
    io_threads: Optional[int]


class IoOptions(ReadOptions, total=False):
    """The out-of-core engines' settings, accepted by :meth:`Graph.run` and every algorithm method:
    those of :class:`ReadOptions` and these. A key left out (or None) takes the engine's default;
    ``basc`` also takes a :class:`StaticCache` loaded by :meth:`Graph.load_static_cache`.

    Keys:
        retain_lists: selective: keep the small lists a bottom-up (pull) round read that the next
            round reads again, in the budget the buffers leave (false: the baseline).
        basc: selective: load BAsC selection NAME (diskgraph select) into a static cache.
        basc_fraction: selective: share of the budget given to the static cache.
        page_size: selective: read through a page cache of pages of this size, holding what the
            budget leaves after the static cache and the I/O buffers.
        page_policy: selective: the page cache's replacement: clock or lru: ``"clock"`` or
            ``"lru"``.
        track_utilization: selective: track page utilisation (64-byte units touched while resident).
        mrt: stream: maximum reentry times: passes over each loaded block (1 is GridGraph's one
            pass).
        vertex_state: stream: where vertex state lives: memory or mmap (a mapped scratch file next
            to the graph): ``"memory"`` or ``"mmap"``.
        layout: stream, shards: the layout to run over: a grid layout (stream) or a shards layout
            (shards); default: the one the engine prefers among the graph's layouts.
        ift: sync: sync: random reads the prefetcher keeps in flight ahead of the algorithm (0: no
            prefetching, the baseline).
        ift_seq: sync: sync: sequential reads (of up to 128 KiB) the prefetcher keeps in flight
            ahead of a sequential iterator (0: none).
        index_summary: sync: sync: keep the O(V) row index on disk and every 64th offset in memory;
            a list is found by reading its index page alongside an interpolated range of the
            adjacency.
        gsc: shards: shards: keep loaded blocks between intervals while twice the average shard is
            free (Greedy Shard Caching); false writes back and drops them after every interval, as
            GraphChi does.
        deterministic: shards: shards: run every update on one thread in ID order (the default runs
            updates that share no edge in parallel, with the same results).
        scratch: shards: shards: directory for the run's scratch copy of the edge values (default:
            the system's temporary directory).
        adjacency: memory, selective, sync: which copy of the lists to read: auto (compressed when
            the graph has them), plain, vbyte or zeta: ``"auto"``, ``"plain"``, ``"vbyte"`` or
            ``"zeta"``.
    """

    retain_lists: Optional[bool]
    basc: Union[str, StaticCache, None]
    basc_fraction: Optional[float]
    page_size: Optional[Union[int, str]]
    page_policy: Optional[Literal["clock", "lru"]]
    track_utilization: Optional[bool]
    mrt: Optional[int]
    vertex_state: Optional[Literal["memory", "mmap"]]
    layout: Optional[str]
    ift: Optional[int]
    ift_seq: Optional[int]
    index_summary: Optional[bool]
    gsc: Optional[bool]
    deterministic: Optional[bool]
    scratch: Optional[str]
    adjacency: Optional[Literal["auto", "plain", "vbyte", "zeta"]]


class AlgorithmMethods:
    """The algorithms, one method each; each calls :meth:`Graph.run` with its options."""

    __slots__ = ()

    def run(self, algorithm: str, **options: Any) -> Result:
        raise NotImplementedError

    def bfs(
        self,
        source: SourceSpec = "smallest",
        *,
        parents: bool = False,
        engine: Literal["auto", "memory", "selective", "stream", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Breadth-first search levels from ``source`` (-1 unreached); ``parents`` for the parent
        tree.

        Values (int64): the level of each vertex (the source 0, -1 unreached), or with parents its
        parent's original ID (uint64, 2**64-1 unreached, when the graph has IDs of 2**63 or more).

        Args:
            source: where it starts: an original vertex ID, smallest (the smallest ID, as NetworkX's
                min(G)) or max-degree (the vertex with the most out-edges, the smallest ID among
                equals) (default ``"smallest"``).
            parents: give each vertex's parent (an original ID; the source is its own parent, -1
                unreached) instead of its level (default ``False``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"stream"``,
                ``"sync"``; ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the
                engines' settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "bfs",
            source=source,
            parents=parents,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def sssp(
        self,
        source: SourceSpec = "smallest",
        *,
        engine: Literal["auto", "memory", "selective", "stream", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Single-source shortest path distances from ``source`` (inf unreached); refuses negative
        weights.

        Values (float64): the distance from the source along out-edges, summing the weights (hops
        when unweighted), inf unreached.

        Args:
            source: where it starts: an original vertex ID, smallest (the smallest ID, as NetworkX's
                min(G)) or max-degree (the vertex with the most out-edges, the smallest ID among
                equals) (default ``"smallest"``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"stream"``,
                ``"sync"``; ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the
                engines' settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "sssp",
            source=source,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def wcc(
        self,
        *,
        method: Optional[Literal["union-find", "label-propagation"]] = None,
        engine: Literal["auto", "memory", "selective", "stream", "sync", "shards"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Weakly connected components, labelled by their smallest vertex ID.

        Values (uint64): the component of each vertex, named by the smallest original ID in it.

        Args:
            method: the stream engine's method: union-find (one pass) or label-propagation (the
                baseline): ``"union-find"`` or ``"label-propagation"`` (the stream engine only)
                (default ``"union-find"``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"stream"``,
                ``"sync"``, ``"shards"``; ``memory``, ``threads``, ``verify``, ``progress``,
                ``report`` and the engines' settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "wcc",
            method=method,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def scc(
        self,
        *,
        engine: Literal["auto", "memory", "selective", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Strongly connected components, labelled by their smallest vertex ID.

        Values (uint64): the component of each vertex, named by the smallest original ID in it.

        Args:
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"sync"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "scc",
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def pagerank(
        self,
        *,
        tolerance: float = 1e-09,
        iterations: Optional[int] = None,
        max_iterations: int = 10000,
        allow_unconverged: bool = False,
        engine: Literal["auto", "memory", "selective", "stream", "sync", "shards"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """PageRank with NetworkX semantics (alpha 0.85, to ``tolerance`` or ``iterations``).

        Values (float64): the rank of each vertex (they sum to 1): alpha 0.85, weights ignored,
        dangling mass spread uniformly.

        Args:
            tolerance: stop when the L1 change is below N × tolerance (NetworkX's rule) (default
                ``1e-09``).
            iterations: run exactly this many iterations instead (on the shard engine, Gauss–Seidel
                sweeps as GraphChi runs them).
            max_iterations: the iteration limit: a run that has not converged by then fails (see
                allow_unconverged) (default ``10000``).
            allow_unconverged: accept a run that reaches its iteration limit before converging (else
                it fails, its values kept: written by the command line, held by Python's
                ConvergenceError) (default ``False``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"stream"``,
                ``"sync"``, ``"shards"``; ``memory``, ``threads``, ``verify``, ``progress``,
                ``report`` and the engines' settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "pagerank",
            tolerance=tolerance,
            iterations=iterations,
            max_iterations=max_iterations,
            allow_unconverged=allow_unconverged,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def kcore(
        self,
        *,
        engine: Literal["auto", "memory", "selective", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Core number of every vertex on the undirected simple view.

        Values (int64): the core number of each vertex (directions, self-loops and parallel edges
        ignored).

        Args:
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"sync"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "kcore",
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def msbfs(
        self,
        sources: SourcesSpec = 64,
        *,
        seed: int = 1,
        engine: Literal["auto", "memory", "selective"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Multi-source BFS from up to 64 ``sources`` at once: sum of finite distances (-1
        unreached).

        Values (int64): the sum of each vertex's finite hop distances from the sources, -1 when none
        reaches it.

        Args:
            sources: a count K (K distinct vertices sampled with ``seed``; at most 64) or original
                IDs a,b,c (a single one as a,) (default ``64``).
            seed: seed of what is drawn at random: sampled sources (drawn by original ID, the same
                on every ordering of a graph), Luby's priorities, random walks' moves (default
                ``1``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "msbfs",
            sources=sources,
            seed=seed,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def apsp(
        self,
        sources: SourcesSpec = 64,
        *,
        seed: int = 1,
        engine: Literal["auto", "memory", "selective"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Hop distances from each of ``sources`` (K sampled, or IDs; msbfs in batches of 64), -1
        unreached.

        Values (int64, 2-D): a row per vertex, a column per source (in the order of the stats'
        sources): hops from the source, -1 unreached.

        Args:
            sources: a count K (K distinct vertices sampled with ``seed``) or original IDs a,b,c (a
                single one as a,) (default ``64``).
            seed: seed of what is drawn at random: sampled sources (drawn by original ID, the same
                on every ordering of a graph), Luby's priorities, random walks' moves (default
                ``1``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "apsp",
            sources=sources,
            seed=seed,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def spmv(
        self,
        x: Optional["npt.ArrayLike"] = None,
        *,
        weighted: bool = True,
        semiring: Literal["plus-times", "min-plus"] = "plus-times",
        engine: Literal["auto", "memory", "selective", "stream"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Y = A^T x with the edge weights (x from ``x``, or all ones).

        Values (float64): y[v], the sum of w(u, v) * x[u] over the in-edges of v (weights 1 when
        unweighted); with min-plus the least x[u] + w(u, v).

        Args:
            x: x, one number per vertex in ascending original-ID order: a text file (one value per
                line) or a 1-D .npy array (f8, f4, i8 or i4); all ones when absent.
            weighted: multiply by the edge weights; false counts every edge 1, as on an unweighted
                graph (a PageRank step, a frontier's reach) (default ``True``).
            semiring: plus-times (the matrix product) or min-plus (y[v] = min of x[u] + w(u, v): a
                shortest-path relaxation): ``"plus-times"`` or ``"min-plus"`` (default
                ``"plus-times"``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"stream"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "spmv",
            x=x,
            weighted=weighted,
            semiring=semiring,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def mis(
        self,
        *,
        method: Literal["greedy", "luby"] = "greedy",
        seed: int = 1,
        engine: Literal["auto", "memory", "stream", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Maximal independent set, 1 in the set and 0 not (greedy by ID; ``method`` luby).

        Values (int64): 1 for a vertex in the set, 0 for one not (the undirected view; the order the
        graph is stored in).

        Args:
            method: greedy (by ascending ID; deterministic) or luby (randomized rounds seeded with
                ``seed``): ``"greedy"`` or ``"luby"`` (default ``"greedy"``).
            seed: seed of what is drawn at random: sampled sources (drawn by original ID, the same
                on every ordering of a graph), Luby's priorities, random walks' moves (default
                ``1``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"stream"``, ``"sync"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "mis",
            method=method,
            seed=seed,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def sp(
        self,
        source: SourceSpec = "smallest",
        *,
        engine: Literal["auto", "memory", "selective"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Unweighted shortest-path lengths (hops) from ``source``, -1 unreached.

        Values (int64): the hops from the source along out-edges, -1 unreached.

        Args:
            source: where it starts: an original vertex ID, smallest (the smallest ID, as NetworkX's
                min(G)) or max-degree (the vertex with the most out-edges, the smallest ID among
                equals) (default ``"smallest"``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "sp",
            source=source,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def diameter(
        self,
        source: SourceSpec = "smallest",
        *,
        rounds: int = 4,
        engine: Literal["auto", "memory", "selective"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Diameter lower bound by ``rounds`` BFS sweeps from ``source``: hop distances from the
        vertex whose eccentricity it is.

        Values (int64): hop distances from the vertex whose eccentricity is the bound (-1
        unreached); the stats' settings have bound, from and to.

        Args:
            source: where it starts: an original vertex ID, smallest (the smallest ID, as NetworkX's
                min(G)) or max-degree (the vertex with the most out-edges, the smallest ID among
                equals) (default ``"smallest"``).
            rounds: BFS sweeps, each from the farthest vertex the last one found (default ``4``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "diameter",
            source=source,
            rounds=rounds,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def bc(
        self,
        *,
        samples: Optional[int] = None,
        seed: int = 1,
        engine: Literal["auto", "memory", "selective"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Betweenness centrality (Brandes, NetworkX scaling): exact, or from ``samples`` K sources.

        Values (float64): the betweenness of each vertex, scaled as NetworkX's
        betweenness_centrality (normalized, endpoints excluded).

        Args:
            samples: sample this many sources (with ``seed``) instead of every vertex (NetworkX's
                k).
            seed: seed of what is drawn at random: sampled sources (drawn by original ID, the same
                on every ordering of a graph), Luby's priorities, random walks' moves (default
                ``1``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "bc",
            samples=samples,
            seed=seed,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def mst(
        self,
        *,
        engine: Literal["auto", "memory", "sync"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Minimum spanning forest of an undirected graph (weight 1 per edge when unweighted): each
        vertex's parent, trees rooted at their smallest ID.

        Values (uint64): the parent of each vertex in the minimum spanning forest (an original ID;
        each tree is rooted at its smallest ID, and a root is its own parent): the forest's edges
        are (v, parent) for every v not its own parent; the stats' total_weight is their total
        weight.

        Args:
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"sync"``; ``memory``,
                ``threads``, ``verify``, ``progress``, ``report`` and the engines' settings ``**io``
                as in :meth:`Graph.run`.
        """
        return self.run(
            "mst",
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def randomwalk(
        self,
        sources: SourcesSpec = 64,
        *,
        walks: int = 10000,
        length: int = 20,
        damping: float = 0.85,
        seed: int = 1,
        engine: Literal["auto", "memory", "selective", "shards"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Visit counts of ``walks`` random walks of ``length`` steps from ``sources``, restarting
        with probability 1 - ``damping``.

        Values (uint64): how many times the walks were at each vertex, at steps 0 to length (they
        sum to walks × (length + 1)); over walks × (length + 1), personalised PageRank as length
        grows.

        Args:
            sources: the walks' source slots: a count K (K distinct vertices sampled with ``seed``,
                every vertex when the graph has fewer) or original IDs a,b,c in order, repeats
                allowed (a single one as a,) (default ``64``).
            walks: number of walks, dealt over the source slots in order (default ``10000``).
            length: steps each walk takes (it visits length + 1 vertices, its start included)
                (default ``20``).
            damping: probability, in [0, 1], that a walk at a vertex with out-arcs follows one
                rather than restarting at a source slot (default ``0.85``).
            seed: seed of what is drawn at random: sampled sources (drawn by original ID, the same
                on every ordering of a graph), Luby's priorities, random walks' moves (default
                ``1``).
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"shards"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "randomwalk",
            sources=sources,
            walks=walks,
            length=length,
            damping=damping,
            seed=seed,
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )

    def triangles(
        self,
        *,
        engine: Literal["auto", "memory", "selective", "shards"] = "auto",
        memory: Optional[Memory] = None,
        threads: Optional[int] = None,
        verify: bool = False,
        progress: Progress = None,
        report: Union[str, "os.PathLike[str]", None] = None,
        **io: Unpack[IoOptions],
    ) -> Result:
        """Triangles through every vertex and their total, on the undirected simple view.

        Values (uint64): the number of triangles containing each vertex (directions, self-loops and
        parallel edges ignored).

        Args:
            engine: ``"auto"`` (the default) or one of ``"memory"``, ``"selective"``, ``"shards"``;
                ``memory``, ``threads``, ``verify``, ``progress``, ``report`` and the engines'
                settings ``**io`` as in :meth:`Graph.run`.
        """
        return self.run(
            "triangles",
            engine=engine,
            memory=memory,
            threads=threads,
            verify=verify,
            progress=progress,
            report=report,
            **io,
        )
