#!/usr/bin/env python3
"""One session of several algorithms on one graph, as a data scientist runs them from Python:
the graph opened once and its index loaded once (`Graph.load_index`), a BAsC static cache (when
`--basc` is given) loaded once with `Graph.load_static_cache` and handed to every run, the OS
page cache dropped before each run so that nothing but the index and the static cache carries
over from one run to the next. `bench/caches.py`
(section s) starts it under its cgroup.

    python3 bench/session.py GRAPH --memory BYTES --algorithms bfs,diameter,bc[,apsp,wcc] --out SESSION.json
                             [--basc NAME --basc-fraction F] [--page-size 4KiB]
                             [--max-request 16KiB] [--bc-samples 32]

Writes {"load_seconds": index and static cache loading, "index_seconds": the index's part,
"runs": [RunStats of each run]}.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import diskgraph
from common import drop_caches

#: The options of each algorithm, as in `bench/caches.py`'s ALGOS (bc and apsp also take
#: `--bc-samples` sources).
SOURCES = {"bfs": {"source": "max-degree"}, "diameter": {"source": "max-degree"}, "bc": {}, "apsp": {},
           "wcc": {}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", type=Path)
    ap.add_argument("--memory", type=int, required=True)
    ap.add_argument("--algorithms", default="bfs,diameter,bc")
    ap.add_argument("--basc", help="a selection to load once for every run")
    ap.add_argument("--basc-fraction", type=float, default=0.5)
    ap.add_argument("--page-size", default="4KiB")
    ap.add_argument("--max-request")
    ap.add_argument("--bc-samples", type=int, default=32)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    g = diskgraph.open(a.graph)
    reading = {"max_request": a.max_request} if a.max_request else {}
    drop_caches()
    start = time.perf_counter()
    g.load_index()
    index_seconds = time.perf_counter() - start
    basc: diskgraph.StaticCache | None = None
    if a.basc:
        basc = g.load_static_cache(a.basc, memory=a.memory, basc_fraction=a.basc_fraction, **reading)
    load_seconds = time.perf_counter() - start
    runs: list[dict] = []
    for algo in a.algorithms.split(","):
        if runs:
            drop_caches()
        sampled = {"bc": {"samples": a.bc_samples}, "apsp": {"sources": a.bc_samples}}
        options = {**SOURCES[algo], **sampled.get(algo, {})}
        r = g.run(algo, engine="selective", memory=a.memory, retain_lists=False, page_size=a.page_size,
                  basc=basc, **({"basc_fraction": a.basc_fraction} if basc else {}), **reading, **options)
        runs.append(r.stats)
        del r  # the next run starts with no earlier result held
    report = {"load_seconds": load_seconds, "index_seconds": index_seconds, "runs": runs}
    a.out.write_text(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
