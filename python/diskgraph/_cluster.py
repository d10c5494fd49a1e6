"""Algorithms over a split directory (``diskgraph split``) on a Ray cluster: one worker process per
slot, each owning some parts and running the existing engines over them, supersteps exchanging
vertex values through Ray's object store as numpy arrays.

A superstep of pagerank, bfs and sssp is one sparse matrix-vector product ``y = Aᵀ x`` on every
part (the ``spmv`` algorithm, on the engine the run names), so a worker runs the same engine code
a single machine does; wcc is one superstep of the parts' own ``wcc``, joined on the driver. The
driver sends each part only the values of its *boundary* sources (the vertices with arcs in the
part, fixed when the workers start) and receives the values of its boundary destinations, and
combines the parts' partial results per vertex (sum for pagerank and bfs, minimum for sssp): at
most one value per boundary vertex and part each way. PageRank is a product per iteration; BFS one
per level (the frontier as an indicator vector: a vertex is reached when its sum is positive);
sssp one min-plus product (a Bellman-Ford relaxation of the vertices whose distance dropped) per
round until no distance drops.

kcore peels the simple undirected view level by level, a superstep per round: each part counts,
for every vertex, its removed neighbours among the simple edges it owns. An edge ``{u, v}`` can
lie in two parts (``u → v`` in one, ``v → u`` in another), so a join at the start gives it to one
of them: the part holding ``min → max`` owns it, and a part holding only ``max → min`` asks that
part whether it does. The owned edges live in the workers' memory (8 bytes each), not on the
engines' budget.

A run places each worker on a node that holds its parts: every node is asked which parts lie
under the split directory's path there, and the parts are dealt to the CPU slots of the nodes
holding them (:func:`place`).

Parts keep the graph's vertex numbers (every part has all V vertices), so the exchange needs no ID
translation. Vectors are in the order of the parts' internal IDs, which is ascending original-ID
order for a graph in its original ordering; splits of reordered graphs are refused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _native
from ._graph import Graph, Memory, PathLike
from ._result import Result

#: The format a split directory's ``split.json`` declares.
SPLIT_FORMAT = "diskgraph-split"

#: The longest, in seconds, a worker may take to answer one call of a run (a superstep's
#: products on its parts, its start): a worker that does not answer in time is restarted and its
#: call repeated once, then the run fails naming it. Ample for a part of a billion-edge graph
#: read out of core; pass ``timeout=`` to a run to change it.
DEFAULT_TIMEOUT = 1800.0

#: The least time, in seconds, a worker is given to start (a process started, Python and
#: diskgraph imported, its parts opened) and answer its first call, whatever the run's timeout.
START_TIMEOUT = 300.0


class ClusterError(RuntimeError):
    """A cluster run failed: a worker died or did not answer in time, again after its restart
    (the message names its process, node and parts), a part is on no node, or the cluster could
    not be reached."""


def parse_cluster(spec: str) -> Tuple[str, Optional[int]]:
    """``"local:N"`` → ``("local", N)``; ``"ray://HOST:PORT"`` → (the address, None). Anything else
    is a ``ValueError`` naming the spec."""
    if spec.startswith("local:"):
        count = spec[len("local:"):]
        if count.isdigit() and int(count) >= 1:
            return "local", int(count)
    elif spec.startswith("ray://") and ":" in spec[len("ray://"):]:
        return spec, None
    raise ValueError(f"cluster {spec!r}: expected local:N (N ≥ 1 worker processes) or ray://HOST:PORT")


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError("cluster runs need Ray: pip install 'diskgraph[ray]'") from e
    return ray


class _Part:
    """One part as the driver sees it: its directory, rows and columns, boundary vertices."""

    def __init__(self, path: str, name: str, sources: np.ndarray, destinations: np.ndarray) -> None:
        self.path = path
        self.name = name
        self.sources = sources
        self.destinations = destinations


class _Worker:
    """A Ray actor's body: opens its parts and runs the engines' ``spmv`` and ``wcc`` on them, or
    kcore's peel rounds over the simple edges it owns."""

    def __init__(self, paths: List[str], engine: str, memory: Optional[Memory]) -> None:
        self.graphs = [Graph(p) for p in paths]
        # Every superstep runs an engine on each part: the index is read once, not per run.
        for g in self.graphs:
            g.load_index()
        self.engine = engine
        self.memory = memory
        self.bytes_read = 0
        self.seconds = 0.0
        # Boundary vertices: sources and destinations with arcs in the part.
        out_degrees = [g.out_degree() for g in self.graphs]
        self.sources = [np.flatnonzero(d > 0) for d in out_degrees]
        self.source_degrees = [d[s] for d, s in zip(out_degrees, self.sources)]
        self.destinations = [np.flatnonzero(g.in_degree() > 0) for g in self.graphs]

    def pid(self) -> int:
        """The worker's process ID, for the messages about it."""
        return os.getpid()

    def boundary(self) -> List[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per part: its boundary sources, their out-degrees in the part, its boundary
        destinations."""
        return list(zip(self.sources, self.source_degrees, self.destinations))

    def spmv(self, xs: List[np.ndarray], semiring: str, weighted: bool) -> List[np.ndarray]:
        """Per part, ``y = Aᵀ x`` in ``semiring`` with ``x`` given on its boundary sources (the
        semiring's zero elsewhere: 0 or +inf); ``y`` on its boundary destinations."""
        out = []
        start = time.perf_counter()
        fill = 0.0 if semiring == "plus-times" else np.inf
        for g, s, d, xv in zip(self.graphs, self.sources, self.destinations, xs):
            x = np.full(g.num_vertices, fill, dtype=np.float64)
            x[s] = xv
            r = g.run("spmv", x=x, weighted=weighted, semiring=semiring, engine=self.engine, memory=self.memory)
            self.bytes_read += int(r.stats.get("bytes_read") or 0)
            out.append(np.asarray(r.values, dtype=np.float64)[d])
        self.seconds += time.perf_counter() - start
        return out

    def simple_edges(self) -> List[np.ndarray]:
        """Reads each part's simple undirected edges (no self-loops, duplicates and the two
        directions once), keeping them until :meth:`own`: a part owns those it holds as
        ``min → max``. Returns, per part, the keys (``min << 32 | max``) of the edges it holds
        only as ``max → min``, which the part holding ``min → max``, if any, owns instead."""
        start = time.perf_counter()
        asked = []
        self.forward: List[np.ndarray] = []
        self.backward: List[np.ndarray] = []
        for g in self.graphs:
            indptr, indices, _ = g._g.csr("out")
            rows = np.repeat(np.arange(g.num_vertices, dtype=np.uint64), np.diff(indptr).astype(np.int64))
            cols = indices.astype(np.uint64)
            keep = rows != cols
            rows, cols = rows[keep], cols[keep]
            keys = (np.minimum(rows, cols) << np.uint64(32)) | np.maximum(rows, cols)
            # CSR order: the min → max keys ascend already; the max → min ones need a sort.
            forward, _ = distinct(keys[rows < cols], ascending=True)
            backward, _ = distinct(keys[rows > cols])
            backward = backward[~member(backward, forward)]
            self.forward.append(forward)
            self.backward.append(backward)
            asked.append(backward)
            files = g.manifest["files"]
            self.bytes_read += int(files["out.adj"]["len"]) + int(files["out.idx"]["len"])
        self.seconds += time.perf_counter() - start
        return asked

    def holds(self, keys: List[np.ndarray]) -> List[np.ndarray]:
        """Per part, which of ``keys`` (``min << 32 | max``) it holds as ``min → max``."""
        return [member(k, f) for k, f in zip(keys, self.forward)]

    def own(self, held_elsewhere: List[np.ndarray]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Takes the edges held only as ``max → min`` that no other part holds as ``min → max``
        (``held_elsewhere`` per part, a mask over what :meth:`simple_edges` asked), keeps the
        owned edges as adjacency lists over the part's kcore boundary (the vertices of the edges
        it owns), and returns per part that boundary, ascending, and each vertex's number of
        owned edges."""
        out = []
        self.adjacency: List[Tuple[np.ndarray, np.ndarray]] = []
        for g, f, b, held in zip(self.graphs, self.forward, self.backward, held_elsewhere):
            keys = np.concatenate([f, b[~held]])
            lo, hi = keys >> np.uint64(32), keys & np.uint64(0xFFFFFFFF)
            bound = vertices_in(g.num_vertices, lo, hi)
            position = np.zeros(g.num_vertices, dtype=np.int32)
            position[bound] = np.arange(len(bound), dtype=np.int32)
            ends = position[np.concatenate([lo, hi])]
            others = np.concatenate([ends[len(lo):], ends[: len(lo)]])
            order = np.argsort(ends, kind="stable")
            degree = np.bincount(ends, minlength=len(bound))
            self.adjacency.append((np.concatenate([[0], np.cumsum(degree)]), others[order]))
            out.append((bound.astype(np.int64), degree.astype(np.int64)))
        del self.forward, self.backward
        return out

    def neighbours_of(self, removed: List[np.ndarray]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Per part, the neighbours of the ``removed`` vertices (positions on its kcore boundary)
        along the edges it owns: their positions and how many removed neighbours each has."""
        out = []
        start = time.perf_counter()
        for (offsets, others), at in zip(self.adjacency, removed):
            lengths = offsets[at + 1] - offsets[at]
            first = np.repeat(offsets[at] - (np.cumsum(lengths) - lengths), lengths)
            near = others[first + np.arange(int(lengths.sum()))]
            touched, count = distinct(near)
            out.append((touched.astype(np.int32), count.astype(np.int32)))
        self.seconds += time.perf_counter() - start
        return out

    def components(self) -> List[np.ndarray]:
        """Per part, the ``wcc`` labels (smallest original ID of the vertex's component in the
        part) of its boundary vertices, sources and destinations together, ascending."""
        out = []
        start = time.perf_counter()
        for g, s, d in zip(self.graphs, self.sources, self.destinations):
            r = g.run("wcc", engine=self.engine, memory=self.memory)
            self.bytes_read += int(r.stats.get("bytes_read") or 0)
            out.append(np.asarray(r.values, dtype=np.uint64)[vertices_in(g.num_vertices, s, d)])
        self.seconds += time.perf_counter() - start
        return out

    def counters(self) -> Dict[str, Any]:
        """Bytes the engines read and seconds spent in products so far."""
        return {"bytes_read": self.bytes_read, "seconds": self.seconds}


class SplitGraph:
    """A split directory (``diskgraph split``), run on a Ray cluster.

    >>> s = diskgraph.open_split("k20.split")
    >>> s.pagerank(cluster="local:4").values.sum()
    1.0
    """

    def __init__(self, path: PathLike) -> None:
        self.path = os.fspath(path)
        meta_path = os.path.join(self.path, "split.json")
        meta = json.loads(_native.read_metadata(meta_path))
        if meta.get("format") != SPLIT_FORMAT or meta.get("version") != 1:
            raise ValueError(f"{meta_path}: not a diskgraph split (format {meta.get('format')!r})")
        self.meta: Dict[str, Any] = meta
        self.num_vertices = int(meta["num_vertices"])
        self.parts = [p["name"] for p in meta["parts"]]
        # The driver needs the routing and one part (for the vertex IDs); on a cluster the other
        # parts may lie only on the nodes that run them, where the run checks them.
        here = []
        for p in meta["parts"]:
            manifest_path = os.path.join(self.path, p["name"], "manifest.json")
            if not os.path.exists(manifest_path):
                continue
            m = json.loads(_native.read_metadata(manifest_path))
            want = (self.num_vertices, int(p["num_arcs"]), p["out_adj"])
            got = (m["num_vertices"], m["num_arcs"], m["files"]["out.adj"]["xxh3"])
            if got != want:
                raise ValueError(
                    f"{self.path}: part {p['name']} has (vertices, arcs, out.adj xxh3) {got}, "
                    f"the routing says {want}"
                )
            here.append(p["name"])
        if not here:
            raise ValueError(f"{self.path}: no part of the split is here; the driver needs one for the vertex IDs")
        first = Graph(os.path.join(self.path, here[0]))
        if first.manifest["ordering"] != "original":
            raise ValueError(
                f"{self.path}: the graph was reordered ({first.manifest['ordering']}); cluster runs "
                "need a split of a graph in its original ordering"
            )
        self._vertex_ids = first.vertex_ids()

    def pagerank(
        self,
        *,
        cluster: str = "local:2",
        tolerance: float = 1e-9,
        iterations: Optional[int] = None,
        max_iterations: int = 10_000,
        engine: str = "auto",
        memory: Optional[Memory] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """PageRank with NetworkX semantics (alpha 0.85), as :meth:`Graph.pagerank`: to
        ``tolerance`` (the L1 change below N × tolerance) or exactly ``iterations``."""
        alpha = 0.85
        n = self.num_vertices
        with _Run(self, cluster, engine, memory, timeout) as run:
            degree = np.zeros(n, dtype=np.float64)
            for part, deg in zip(run.parts, run.part_degrees):
                degree[part.sources] += deg  # a part lists each source once
            dangling = degree == 0
            x = np.full(n, 1.0 / n)
            limit = iterations if iterations is not None else max_iterations
            converged = iterations is not None
            done = 0
            for _ in range(limit):
                contrib = np.divide(x, degree, out=np.zeros(n), where=~dangling)
                y = run.superstep(contrib)
                base = alpha * x[dangling].sum() / n + (1.0 - alpha) / n
                new = alpha * y + base
                err = np.abs(new - x).sum()
                x = new
                done += 1
                if iterations is None and err < n * tolerance:
                    converged = True
                    break
            if not converged:
                raise ClusterError(f"pagerank did not converge in {limit} iterations")
            return run.result("pagerank", x, {"iterations": done, "converged": converged})

    def bfs(
        self,
        source: int,
        *,
        cluster: str = "local:2",
        engine: str = "auto",
        memory: Optional[Memory] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """BFS levels from the vertex with original ID ``source`` (-1 = unreached), a product
        per level."""
        at = self._vertex(source)
        level = np.full(self.num_vertices, -1, dtype=np.int64)
        level[at] = 0
        with _Run(self, cluster, engine, memory, timeout) as run:
            frontier = np.zeros(self.num_vertices)
            frontier[at] = 1.0
            depth = 0
            while frontier.any():
                reached = run.superstep(frontier) > 0
                fresh = reached & (level < 0)
                depth += 1
                level[fresh] = depth
                frontier = fresh.astype(np.float64)
            return run.result("bfs", level, {"levels": depth})

    def sssp(
        self,
        source: int,
        *,
        cluster: str = "local:2",
        engine: str = "auto",
        memory: Optional[Memory] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """Shortest-path distances from the vertex with original ID ``source`` along out-edges
        (inf unreached; hops on an unweighted graph), as :meth:`Graph.sssp`: Bellman-Ford, a
        min-plus product per round from the vertices whose distance dropped, until none drops.
        Negative and NaN weights are refused first (a ``ValueError`` naming an edge's head)."""
        at = self._vertex(source)
        n = self.num_vertices
        with _Run(self, cluster, engine, memory, timeout) as run:
            if self.meta["weighted"]:
                # One relaxation from 0 everywhere: y[v] is the least weight into v (NaN if any is).
                least = run.superstep(np.zeros(n), "min-plus", weighted=True)
                bad = np.flatnonzero(np.isnan(least) | (least < 0))
                if len(bad):
                    v = bad[0]
                    raise ValueError(
                        f"sssp needs non-negative weights: an edge into vertex {self._vertex_ids[v]} of "
                        f"{self.path} weighs {least[v]}"
                    )
            dist = np.full(n, np.inf)
            dist[at] = 0.0
            changed = np.zeros(n, dtype=bool)
            changed[at] = True
            rounds = 0
            while changed.any():
                y = run.superstep(np.where(changed, dist, np.inf), "min-plus", weighted=True)
                changed = y < dist
                dist[changed] = y[changed]
                rounds += 1
            return run.result("sssp", dist, {"rounds": rounds})

    def kcore(
        self,
        *,
        cluster: str = "local:2",
        engine: str = "auto",
        memory: Optional[Memory] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """Core numbers on the simple undirected view, as :meth:`Graph.kcore` (directions,
        self-loops and parallel edges ignored). Level-synchronous peeling: at level ``k`` (the
        smallest remaining degree, never lowered) every remaining vertex of degree ≤ ``k`` is
        removed with core number ``k``, a superstep per round counting the removed vertices'
        neighbours (only the removed and the touched vertices travel)."""
        n = self.num_vertices
        with _Run(self, cluster, engine, memory, timeout) as run:
            degree = run.simple_view()
            core = np.zeros(n, dtype=np.int64)
            alive = np.ones(n, dtype=bool)
            k = 0
            # Within a level only the vertices a round touched can drop to k; a new level scans
            # every remaining vertex once.
            touched: Optional[np.ndarray] = None
            while True:
                if touched is None:
                    if not alive.any():
                        break
                    k = max(k, int(degree[alive].min()))
                    removed = np.flatnonzero(alive & (degree <= k))
                else:
                    removed = touched[alive[touched] & (degree[touched] <= k)]
                    if len(removed) == 0:
                        touched = None
                        continue
                core[removed] = k
                alive[removed] = False
                touched, lost = run.peel(removed)
                degree[touched] -= lost
            levels = int(np.count_nonzero(np.bincount(core)))
            return run.result("kcore", core, {"max_core": int(core.max(initial=0)), "levels": levels})

    def _vertex(self, source: int) -> int:
        """The vertex number of original ID ``source``; a ``ValueError`` when it is none."""
        at = int(np.searchsorted(self._vertex_ids, source))
        if at >= len(self._vertex_ids) or self._vertex_ids[at] != source:
            raise ValueError(f"source {source} is not a vertex of {self.path}")
        return at


    def wcc(
        self,
        *,
        cluster: str = "local:2",
        engine: str = "auto",
        memory: Optional[Memory] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Result:
        """Weakly connected components, as :meth:`Graph.wcc`: each vertex labelled with the
        smallest original ID in its component. One superstep: every part finds its own components
        with the engine's ``wcc``, and returns its boundary vertices' labels; the driver joins
        each vertex to its labels' vertices (a component of the whole graph is a chain of parts'
        components sharing vertices) and labels each joined set by its smallest ID."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n = self.num_vertices
        ids = self._vertex_ids
        with _Run(self, cluster, engine, memory, timeout) as run:
            labels = run.gather_labels()
            rows = np.concatenate([v for v, _ in labels]) if labels else np.empty(0, np.int64)
            cols = np.concatenate([np.searchsorted(ids, lab) for _, lab in labels]) if labels else rows
            joined = coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))
            _, comp = connected_components(joined, directed=False)
            # Vertices are numbered in ascending original-ID order: a set's first vertex has its
            # smallest ID.
            order = np.argsort(comp, kind="stable")
            _, size = distinct(comp[order], ascending=True)
            first = order[np.cumsum(size) - size]
            return run.result("wcc", ids[first[comp]], {"components": len(first)})


class _Run:
    """One cluster run: Ray started (or joined), the parts spread over the workers, supersteps
    timed and their bytes counted; Ray shut down at the end."""

    def __init__(
        self, split: SplitGraph, cluster: str, engine: str, memory: Optional[Memory], timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout {timeout!r}: expected a positive number of seconds")
        self.split = split
        self.cluster = cluster
        self.engine = engine
        self.memory = memory
        self.timeout = float(timeout)
        self.steps: List[Dict[str, Any]] = []
        self.restarts: List[Dict[str, Any]] = []
        # kcore's join: per part, which edges it holds only as max → min another part holds.
        self.owned: Optional[List[np.ndarray]] = None
        self.start = time.perf_counter()

    def __enter__(self) -> "_Run":
        ray = _ray()
        kind, count = parse_cluster(self.cluster)
        # A Ray session the caller started is used as it is (and left running).
        self.owns_ray = not ray.is_initialized()
        try:
            if self.owns_ray and kind == "local":
                # Ray runs its workers at niceness 15 by default: beside any other work on the
                # machine (a build, two busy loops) they get a few percent of a core and a run
                # that should take seconds takes hours. Here the workers are the computation and
                # the driver only waits for them: they run at the driver's priority.
                ray.init(
                    num_cpus=count,
                    include_dashboard=False,
                    logging_level="ERROR",
                    log_to_driver=False,
                    _system_config={"worker_niceness": 0},
                )
            elif self.owns_ray:
                ray.init(address=kind, logging_level="ERROR", log_to_driver=False)
        except Exception as e:
            raise ClusterError(f"cannot start or join the Ray cluster {self.cluster}: {e}") from e
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        if count is not None and count > cpus:
            self.__exit__()
            raise ClusterError(f"cluster {self.cluster}: {count} workers asked for, the Ray session has {cpus} CPUs")
        try:
            self._start_workers(self._nodes(count))
        except BaseException:
            self.__exit__()
            raise
        return self

    def _nodes(self, count: Optional[int]) -> List[Tuple[str, int]]:
        """The nodes the run may use, as (Ray node ID, worker slots): this machine's with
        ``count`` slots for ``local:N``, else every live node with a slot per CPU."""
        ray = _ray()
        if count is not None:
            return [(ray.get_runtime_context().get_node_id(), count)]
        return [
            (n["NodeID"], int(n["Resources"].get("CPU", 0)))
            for n in ray.nodes()
            if n["Alive"] and n["Resources"].get("CPU", 0) >= 1
        ]

    def _start_workers(self, nodes: List[Tuple[str, int]]) -> None:
        """Finds which parts each node holds, starts a worker per used slot on the nodes holding
        its parts, and learns each part's boundary vertices."""
        ray = _ray()
        routing = [(p["name"], p["out_adj"]) for p in self.split.meta["parts"]]
        probe = ray.remote(num_cpus=0)(parts_here)
        probes = [probe.options(scheduling_strategy=_on(node)).remote(self.split.path, routing) for node, _ in nodes]
        try:
            held = ray.get(probes, timeout=self.timeout)
        except ray.exceptions.GetTimeoutError as e:
            raise ClusterError(
                f"cluster {self.cluster}: the nodes did not say within {self.timeout:g} s which parts of "
                f"{self.split.path} they hold"
            ) from e
        self.holdings = [(node, set(found)) for (node, _), found in zip(nodes, held)]
        workers, missing = place(len(routing), [(slots, found) for (_, slots), found in zip(nodes, held)])
        if missing:
            names = ", ".join(self.split.parts[i] for i in missing)
            raise ClusterError(
                f"{self.split.path}: no node of the cluster ({len(nodes)} looked at) holds {names} "
                "at this path with the out.adj the routing names"
            )
        self.assigned: List[List[int]] = [parts for _, parts in workers]
        self.nodes = [nodes[node][0] for node, _ in workers]
        self.actors = [self._new_worker(w) for w in range(len(workers))]
        self.pids: List[Optional[int]] = [None] * len(workers)
        self.pids = self._each(lambda a, w: a.pid.remote(), timeout=max(self.timeout, START_TIMEOUT))
        boundaries = self._each(lambda a, w: a.boundary.remote())
        self.parts: List[_Part] = [_Part("", "", np.empty(0, np.int64), np.empty(0, np.int64))] * len(self.split.parts)
        self.part_degrees: List[np.ndarray] = [np.empty(0)] * len(self.split.parts)
        for parts, found in zip(self.assigned, boundaries):
            for i, (sources, degrees, destinations) in zip(parts, found):
                name = self.split.parts[i]
                self.parts[i] = _Part(os.path.join(self.split.path, name), name, sources, destinations)
                self.part_degrees[i] = degrees

    def __exit__(self, *exc: Any) -> None:
        ray = _ray()
        for a in getattr(self, "actors", []):
            ray.kill(a)
        if self.owns_ray:
            ray.shutdown()

    def _new_worker(self, w: int) -> Any:
        """Starts worker ``w`` on its node, over its parts."""
        paths = [os.path.join(self.split.path, self.split.parts[i]) for i in self.assigned[w]]
        actor = _ray().remote(num_cpus=1)(_Worker)
        return actor.options(scheduling_strategy=_on(self.nodes[w])).remote(paths, self.engine, self.memory)

    def _each(
        self, call: Callable[[Any, int], Any], retry: bool = True, timeout: Optional[float] = None
    ) -> List[Any]:
        """``call(actor, w)`` on every worker, their values in worker order, each call answered
        within the run's timeout. A worker that dies or does not answer in time (stopped,
        starved of CPU, stuck) is restarted and its call repeated once (``retry``; the calls are
        idempotent); when that fails again, or the call cannot be retried, the run fails with a
        :class:`ClusterError` naming the worker's process, node and parts. ``timeout``
        replaces the run's for these calls."""
        ray = _ray()
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        futures = [call(a, w) for w, a in enumerate(self.actors)]
        out = []
        for w, f in enumerate(futures):
            try:
                out.append(self._get(f, deadline))
                continue
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as e:
                if not retry:
                    raise self._failed(w, e) from e
                self._restart(w, e)
            try:
                out.append(self._get(call(self.actors[w], w), time.monotonic() + limit))
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as e:
                raise self._failed(w, e, again=True) from e
        return out

    def _get(self, future: Any, deadline: float) -> Any:
        """The value of ``future``; Ray's ``GetTimeoutError`` once ``deadline`` (monotonic) has
        passed."""
        return _ray().get(future, timeout=max(0.0, deadline - time.monotonic()))

    def _failure(self, e: Exception, again: bool = False) -> str:
        """What happened to a worker (``again``: after its restart), and Ray's reason when it
        died."""
        after = " again after a restart" if again else ""
        if isinstance(e, _ray().exceptions.GetTimeoutError):
            return f"did not answer within {self.timeout:g} s{after} (stopped, starved of CPU or stuck)"
        return f"died{after}: {e}"

    def _failed(self, w: int, e: Exception, again: bool = False) -> ClusterError:
        """The error of worker ``w`` failing (``again``: after its restart), naming its process,
        node and parts and the superstep the run is at."""
        names = ", ".join(self.split.parts[i] for i in self.assigned[w])
        pid = self.pids[w]
        where = f"process {pid} on node {self.nodes[w][:12]}" if pid is not None else f"node {self.nodes[w][:12]}"
        return ClusterError(f"worker {w} ({where}, parts {names}) at superstep {len(self.steps)} {self._failure(e, again)}")

    def _restart(self, w: int, e: Exception) -> None:
        """Replaces dead worker ``w`` by a new one, on its node if that is alive, else on another
        node holding all its parts, and gives it back kcore's owned edges if the run had dealt
        them. Its counters so far are lost (``stats["restarts"]`` says so)."""
        ray = _ray()
        alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        needs = set(self.assigned[w])
        homes = [node for node, found in self.holdings if node in alive and needs <= found]
        if not homes:
            raise ClusterError(f"{self._failed(w, e)}; no live node holds its parts") from e
        if self.nodes[w] not in homes:
            self.nodes[w] = homes[0]
        ray.kill(self.actors[w])
        self.actors[w] = self._new_worker(w)
        self.restarts.append(
            {
                "worker": w,
                "node": self.nodes[w],
                "superstep": len(self.steps),
                "error": self._failure(e).splitlines()[0],
            }
        )
        try:
            self.pids[w] = self._get(self.actors[w].pid.remote(), time.monotonic() + max(self.timeout, START_TIMEOUT))
            if self.owned is not None:
                deadline = time.monotonic() + self.timeout
                self._get(self.actors[w].simple_edges.remote(), deadline)
                self._get(self.actors[w].own.remote([self.owned[i] for i in self.assigned[w]]), deadline)
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as again:
            raise self._failed(w, again, again=True) from again

    def superstep(self, x: np.ndarray, semiring: str = "plus-times", weighted: bool = False) -> np.ndarray:
        """``y = Aᵀ x`` in ``semiring`` over the whole graph: each part gets ``x`` on its boundary
        sources, its partial ``y`` on its boundary destinations comes back, and the partial
        results are combined (added, or their minimum taken)."""
        t = time.perf_counter()
        sent = [[x[self.parts[i].sources] for i in parts] for parts in self.assigned]
        results = self._each(lambda a, w: a.spmv.remote(sent[w], semiring, weighted))
        y = np.zeros(len(x)) if semiring == "plus-times" else np.full(len(x), np.inf)
        for parts, ys in zip(self.assigned, results):
            for i, yv in zip(parts, ys):
                d = self.parts[i].destinations  # a part lists each destination once
                y[d] = y[d] + yv if semiring == "plus-times" else np.fmin(y[d], yv)
        self._record(semiring, sent, results, t)
        return y

    def _record(self, kind: str, sent: List[List[np.ndarray]], received: List[List[np.ndarray]], start: float) -> None:
        """Records a superstep: what it was, the bytes each way, its seconds."""
        self.steps.append(
            {
                "kind": kind,
                "bytes_sent": sum(v.nbytes for vs in sent for v in vs),
                "bytes_received": sum(v.nbytes for vs in received for v in vs),
                "seconds": time.perf_counter() - start,
            }
        )

    def simple_view(self) -> np.ndarray:
        """kcore's setup: every simple undirected edge given to exactly one part (see the module
        notes) by one exchange of the edges parts hold only as ``max → min``; then each part's
        kcore boundary (the vertices of the edges it owns) replaces its sources and
        destinations. Returns every vertex's degree in the simple view."""
        t = time.perf_counter()
        meta = self.split.meta
        grid = np.zeros((int(meta["rows"]), int(meta["cols"])), dtype=np.int64)
        for i, p in enumerate(meta["parts"]):
            grid[int(p["row"]), int(p["col"])] = i
        row_bounds = np.asarray(meta["row_bounds"], dtype=np.uint64)
        # The join's calls keep state in the workers, so they are not retried.
        found = self._each(lambda a, w: a.simple_edges.remote(), retry=False)
        asked = [np.empty(0, np.uint64)] * len(self.parts)
        for parts, keys in zip(self.assigned, found):
            for i, k in zip(parts, keys):
                asked[i] = k
        # The part that would hold each asked edge as min → max: by the row of min, then the
        # column of max within that row. Each asking part's keys are then grouped by that part
        # (a stable counting sort: `order` and `bounds` say where each target's keys lie).
        grouped = []
        for keys in asked:
            lo, hi = keys >> np.uint64(32), keys & np.uint64(0xFFFFFFFF)
            row = np.searchsorted(row_bounds, lo, side="right") - 1
            target = np.empty(len(keys), dtype=np.uint8)  # at most 256 parts
            for r in np.flatnonzero(np.bincount(row, minlength=len(row_bounds) - 1)):
                in_row = row == r
                cols = np.asarray(meta["col_bounds"][r], dtype=np.uint64)
                target[in_row] = grid[r, np.searchsorted(cols, hi[in_row], side="right") - 1]
            order = np.argsort(target, kind="stable")
            bounds = np.concatenate([[0], np.cumsum(np.bincount(target, minlength=len(self.parts)))])
            grouped.append((keys[order], order, bounds))
        # Each part's questions, the asking parts' in order; the answers go back the same way.
        questions = [
            np.concatenate([keys[b[j] : b[j + 1]] for keys, _, b in grouped]) for j in range(len(self.parts))
        ]
        sent = [[questions[j] for j in parts] for parts in self.assigned]
        replies = self._each(lambda a, w: a.holds.remote(sent[w]), retry=False)
        answers = [np.empty(0, bool)] * len(self.parts)
        for parts, masks in zip(self.assigned, replies):
            for j, mask in zip(parts, masks):
                answers[j] = mask
        held = [np.zeros(len(keys), dtype=bool) for keys in asked]
        taken = [0] * len(self.parts)
        for i, (_, order, b) in enumerate(grouped):
            for j in range(len(self.parts)):
                count = int(b[j + 1] - b[j])
                held[i][order[b[j] : b[j + 1]]] = answers[j][taken[j] : taken[j] + count]
                taken[j] += count
        owned = self._each(lambda a, w: a.own.remote([held[i] for i in self.assigned[w]]), retry=False)
        self.owned = held
        degree = np.zeros(self.split.num_vertices, dtype=np.int64)
        for parts, found_owned in zip(self.assigned, owned):
            for i, (b, d) in zip(parts, found_owned):
                self.parts[i] = _Part(self.parts[i].path, self.parts[i].name, b, b)
                degree[b] += d
        self._record("simple-view", sent, found + replies + [[v for pair in o for v in pair] for o in owned], t)
        return degree

    def peel(self, removed: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """kcore's superstep: the vertices with simple neighbours among ``removed`` (ascending
        vertex numbers) and how many each has, each part sending only the removed vertices of
        its kcore boundary (positions) and receiving only the neighbours it touched."""
        t = time.perf_counter()
        sent = []
        for parts in self.assigned:
            mine = []
            for i in parts:
                bound = self.parts[i].sources
                at = np.searchsorted(bound, removed).clip(0, max(len(bound) - 1, 0))
                mine.append(at[bound[at] == removed].astype(np.int32) if len(bound) else np.empty(0, np.int32))
            sent.append(mine)
        results = self._each(lambda a, w: a.neighbours_of.remote(sent[w]))
        vertices, counts = [], []
        for parts, found in zip(self.assigned, results):
            for i, (touched, count) in zip(parts, found):
                vertices.append(self.parts[i].sources[touched])
                counts.append(count)
        every = np.concatenate(vertices)
        order = np.argsort(every, kind="stable")
        touched, size = distinct(every[order], ascending=True)
        starts = np.cumsum(size) - size
        total = np.add.reduceat(np.concatenate(counts).astype(np.int64)[order], starts) if len(starts) else size
        self._record("peel", sent, [[v for pair in r for v in pair] for r in results], t)
        return touched, total

    def gather_labels(self) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Every part's components: per part, its boundary vertices and their labels (one
        superstep, nothing sent, one label per boundary vertex received)."""
        t = time.perf_counter()
        results = self._each(lambda a, w: a.components.remote())
        out = []
        for parts, found in zip(self.assigned, results):
            for i, lab in zip(parts, found):
                p = self.parts[i]
                out.append((vertices_in(self.split.num_vertices, p.sources, p.destinations), lab))
        self._record("components", [], results, t)
        return out

    def result(self, algorithm: str, values: np.ndarray, extra: Dict[str, Any]) -> Result:
        """The run's :class:`Result`, with the cluster's statistics."""
        counters = self._each(lambda a, w: a.counters.remote())
        bound = 8 * sum(len(p.sources) + len(p.destinations) for p in self.parts)
        stats: Dict[str, Any] = {
            "engine": self.engine,
            "cluster": self.cluster,
            "wall_seconds": time.perf_counter() - self.start,
            "supersteps": self.steps,
            "boundary_bytes_per_superstep": bound,
            "workers": [
                {"node": node, "parts": [self.split.parts[i] for i in parts], **c}
                for node, parts, c in zip(self.nodes, self.assigned, counters)
            ],
            "bytes_read": sum(c["bytes_read"] for c in counters),
            "restarts": self.restarts,
            **extra,
        }
        summary = f"{algorithm} on {len(self.parts)} parts over {len(self.actors)} workers, {len(self.steps)} supersteps"
        return Result(algorithm, values, self.split._vertex_ids, stats, summary)


def distinct(a: np.ndarray, ascending: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``a``, ascending, and how often each occurs (``ascending``: ``a``
    is sorted already). A sort and a scan: numpy 2's ``np.unique`` hashes, and is many times
    slower on millions of values."""
    s = a if ascending else np.sort(a)
    if len(s) == 0:
        return s, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    return s[starts], np.diff(np.append(starts, len(s)))


def member(a: np.ndarray, sorted_b: np.ndarray) -> np.ndarray:
    """Which values of ``a`` are in ``sorted_b`` (ascending), by binary search."""
    if len(sorted_b) == 0:
        return np.zeros(len(a), dtype=bool)
    at = np.searchsorted(sorted_b, a).clip(0, len(sorted_b) - 1)
    return sorted_b[at] == a


def vertices_in(n: int, *arrays: np.ndarray) -> np.ndarray:
    """The distinct vertex numbers (below ``n``) in ``arrays``, ascending, through a mask."""
    mask = np.zeros(n, dtype=bool)
    for a in arrays:
        mask[a] = True
    return np.flatnonzero(mask)


def _on(node: str) -> Any:
    """Ray's scheduling strategy that runs a task or actor on ``node`` and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node, soft=False)


def parts_here(split_path: str, routing: List[Tuple[str, str]]) -> List[int]:
    """Run on a node: the parts (indexes into ``routing``, pairs of part name and ``out.adj``
    xxh3) that lie under ``split_path`` on this node's disk with the lists the routing names.
    Reads only their manifests."""
    found = []
    for i, (name, xxh3) in enumerate(routing):
        try:
            manifest = json.loads(_native.read_metadata(os.path.join(split_path, name, "manifest.json")))
            if manifest["files"]["out.adj"]["xxh3"] == xxh3:
                found.append(i)
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def place(parts: int, nodes: List[Tuple[int, List[int]]]) -> Tuple[List[Tuple[int, List[int]]], List[int]]:
    """Deals ``parts`` parts to worker slots: ``nodes`` gives each node's slots and the parts it
    holds, and each part goes, in order, to the slot with the fewest parts so far (the first of
    them) among the nodes holding it; on one node that is round robin. Returns the workers, as
    (node index, parts) for each slot given parts, and the parts no node holds."""
    slots = [node for node, (count, _) in enumerate(nodes) for _ in range(count)]
    holds = [set(found) for _, found in nodes]
    dealt: List[List[int]] = [[] for _ in slots]
    missing = []
    for i in range(parts):
        candidates = [k for k, node in enumerate(slots) if i in holds[node]]
        if not candidates:
            missing.append(i)
            continue
        dealt[min(candidates, key=lambda k: (len(dealt[k]), k))].append(i)
    return [(slots[k], d) for k, d in enumerate(dealt) if d], missing


def open_split(path: PathLike) -> SplitGraph:
    """Opens the split directory at ``path`` (``diskgraph split``) for cluster runs; parts that do
    not match the routing are refused (``diskgraph verify DIR`` checks them in full)."""
    return SplitGraph(path)


def cli(args: Sequence[str]) -> int:
    """``diskgraph run ALGO DIR --cluster SPEC [...]``: runs ``pagerank``, ``bfs``, ``sssp``, ``wcc`` or ``kcore`` over a split
    directory, prints a summary line and the supersteps' exchange, writes ``--out`` and
    ``--stats``; returns the exit status (an error is one line on stderr)."""
    p = argparse.ArgumentParser(prog="diskgraph run", description="run an algorithm over a split directory on Ray")
    p.add_argument("algorithm", choices=["pagerank", "bfs", "sssp", "wcc", "kcore"])
    p.add_argument("split", help="split directory (diskgraph split)")
    p.add_argument("--cluster", required=True, help="local:N (N worker processes) or ray://HOST:PORT")
    p.add_argument("--engine", default="auto", help="the engine each worker runs over its parts")
    p.add_argument("--memory", default=None, help="each worker's budget per part (as diskgraph run --memory)")
    p.add_argument("--source", type=int, help="bfs, sssp: the source vertex (original ID)")
    p.add_argument("--iterations", type=int, help="pagerank: exactly this many iterations")
    p.add_argument("--tolerance", type=float, default=1e-9, help="pagerank: L1 change below N × tolerance")
    p.add_argument("--out", help="result file (.tsv, .csv, .json, .npy, .parquet)")
    p.add_argument("--stats", help="write the run's statistics (JSON) here")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds a worker may take to answer one superstep before it is restarted (default {DEFAULT_TIMEOUT:g})",
    )
    a = p.parse_args(list(args))
    try:
        outputs = [(flag, path) for flag, path in (("--out", a.out), ("--stats", a.stats)) if path is not None]
        _native.check_outputs([("SPLIT", a.split)], outputs)
        s = open_split(a.split)
        if a.algorithm in ("bfs", "sssp"):
            if a.source is None:
                raise ValueError(f"{a.algorithm} needs --source")
            traverse = s.bfs if a.algorithm == "bfs" else s.sssp
            r = traverse(a.source, cluster=a.cluster, engine=a.engine, memory=a.memory, timeout=a.timeout)
        elif a.algorithm in ("wcc", "kcore"):
            whole = s.wcc if a.algorithm == "wcc" else s.kcore
            r = whole(cluster=a.cluster, engine=a.engine, memory=a.memory, timeout=a.timeout)
        else:
            r = s.pagerank(
                cluster=a.cluster,
                tolerance=a.tolerance,
                iterations=a.iterations,
                engine=a.engine,
                memory=a.memory,
                timeout=a.timeout,
            )
        print(r.summary)
        sent = sum(st["bytes_sent"] + st["bytes_received"] for st in r.stats["supersteps"])
        print(
            f"exchanged {sent / 2**20:.1f} MiB in {len(r.stats['supersteps'])} supersteps "
            f"(bound {r.stats['boundary_bytes_per_superstep'] / 2**20:.1f} MiB each), "
            f"{r.stats['bytes_read'] / 2**20:.1f} MiB read by the workers, {r.stats['wall_seconds']:.2f} s"
        )
        if a.out:
            r.write(a.out, force=a.force)
        if a.stats:
            with open(a.stats, "w", encoding="utf-8") as f:
                json.dump(r.stats, f, indent=2)
    except (OSError, ValueError, ClusterError, ImportError) as e:
        print(f"diskgraph: error: {e}", file=sys.stderr)
        return 1
    return 0
