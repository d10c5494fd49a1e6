"""Import cleaning semantics (self-loops, duplicates, min weight, keep_* options) and
export → re-read round trips in every text format."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
import pytest

import diskgraph
from helpers import f32, kept_edges, random_case

Edge = Tuple[int, int, Optional[float]]


def read_export(path: Path, fmt: str, weighted: bool, directed: bool) -> List[Edge]:
    """Parses an exported file back into canonical (u, v, w) edges in original IDs."""
    lines = path.read_text().splitlines()
    edges: List[Edge] = []
    shift = 0
    if fmt == "mtx":
        banner = lines[0].split()
        assert banner[:4] == ["%%MatrixMarket", "matrix", "coordinate", "real" if weighted else "pattern"]
        assert banner[4] == ("general" if directed else "symmetric")
        body = [ln for ln in lines[1:] if not ln.startswith("%")]
        shift = int(any("shifted by +1" in ln for ln in lines if ln.startswith("%")))
        rows, cols, nnz = map(int, body[0].split())
        assert rows == cols and nnz == len(body) - 1
        lines = body[1:]
    elif fmt == "snap":
        assert lines[0].startswith("# ")
        lines = [ln for ln in lines if not ln.startswith("#")]
        assert all("\t" in ln for ln in lines)
    for ln in lines:
        parts = ln.split()
        u, v = int(parts[0]) - shift, int(parts[1]) - shift
        w = f32(float(parts[2])) if weighted and fmt != "el" else None
        assert len(parts) == (3 if w is not None else 2), ln
        if not directed:
            assert u <= v, "undirected edges are written once, smaller ID first"
        edges.append((u, v, w))
    return edges


def canonical(edges: List[Edge], directed: bool, drop_weights: bool) -> List[Edge]:
    out = []
    for u, v, w in edges:
        if not directed and u > v:
            u, v = v, u
        out.append((u, v, None if drop_weights else w))
    return sorted(out, key=lambda e: (e[0], e[1], -1.0 if e[2] is None else e[2]))


def test_default_cleaning_drops_loops_and_keeps_min_weight(tmp_path: Path) -> None:
    src = [1, 1, 1, 2, 3, 3, 2]
    dst = [2, 2, 2, 2, 1, 3, 1]
    w = [5.0, 2.0, 7.0, 1.0, 4.0, 0.5, 3.0]
    g = diskgraph.from_edges(src, dst, tmp_path / "g", weights=w, vertices=[9])
    assert g.import_summary is not None
    assert g.import_summary["self_loops_dropped"] == 2
    assert g.import_summary["input_edges"] == 7
    assert g.num_edges == 3
    assert g.vertex_ids().tolist() == [1, 2, 3, 9]  # 2 and 3 occur in dropped loops too
    g.export(tmp_path / "g.wel", "wel")
    assert read_export(tmp_path / "g.wel", "wel", True, True) == [(1, 2, 2.0), (2, 1, 3.0), (3, 1, 4.0)]
    assert g.manifest["num_self_loops"] == 0 and not g.manifest["multi_edges"]


def test_summary_counts_merged_duplicates(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 1, 1, 2], [2, 2, 2, 1], tmp_path / "g")
    assert g.import_summary is not None
    assert g.import_summary["duplicates_merged"] == 2


def test_undirected_duplicates_merge_both_orientations(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 2, 1], [2, 1, 2], tmp_path / "g", weights=[3, 1, 2], directed=False)
    assert g.num_edges == 1 and g.num_arcs == 2
    g.export(tmp_path / "g.wel", "wel")
    assert read_export(tmp_path / "g.wel", "wel", True, False) == [(1, 2, 1.0)]


def test_keep_self_loops_and_duplicates(tmp_path: Path) -> None:
    src = [1, 1, 1, 2, 2]
    dst = [2, 2, 1, 2, 2]
    w = [5.0, 2.0, 1.5, 1.0, 1.0]
    g = diskgraph.from_edges(src, dst, tmp_path / "loops", weights=w, keep_self_loops=True)
    g.export(tmp_path / "loops.wel", "wel")
    assert read_export(tmp_path / "loops.wel", "wel", True, True) == [(1, 1, 1.5), (1, 2, 2.0), (2, 2, 1.0)]
    assert g.manifest["num_self_loops"] == 2
    g = diskgraph.from_edges(src, dst, tmp_path / "dups", weights=w, keep_duplicates=True)
    g.export(tmp_path / "dups.wel", "wel")
    assert read_export(tmp_path / "dups.wel", "wel", True, True) == [(1, 2, 2.0), (1, 2, 5.0)]
    assert g.manifest["multi_edges"]
    g = diskgraph.from_edges(src, dst, tmp_path / "both", weights=w, keep_self_loops=True, keep_duplicates=True)
    assert g.num_edges == 5
    g.verify()


@pytest.mark.parametrize("fmt", ["el", "wel", "snap", "mtx"])
@pytest.mark.parametrize("seed", range(50))
def test_export_round_trip(fmt: str, seed: int, tmp_path: Path) -> None:
    case = random_case(seed)
    src, dst = case.arrays()
    g = diskgraph.from_edges(
        src,
        dst,
        tmp_path / "g",
        weights=case.weights,
        directed=case.directed,
        vertices=case.isolated,
        keep_self_loops=case.keep_self_loops,
        keep_duplicates=case.keep_duplicates,
    )
    if fmt == "wel" and not case.weighted:
        with pytest.raises(ValueError, match="unweighted"):
            g.export(tmp_path / "out", fmt)
        return
    if fmt == "mtx" and max(case.all_ids()) >= 2**64 - 1 and min(case.all_ids()) == 0:
        with pytest.raises(ValueError, match="1-based"):
            g.export(tmp_path / "out", fmt)
        return
    count = g.export(tmp_path / "out", fmt)
    got = read_export(tmp_path / "out", fmt, case.weighted, case.directed)
    assert count == len(got) == g.num_edges
    want = canonical(kept_edges(case), case.directed, drop_weights=not case.weighted or fmt == "el")
    assert canonical(got, case.directed, drop_weights=False) == want


def test_reimport_of_export_is_identical(tmp_path: Path) -> None:
    case = random_case(7)
    src, dst = case.arrays()
    g = diskgraph.from_edges(src, dst, tmp_path / "a", weights=case.weights, directed=case.directed)
    fmt = "wel" if case.weighted else "el"
    g.export(tmp_path / "a.txt", fmt)
    h = diskgraph.import_file(
        tmp_path / "a.txt", tmp_path / "b", format=fmt, undirected=not case.directed, weighted=case.weighted
    )
    h.export(tmp_path / "b.txt", fmt)
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    assert h.num_edges == g.num_edges and h.directed == g.directed


def test_mtx_export_shifts_zero_based_ids(tmp_path: Path) -> None:
    g = diskgraph.from_edges(np.array([0, 1]), np.array([1, 2]), tmp_path / "g")
    g.export(tmp_path / "g.mtx", "mtx")
    text = (tmp_path / "g.mtx").read_text()
    assert "shifted by +1" in text
    assert read_export(tmp_path / "g.mtx", "mtx", False, True) == [(0, 1, None), (1, 2, None)]
    h = diskgraph.import_file(tmp_path / "g.mtx", tmp_path / "h")
    assert h.vertex_ids().tolist() == [1, 2, 3] and h.num_edges == 2


def test_export_refuses_existing_output_and_bad_format(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1], [2], tmp_path / "g")
    (tmp_path / "out.el").write_text("keep me\n")
    with pytest.raises(diskgraph.OutputExistsError, match="out.el"):
        g.export(tmp_path / "out.el")
    assert (tmp_path / "out.el").read_text() == "keep me\n"
    assert g.export(tmp_path / "out.el", force=True) == 1
    assert (tmp_path / "out.el").read_text() == "1 2\n"
    with pytest.raises(ValueError, match="unknown export format"):
        g.export(tmp_path / "x", "graphml")
    with pytest.raises(ValueError, match="unweighted"):
        g.export(tmp_path / "x", "wel")
