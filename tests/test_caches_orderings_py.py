"""BFS-like algorithms, BAsC selections, the page cache and orderings from Python: sp, diameter,
bc and apsp agree with NetworkX (bc exactly, with NetworkX's scaling; diameter is a real eccentricity
and exact on trees) on both engines, with and without a static cache and a page cache;
Graph.select publishes selections; Graph.reorder writes a relabelled graph whose answers, per
original ID, are those of the original."""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Any, Dict

import networkx as nx
import numpy as np
import pytest

import diskgraph


def random_graph(seed: int, directed: bool) -> nx.Graph:
    G = nx.gnm_random_graph(80, 220, seed=seed, directed=directed)
    G.add_nodes_from(range(80, 86))  # isolated vertices
    return G


def to_diskgraph(G: nx.Graph, path: Any) -> diskgraph.Graph:
    src = np.array([u for u, _ in G.edges()], dtype=np.int64) * 7 + 3  # sparse IDs
    dst = np.array([v for _, v in G.edges()], dtype=np.int64) * 7 + 3
    ids = np.array(sorted(G.nodes()), dtype=np.int64) * 7 + 3
    return diskgraph.from_edges(src, dst, path, directed=G.is_directed(), vertices=ids)


def by_id(result: diskgraph.Result) -> Dict[int, Any]:
    return {int(v) // 7: x for v, x in zip(result.vertex_ids, result.values)}


CACHES = [
    {"engine": "memory"},
    {"engine": "selective", "memory": "4MiB", "io": "pread"},
    {"engine": "selective", "memory": "4MiB", "page_size": "4KiB", "track_utilization": True},
    {"engine": "selective", "memory": "4MiB", "basc": "gvs", "basc_fraction": 0.25, "page_size": "4KiB",
     "page_policy": "lru"},
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("directed", [False, True])
def test_sp_diameter_bc_match_networkx(tmp_path: Any, seed: int, directed: bool) -> None:
    G = random_graph(seed, directed)
    g = to_diskgraph(G, tmp_path / "g")
    g.select("gvs", 0.3, k=4)
    want_bc = nx.betweenness_centrality(G)
    want_sp = nx.single_source_shortest_path_length(G, 0)
    for opts in CACHES:
        sp = by_id(g.sp(3, **opts))
        assert {v: d for v, d in sp.items() if d >= 0} == want_sp, opts
        bc = by_id(g.bc(**opts))
        assert max(abs(bc[v] - want_bc[v]) for v in G) < 1e-12, opts
        d = g.diameter(3, rounds=3, **opts)
        start = d.stats["settings"]["from"] // 7
        assert d.stats["settings"]["bound"] == max(nx.single_source_shortest_path_length(G, start).values()), opts
        if "page_size" in opts:
            assert 0.0 <= d.stats["cache_hit_ratio"]["page"] <= 1.0
        if "basc" in opts:
            assert d.stats["cache_hit_ratio"]["basc"] > 0.0
            assert d.stats["settings"]["basc_load_seconds"] >= 0.0


@pytest.mark.parametrize("directed", [False, True])
def test_a_loaded_static_cache_serves_several_runs(tmp_path: Any, directed: bool) -> None:
    G = random_graph(7, directed)
    g = to_diskgraph(G, tmp_path / "g")
    g.select("gvs", 0.3, k=4)
    cache = g.load_static_cache("gvs", memory="4MiB", basc_fraction=0.25, io="pread")
    assert isinstance(cache, diskgraph.StaticCache)
    assert cache.layout == "basc-gvs" and cache.lists > 0 and cache.load_bytes > 0, cache
    assert (cache.memory, cache.basc_fraction) == (4 << 20, 0.25)
    want_bc = nx.betweenness_centrality(G)
    want_sp = nx.single_source_shortest_path_length(G, 0)
    for _ in range(2):  # the same cache, twice
        sp = g.sp(3, engine="selective", basc=cache, page_size="4KiB")
        assert {v: d for v, d in by_id(sp).items() if d >= 0} == want_sp
        bc = by_id(g.bc(engine="selective", basc=cache))
        assert max(abs(bc[v] - want_bc[v]) for v in G) < 1e-12
        for r in (sp, g.diameter(3, engine="selective", basc=cache)):
            s = r.stats["settings"]
            assert s["basc_preloaded"] is True and s["basc_load_bytes"] == 0, s
            assert s["memory"] == 4 << 20 and s["basc_lists"] == cache.lists, s
            assert r.stats["cache_hit_ratio"]["basc"] > 0
    fresh = g.sp(3, engine="selective", memory="4MiB", basc="gvs", basc_fraction=0.25)
    assert fresh.stats["settings"]["basc_preloaded"] is False
    # Refused: another graph's cache, a share too small for it, no such selection, bad options.
    other = to_diskgraph(random_graph(8, directed), tmp_path / "other")
    with pytest.raises(ValueError, match="out-lists differ"):
        other.sp(3, engine="selective", basc=cache)
    with pytest.raises(ValueError, match="too small"):
        g.sp(3, engine="selective", basc=cache, basc_fraction=cache.bytes / (8 << 20))
    with pytest.raises(diskgraph.GraphFormatError, match="basc-none"):
        g.load_static_cache("none", memory="4MiB")
    with pytest.raises(TypeError, match="page_size"):
        g.load_static_cache("gvs", page_size="4KiB")  # type: ignore[call-arg]


def apsp_oracle(G: nx.Graph, sources: Any) -> np.ndarray:
    """Rows per vertex (ascending), one column per source (internal IDs), -1 when unreached."""
    nodes = sorted(G.nodes())
    out = np.full((len(nodes), len(sources)), -1, dtype=np.int64)
    for j, s in enumerate(sources):
        for v, d in nx.single_source_shortest_path_length(G, s).items():
            out[v, j] = d
    return out


@pytest.mark.parametrize("directed", [False, True])
def test_apsp_matches_networkx_across_batches(tmp_path: Any, directed: bool) -> None:
    # 70 sampled sources: two msbfs batches (64 + 6); an explicit list with a repeat.
    G = random_graph(5, directed)
    g = to_diskgraph(G, tmp_path / "g")
    g.select("gvs", 0.3, k=4)
    for opts in CACHES:
        r = g.apsp(70, seed=2, **opts)
        sources = [s // 7 for s in r.stats["settings"]["sources"]]
        assert len(set(sources)) == 70 and r.values.shape == (86, 70) and r.values.dtype == np.int64
        assert np.array_equal(r.values, apsp_oracle(G, sources)), opts
        if directed:
            assert (r.values == -1).any()
        chosen = [v * 7 + 3 for v in (5, 0, 85, 5)]
        r = g.apsp(chosen, **opts)
        assert r.stats["settings"]["sources"] == chosen
        assert np.array_equal(r.values, apsp_oracle(G, [5, 0, 85, 5])), opts
    with pytest.raises(ValueError):
        g.apsp(0)
    with pytest.raises(ValueError):
        g.apsp(87)
    with pytest.raises(ValueError):
        g.apsp([])
    with pytest.raises(diskgraph.InvalidVertex):
        g.apsp([4])


def test_apsp_rows_span_many_blocks(tmp_path: Any) -> None:
    # 10,000 vertices: the vertex-major rows are filled in blocks of 4096, the last one partial.
    G = nx.gnm_random_graph(10_000, 15_000, seed=8, directed=True)
    g = to_diskgraph(G, tmp_path / "g")
    chosen = [v * 7 + 3 for v in (0, 4095, 4096, 9_999, 123)]
    for engine in ("memory", "selective"):
        r = g.apsp(chosen, engine=engine, memory="64MiB")
        assert r.values.shape == (10_000, 5)
        assert np.array_equal(r.values, apsp_oracle(G, [0, 4095, 4096, 9_999, 123])), engine


def test_cli_apsp_files_read_back(tmp_path: Any) -> None:
    # The CLI's .npy (int64 sub-array per vertex) and .parquet (value_0, value_1, ...) hold
    # Graph.apsp's rows.
    import pyarrow.parquet as pq

    exe = shutil.which("diskgraph")
    assert exe, "scripts/setup.sh installs the diskgraph command"
    g = to_diskgraph(random_graph(6, True), tmp_path / "g")
    want = g.apsp(5, seed=4)
    for ext in ("npy", "parquet"):
        out = tmp_path / f"a.{ext}"
        cmd = [exe, "run", "apsp", str(tmp_path / "g"), "--sources", "5", "--seed", "4", "--out", str(out)]
        subprocess.run(cmd, check=True, capture_output=True)
        if ext == "npy":
            a = np.load(out)
            ids, rows = a["vertex"], a["value"]
        else:
            t = pq.read_table(out)
            assert t.column_names == ["vertex"] + [f"value_{i}" for i in range(5)]
            ids = t.column("vertex").to_numpy()
            rows = np.stack([t.column(f"value_{i}").to_numpy() for i in range(5)], axis=1)
        assert np.array_equal(ids, want.vertex_ids) and np.array_equal(rows, want.values), ext


def test_diameter_is_exact_on_trees(tmp_path: Any) -> None:
    T = nx.random_labeled_tree(200, seed=5)
    g = to_diskgraph(T, tmp_path / "t")
    for engine in ("memory", "selective"):
        assert g.diameter(17, rounds=2, engine=engine).stats["settings"]["bound"] == nx.diameter(T)


def test_sampled_bc_with_every_vertex_is_exact(tmp_path: Any) -> None:
    # With k = n samples NetworkX's sampled scaling equals the exact one: every vertex is a
    # source, scaled by 1 / ((n - 1)(n - 2)).
    G = random_graph(9, False)
    g = to_diskgraph(G, tmp_path / "g")
    want = nx.betweenness_centrality(G)
    r = g.bc(samples=g.num_vertices, engine="selective", memory="4MiB")
    got = by_id(r)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-12
    assert r.stats["settings"]["sampled"] is True and r.stats["settings"]["sources"] == g.num_vertices
    few = g.bc(samples=5, seed=2)
    assert few.stats["settings"]["sources"] == 5
    with pytest.raises(ValueError):
        g.bc(samples=0)


def test_select_publishes_and_refuses_duplicates(tmp_path: Any) -> None:
    g = to_diskgraph(random_graph(1, False), tmp_path / "g")
    for method in ("gvs", "highd", "lowd", "random"):
        s = g.select(method, 0.25, k=3)
        assert s["count"] > 0 and s["edges"] * 4 < s["bytes"] <= 0.25 * 4 * g.num_arcs + 1
    record = next(l for l in g.manifest["layouts"] if l["name"] == "basc-gvs")
    assert record["kind"] == "basc" and record["method"] == "gvs"
    with pytest.raises(diskgraph.OutputExistsError):
        g.select("gvs", 0.25)
    with pytest.raises(ValueError):
        g.select("best", 0.25)
    with pytest.raises(ValueError):
        g.select("gvs", 1.5)


@pytest.mark.parametrize("method", ["norder", "degree", "random", "pagerank", "gorder", "original"])
def test_reordered_graph_gives_the_same_answers(tmp_path: Any, method: str) -> None:
    G = random_graph(2, True)
    g = to_diskgraph(G, tmp_path / "g")
    h = g.reorder(tmp_path / "h", method, seed=3 if method == "random" else None)
    assert h.reorder_summary is not None and h.reorder_summary["num_vertices"] == g.num_vertices
    assert h.manifest["ordering"] == method
    assert np.all(np.diff(h.run("bfs", source=3).vertex_ids.astype(np.int64)) > 0), "rows by ascending ID"
    for alg in ("bfs", "sp", "bc", "wcc", "pagerank"):
        options = {"source": 3} if alg in ("bfs", "sp") else {}
        a, b = by_id(g.run(alg, **options)), by_id(h.run(alg, **options))
        assert a.keys() == b.keys()
        assert all(abs(float(a[v]) - float(b[v])) < 1e-9 for v in a), (alg, method)
    sources = [v * 7 + 3 for v in (0, 17, 42)]
    a, b = g.apsp(sources), h.apsp(sources, engine="selective", memory="4MiB")
    assert np.array_equal(a.vertex_ids, b.vertex_ids) and np.array_equal(a.values, b.values), method
    # Sampled sources are drawn by original ID and the max-degree source breaks ties by it, so
    # a reordered copy samples and starts from the same vertices.
    for engine in ("memory", "selective"):
        a, b = g.apsp(7, seed=5, engine=engine), h.apsp(7, seed=5, engine=engine)
        assert a.stats["settings"]["sources"] == b.stats["settings"]["sources"], (method, engine)
        assert np.array_equal(a.values, b.values), (method, engine)
        a, b = g.msbfs(9, seed=4, engine=engine), h.msbfs(9, seed=4, engine=engine)
        assert np.array_equal(a.values, b.values), (method, engine)
        a, b = by_id(g.bc(samples=6, seed=3, engine=engine)), by_id(h.bc(samples=6, seed=3, engine=engine))
        assert all(abs(a[v] - b[v]) < 1e-9 for v in a), (method, engine)
        a, b = by_id(g.run("bfs", source="max-degree")), by_id(h.run("bfs", source="max-degree"))
        assert a == b, (method, engine)
        # Each sweep goes on from the farthest vertex with the smallest original ID.
        for source in (3, "max-degree"):
            a, b = g.diameter(source, engine=engine), h.diameter(source, engine=engine)
            keys = ("bound", "from", "to")
            assert [a.stats["settings"][k] for k in keys] == [b.stats["settings"][k] for k in keys], (method, engine)
            assert by_id(a) == by_id(b), (method, engine)


@pytest.mark.parametrize("directed", [False, True])
def test_loaded_index_serves_a_session(tmp_path: Any, directed: bool) -> None:
    # A session loads the index once; its runs give what runs reading it from disk give (here
    # on the original graph), say so in their stats, and keep it across a selection published
    # meanwhile.
    G = random_graph(5, directed)
    g = to_diskgraph(G, tmp_path / "g")
    g.reorder(tmp_path / "h", "norder")
    h = diskgraph.open(tmp_path / "h")
    held = 8 * (g.num_vertices + (2 if directed else 1) * (g.num_vertices + 1))
    ids = g.vertex_ids()
    ranking = 12 * ((int(ids.max()) - int(ids.min())) // 64 + 1)  # the IDs' rank bitmap: 12 bytes a word
    assert h.load_index() == held + ranking, "IDs, the offsets of each stored direction, the IDs' ranking"
    assert h.load_index() == held + ranking, "a second call keeps it"
    h.select("gvs", 0.3, k=4)
    cache = h.load_static_cache("gvs", memory="4MiB", basc_fraction=0.25)
    runs = [("bfs", {"source": "max-degree"}), ("diameter", {"source": 3}), ("bc", {"samples": 9}),
            ("apsp", {"sources": 5}), ("wcc", {}), ("pagerank", {})]
    for alg, opts in runs:
        for engine in ("memory", "selective"):
            paged = {"memory": "4MiB", "page_size": "4KiB"} if engine == "selective" else {}
            a = g.run(alg, engine=engine, **paged, **opts)
            b = h.run(alg, engine=engine, **paged, **({"basc": cache} if paged else {}), **opts)
            assert b.stats["settings"]["index_preloaded"] is True and "index_preloaded" not in a.stats["settings"]
            assert np.array_equal(a.vertex_ids, b.vertex_ids), (alg, engine)
            assert np.allclose(a.values, b.values, rtol=0, atol=1e-12), (alg, engine)
    # Selective runs read nothing of it again: they run with the index files gone; a graph
    # opened anew cannot.
    for name in ("ids.u64", "out.idx", "in.idx"):
        (tmp_path / "h" / name).unlink(missing_ok=True)
    assert h.run("bc", engine="selective", memory="4MiB", basc=cache, page_size="4KiB").summary
    with pytest.raises(diskgraph.GraphFormatError):
        diskgraph.open(tmp_path / "h").run("bc", engine="selective", memory="4MiB")


CLI = [sys.executable, "-c", "from diskgraph._cli import main; main()"]


@pytest.mark.parametrize("grows", [False, True])
def test_a_graph_replaced_under_a_loaded_index_is_refused_by_every_engine(tmp_path: Any, grows: bool) -> None:
    # Another process replaces the graph at the same path (`diskgraph import --force`, then the
    # same layouts) with another of the same size, or a larger one. Every engine refuses the
    # runs of an object that loaded the index, with the error of one that did not: never an
    # answer read through the old index.
    n = 40
    path = tmp_path / "g"

    def publish_layouts() -> None:
        for shards in ([], ["--shards", "2"]):
            subprocess.run([*CLI, "partition", str(path), *shards, "--force"], check=True, capture_output=True)

    diskgraph.from_edges(np.arange(n - 1), np.arange(1, n), path, directed=True)  # 0 -> 1 -> ... -> n-1
    publish_layouts()
    loaded, unloaded = diskgraph.open(path), diskgraph.open(path)
    loaded.load_index()
    before = loaded.pagerank(engine="selective")
    edges = tmp_path / "reversed.el"
    m = n + 9 if grows else n
    edges.write_text("".join(f"{v} {v - 1}\n" for v in range(1, m)))
    subprocess.run([*CLI, "import", str(edges), "-o", str(path), "--force"], check=True, capture_output=True)
    publish_layouts()
    runs = [("pagerank", {}, engine) for engine in ("memory", "selective", "stream", "sync", "shards")]
    runs += [("bfs", {"source": 0}, engine) for engine in ("memory", "selective", "stream", "sync")]
    for alg, opts, engine in runs:
        for g in (loaded, unloaded):
            with pytest.raises(diskgraph.GraphFormatError) as refused:
                g.run(alg, engine=engine, **opts)
            message = str(refused.value)
            assert message.startswith(f"{path}: the graph was replaced since it was opened ("), message
            assert message.endswith("): open it again"), message
    fresh = diskgraph.open(path)
    fresh.load_index()
    after = fresh.pagerank(engine="selective")
    assert after.values.tolist() != before.values.tolist(), "the new graph's own answer"
    assert np.allclose(after.values, fresh.pagerank(engine="memory").values, atol=1e-12)


def cost_oracle(G: nx.Graph, internal: Dict[int, int]) -> Dict[str, float]:
    """The cost model and mean gap computed from the NetworkX graph and the internal IDs."""
    n = len(internal)
    arcs = [(internal[u], internal[v]) for u, v in G.edges()]
    if not G.is_directed():
        arcs += [(v, u) for u, v in arcs]
    out: Dict[int, list] = {}
    indeg = np.zeros(n)
    for u, v in arcs:
        out.setdefault(u, []).append(v)
        indeg[v] += 1
    deg = indeg if G.is_directed() else np.array([len(out.get(v, [])) for v in range(n)], dtype=float)
    cost = sum(deg[v] * np.var(np.array(nbrs, dtype=float)) for v, nbrs in out.items())
    expected = sum(deg[v] * (len(nbrs) - 1) / len(nbrs) * (n * n - 1) / 12 for v, nbrs in out.items())
    gap = np.mean([abs(u - v) for u, v in arcs])
    return {"cost": cost, "cost_vs_random": cost / expected, "mean_gap": gap, "gap_vs_random": gap / ((n * n - 1) / (3 * n))}


@pytest.mark.parametrize("directed", [False, True])
def test_cost_matches_its_definition_for_each_ordering(tmp_path: Any, directed: bool) -> None:
    G = random_graph(4, directed)
    g = to_diskgraph(G, tmp_path / "g")
    for method in ("original", "norder", "random"):
        h = g if method == "original" else g.reorder(tmp_path / method, method, seed=5 if method == "random" else None)
        # ids.u64 holds each internal vertex's original ID, then padding (FORMAT.md).
        ids = np.fromfile(f"{h.path}/ids.u64", dtype="<u8")[: h.num_vertices]
        internal = {int(v) // 7: i for i, v in enumerate(ids)}
        got, want = h.cost(), cost_oracle(G, internal)
        assert got["ordering"] == method and got["num_vertices"] == 86 and got["num_arcs"] == h.num_arcs
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-9), (method, key)
        assert 0 < got["page_utility"] <= 1 and got["neighbourhood_pages"] >= 1


def test_cost_of_a_damaged_graph_is_an_error(tmp_path: Any) -> None:
    g = to_diskgraph(random_graph(1, False), tmp_path / "g")
    (tmp_path / "g" / "out.adj").write_bytes(b"\0" * 12)
    with pytest.raises(Exception, match="out.adj"):
        g.cost()


def test_gorder_suspends_at_its_time_limit_and_resumes_to_the_same_order(tmp_path: Any) -> None:
    G = random_graph(5, True)
    g = to_diskgraph(G, tmp_path / "g")
    whole = g.reorder(tmp_path / "whole", "gorder")
    state = tmp_path / "gorder.state"
    for placed in (1, 2):
        with pytest.raises(diskgraph.Suspended, match=f"with {placed} of {g.num_vertices} vertices placed"):
            g.reorder(tmp_path / "h", "gorder", checkpoint=state, time_limit=0)
        assert state.exists() and not (tmp_path / "h").exists()
    h = g.reorder(tmp_path / "h", "gorder", checkpoint=state)
    assert not state.exists(), "a complete run removes its checkpoint"
    assert (tmp_path / "h" / "ids.u64").read_bytes() == (tmp_path / "whole" / "ids.u64").read_bytes()
    assert h.reorder_summary is not None and whole.reorder_summary is not None
    with pytest.raises(ValueError, match="needs a checkpoint"):
        g.reorder(tmp_path / "x", "gorder", time_limit=1)
    with pytest.raises(ValueError, match="seconds"):
        g.reorder(tmp_path / "x", "gorder", checkpoint=state, checkpoint_every=-1)


def test_gorder_window_defaults_to_the_lists_per_page(tmp_path: Any) -> None:
    # 2,048 vertices with 8 arcs each: 128 lists per 4 KiB page, 256 per 8 KiB.
    G = nx.random_regular_graph(8, 2048, seed=3).to_directed()
    g = to_diskgraph(G, tmp_path / "g")
    assert g.num_arcs == 8 * 2048
    windows = {page: g.reorder(tmp_path / f"w{page}", "gorder", page_size=page).reorder_summary["window"]
               for page in (None, 8192, "16KiB")}
    assert windows == {None: 128, 8192: 256, "16KiB": 512}
    with pytest.raises(Exception, match="page_size sets the default window: give it or window, not both"):
        g.reorder(tmp_path / "x", "gorder", window=3, page_size=8192)
    with pytest.raises(Exception, match="applies to gorder only"):
        g.reorder(tmp_path / "x", "norder", page_size=8192)
    exe = shutil.which("diskgraph")
    assert exe, "scripts/setup.sh installs the diskgraph command"
    out = subprocess.run([exe, "reorder", str(g.path), "-o", str(tmp_path / "cli"), "--method", "gorder",
                          "--page-size", "8KiB"], capture_output=True, text=True, check=True).stdout
    assert "window 256" in out
    bad = subprocess.run([exe, "reorder", str(g.path), "-o", str(tmp_path / "bad"), "--method", "gorder",
                          "--page-size", "2"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--page-size must be at least 4 bytes" in bad.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "bad").exists()


def test_reordered_graph_lists_vertices_and_degrees_by_id(tmp_path: Any) -> None:
    G = random_graph(4, True)
    g = to_diskgraph(G, tmp_path / "g")
    h = g.reorder(tmp_path / "h", "degree")
    assert np.array_equal(h.vertex_ids(), g.vertex_ids())
    assert np.array_equal(h.out_degree(), g.out_degree())
    assert np.array_equal(h.in_degree(), g.in_degree())
