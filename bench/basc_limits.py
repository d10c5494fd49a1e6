#!/usr/bin/env python3
"""How much a static cache could gain on a graph, and whether packing the lists it leaves to the
page cache would help (issue 5: why GVS falls short of the page cache on the real graphs).

At the sizes of `caches.py`'s section (a) — page cache 5% + BAsC X% of `out.adj` against a page
cache of the same total — on the selective engine, every run under the cgroup with the page cache
dropped, each the run of median wall time of `--repeat`:

- **bound**: a static cache holding every list, its loading left out, and a page cache holding
  the whole graph, against the page cache alone at each total. No static cache of X% can gain
  more than the first does.
- **packed**: the graph relabelled so that the vertices of the X% GVS selection come last, in
  their order, after the others in theirs. The lists the static cache leaves to the page cache
  are then packed together instead of sharing pages with the cached ones. GVS is run again on
  the packed graph (same size, K and pages), against GVS on the graph as given, both against the
  page cache alone on the graph as given. The page cache alone runs on the packed graph too:
  packing is also an ordering (the lists GVS leaves, mostly the long ones, first), and that run
  tells the ordering's part from the static cache's.

The GVS selections are `caches.py`'s (`gvs<X·1000>k<K>[-<pages>]`), made when missing. The packed
graphs are kept beside the graph as `<graph>-packed-<selection>` (a selection models its pages, so
each page size packs its own).

    python3 bench/basc_limits.py GRAPH [--basc-sizes 0.1,0.2,0.3,0.4] [--page-size 8KiB]
                                 [--repeat 5] [--report bench/out/basc_limits.json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from statistics import harmonic_mean

import numpy as np

import diskgraph
from caches import ALGOS, WHOLE_GRAPH, Suite, adj_bytes, page_only, with_basc
from common import diskgraph_binary, hold_freed_pages, run


def every_list_bytes(arcs: int, vertices: int) -> int:
    """Bytes of a static cache holding every list (docs/FORMAT.md: 4 per edge, 5 per list, 12
    per 64 vertices, 12 more)."""
    return 4 * arcs + 5 * vertices + 12 * (vertices // 64 + 1) + 12


def selected(graph: Path, name: str) -> np.ndarray:
    """The internal IDs a published selection holds (docs/FORMAT.md: `vertices.u32`)."""
    meta = json.loads((graph / f"basc-{name}" / "basc.json").read_text())
    return np.fromfile(graph / f"basc-{name}" / "vertices.u32", dtype="<u4")[: meta["count"]]


def packed(graph: Path, chosen: np.ndarray, out: Path) -> Path:
    """Writes `graph` relabelled with the vertices of `chosen` last (see the module doc), unless
    it is already there; the new IDs are the new internal order."""
    if (out / "manifest.json").exists():
        return out
    g = diskgraph.open(graph)
    n = g.num_vertices
    last = np.zeros(n, dtype=bool)
    last[chosen] = True
    label = np.empty(n, dtype=np.uint64)
    label[~last] = np.arange(n - chosen.size, dtype=np.uint64)
    label[last] = np.arange(n - chosen.size, n, dtype=np.uint64)
    edges = out.parent / f"{out.name}.el"
    g.export(edges, "el", force=True)
    src, dst = np.loadtxt(edges, dtype=np.uint64, comments="#", ndmin=2).T
    edges.unlink()
    original_ids = g.vertex_ids()
    internal = np.argsort(original_ids)
    ids = original_ids[internal]

    def relabel(original: np.ndarray) -> np.ndarray:
        return label[internal[np.searchsorted(ids, original)]]

    diskgraph.from_edges(relabel(src), relabel(dst), out, directed=g.directed, vertices=label, force=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", type=Path, help="a graph directory (caches.py's work directory holds them)")
    ap.add_argument("--basc-sizes", default="0.1,0.2,0.3,0.4")
    ap.add_argument("--page-size", default="8KiB")
    ap.add_argument("--gvs-k", type=int, default=100)
    ap.add_argument("--bc-samples", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--report", type=Path, default=Path(__file__).parent / "out" / "basc_limits.json")
    a = ap.parse_args()
    dg = diskgraph_binary()
    hold_freed_pages()
    g: Path = a.graph
    s = Suite(dg, g.parent, a.bc_samples, a.gvs_k, None, a.page_size, reuse_selections=True, repeat=a.repeat)
    size = adj_bytes(dg, g)
    sizes = [float(x) for x in a.basc_sizes.split(",")]
    everything = "gvs-all"
    share = every_list_bytes(size // 4, s.num_vertices(g))
    if not (g / f"basc-{everything}" / "basc.json").exists():
        run([dg, "select", str(g), "--method", "gvs", "--size", str(share), "--page-size", a.page_size,
             "--name", everything])
    for algo in ALGOS:
        page_only(s, g, algo, WHOLE_GRAPH, size, {"setup": "page, whole graph"})
        with_basc(s, g, algo, everything, 0.05, share / size + 0.01, size, {"setup": "static, every list"})
    for x in sizes:
        name, _ = s.select(g, "gvs", x)
        other = packed(g, selected(g, name), g.with_name(f"{g.name}-packed-{name}"))
        again, _ = s.select(other, "gvs", x)
        for algo in ALGOS:
            page_only(s, g, algo, 0.05 + x, size, {"setup": "page", "basc": x})
            with_basc(s, g, algo, name, 0.05, x, size, {"setup": "gvs", "basc": x})
            with_basc(s, other, algo, again, 0.05, x, size, {"setup": "gvs, packed", "basc": x})
            page_only(s, other, algo, 0.05 + x, size, {"setup": "page, packed", "basc": x})
    s.flush()
    s.cgroup.close()
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps({"graph": g.name, "page_size": a.page_size, "runs": s.runs}, indent=2) + "\n")
    summarize(s.runs, sizes)


def summarize(runs: list[dict], sizes: list[float]) -> None:
    """Prints, per total, each setup's speedup over the page cache alone (harmonic mean over the
    algorithms; static caches without their loading) and the MiB each read."""
    by = {(r["setup"], r.get("basc"), r["algorithm"]): r for r in runs}

    def wall(r: dict) -> float:
        return float(r["wall"] - r["basc_load"])

    for x in sizes:
        print(f"total {0.05 + x:.2f} of out.adj (page cache alone: "
              + ", ".join(f"{a} {by['page', x, a]['wall']:.3f} s" for a in ALGOS) + ")")
        setups = (("gvs", x), ("gvs, packed", x), ("page, packed", x), ("static, every list", None),
                  ("page, whole graph", None))
        for setup, key in setups:
            ratios = [by["page", x, a]["wall"] / wall(by[setup, key, a]) for a in ALGOS]
            mib = [by[setup, key, a]["bytes_read"] >> 20 for a in ALGOS]
            print(f"  {setup:20} ×{harmonic_mean(ratios):.2f}  ("
                  + ", ".join(f"{a} ×{r:.2f}" for a, r in zip(ALGOS, ratios)) + f"; MiB read {mib})")


if __name__ == "__main__":
    main()
