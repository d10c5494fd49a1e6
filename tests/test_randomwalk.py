"""Random walks with restart against NetworkX's personalised PageRank, and their determinism.

With ``damping`` < 1, the visit counts of ``walks`` walks of ``length`` steps, divided by
``walks * (length + 1)``, tend to ``networkx.pagerank(G, alpha=damping, personalization=p)``
where ``p`` weighs each source by how often it is listed (restarts pick a slot uniformly;
NetworkX's dangling nodes also jump by ``p``, as walks restart there). The total-variation
distance has two parts:

- Bias, from starting at the sources rather than from the stationary distribution: a walk from
  anywhere and one from the stationary distribution restart together, at the same slot, with
  probability at least 1 - alpha each step, so step t is within alpha**t of stationary and the
  average over the length + 1 steps within 1 / ((length + 1) (1 - alpha)): 0.0033 for length
  2000 at alpha 0.85.
- Noise: one walk's positions are correlated over about (1 + alpha) / (1 - alpha) steps (12 at
  alpha 0.85), so the N = walks * (length + 1) visits weigh like N / 12 independent draws, and
  E|f_v - pi_v| is about sqrt(12 pi_v / N); summed over v, at most sqrt(12 n / N) / 2 in total
  variation (Cauchy-Schwarz): 0.0046 for n = 70, N = 10**7.

TOLERANCE = 0.02 is the bias bound plus more than three times the largest noise scale of these
graphs (the distances measured are about 0.001: both bounds are loose); the distance to PageRank
with another alpha, or to the unpersonalised PageRank, is at least three times the tolerance on
each graph, so the comparison tells them apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import networkx as nx
import numpy as np
import pytest

import diskgraph

WALKS = 5000
LENGTH = 2000
TOLERANCE = 0.02


def graphs() -> Dict[str, Any]:
    directed = nx.gnp_random_graph(70, 0.04, seed=3, directed=True)  # dangling vertices too
    loops = nx.DiGraph(nx.cycle_graph(30, create_using=nx.DiGraph))
    loops.add_edges_from([(0, 0), (7, 7), (7, 7), (12, 3), (29, 15), (15, 22)])
    multi = nx.MultiDiGraph(nx.gnm_random_graph(40, 120, seed=8, directed=True))
    multi.add_edges_from([(1, 2), (1, 2), (1, 2), (5, 9), (9, 5), (9, 5)])
    huge = nx.relabel_nodes(nx.karate_club_graph(), {v: 2**63 + 1_000_003 * v for v in range(34)})
    return {"karate": nx.karate_club_graph(), "directed": directed, "loops": loops, "multi": multi, "huge": huge}


SOURCES: Dict[str, List[int]] = {
    "karate": [0],
    "directed": [3, 7, 3],
    "loops": [0, 20],
    "multi": [1, 9, 1, 30],
    "huge": [2**63 + 1_000_003 * 33, 2**63],
}


def personalization(sources: List[int]) -> Dict[int, float]:
    p: Dict[int, float] = {}
    for s in sources:
        p[s] = p.get(s, 0.0) + 1.0
    return p


def imported(G: Any, path: Path) -> diskgraph.Graph:
    return diskgraph.from_networkx(G, path, weight=None, keep_self_loops=True, keep_duplicates=True)


def distance(result: diskgraph.Result, ranks: Dict[int, float]) -> float:
    """Total variation between the visits' shares and `ranks`."""
    shares = result.values / result.values.sum()
    return 0.5 * sum(abs(f - ranks[v]) for v, f in zip(result.vertex_ids.tolist(), shares.tolist()))


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("damping", [0.85, 0.6])
def test_visit_shares_approach_personalised_pagerank(tmp_path: Path, name: str, damping: float) -> None:
    G = graphs()[name]
    g = imported(G, tmp_path / "g")
    sources = SOURCES[name]
    r = g.randomwalk(sources, walks=WALKS, length=LENGTH, damping=damping, seed=11)
    assert r.values.dtype == np.uint64 and len(r) == G.number_of_nodes()
    assert int(r.values.sum()) == WALKS * (LENGTH + 1)
    assert r.stats["settings"]["sources"] == sources
    p = personalization(sources)
    ppr = nx.pagerank(G, alpha=damping, personalization=p, weight=None, tol=1e-13, max_iter=10_000)
    tv = distance(r, ppr)
    assert tv < TOLERANCE, (name, damping, tv)
    # The tolerance tells the right ranks from others.
    other = nx.pagerank(G, alpha=1.45 - damping, personalization=p, weight=None, tol=1e-13, max_iter=10_000)
    plain = nx.pagerank(G, alpha=damping, weight=None, tol=1e-13, max_iter=10_000)
    for wrong in (other, plain):
        assert distance(r, wrong) > 3 * TOLERANCE, (name, damping, distance(r, wrong))


def test_visits_repeat_per_seed(tmp_path: Path) -> None:
    g = imported(graphs()["directed"], tmp_path / "g")

    def run(seed: int, threads: int) -> np.ndarray:
        return g.randomwalk([3, 7, 3], walks=3000, length=30, seed=seed, threads=threads).values

    first = run(5, 1)
    assert np.array_equal(run(5, 1), first)
    assert np.array_equal(run(5, 2), first), "the thread count changes nothing"
    other = run(6, 2)
    assert not np.array_equal(other, first)
    assert int(other.sum()) == int(first.sum()) == 3000 * 31
    # Sampled sources are drawn with the seed too; the default run is the documented one.
    default = g.randomwalk()
    assert default.stats["settings"]["walks"] == 10_000 and default.stats["settings"]["length"] == 20
    assert len(default.stats["settings"]["sources"]) == 64


def test_length_zero_is_the_deal_and_bad_dampings_are_refused(tmp_path: Path) -> None:
    g = imported(graphs()["karate"], tmp_path / "g")
    r = g.randomwalk([4, 0, 4], walks=8, length=0).to_dict()
    assert (r[4], r[0]) == (3 + 2, 3) and sum(r.values()) == 8
    with pytest.raises(ValueError, match=r"damping must be in \[0, 1\]"):
        g.randomwalk([0], damping=1.5)
