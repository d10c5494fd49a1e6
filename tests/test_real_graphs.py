"""Real graphs from testdata/real imported with import_file (as the CLI does) and checked against
the NetworkX reference answers in answers.json (see testdata/real/README.md for the fields)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

import diskgraph

# file (relative to testdata/real) -> import_file keyword arguments
GRAPHS: Dict[str, Dict[str, Any]] = {
    "wiki-Vote.txt": {},
    "email-Eu-core.txt": {},
    "as20graph.txt": {"undirected": True},
    "rome99.gr": {},
    "chesapeake.mtx": {},
    "GD01_b.mtx": {},
    "LFAT5.mtx": {},
    "Ragusa16.mtx": {},
    "foodweb-baydry.konect": {"format": "konect"},
    "more/ca-GrQc.txt": {"undirected": True},
    "more/ca-HepTh.txt": {"undirected": True},
    "more/ca-CondMat.txt": {"undirected": True},
    "more/p2p-Gnutella05.txt": {},
    "more/p2p-Gnutella06.txt": {},
    "more/MIT8.edgelist": {"undirected": True},
    "more/Email-Enron.txt": {"undirected": True},
}


def answers(shared: Path, name: str) -> Dict[str, Any]:
    folder, _, base = name.rpartition("/")
    table = json.loads((shared / folder / "answers.json").read_text())["graphs"]
    return table[base]


def components(labels: np.ndarray) -> tuple:
    _, sizes = np.unique(labels, return_counts=True)
    return len(sizes), int(sizes.max())


@pytest.mark.parametrize("name", list(GRAPHS))
def test_real_graph(name: str, real_data: Path, tmp_path: Path) -> None:
    input_path = real_data / name
    if not input_path.is_file():
        pytest.skip(f"{input_path} not present")
    want = answers(real_data, name)
    g = diskgraph.import_file(input_path, tmp_path / "g", memory="64MiB", **GRAPHS[name])

    assert g.num_vertices == want["num_vertices"]
    assert g.num_edges == want["num_edges"]
    assert g.directed == want["directed"]
    assert g.weighted == bool(want.get("weighted"))
    ids = g.vertex_ids()
    if "vertex_id_min" in want:
        assert int(ids[0]) == want["vertex_id_min"] and int(ids[-1]) == want["vertex_id_max"]
    g.verify()

    if g.directed:
        assert int(g.out_degree().max()) == want["max_out_degree"]
        assert int(g.in_degree().max()) == want["max_in_degree"]
    else:
        assert int(g.out_degree().max()) == want["max_degree"]

    assert components(g.wcc().values) == (want["wcc_count"], want["wcc_largest"])
    if g.directed:
        assert components(g.scc().values) == (want["scc_count"], want["scc_largest"])

    bfs = want["bfs"]
    levels = g.bfs(bfs["source"]).values
    assert int((levels >= 0).sum()) == bfs["reached"]
    assert int(levels.max()) == bfs["max_depth"]
    assert np.array_equal(levels, g.bfs().values), "the default source is the smallest ID"

    if "sssp" in want:
        sssp = want["sssp"]
        if sssp is None:
            with pytest.raises(diskgraph.AlgorithmError, match="negative"):
                g.sssp(bfs["source"])
        else:
            dist = g.sssp(sssp["source"]).values
            finite = dist[np.isfinite(dist)]
            assert finite.size == sssp["reached"]
            # Weights are stored as float32: integer weights stay exact, real ones round (~6e-8).
            exact = float(sssp["sum_finite_distances"]).is_integer()
            rel = 1e-12 if exact else 1e-6
            assert math.isclose(math.fsum(finite.tolist()), sssp["sum_finite_distances"], rel_tol=rel)
            assert math.isclose(float(finite.max()), sssp["max_distance"], rel_tol=rel)

    pr = g.pagerank(tolerance=1e-13)
    assert pr.stats["iterations"] > 0
    check_top10(pr, want["pagerank"])

    assert int(g.kcore().values.max()) == want["max_core_number"]


def check_top10(result: diskgraph.Result, want: Dict[str, Any]) -> None:
    """Top-10 values within 1e-9 of NetworkX at tol 1e-15, in order up to near-ties."""
    ranks = result.to_dict()
    top = want["top10_tol_1e_15"]
    for vertex, value in top:
        assert abs(ranks[vertex] - value) < 1e-9, (vertex, ranks[vertex], value)
    mine = [ranks[v] for v, _ in top]
    for a, b in zip(mine, mine[1:]):
        assert a >= b - 1e-9, "top-10 order differs beyond a near-tie"
    others = [x for v, x in ranks.items() if v not in {v for v, _ in top}]
    assert max(others, default=0.0) <= top[-1][1] + 1e-9, "a vertex outside the reference top 10 ranks above it"
    assert math.isclose(float(result.values.sum()), 1.0, abs_tol=1e-9)


@pytest.mark.parametrize("name", ["4.el", "4.wel", "4.gr", "4.mtx", "4w.mtx"])
def test_gapbs_fixtures_have_gapbs_arc_count(name: str, real_data: Path, tmp_path: Path) -> None:
    """gapbs prints "Graph has 14 nodes and 53 directed edges" for each format of its graph 4
    (gapbs counts nodes as max ID + 1, so only the arc count is comparable)."""
    input_path = real_data / "gapbs-tiny" / "graphs" / name
    if not input_path.is_file():
        pytest.skip(f"{input_path} not present")
    reference = (real_data / "gapbs-tiny" / "reference" / f"graph-{name}.out").read_text()
    assert "53 directed edges" in reference
    g = diskgraph.import_file(input_path, tmp_path / "g")
    assert g.directed and g.num_edges == 53


def test_cnr_2000_bvgraph_has_the_law_strong_components(real_data: Path, tmp_path: Path) -> None:
    """LAW's cnr-2000 (a WebGraph BVGraph, imported by its basename): node and arc counts of its
    properties (self-loops dropped) and the strongly connected components LAW ships with it
    (``cnr-2000.scc``: the component of every node, big-endian int32), as a partition."""
    base = real_data / "cnr-2000" / "cnr-2000"
    if not base.with_suffix(".graph").is_file():
        pytest.skip(f"{base}.graph not present")
    g = diskgraph.import_file(base, tmp_path / "g", memory="64MiB")
    assert (g.num_vertices, g.num_edges, g.directed) == (325557, 3216152 - 87442, True)
    assert np.array_equal(g.vertex_ids(), np.arange(325557))
    law = np.fromfile(base.with_suffix(".scc"), dtype=">i4")
    ours = g.scc().values
    # The same partition: each of our labels meets exactly one LAW component and vice versa.
    pairs = np.unique(np.stack([ours, law.astype(np.uint64)]), axis=1)
    assert pairs.shape[1] == len(np.unique(ours)) == len(np.unique(law)) == 100977
    assert components(ours) == (100977, 112023)
