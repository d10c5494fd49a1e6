"""Compressed adjacency from Python: ``Graph.compress`` makes the layout (its report, the manifest
and ``diskgraph info`` show it), the importers' ``compress=`` make it while importing, runs read
it by default and equal the plain lists' results (``adjacency="plain"``) on the memory and sync
engines, and ``Graph.sync`` reads it too; ``partition_shards(compress=)`` and
``partition(compress=)`` make compressed shards and grids whose runs equal the plain layouts'."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any, Dict

import numpy as np
import pytest

import diskgraph
from helpers import build, random_case


def compressed_layouts(g: diskgraph.Graph) -> Dict[str, Any]:
    """The manifest's compressed layouts, by name."""
    return {l["name"]: l for l in g.manifest.get("layouts", []) if l["kind"] == "compressed"}


def test_compress_reports_and_info_shows_it(tmp_path: Any) -> None:
    g = build(random_case(3), tmp_path / "g")
    assert diskgraph.codecs()[0] == "vbyte"
    assert compressed_layouts(g) == {}
    made = g.compress()
    arcs = g.num_arcs * (2 if g.directed else 1)
    assert made["name"] == "compressed-vbyte" and made["codec"] == "vbyte"
    assert made["arcs"] == arcs and made["plain_bytes"] == 4 * arcs
    assert 0 < made["list_bytes"] < made["plain_bytes"]
    assert made["bytes_per_arc"] == pytest.approx(made["list_bytes"] / arcs)
    assert set(compressed_layouts(g)) == {"compressed-vbyte"}
    assert g.verify()["files_checked"] > 0
    with pytest.raises(diskgraph.OutputExistsError):
        g.compress("vbyte")
    assert g.compress("vbyte", force=True)["list_bytes"] == made["list_bytes"]
    with pytest.raises(ValueError, match="unknown codec"):
        g.compress("gzip")
    exe = shutil.which("diskgraph")
    assert exe, "the diskgraph command is on PATH"
    info = subprocess.run([exe, "info", str(g.path)], check=True, capture_output=True, text=True).stdout
    assert "compressed-vbyte" in info and "vbyte codec" in info, info


def test_importers_compress(tmp_path: Any) -> None:
    el = tmp_path / "g.el"
    el.write_text("0 1\n1 2\n2 0\n2 3\n")
    g = diskgraph.import_file(el, tmp_path / "a", compress="vbyte")
    assert set(compressed_layouts(g)) == {"compressed-vbyte"}
    assert g.import_summary is not None and g.import_summary["compressed"]["arcs"] == 8
    h = diskgraph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), compress="vbyte")
    assert set(compressed_layouts(h)) == {"compressed-vbyte"}
    with pytest.raises(ValueError, match="unknown codec"):
        diskgraph.import_file(el, tmp_path / "b", compress="nope")
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("seed", [0, 5])
def test_runs_over_compressed_lists_equal_the_plain_lists(seed: int, tmp_path: Any) -> None:
    g = build(random_case(seed), tmp_path / "g")
    g.compress()
    runs = [("bfs", {}), ("wcc", {}), ("pagerank", {"max_iterations": 5, "allow_unconverged": True})]
    if g.weighted:
        runs.append(("sssp", {}))
    for engine in ("memory", "sync"):
        for algorithm, opts in runs:
            try:
                plain = g.run(algorithm, engine=engine, adjacency="plain", **opts)
            except ValueError as e:  # an algorithm the engine does not run
                assert "engine" in str(e), e
                continue
            packed = g.run(algorithm, engine=engine, memory="1MiB" if engine != "memory" else None, **opts)
            assert packed.stats["settings"]["adjacency"] == "compressed-vbyte", (engine, algorithm)
            assert plain.stats["settings"]["adjacency"] == "plain", (engine, algorithm)
            np.testing.assert_array_equal(packed.vertex_ids, plain.vertex_ids)
            np.testing.assert_allclose(packed.values, plain.values, rtol=1e-6, err_msg=f"{engine} {algorithm}")


def test_sync_handle_reads_compressed_lists(tmp_path: Any) -> None:
    g = build(random_case(7), tmp_path / "g")
    g.compress()
    plain = g.sync(adjacency="plain", in_edges=True, weights=g.weighted)
    packed = g.sync(memory="1MiB", index_summary=True, in_edges=True, weights=g.weighted)
    assert packed.stats()["settings"]["adjacency"] == "compressed-vbyte"
    for v in g.vertex_ids():
        for d in ("out", "in"):
            np.testing.assert_array_equal(packed.neighbors(int(v), d), plain.neighbors(int(v), d))
            if g.weighted:
                np.testing.assert_array_equal(packed.weights(int(v), d), plain.weights(int(v), d))


@pytest.mark.parametrize("seed", [1, 4])
def test_compressed_shards_and_grids_run_as_the_plain_ones(seed: int, tmp_path: Any) -> None:
    g = build(random_case(seed), tmp_path / "g")
    plain = g.partition_shards(shards=3, block_size="4KiB")
    made = g.partition_shards(shards=3, block_size="4KiB", compress="vbyte")
    assert (plain["name"], made["name"]) == ("shards-3", "shards-3-vbyte")
    record = {l["name"]: l for l in g.manifest["layouts"]}["shards-3-vbyte"]
    assert record["compressed"] == "vbyte", record
    opts: Dict[str, Any] = {"engine": "shards", "memory": "4MiB", "iterations": 5, "allow_unconverged": True}
    want = g.pagerank(layout="shards-3", **opts)
    got = g.pagerank(layout="shards-3-vbyte", **opts)
    assert got.stats["settings"]["layout"] == "shards-3-vbyte"
    assert got.stats["settings"]["layout_compressed"] == "vbyte"
    np.testing.assert_array_equal(got.vertex_ids, want.vertex_ids)
    np.testing.assert_array_equal(got.values, want.values)
    assert g.partition(grid=2)["name"] == "grid-2"
    grid = g.partition(grid=2, compress="zeta")
    assert grid["name"] == "grid-2-zeta", grid
    stream: Dict[str, Any] = {"engine": "stream", "iterations": 5, "allow_unconverged": True}
    streamed = g.pagerank(layout="grid-2-zeta", **stream)
    assert streamed.stats["settings"]["layout"] == "grid-2-zeta"
    np.testing.assert_array_equal(streamed.values, g.pagerank(layout="grid-2", **stream).values)
    with pytest.raises(ValueError, match='unknown codec "lz4"'):
        g.partition_shards(shards=2, compress="lz4")
    with pytest.raises(ValueError, match='unknown codec "lz4"'):
        g.partition(grid=2, compress="lz4")
    assert not any("lz4" in l["name"] for l in g.manifest["layouts"])
