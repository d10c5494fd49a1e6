"""from_edges, from_scipy, from_networkx and from_parquet: the graphs they build and the errors
bad inputs raise (each naming the problem), and that a failed import leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, Set, Tuple

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

import diskgraph
from diskgraph import _native


def edges_of(g: diskgraph.Graph, tmp_path: Path) -> List[Tuple[Any, ...]]:
    """The graph's edges in original IDs, via export (with weights if weighted)."""
    out = tmp_path / "edges.txt"
    g.export(out, "wel" if g.weighted else "el", force=True)
    rows = []
    for line in out.read_text().splitlines():
        parts = line.split()
        rows.append((int(parts[0]), int(parts[1])) + ((float(parts[2]),) if g.weighted else ()))
    return sorted(rows)


def leftovers(folder: Path) -> Set[str]:
    return set(os.listdir(folder))


# ----- from_edges ---------------------------------------------------------------------------


def test_from_edges_dtypes_and_isolated_vertices(tmp_path: Path) -> None:
    for i, dtype in enumerate([np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64]):
        g = diskgraph.from_edges(
            np.array([1, 2, 3], dtype=dtype), np.array([2, 3, 1], dtype=dtype), tmp_path / f"g{i}", vertices=[50]
        )
        assert g.vertex_ids().dtype == np.uint64
        assert g.vertex_ids().tolist() == [1, 2, 3, 50]
        assert g.wcc().to_dict() == {1: 1, 2: 1, 3: 1, 50: 50}
    big = [2**64 - 1, 2**63]
    g = diskgraph.from_edges(big, [0, 1], tmp_path / "big", directed=False)
    assert g.vertex_ids().tolist() == [0, 1, 2**63, 2**64 - 1]
    assert edges_of(g, tmp_path) == [(0, 2**64 - 1), (1, 2**63)]


@pytest.mark.parametrize(
    "src, dst, weights, exc, message",
    [
        ([1, 2], [1], None, ValueError, "differ in length"),
        ([1, 2, 3, -4], [1, 2, 3, 4], None, ValueError, r"src\[3\] is -4"),
        ([1, 2], [0, -1], None, ValueError, r"dst\[1\] is -1"),
        ([1, 2], [2**64, 1], None, ValueError, r"dst\[0\] is 18446744073709551616"),
        ([1.5, 2.0], [1, 2], None, TypeError, "integer"),
        (["a", "b"], [1, 2], None, TypeError, "integer"),
        ([[1, 2]], [[2, 3]], None, ValueError, "one-dimensional"),
        ([1, 2, 3], [2, 3, 4], [1.0, float("nan"), 2.0], ValueError, r"weights\[1\] is nan"),
        ([1, 2, 3], [2, 3, 4], [1.0, 2.0, float("inf")], ValueError, r"weights\[2\] is inf"),
        ([1, 2], [2, 3], [1e39, 1.0], ValueError, r"weights\[0\].*float32"),
        ([1, 2], [2, 3], [1.0], ValueError, "weights must be one-dimensional with the length"),
        ([], [], None, ValueError, "at least one vertex"),
    ],
)
def test_from_edges_bad_inputs(src: Any, dst: Any, weights: Any, exc: type, message: str, tmp_path: Path) -> None:
    with pytest.raises(exc, match=message):
        diskgraph.from_edges(src, dst, tmp_path / "g", weights=weights)
    assert leftovers(tmp_path) == set(), "a failed import must leave nothing behind"


def test_from_edges_bad_vertices(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"vertices\[1\] is -2"):
        diskgraph.from_edges([1], [2], tmp_path / "g", vertices=np.array([5, -2]))
    assert leftovers(tmp_path) == set()


def test_from_edges_only_isolated_vertices(tmp_path: Path) -> None:
    g = diskgraph.from_edges([], [], tmp_path / "g", vertices=[4, 2])
    assert g.num_vertices == 2 and g.num_edges == 0
    assert g.bfs(2).to_dict() == {2: 0, 4: -1}


def test_from_edges_large_input_streams_in_chunks(tmp_path: Path) -> None:
    """More edges than one chunk: several pushes, same result as NetworkX."""
    rng = np.random.default_rng(5)
    n, m = 5000, (1 << 20) + 12345
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    g = diskgraph.from_edges(src, dst, tmp_path / "g", directed=False, memory="64MiB")
    pairs = np.unique(np.sort(np.stack([src, dst], axis=1), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    assert g.num_edges == len(pairs)
    assert g.out_degree().sum() == 2 * len(pairs)


# ----- the native importer ------------------------------------------------------------------


def test_abandoned_importer_leaves_no_graph(tmp_path: Path) -> None:
    imp = _native.EdgeImporter(str(tmp_path / "g"))
    imp.push(np.array([1, 2], np.uint64), np.array([2, 3], np.uint64))
    del imp
    assert leftovers(tmp_path) == set()
    imp = _native.EdgeImporter(str(tmp_path / "g"), weighted=True)
    imp.push(np.array([1], np.uint64), np.array([2], np.uint64), np.array([0.5], np.float32))
    imp.abort()
    assert imp.closed
    assert leftovers(tmp_path) == set()
    with pytest.raises(RuntimeError, match="closed"):
        imp.finish()


def test_native_importer_checks_its_arguments(tmp_path: Path) -> None:
    imp = _native.EdgeImporter(str(tmp_path / "g"), weighted=True)
    a = np.array([1, 2], np.uint64)
    with pytest.raises(ValueError, match="weighted: pass weights"):
        imp.push(a, a)
    with pytest.raises(ValueError, match="differ in length"):
        imp.push(a, a[:1], np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"weights\[1\] is NaN"):
        imp.push(a, a, np.array([1, np.nan], np.float32))
    imp.push(a, a + np.uint64(1), np.ones(2, np.float32))
    summary = imp.finish()
    assert summary["num_edges"] == 2 and summary["weighted"]
    assert diskgraph.open(tmp_path / "g").num_vertices == 3


def test_failure_in_the_middle_of_a_stream_leaves_nothing(tmp_path: Path) -> None:
    G = nx.DiGraph()
    G.add_weighted_edges_from((i, i + 1, 1.0) for i in range(100))
    G.add_edge(100, 101, weight="heavy")
    with pytest.raises(ValueError, match=r"edge \(100, 101\) has 'weight' = 'heavy'"):
        diskgraph.from_networkx(G, tmp_path / "g")
    assert leftovers(tmp_path) == set()


def test_existing_output(tmp_path: Path) -> None:
    diskgraph.from_edges([1], [2], tmp_path / "g")
    with pytest.raises(diskgraph.OutputExistsError, match="already exists"):
        diskgraph.from_edges([1], [3], tmp_path / "g")
    assert diskgraph.open(tmp_path / "g").vertex_ids().tolist() == [1, 2]
    g = diskgraph.from_edges([1], [3], tmp_path / "g", force=True)
    assert g.vertex_ids().tolist() == [1, 3]
    assert leftovers(tmp_path) == {"g"}


# ----- from_scipy ---------------------------------------------------------------------------

DENSE = np.array(
    [
        [0, 2, 0, 0, 0],
        [0, 0, 3, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 0, 0, 5, 0],  # a self-loop on 3; vertex 4 isolated
        [0, 0, 0, 0, 0],
    ],
    dtype=float,
)


@pytest.mark.parametrize(
    "make", [sp.csr_array, sp.csr_matrix, sp.coo_array, sp.coo_matrix, sp.csc_array, sp.csc_matrix, sp.lil_array]
)
def test_from_scipy_formats(make: Any, tmp_path: Path) -> None:
    A = make(DENSE)
    g = diskgraph.from_scipy(A, tmp_path / "g")
    assert g.vertex_ids().tolist() == [0, 1, 2, 3, 4]
    assert g.weighted and g.directed
    assert edges_of(g, tmp_path) == [(0, 1, 2.0), (1, 2, 3.0), (2, 0, 1.0)]
    assert g.sssp(0).to_dict() == {0: 0.0, 1: 2.0, 2: 5.0, 3: float("inf"), 4: float("inf")}
    h = diskgraph.from_scipy(A, tmp_path / "h", keep_self_loops=True, weighted=False)
    assert not h.weighted
    assert edges_of(h, tmp_path) == [(0, 1), (1, 2), (2, 0), (3, 3)]


def test_from_scipy_unweighted_when_all_ones_and_undirected(tmp_path: Path) -> None:
    A = sp.csr_array((DENSE != 0).astype(np.int64))
    g = diskgraph.from_scipy(A, tmp_path / "g", directed=False)
    assert not g.weighted and not g.directed
    assert g.num_edges == 3
    sym = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    h = diskgraph.from_scipy(sym, tmp_path / "h", directed=False)
    assert h.num_edges == 2
    assert h.kcore().values.tolist() == [1, 1, 1]


def test_from_scipy_random_against_networkx(tmp_path: Path) -> None:
    A = sp.random_array((300, 300), density=0.02, format="csr", rng=np.random.default_rng(3))
    g = diskgraph.from_scipy(A, tmp_path / "g")
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    for u, v, d in G.edges(data=True):
        d["weight"] = float(np.float32(d["weight"]))
    ref = nx.single_source_dijkstra_path_length(G, 0)
    dist = g.sssp(0).values
    np.testing.assert_allclose([dist[v] for v in ref], [ref[v] for v in ref], rtol=1e-9)
    assert np.isinf(dist).sum() == 300 - len(ref)


def test_from_scipy_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"square.*\(3, 4\)"):
        diskgraph.from_scipy(sp.csr_array((3, 4)), tmp_path / "g")
    with pytest.raises(TypeError, match="scipy.sparse"):
        diskgraph.from_scipy(DENSE, tmp_path / "g")
    bad = sp.coo_array(([1.0, np.nan], ([0, 1], [1, 0])), shape=(2, 2))
    with pytest.raises(ValueError, match=r"A.data\[1\] is nan"):
        diskgraph.from_scipy(bad, tmp_path / "g")
    assert leftovers(tmp_path) == set()


# ----- from_networkx ------------------------------------------------------------------------


def test_from_networkx_keeps_isolated_nodes(tmp_path: Path) -> None:
    G = nx.Graph()
    G.add_nodes_from([10, 20, 30, 2**63 + 1])
    G.add_edges_from([(10, 20), (20, 2**63 + 1), (20, 20)])
    g = diskgraph.from_networkx(G, tmp_path / "g")
    assert not g.directed and not g.weighted
    assert g.vertex_ids().tolist() == [10, 20, 30, 2**63 + 1]
    assert g.num_edges == 2
    assert g.bfs(10).to_dict() == {10: 0, 20: 1, 30: -1, 2**63 + 1: 2}
    assert g.wcc().to_dict() == {10: 10, 20: 10, 30: 30, 2**63 + 1: 10}


def test_from_networkx_weighted_digraph(tmp_path: Path) -> None:
    G = nx.gnp_random_graph(80, 0.08, seed=4, directed=True)
    rng = np.random.default_rng(4)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.uniform(0.1, 3))
    g = diskgraph.from_networkx(G, tmp_path / "g", weight="w")
    assert g.directed and g.weighted and g.num_edges == G.number_of_edges()
    for u, v, d in G.edges(data=True):
        d["w"] = float(np.float32(d["w"]))
    ref = nx.single_source_dijkstra_path_length(G, 0, weight="w")
    got = g.sssp(0).to_dict()
    for v, d in ref.items():
        assert got[v] == pytest.approx(d, rel=1e-9)
    unweighted = diskgraph.from_networkx(G, tmp_path / "u", weight=None)
    assert not unweighted.weighted


def test_from_networkx_multigraph(tmp_path: Path) -> None:
    G = nx.MultiDiGraph()
    G.add_edge(1, 2, weight=4.0)
    G.add_edge(1, 2, weight=1.5)
    G.add_edge(2, 3, weight=1.0)
    merged = diskgraph.from_networkx(G, tmp_path / "m")
    assert edges_of(merged, tmp_path) == [(1, 2, 1.5), (2, 3, 1.0)]
    kept = diskgraph.from_networkx(G, tmp_path / "k", keep_duplicates=True)
    assert edges_of(kept, tmp_path) == [(1, 2, 1.5), (1, 2, 4.0), (2, 3, 1.0)]
    pr = kept.pagerank(tolerance=1e-12).values
    ref = nx.pagerank(G, tol=1e-12, weight=None)
    np.testing.assert_allclose(pr, [ref[v] for v in (1, 2, 3)], atol=1e-9)


@pytest.mark.parametrize("node", ["a", -1, 2**64, 1.5, True, (1, 2)])
def test_from_networkx_names_nodes_that_are_not_ids(node: Any, tmp_path: Path) -> None:
    G = nx.Graph()
    G.add_edge(0, node)
    g = diskgraph.from_networkx(G, tmp_path / "g")
    assert g.nodes.tolist() == [0, node]
    assert diskgraph.open(tmp_path / "g").nodes.tolist() == ["0", str(node)]


def test_from_networkx_partial_weights(tmp_path: Path) -> None:
    G = nx.DiGraph()
    G.add_edge(1, 2, weight=1.0)
    G.add_edge(2, 3)
    with pytest.raises(ValueError, match=r"edge \(2, 3\) has no 'weight' attribute but 1 of 2 edges do"):
        diskgraph.from_networkx(G, tmp_path / "g")
    with pytest.raises(ValueError, match="no nodes"):
        diskgraph.from_networkx(nx.Graph(), tmp_path / "g")
    assert leftovers(tmp_path) == set()


# ----- from_parquet -------------------------------------------------------------------------


_NativeImporter = _native.EdgeImporter


class CountingImporter:
    """Wraps the native importer to count pushes (proves batches stream one at a time)."""

    pushes: List[int] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._inner = _NativeImporter(*args, **kwargs)

    def push(self, src: Any, dst: Any, weights: Any = None) -> None:
        CountingImporter.pushes.append(len(src))
        self._inner.push(src, dst, weights)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_from_parquet_streams_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    m = 5000
    src = rng.integers(0, 700, m, dtype=np.int64)
    dst = rng.integers(0, 700, m, dtype=np.int64)
    w = rng.uniform(0.5, 2.0, m)
    table = pa.table({"a": src, "b": dst, "w": w, "junk": np.zeros(m)})
    pq.write_table(table, tmp_path / "edges.parquet", row_group_size=500)
    assert pq.ParquetFile(tmp_path / "edges.parquet").num_row_groups == 10
    CountingImporter.pushes = []
    monkeypatch.setattr(diskgraph._importers._native, "EdgeImporter", CountingImporter)
    g = diskgraph.from_parquet(tmp_path / "edges.parquet", tmp_path / "g", src="a", dst="b", weight="w", batch_size=256)
    monkeypatch.undo()
    assert len(CountingImporter.pushes) >= 10 and max(CountingImporter.pushes) <= 500
    assert sum(CountingImporter.pushes) == m
    ref = diskgraph.from_edges(src, dst, tmp_path / "ref", weights=w)
    assert edges_of(g, tmp_path) == edges_of(ref, tmp_path)
    assert g.manifest["source"]["input"].startswith("parquet")


def test_from_parquet_dataset_directory_and_undirected(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    pq.write_table(pa.table({"src": [1, 2], "dst": [2, 3]}), tmp_path / "parts" / "a.parquet")
    pq.write_table(pa.table({"src": [3, 9], "dst": [1, 9]}), tmp_path / "parts" / "b.parquet")
    g = diskgraph.from_parquet(tmp_path / "parts", tmp_path / "g", directed=False, vertices=[100])
    assert g.vertex_ids().tolist() == [1, 2, 3, 9, 100]
    assert edges_of(g, tmp_path) == [(1, 2), (1, 3), (2, 3)]


def test_from_parquet_errors(tmp_path: Path) -> None:
    pq.write_table(pa.table({"src": [1, 2], "dst": [2, 3]}), tmp_path / "e.parquet")
    with pytest.raises(ValueError, match="dst column 'target' not found.*src, dst"):
        diskgraph.from_parquet(tmp_path / "e.parquet", tmp_path / "g", dst="target")
    with pytest.raises(ValueError, match="weight column 'w' not found"):
        diskgraph.from_parquet(tmp_path / "e.parquet", tmp_path / "g", weight="w")
    pq.write_table(pa.table({"src": pa.array([1, None, 3]), "dst": [2, 3, 4]}), tmp_path / "n.parquet")
    with pytest.raises(ValueError, match="column 'src' is null in row 1"):
        diskgraph.from_parquet(tmp_path / "n.parquet", tmp_path / "g")
    pq.write_table(pa.table({"src": [1, 2, -7], "dst": [2, 3, 4]}), tmp_path / "neg.parquet")
    with pytest.raises(ValueError, match=r"src\[2\] is -7"):
        diskgraph.from_parquet(tmp_path / "neg.parquet", tmp_path / "g")
    pq.write_table(pa.table({"src": [1.0, 2.0], "dst": [2, 3]}), tmp_path / "f.parquet")
    with pytest.raises(TypeError, match="src must hold integer vertex IDs"):
        diskgraph.from_parquet(tmp_path / "f.parquet", tmp_path / "g")
    assert not (tmp_path / "g").exists()
    assert not [p for p in os.listdir(tmp_path) if not p.endswith(".parquet")]
