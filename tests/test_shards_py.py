"""The shard engine from Python: Graph.partition_shards publishes GraphChi's shards; wcc,
pagerank and triangles on ``engine="shards"`` agree with NetworkX, and randomwalk with the
memory engine bit for bit, on seeded random graphs with the nasty cases, with GSC on and off,
in parallel and deterministic order, over several shard counts; options and errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import diskgraph
from helpers import build, min_labels, options_graph, random_case, reference_graph

SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_shards_against_networkx(seed: int, tmp_path) -> None:
    case = random_case(seed)
    g = build(case, tmp_path / "g")
    G = reference_graph(case)
    ids = [int(x) for x in g.vertex_ids()]
    n = (1, 3, 7)[seed % 3]
    summary = g.partition_shards(shards=n, block_size="4KiB")
    assert summary["name"] == f"shards-{n}" and summary["num_shards"] == n
    opts = {
        "engine": "shards",
        "gsc": seed % 2 == 0,
        "deterministic": seed // 2 % 2 == 1,
        "memory": "4MiB",
    }

    comps = nx.weakly_connected_components(G) if case.directed else nx.connected_components(G)
    r = g.wcc(**opts)
    assert r.stats["engine"] == "shards" and r.stats["settings"]["layout"] == f"shards-{n}"
    assert r.stats["settings"]["gsc"] == opts["gsc"]
    assert r.values.tolist() == min_labels(comps, ids)

    pr = g.pagerank(tolerance=1e-12, **opts).values
    ref = nx.pagerank(options_graph(case), alpha=0.85, tol=1e-12, max_iter=100_000, weight=None)
    np.testing.assert_allclose(pr, [ref[x] for x in ids], rtol=1e-5, atol=1e-9)

    U = nx.Graph(G.to_undirected())
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    tri = nx.triangles(U)
    t = g.triangles(**opts)
    assert t.values.tolist() == [tri[x] for x in ids]
    assert t.stats["settings"]["triangles"] == sum(tri.values()) // 3

    walks = {"walks": 3000, "length": 15, "seed": seed}
    mem = g.randomwalk(engine="memory", **walks).values
    assert g.randomwalk(**walks, **opts).values.tolist() == mem.tolist()


def test_options_and_errors(tmp_path) -> None:
    g = build(random_case(4), tmp_path / "g")
    with pytest.raises(ValueError, match="--shards"):
        g.wcc(engine="shards")
    # No layout runs in 64 KiB (an interval's arrays alone take that): refused with the least.
    with pytest.raises(ValueError, match=r"no shards layout of .* give memory=\S+ or more"):
        g.partition_shards(memory="64KiB", block_size="4KiB")
    assert not any(l["kind"] == "shards" for l in g.manifest["layouts"])
    s = g.partition_shards(memory="1MiB", block_size="4KiB")
    assert s["shards_from_budget"] and not s["block_from_budget"] and s["num_arcs"] == g.num_arcs
    assert 0 < s["min_memory"] <= 1 << 20
    record = next(l for l in g.manifest["layouts"] if l["kind"] == "shards")
    assert record["name"] == s["name"] and record["block_bytes"] == 4096
    with pytest.raises(diskgraph.OutputExistsError):
        g.partition_shards(shards=s["num_shards"], block_size="4KiB")
    with pytest.raises(ValueError):
        g.partition_shards(shards=0)
    with pytest.raises(ValueError, match="give it at least"):
        g.wcc(engine="shards", memory="4KiB")
    r = g.pagerank(engine="shards", iterations=3, gsc=False, memory="8MiB")
    # Ranks stay in memory: pagerank reads the memory shards and writes nothing.
    assert r.stats["bytes_written"] == 0 and r.stats["iterations"] == 3
    # wcc's labels travel on edge values, written back after every interval without GSC.
    assert g.wcc(engine="shards", gsc=False, memory="8MiB").stats["bytes_written"] > 0


def _quoted_after(message: str, after: str) -> list:
    """The arguments of the command quoted after ``after`` in ``message``."""
    rest = message[message.index(after) + len(after) :]
    start = rest.index("`diskgraph ") + len("`diskgraph ")
    return rest[start : rest.index("`", start)].split()


def test_a_refused_budget_names_the_layout_that_fits(tmp_path) -> None:
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 2000, 20000), rng.integers(0, 2000, 20000)
    g = diskgraph.from_edges(src, dst, tmp_path / "g", directed=True)
    # Four shards of 1 MiB blocks need megabytes: the same shards in smaller blocks fit 2 MiB.
    g.partition_shards(shards=4, block_size="1MiB")
    with pytest.raises(ValueError, match="give it at least") as e:
        g.pagerank(engine="shards", memory="2MiB")
    rebuild = _quoted_after(str(e.value), "or rebuild it with smaller blocks: ")
    assert rebuild[:4] == ["partition", str(tmp_path / "g"), "--shards", "4"], str(e.value)
    block = rebuild[rebuild.index("--block-size") + 1]
    s = g.partition_shards(shards=4, block_size=block, force=True)
    assert s["min_memory"] <= 2 << 20
    assert g.pagerank(engine="shards", memory="2MiB", iterations=2).stats["iterations"] == 2
    # Below what any layout needs: the smallest budget one runs in, and the partition for it.
    with pytest.raises(ValueError) as e:
        g.wcc(engine="shards", memory="80KiB")
    fix = _quoted_after(str(e.value), "no shards layout of this graph runs within 80KiB")
    assert fix[:5] == ["partition", str(tmp_path / "g"), "--shards", "auto", "--memory"], str(e.value)
    least = fix[5]
    s = g.partition_shards(memory=least)
    assert s["shards_from_budget"] and s["min_memory"] <= diskgraph.parse_size(least)
    r = g.wcc(engine="shards", memory=least, layout=s["name"])
    assert r.stats["engine"] == "shards"
