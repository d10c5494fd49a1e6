#!/usr/bin/env python3
"""Two builds of diskgraph on the same runs, alternating run by run so that the device's drift
from one minute to the next falls on both alike: the check that a change keeps the engines'
speed. Each run starts with the page cache dropped, under a cgroup memory limit (the budget,
O(V) vertex state and slack), on a Kronecker graph generated once.

    python3 bench/ab.py BEFORE AFTER [--scale 21] [--memory 64MiB] [--engine selective]
                        [--only bfs,wcc,pagerank] [--runs 25]

BEFORE and AFTER are `diskgraph` binaries; prints each algorithm's median wall time under
both and their ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from common import MemoryCgroup, drop_caches, ensure_kronecker, hold_freed_pages, run, run_stats
from selective import parse_size

ALGORITHMS = {"bfs": ["--source", "max-degree"], "wcc": [], "pagerank": ["--tolerance", "1e-9"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="the diskgraph binary before the change")
    ap.add_argument("after", help="the diskgraph binary after the change")
    ap.add_argument("--scale", type=int, default=21)
    ap.add_argument("--memory", default="64MiB")
    ap.add_argument("--engine", default="selective")
    ap.add_argument("--only", default=",".join(ALGORITHMS), help="comma-separated: bfs, wcc, pagerank")
    ap.add_argument("--runs", type=int, default=25, help="runs of each binary per algorithm")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    a = ap.parse_args()
    hold_freed_pages()
    a.work.mkdir(parents=True, exist_ok=True)
    graph = a.work / f"kron{a.scale}"
    ensure_kronecker(a.after, graph, a.scale, False)
    info = json.loads(run([a.after, "info", str(graph), "--json"])[0])
    limit = parse_size(a.memory) + 96 * info["num_vertices"] + (192 << 20)
    cgroup = MemoryCgroup("diskgraph-ab", limit)
    binaries = {"before": a.before, "after": a.after}
    walls: dict[tuple[str, str], list[float]] = {}
    for i in range(a.runs):
        for algo in a.only.split(","):
            for which in (("before", "after") if i % 2 == 0 else ("after", "before")):
                drop_caches()
                cgroup.reset_max()
                cmd = [binaries[which], "run", algo, str(graph), "--engine", a.engine, "--memory", a.memory,
                       *ALGORITHMS[algo]]
                stats = run_stats(cmd, a.work / "ab-stats.json", cgroup)
                walls.setdefault((algo, which), []).append(stats["wall_seconds"])
    cgroup.close()
    print("| algorithm | runs | before s | after s | after / before |\n|---|---:|---:|---:|---:|")
    for algo in a.only.split(","):
        before, after = statistics.median(walls[(algo, "before")]), statistics.median(walls[(algo, "after")])
        print(f"| {algo} | {a.runs} | {before:.3f} | {after:.3f} | ×{after / before:.3f} |")


if __name__ == "__main__":
    main()
