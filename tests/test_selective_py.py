"""The selective (out-of-core) engine from Python: every algorithm agrees with the memory engine
across I/O backends x schedulers x block sizes under a small budget; msbfs against NetworkX and
spmv against scipy on both engines; the I/O options reach the engine (stats) and bad values
raise ValueError/TypeError/InvalidVertex."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Tuple

import networkx as nx
import numpy as np
import pytest

import diskgraph
from helpers import Case, cleaned_edges, reference_graph

BACKENDS = ("uring", "pread", "mmap")
SCHEDULERS = ("bitmap", "pluglist")
BLOCK_SIZES = (512, 4096)
BUDGET = "1MiB"


def _case(name: str) -> Case:
    """Three small graphs with self-loops, duplicates, isolated vertices and remapped IDs."""
    rng = np.random.default_rng(sum(map(ord, name)))
    if name == "directed_weighted":  # ER, IDs 5i + 2, float weights
        n, m = 400, 2400
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        ids = np.arange(n + 3) * 5 + 2
        weights: Any = rng.uniform(0.1, 10.0, m).tolist()
        isolated = [int(ids[n]), int(ids[n + 1]), int(ids[n + 2])]
        directed = True
    elif name == "undirected_weighted":  # ER, sparse 40-bit IDs, integer weights (zeros too)
        n, m = 300, 900
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        ids = np.unique(rng.integers(0, 1 << 40, n + 50))[: n + 2]
        rng.shuffle(ids)
        weights = rng.integers(0, 20, m).astype(float).tolist()
        isolated = [int(ids[n]), int(ids[n + 1])]
        directed = False
    else:  # "directed_pieces": unweighted, three disconnected blocks and a path (unreached vertices)
        us, vs = [], []
        for base in (0, 120, 240):
            k = 120
            us.append(base + rng.integers(0, k, 300))
            vs.append(base + rng.integers(0, k, 300))
        us.append(np.arange(360, 399))
        vs.append(np.arange(361, 400))
        u, v = np.concatenate(us), np.concatenate(vs)
        ids = np.arange(401)
        weights = None
        isolated = [400]
        directed = True
    src = [int(ids[i]) for i in u]
    dst = [int(ids[i]) for i in v]
    return Case(
        seed=0,
        kind=name,
        directed=directed,
        weights_kind="none" if weights is None else "float",
        id_mode="custom",
        src=src,
        dst=dst,
        weights=weights,
        isolated=isolated,
    )


GRAPHS = ("directed_weighted", "undirected_weighted", "directed_pieces")


class Built:
    """A test graph: its case, the opened graph, NetworkX's view, spmv's x."""

    def __init__(self, case: Case, g: diskgraph.Graph) -> None:
        self.case = case
        self.g = g
        self.G = reference_graph(case)
        self.ids: List[int] = [int(x) for x in g.vertex_ids()]
        self.x = np.random.default_rng(len(self.ids)).uniform(0.5, 2.0, len(self.ids))
        self.memory: Dict[str, diskgraph.Result] = {}


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Built]:
    out = {}
    for name in GRAPHS:
        case = _case(name)
        src, dst = case.arrays()
        g = diskgraph.from_edges(
            src,
            dst,
            tmp_path_factory.mktemp(name) / "g",
            weights=case.weights,
            directed=case.directed,
            vertices=case.isolated,
        )
        b = Built(case, g)
        for alg, call in CALLS.items():
            b.memory[alg] = call(b, engine="memory", threads=2)
        out[name] = b
    return out


#: Each algorithm through its method, with the algorithm's own arguments fixed.
CALLS: Dict[str, Callable[..., diskgraph.Result]] = {
    "bfs": lambda b, **kw: b.g.bfs("max-degree", **kw),
    "sssp": lambda b, **kw: b.g.sssp(**kw),
    "wcc": lambda b, **kw: b.g.wcc(**kw),
    "pagerank": lambda b, **kw: b.g.pagerank(iterations=10, **kw),
    "kcore": lambda b, **kw: b.g.kcore(**kw),
    "msbfs": lambda b, **kw: b.g.msbfs(12, seed=7, **kw),
    "spmv": lambda b, **kw: b.g.spmv(b.x, **kw),
}
RTOL = {"sssp": 1e-9, "pagerank": 1e-12, "spmv": 1e-9}


def assert_same(alg: str, got: diskgraph.Result, want: diskgraph.Result) -> None:
    assert got.values.dtype == want.values.dtype, alg
    assert np.array_equal(got.vertex_ids, want.vertex_ids)
    if want.values.dtype.kind == "f":
        np.testing.assert_allclose(got.values, want.values, rtol=RTOL[alg], atol=0, err_msg=alg)
    else:
        assert np.array_equal(got.values, want.values), alg


def io_options(io: str, scheduler: str, block_size: int) -> Dict[str, Any]:
    """The grid point's settings, with merging knobs varied along: small blocks get tiny reads
    and no gap merging, large blocks big reads, two I/O threads and a shallow queue."""
    if block_size == 512:
        extra: Dict[str, Any] = {"max_request": 2048, "max_gap": 0}
    else:
        extra = {"max_request": "64KiB", "max_gap": 16, "io_threads": 2, "queue_depth": 8}
    return {"io": io, "scheduler": scheduler, "block_size": block_size, **extra}


def check_io_stats(r: diskgraph.Result, opts: Dict[str, Any]) -> None:
    st = r.stats
    s = st["settings"]
    assert st["engine"] == "selective"
    assert st["bytes_read"] > 0 and st["io_requests"] > 0
    # The requested backend runs unless the kernel or file system refuses it, which is recorded.
    assert s["io_backend"] in BACKENDS
    assert s["io_backend"] == opts["io"] or "io_fallback" in s, s
    assert s["scheduler"] == opts["scheduler"]
    assert s["block_size"] == opts["block_size"]
    assert s["max_request_bytes"] == diskgraph.parse_size(str(opts["max_request"]))
    assert s["max_gap_blocks"] == opts["max_gap"]
    assert s["io_threads"] == opts.get("io_threads", 1)
    assert s["queue_depth"] == opts.get("queue_depth", 64)
    assert s["memory"] == 1 << 20
    assert st["peak_engine_memory"] <= 1 << 20


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("io", BACKENDS)
@pytest.mark.parametrize("name", GRAPHS)
def test_selective_equals_memory(graphs: Dict[str, Built], name: str, io: str, scheduler: str, block_size: int) -> None:
    b = graphs[name]
    opts = io_options(io, scheduler, block_size)
    for alg, call in CALLS.items():
        r = call(b, engine="selective", memory=BUDGET, threads=2, **opts)
        assert_same(alg, r, b.memory[alg])
        check_io_stats(r, opts)
        assert b.memory[alg].stats["engine"] == "memory"


@pytest.mark.parametrize("name", GRAPHS)
def test_selective_bfs_parents_and_run(graphs: Dict[str, Built], name: str) -> None:
    """Parent trees are valid on the selective engine (any shortest-path parent may win), and
    Graph.run takes the same options as the methods."""
    b = graphs[name]
    s = b.ids[0]
    levels = b.g.run("bfs", source=s, engine="selective", memory=BUDGET, io="pread", block_size="1KiB").values
    parents = b.g.bfs(s, parents=True, engine="selective", memory=BUDGET, io="mmap").values
    lev = nx.single_source_shortest_path_length(b.G, s)
    assert levels.tolist() == [lev.get(x, -1) for x in b.ids]
    for x, p in zip(b.ids, parents.tolist()):
        if x not in lev:
            assert p == -1
        elif x == s:
            assert p == s
        else:
            assert lev[p] == lev[x] - 1 and b.G.has_edge(p, x), (p, x)


def msbfs_oracle(G: nx.Graph, sources: List[int], ids: List[int]) -> List[int]:
    """Per vertex: the sum of finite BFS distances from the sources (each listed source counts,
    repeats too), -1 when no source reaches it."""
    total = {x: 0 for x in ids}
    reached = {x: 0 for x in ids}
    for s in sources:
        for x, d in nx.single_source_shortest_path_length(G, s).items():
            total[x] += d
            reached[x] += 1
    return [total[x] if reached[x] else -1 for x in ids]


@pytest.mark.parametrize("engine", ["memory", "selective"])
@pytest.mark.parametrize("name", GRAPHS)
def test_msbfs_against_networkx(graphs: Dict[str, Built], name: str, engine: str) -> None:
    b = graphs[name]
    kw: Dict[str, Any] = {"engine": engine, "memory": BUDGET, "threads": 2}
    if engine == "selective":
        kw.update(io="pread", scheduler="pluglist")

    # Sampled: K distinct vertices chosen by the seed, reported in the stats.
    r = b.g.msbfs(10, seed=3, **kw)
    sources = r.stats["settings"]["sources"]
    assert len(sources) == len(set(sources)) == 10 and set(sources) <= set(b.ids)
    assert r.stats["settings"]["seed"] == 3
    assert r.values.dtype == np.int64
    assert r.values.tolist() == msbfs_oracle(b.G, sources, b.ids)
    assert b.g.msbfs(10, seed=3, **kw).stats["settings"]["sources"] == sources
    assert b.g.msbfs(10, seed=4, **kw).stats["settings"]["sources"] != sources
    if name == "directed_pieces":
        assert (r.values == -1).any()  # the oracle covers unreached vertices

    # Explicit IDs (a list with a repeat, and a numpy array), in the given order.
    rng = np.random.default_rng(5)
    chosen = [b.ids[i] for i in rng.integers(0, len(b.ids), 7)] + [b.ids[-1]]
    chosen.append(chosen[0])
    r = b.g.msbfs(chosen, **kw)
    assert r.stats["settings"]["sources"] == chosen
    assert r.values.tolist() == msbfs_oracle(b.G, chosen, b.ids)
    arr = b.g.msbfs(np.array(chosen, dtype=np.uint64), **kw)
    assert np.array_equal(arr.values, r.values)

    # The default: 64 sampled sources.
    r = b.g.msbfs(**kw)
    assert len(r.stats["settings"]["sources"]) == 64
    assert r.values.tolist() == msbfs_oracle(b.G, r.stats["settings"]["sources"], b.ids)


def test_msbfs_samples_at_most_the_vertices(tmp_path: Any) -> None:
    g = diskgraph.from_edges([10, 20], [20, 30], tmp_path / "g")
    for engine in ("memory", "selective"):
        r = g.msbfs(64, engine=engine, memory=BUDGET)
        assert sorted(r.stats["settings"]["sources"]) == [10, 20, 30]
        assert r.to_dict() == {10: 0, 20: 1 + 0, 30: 2 + 1 + 0}


def spmv_oracle(b: Built, x: np.ndarray) -> np.ndarray:
    """``A.T @ x`` with scipy, A from the cleaned edges and float32 weights (1 if unweighted)."""
    import scipy.sparse as sp

    index = {v: i for i, v in enumerate(b.ids)}
    rows: List[int] = []
    cols: List[int] = []
    vals: List[float] = []
    for (u, v), w in cleaned_edges(b.case).items():
        pairs: List[Tuple[int, int]] = [(u, v)] if b.case.directed else [(u, v), (v, u)]
        for p, q in pairs:
            rows.append(index[p])
            cols.append(index[q])
            vals.append(1.0 if w is None else w)
    n = len(b.ids)
    A = sp.csr_array((np.array(vals, dtype=np.float64), (rows, cols)), shape=(n, n))
    return np.asarray(A.T @ x)


@pytest.mark.parametrize("engine", ["memory", "selective"])
@pytest.mark.parametrize("name", GRAPHS)
def test_spmv_against_scipy(graphs: Dict[str, Built], name: str, engine: str) -> None:
    b = graphs[name]
    kw: Dict[str, Any] = {"engine": engine, "memory": BUDGET, "threads": 2}
    if engine == "selective":
        kw.update(io="mmap", block_size=4096)
    n = len(b.ids)
    signed = np.random.default_rng(9).uniform(-1.0, 1.0, n)
    for x in (b.x, signed, None):
        want = spmv_oracle(b, np.ones(n) if x is None else x)
        r = b.g.spmv(x, **kw)
        assert r.values.dtype == np.float64
        np.testing.assert_allclose(r.values, want, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(want).max())))
        assert r.stats["settings"]["x"] == ("ones" if x is None else "given")
    # Any 1-D array-like converts (a list of ints here).
    ints = list(range(n))
    np.testing.assert_allclose(b.g.spmv(ints, **kw).values, spmv_oracle(b, np.arange(n, dtype=float)), rtol=1e-9)
    # A strided view reads the right elements.
    wide = np.repeat(b.x, 2)[::2]
    np.testing.assert_allclose(b.g.spmv(wide, **kw).values, spmv_oracle(b, b.x), rtol=1e-9)


def test_auto_takes_selective_when_the_csr_does_not_fit(tmp_path: Any) -> None:
    rng = np.random.default_rng(11)
    n, m = 3000, 30000
    g = diskgraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), tmp_path / "g")
    want = g.wcc(engine="memory")
    small = g.wcc(memory="150KiB", io="pread", max_request="16KiB")
    assert small.stats["engine"] == "selective"
    assert "engine auto: selective" in small.stats["settings"]["engine_choice"]
    assert small.stats["bytes_read"] > 0
    assert np.array_equal(small.values, want.values)
    big = g.wcc(memory="64MiB", io="pread")
    assert big.stats["engine"] == "memory"
    assert "engine auto: memory" in big.stats["settings"]["engine_choice"]


@pytest.fixture()
def small(tmp_path: Any) -> diskgraph.Graph:
    rng = np.random.default_rng(2)
    return diskgraph.from_edges(
        rng.integers(0, 50, 200) * 3, rng.integers(0, 50, 200) * 3, tmp_path / "g", weights=rng.uniform(1, 2, 200)
    )


@pytest.mark.parametrize(
    "options, message",
    [
        ({"io": "nvme"}, "unknown io \"nvme\" (use uring, pread or mmap)"),
        ({"scheduler": "fifo"}, "unknown scheduler \"fifo\" (use bitmap or pluglist)"),
        ({"block_size": 1000}, "block size 1000 is not a power of two"),
        ({"block_size": 128 << 10}, "not a power of two in 512..=65536"),
        ({"block_size": 0}, "block_size must be a positive number of bytes"),
        ({"block_size": -512}, "block_size must be a positive number of bytes"),
        ({"block_size": "lots"}, "block_size: invalid size"),
        ({"block_size": 1 << 40}, "block_size of 1099511627776 bytes is too large"),
        ({"max_request": "256B"}, "max request must hold at least one block"),
        ({"max_request": "8GiB"}, "max_request of 8589934592 bytes is too large"),
        ({"max_gap": -1}, "max_gap must be at least 0"),
        ({"max_gap": 1 << 32}, "max_gap must be at most 4294967295"),
        ({"queue_depth": 0}, "queue_depth must be at least 1"),
        ({"io_threads": 0}, "io_threads must be at least 1"),
        ({"memory": 4096}, "memory budget of 4096 bytes is too small"),
    ],
)
def test_bad_io_options(small: diskgraph.Graph, options: Dict[str, Any], message: str) -> None:
    kw = {"engine": "selective", "memory": BUDGET, **options}
    with pytest.raises(ValueError, match=re.escape(message)):
        small.bfs(**kw)
    with pytest.raises(ValueError):
        small.run("spmv", **kw)


def test_bad_algorithm_options(small: diskgraph.Graph) -> None:
    n = small.num_vertices
    with pytest.raises(ValueError, match="sources must be a count of 1 to 64"):
        small.msbfs(0)
    with pytest.raises(ValueError, match="sources must be a count of 1 to 64"):
        small.msbfs(-3)
    with pytest.raises(ValueError, match="msbfs samples 1 to 64 sources, got 65"):
        small.msbfs(65)
    with pytest.raises(ValueError, match="msbfs takes 1 to 64 sources, got 0"):
        small.msbfs([])
    with pytest.raises(ValueError, match="got 65"):
        small.msbfs(small.vertex_ids()[:1].tolist() * 65)
    with pytest.raises(ValueError, match="seed must be at least 0"):
        small.msbfs(3, seed=-1)
    first = int(small.vertex_ids()[0])
    with pytest.raises(diskgraph.InvalidVertex, match="source vertex 1 is not"):
        small.msbfs([first, 1], engine="selective", memory=BUDGET)
    with pytest.raises(diskgraph.InvalidVertex, match="source vertex -3 is not"):
        small.msbfs([-3])
    with pytest.raises(TypeError, match="sources"):
        small.msbfs(True)
    with pytest.raises(TypeError, match="sources"):
        small.msbfs(2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="each source must be an integer"):
        small.msbfs([0, 1.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=f"x has 3 values, the graph has {n} vertices"):
        small.spmv(np.ones(3), engine="selective", memory=BUDGET)
    with pytest.raises(ValueError, match=f"x has {n + 1} values"):
        small.spmv(np.ones(n + 1))
    bad = np.ones(n)
    bad[7] = np.nan
    with pytest.raises(ValueError, match=r"x must be numbers \(inf allowed\), but x\[7\] is NaN"):
        small.spmv(bad)
    with pytest.raises(ValueError, match=r"x\[7\] is NaN"):
        small.spmv(bad, engine="selective", memory=BUDGET)
    with pytest.raises(ValueError, match="one-dimensional"):
        small.spmv(np.ones((n, 1)))
    with pytest.raises(ValueError, match="mis has no selective variant"):
        small.mis(engine="selective")
    with pytest.raises(ValueError, match="unknown engine"):
        small.kcore(engine="disk")
    # Wrong types are TypeErrors, and unknown option names too.
    with pytest.raises(TypeError, match="io must be"):
        small.wcc(io=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="block_size must be an int"):
        small.wcc(block_size=4096.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="queue_depth must be an integer, got a bool"):
        small.wcc(queue_depth=True, engine="selective")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'io_thread' \(valid: .*io_threads"):
        small.run("wcc", io_thread=2)
    with pytest.raises(TypeError):
        small.pagerank(blocksize=4096)  # type: ignore[call-arg]


def test_io_options_are_case_insensitive_and_ignored_by_memory(small: diskgraph.Graph) -> None:
    r = small.pagerank(engine="selective", memory=BUDGET, io="PREAD", scheduler="PlugList", block_size="2KiB")
    assert r.stats["settings"]["io_backend"] == "pread" or "io_fallback" in r.stats["settings"]
    assert r.stats["settings"]["scheduler"] == "pluglist"
    assert r.stats["settings"]["block_size"] == 2048
    # scc runs in memory only; the I/O settings are accepted so one set fits every algorithm.
    m = small.scc(io="mmap", block_size=4096, scheduler="pluglist")
    assert m.stats["engine"] == "memory" and "io_backend" not in m.stats["settings"]
    assert m.stats["io_requests"] == 0
