"""The rough edges the command line lost, as Python sees them: an unconverged PageRank is a
ConvergenceError holding its result (unless allow_unconverged=True), sizes in decimal and binary
units, errors in original IDs and the paths given, and Parquet export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import diskgraph


def cycle(path: Path) -> diskgraph.Graph:
    return diskgraph.from_edges([1, 2, 3, 3, 4], [2, 3, 1, 4, 1], path)


def test_an_unconverged_pagerank_raises_holding_its_result(tmp_path: Path) -> None:
    g = cycle(tmp_path / "g")
    with pytest.raises(diskgraph.ConvergenceError) as caught:
        g.pagerank(max_iterations=2)
    e = caught.value
    assert isinstance(e, diskgraph.AlgorithmError)
    assert "pagerank stopped at its iteration limit (2 iterations) without converging" in str(e)
    assert "allow_unconverged=True" in str(e) and "--" not in str(e), "no command-line flag names"
    assert e.result.stats["converged"] is False and e.result.stats["iterations"] == 2
    allowed = g.pagerank(max_iterations=2, allow_unconverged=True)
    assert allowed.stats["converged"] is False
    assert np.array_equal(allowed.values, e.result.values)
    assert g.pagerank().stats["converged"] is True
    assert "converged" not in g.pagerank(iterations=2).stats
    assert "converged" not in g.bfs(source=1).stats


def test_sizes_take_decimal_and_binary_units(tmp_path: Path) -> None:
    assert diskgraph.parse_size("1GB") == 10**9
    assert diskgraph.parse_size("1GiB") == 2**30
    assert diskgraph.parse_size("1G") == 2**30
    assert diskgraph.parse_size("64 MB") == 64 * 10**6
    assert diskgraph.parse_size("64MiB") == 64 << 20
    g = cycle(tmp_path / "g")
    assert g.bfs(source=1, memory="1GB").stats["settings"]["memory"] == 10**9
    with pytest.raises(ValueError, match="GiB"):
        diskgraph.parse_size("1PB")


def test_errors_name_original_ids_and_the_paths_given(tmp_path: Path) -> None:
    g = diskgraph.from_edges([100, 200, 300], [200, 300, 100], tmp_path / "g", weights=[1.0, -2.5, 1.0])
    with pytest.raises(diskgraph.AlgorithmError, match=r"edge 200 -> 300 has weight -2\.5"):
        g.sssp(source=100)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(diskgraph.GraphFormatError, match=r"is not a diskgraph graph directory \(no manifest\.json\)"):
        diskgraph.open(empty)
    missing = tmp_path / "no-such-dir" / "g"
    with pytest.raises(diskgraph.DiskgraphError) as caught:
        diskgraph.from_edges([1], [2], missing)
    assert str(missing) in str(caught.value) and ".tmp-" not in str(caught.value)


def test_parquet_export_reads_back(tmp_path: Path) -> None:
    g = diskgraph.from_edges([10, 20, 30], [20, 30, 10], tmp_path / "g", weights=[1.5, 0.25, 2.0])
    assert g.export(tmp_path / "e.parquet", "parquet") == 3
    t = pq.read_table(tmp_path / "e.parquet")
    assert t.column_names == ["src", "dst", "weight"]
    assert t.column("src").to_pylist() == [10, 20, 30]
    h = diskgraph.from_parquet(tmp_path / "e.parquet", tmp_path / "h", weight="weight")
    assert h.sssp(source=10).to_dict() == g.sssp(source=10).to_dict()
