"""The backend's graph: a NetworkX graph stored as a temporary graph directory, or an opened
:class:`diskgraph.Graph`, with the node keys its results are mapped back to."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple

import networkx as nx
import numpy as np

from .._graph import DEFAULT_MEMORY, Graph
from .._importers import from_edges


@dataclass(frozen=True)
class WeightFacts:
    """What the weights of one edge attribute (missing: the default) are like, which decides
    what the engine can do with them. An unweighted graph's are all 1."""

    #: Every weight is a real number representable exactly as float32 (so finite).
    exact: bool
    #: Every weight is a Python int: NetworkX's sums are then ints.
    integral: bool
    #: Some weights are ints and some are not: the type of NetworkX's sums depends on the path.
    mixed: bool
    #: Every weight is the same (the graph is then unweighted to rank-based algorithms).
    uniform: bool
    #: The smallest weight (1.0 for no edges).
    minimum: float

    @staticmethod
    def of(weights: Sequence[Any]) -> "WeightFacts":
        """The facts of a sequence of weights."""
        if len(weights) == 0:
            return WeightFacts(exact=True, integral=True, mixed=False, uniform=True, minimum=1.0)
        ints = sum(isinstance(w, int) and not isinstance(w, bool) for w in weights)
        integral = ints == len(weights)
        try:
            values = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            return WeightFacts(exact=False, integral=False, mixed=False, uniform=False, minimum=float("nan"))
        if values.ndim != 1:
            return WeightFacts(exact=False, integral=False, mixed=False, uniform=False, minimum=float("nan"))
        with np.errstate(over="ignore", invalid="ignore"):
            exact = bool(np.all(np.isfinite(values)) and np.all(values.astype(np.float32) == values))
        if integral:
            exact = exact and all(abs(w) < 2**53 for w in weights)
        return WeightFacts(
            exact=exact,
            integral=integral,
            mixed=0 < ints < len(weights),
            uniform=bool(np.all(values == values[0])),
            minimum=float(values.min()),
        )


def scratch_dir() -> Optional[str]:
    """Where converted graphs go: ``nx.config.backends.diskgraph.tmpdir`` if set, else
    ``/dev/shm`` when it is a writable directory (a converted graph is no larger than the
    NetworkX graph already in memory, and a disk's syncs cost ~30 ms per conversion), else the
    system's temporary directory (None)."""
    configured = config("tmpdir", None)
    if configured is not None:
        return str(configured)
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def config(name: str, default: Any) -> Any:
    """The backend's setting ``nx.config.backends.diskgraph.<name>`` (``default`` if unset)."""
    backends = getattr(nx.config, "backends", None)
    settings = getattr(backends, "diskgraph", None)
    return getattr(settings, name, default)


class BackendGraph:
    """A graph the diskgraph backend runs on: a NetworkX graph written to a temporary graph
    directory (removed with this object), or an opened :class:`diskgraph.Graph`.

    Results are arrays indexed like the graph's vertex IDs; :attr:`nodes` holds the node key of
    each. A converted graph numbers its nodes 0..n-1 in the NetworkX graph's node order, so any
    hashable node works.
    """

    __networkx_backend__ = "diskgraph"

    def __init__(
        self,
        nodes: Optional[List[Any]],
        directed: bool,
        *,
        source: Optional[Any] = None,
        disk: Optional[Graph] = None,
    ) -> None:
        self._nodes = nodes
        self.directed = directed
        self._source = source
        self._opened = disk
        self._tmp: Optional[tempfile.TemporaryDirectory[str]] = None
        self._variants: Dict[Optional[str], Graph] = {}
        self._facts: Dict[Optional[str], WeightFacts] = {}
        self._index: Optional[Dict[Hashable, int]] = None
        self._arcs: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        self._ids: Optional[np.ndarray] = None

    # ----- construction -------------------------------------------------------------------

    @classmethod
    def from_networkx(cls, G: Any, weight: Optional[str] = None, default: Any = 1) -> "BackendGraph":
        """Converts ``G`` (not a multigraph), storing the weights of attribute ``weight``
        (missing ones ``default``) when given and exact float32 values."""
        if G.is_multigraph():
            raise NotImplementedError("the diskgraph backend does not take multigraphs")
        bg = cls(list(G), bool(G.is_directed()), source=G)
        bg._store(weight, default)
        return bg

    @classmethod
    def from_disk(cls, g: Graph) -> "BackendGraph":
        """Wraps an opened graph: its node keys (:attr:`diskgraph.Graph.nodes`: names, or the
        vertex IDs) are the nodes and its weights (if any) the weights of every weight
        attribute."""
        return cls(None, g.directed, disk=g)

    def _store(self, weight: Optional[str], default: Any) -> Optional[Graph]:
        """Writes the variant of the source graph weighted by ``weight`` (None: unweighted)."""
        G = self._source
        assert G is not None, "only a converted graph writes variants"
        index = self.index()
        # Through G.adjacency(), as NetworkX's algorithms see G (a subclass may override it,
        # as approximation's complement graph does), each undirected edge once.
        src: List[int] = []
        dst: List[int] = []
        weights: Optional[List[Any]] = None if weight is None else []
        for i, (_, nbrs) in enumerate(G.adjacency()):
            for nbr in nbrs:
                j = index[nbr]
                if j < i and not self.directed:
                    continue
                src.append(i)
                dst.append(j)
                if weights is not None:
                    weights.append(nbrs[nbr].get(weight, default))
        facts = WeightFacts.of(weights if weights is not None else [])
        self._facts[weight] = facts
        if not self.nodes:
            return None
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="diskgraph-nx-", dir=scratch_dir())
        stored = weights if weights is not None and facts.exact else None
        g = from_edges(
            np.array(src, dtype=np.uint64),
            np.array(dst, dtype=np.uint64),
            os.path.join(self._tmp.name, f"g{len(self._variants)}"),
            weights=None if stored is None else np.asarray(stored, dtype=np.float64),
            directed=self.directed,
            vertices=np.arange(len(self.nodes), dtype=np.uint64),
            keep_self_loops=True,
            memory=config("memory", DEFAULT_MEMORY),
        )
        self._variants[weight] = g
        return g

    # ----- what the algorithms use --------------------------------------------------------

    @property
    def nodes(self) -> List[Any]:
        """The node key of each vertex, in vertex-ID order (an opened graph's node keys — its
        names, or its IDs — read on first use)."""
        if self._nodes is None:
            assert self._opened is not None
            self._nodes = self._opened.nodes.tolist()
        return self._nodes

    def __len__(self) -> int:
        if self._nodes is None and self._opened is not None:
            return self._opened.num_vertices
        return len(self.nodes)

    def is_directed(self) -> bool:
        """Whether the graph is directed."""
        return self.directed

    def is_multigraph(self) -> bool:
        """Whether parallel edges are kept (only an opened graph can have them)."""
        return self._opened is not None and self._opened.is_multigraph()

    def number_of_selfloops(self) -> int:
        """Number of self-loops, as stored."""
        return 0 if len(self) == 0 else int(self.graph().manifest.get("num_self_loops", 0))

    def graph(self, weight: Optional[str] = None) -> Graph:
        """The stored graph, with the weights of attribute ``weight`` (None: any variant, for
        algorithms that ignore weights). Not for an empty graph."""
        if self._opened is not None:
            return self._opened
        if weight is None and self._variants:
            return next(iter(self._variants.values()))
        g = self._variants[weight] if weight in self._variants else self._store(weight, 1)
        assert g is not None, "an empty graph has no graph directory"
        return g

    def has_unweighted_view(self) -> bool:
        """Whether :meth:`unweighted` gives a graph (all but an opened graph with weights)."""
        return self._opened is None or not self._opened.weighted

    def unweighted(self) -> Optional[Graph]:
        """The stored graph without weights, for algorithms that read weights when there are
        any: a converted graph's unweighted variant, an opened graph itself when it has no
        weights, else None."""
        if self._opened is not None:
            return None if self._opened.weighted else self._opened
        return self._variants[None] if None in self._variants else self._store(None, 1)

    def facts(self, weight: Optional[str]) -> WeightFacts:
        """The facts of the weights of attribute ``weight`` (None: all 1)."""
        if weight is None:
            return WeightFacts.of([])
        if weight not in self._facts:
            if self._opened is not None:
                w = self._opened.edges().weight
                self._facts[weight] = WeightFacts.of([] if w is None else w.astype(np.float64).tolist())
            else:
                self._store(weight, 1)
        return self._facts[weight]

    def index(self) -> Dict[Hashable, int]:
        """Node key → its position in :attr:`nodes` (its row in every result)."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes)}
        return self._index

    def position(self, node: Any) -> Optional[int]:
        """The position of ``node`` in :attr:`nodes`, None if it is not a node."""
        try:
            return self.index().get(node)
        except TypeError:  # unhashable
            return None

    def id_at(self, i: int) -> int:
        """The vertex ID in the stored graph of the node at position ``i``."""
        if self._opened is None:
            return i
        if self._ids is None:
            self._ids = self._opened.vertex_ids()
        return int(self._ids[i])

    def arcs(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every arc ``u -> v`` (both ways for undirected edges) as position arrays ``(u, v,
        rank)``, ``rank`` the place of ``v`` in ``u``'s adjacency as NetworkX iterates it (the
        converted graph's own order; ascending ID for an opened graph)."""
        if self._arcs is None:
            if self._source is not None:
                index = self.index()
                us: List[int] = []
                vs: List[int] = []
                ranks: List[int] = []
                for i, (_, nbrs) in enumerate(self._source.adjacency()):
                    for r, nbr in enumerate(nbrs):
                        us.append(i)
                        vs.append(index[nbr])
                        ranks.append(r)
                self._arcs = (np.array(us, dtype=np.int64), np.array(vs, dtype=np.int64), np.array(ranks, dtype=np.int64))
            else:
                A = self.graph().to_scipy()
                counts = np.diff(A.indptr)
                u = np.repeat(np.arange(len(self)), counts)
                rank = np.arange(u.shape[0]) - np.repeat(A.indptr[:-1], counts)
                self._arcs = (u, A.indices.astype(np.int64), rank)
        return self._arcs

    def mapped(self, values: Iterable[Any]) -> Dict[Hashable, Any]:
        """Node key → value, for values in vertex order."""
        return dict(zip(self.nodes, values))

    def to_networkx(self) -> Any:
        """The NetworkX graph: the one converted, or the opened graph's
        :meth:`~diskgraph.Graph.to_networkx`."""
        if self._source is not None:
            return self._source
        assert self._opened is not None
        return self._opened.to_networkx()

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        origin = "converted from NetworkX" if self._source is not None else "opened"
        return f"<diskgraph backend graph, {kind}, {len(self)} nodes, {origin}>"
