"""Compressed-only graphs from Python (``compress=CODEC, keep_plain=False``): no ``out.adj`` is
written, and the graph opens, verifies, reads (``neighbors``, ``edges``, ``to_scipy``,
``degree``) and runs on every engine exactly as the same graph stored plain; ``adjacency="plain"``
is refused naming the graph as compressed-only."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import diskgraph
from helpers import build, random_case


def test_a_compressed_only_graph_opens_reads_and_runs(tmp_path: Any) -> None:
    for seed in (0, 3, 7):
        case = random_case(seed)
        plain = build(case, tmp_path / f"plain-{seed}")
        for codec in diskgraph.codecs():
            path = tmp_path / f"{codec}-{seed}"
            g = build(case, path, compress=codec, keep_plain=False)
            assert not (path / "out.adj").exists() and (path / f"compressed-{codec}" / "out.cadj").exists()
            layouts = [l for l in g.manifest["layouts"] if l["kind"] == "compressed"]
            assert [l["name"] for l in layouts] == [f"compressed-{codec}"] and "lists" in layouts[0]
            assert g.verify()["arcs_checked"] == plain.verify()["arcs_checked"]
            for v in plain.vertex_ids()[:20]:
                assert np.array_equal(g.neighbors(v), plain.neighbors(v))
            for a, b in zip(g.edges(), plain.edges()):
                assert (a is None and b is None) or np.array_equal(a, b)
            assert (g.to_scipy() != plain.to_scipy()).nnz == 0
            assert np.array_equal(g.degree(), plain.degree())
            for engine in ("memory", "selective", "sync"):
                got = g.run("wcc", engine=engine, verify=True).to_dict()
                assert got == plain.run("wcc", engine="memory").to_dict(), (seed, codec, engine)
            with pytest.raises(Exception, match="compressed-only"):
                g.run("wcc", engine="memory", adjacency="plain")
            g.close()
        plain.close()
