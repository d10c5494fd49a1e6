"""One cluster run's Ray session: Ray started (or joined), the parts placed on the nodes that hold
them and dealt to worker actors (:class:`~diskgraph.cluster.worker.Worker`), each call answered
within the run's timeout or its worker restarted once, and the supersteps' exchange: a part gets
the values of its boundary sources only and returns those of its boundary destinations, and the
partial results are combined per vertex with numpy (added, or their minimum taken)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .placement import on, parse_cluster, parts_here, place
from .worker import Worker, vertices_in

if TYPE_CHECKING:
    from . import SplitGraph

#: The least time, in seconds, a worker is given to start (a process started, Python and
#: diskgraph imported, its parts opened) and answer its first call, whatever the run's timeout.
START_TIMEOUT = 300.0


class ClusterError(RuntimeError):
    """A cluster run failed: a worker died or did not answer in time, again after its restart
    (the message names its process, node and parts), a part is on no node, or the cluster could
    not be reached."""


def load_ray() -> Any:
    """The ``ray`` module; an ``ImportError`` saying how to install it."""
    try:
        import ray as module
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError("cluster runs need Ray: pip install 'diskgraph[ray]'") from e
    return module


class _Part:
    """One part as the driver sees it: its boundary vertices."""

    def __init__(self, sources: np.ndarray, destinations: np.ndarray) -> None:
        self.sources = sources
        self.destinations = destinations


class Session:
    """One cluster run: Ray started (or joined), the parts spread over the workers, supersteps
    timed and their bytes counted; Ray shut down at the end."""

    def __init__(self, split: "SplitGraph", cluster: str, engine: Dict[str, Any], timeout: float) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout {timeout:g}: expected a positive number of seconds")
        self.split = split
        self.cluster = cluster
        self.engine = engine
        self.timeout = float(timeout)
        self.steps: List[Dict[str, Any]] = []
        self.restarts: List[Dict[str, Any]] = []
        # kcore's join: per part, which edges it holds only as max → min another part holds.
        self.owned: Optional[List[np.ndarray]] = None
        self.start = time.perf_counter()

    def __enter__(self) -> "Session":
        ray = load_ray()
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
        ray = load_ray()
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
        ray = load_ray()
        routing = list(zip(self.split.parts, self.split.routing.out_adj))
        probe = ray.remote(num_cpus=0)(parts_here)
        probes = [probe.options(scheduling_strategy=on(node)).remote(self.split.path, routing) for node, _ in nodes]
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
        self.parts: List[_Part] = [_Part(np.empty(0, np.int64), np.empty(0, np.int64))] * len(self.split.parts)
        self.part_degrees: List[np.ndarray] = [np.empty(0)] * len(self.split.parts)
        for parts, found in zip(self.assigned, boundaries):
            for i, (sources, degrees, destinations) in zip(parts, found):
                self.parts[i] = _Part(sources, destinations)
                self.part_degrees[i] = degrees

    def __exit__(self, *exc: Any) -> None:
        ray = load_ray()
        for a in getattr(self, "actors", []):
            ray.kill(a)
        if self.owns_ray:
            ray.shutdown()

    def _new_worker(self, w: int) -> Any:
        """Starts worker ``w`` on its node, over its parts."""
        paths = [os.path.join(self.split.path, self.split.parts[i]) for i in self.assigned[w]]
        actor = load_ray().remote(num_cpus=1)(Worker)
        return actor.options(scheduling_strategy=on(self.nodes[w])).remote(paths, self.engine)

    def _each(
        self, call: Callable[[Any, int], Any], retry: bool = True, timeout: Optional[float] = None
    ) -> List[Any]:
        """``call(actor, w)`` on every worker, their values in worker order, each call answered
        within the run's timeout. A worker that dies or does not answer in time (stopped,
        starved of CPU, stuck) is restarted and its call repeated once (``retry``; the calls are
        idempotent); when that fails again, or the call cannot be retried, the run fails with a
        :class:`ClusterError` naming the worker's process, node and parts. ``timeout``
        replaces the run's for these calls."""
        ray = load_ray()
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
        return load_ray().get(future, timeout=max(0.0, deadline - time.monotonic()))

    def _failure(self, e: Exception, again: bool = False) -> str:
        """What happened to a worker (``again``: after its restart), and Ray's reason when it
        died."""
        after = " again after a restart" if again else ""
        if isinstance(e, load_ray().exceptions.GetTimeoutError):
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
        ray = load_ray()
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
            target = self.split.routing.owners(keys)
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
                self.parts[i] = _Part(b, b)
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

    def stats(self, extra: Dict[str, Any]) -> Dict[str, Any]:
        """The run's statistics: the cluster's (supersteps, workers, restarts, the bound of a
        superstep's exchange) and ``extra`` (the algorithm's: iterations, converged...)."""
        counters = self._each(lambda a, w: a.counters.remote())
        bound = 8 * sum(len(p.sources) + len(p.destinations) for p in self.parts)
        return {
            "engine": str(self.engine.get("engine", "auto")),
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

    def summary(self, algorithm: str) -> str:
        """The run's summary: the parts, workers and supersteps, and the bytes exchanged."""
        sent = sum(st["bytes_sent"] + st["bytes_received"] for st in self.steps)
        bound = 8 * sum(len(p.sources) + len(p.destinations) for p in self.parts)
        return (
            f"{algorithm} on {len(self.parts)} parts over {len(self.actors)} workers, {len(self.steps)} supersteps; "
            f"exchanged {sent / 2**20:.1f} MiB (bound {bound / 2**20:.1f} MiB a superstep)"
        )


def distinct(a: np.ndarray, ascending: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``a``, ascending, and how often each occurs (``ascending``: ``a``
    is sorted already). A sort and a scan: numpy 2's ``np.unique`` hashes, and is many times
    slower on millions of values."""
    s = a if ascending else np.sort(a)
    if len(s) == 0:
        return s, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    return s[starts], np.diff(np.append(starts, len(s)))


