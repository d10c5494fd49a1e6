#!/usr/bin/env python3
"""Shard-engine benchmark (GraphChi's parallel sliding windows with Greedy Shard Caching, Li and
Zheng), one invocation, every out-of-core run under a cgroup memory limit with the page cache
dropped before it, every ratio between runs of this invocation.

Per graph (Kronecker 22 and a graph of testdata/real), on one shards layout partitioned for
the smallest budget (--partition-memory, GraphChi's own sizing):

(a) the GSC paper's Figures 2 and 6: pagerank (10 iterations), wcc and triangles at budgets from
    the smallest that holds an interval (for triangles, that plus a byte per arc for its held
    lists) to one that caches every block, each with --gsc false
    (GraphChi: write back and drop every block after each interval) and --gsc true: time and
    bytes read + written, and their ratios;
(b) pagerank (10 iterations) at --anchor-memory (256 MiB) on the shard engine and on the
    selective engine, against the anchors measured for the issue on this machine type:
    GraphChi 106 s, GridGraph 13.6-31.6 s.

The device's own sequential 1 MiB and random 4 KiB rates are measured first. Writes JSON
(--out) and prints Markdown tables.

    python3 bench/shards.py [--graphs k22,cnr] [--work DIR] [--points 5] [--only a,b]
"""

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, hold_freed_pages, run, run_stats
from sync import device, table

MiB = 1 << 20
DATA = Path(__file__).resolve().parents[1] / "testdata" / "real"
ALGORITHMS = {"pagerank": ["--iterations", "10"], "wcc": [], "triangles": []}
GRAPHCHI_PAGERANK_SECONDS = 106.0


def ensure_graph(dg: str, work: Path, name: str) -> Path:
    path = work / name
    if name.startswith("k"):
        ensure_kronecker(dg, path, int(name[1:3]), weighted=False, memory="4GiB")
    elif name == "cnr" and not (path / "manifest.json").exists():
        run([dg, "import", str(DATA / "cnr-2000" / "cnr-2000.graph"), "-o", str(path), "--force"])
    return path


def ensure_shards(dg: str, graph: Path, memory: int) -> str:
    """Partitions `graph` for `memory` (GraphChi's sizing) unless it has a shards layout."""
    m = json.loads((graph / "manifest.json").read_text())
    for layout in m.get("layouts", []):
        if isinstance(layout, dict) and layout.get("kind") == "shards":
            return layout["name"]
    out, _ = run([dg, "partition", str(graph), "--shards", "auto", "--memory", str(memory)])
    print(out.strip())
    return ensure_shards(dg, graph, memory)


def minimum_budget(dg: str, graph: Path, layout: str, algo: str) -> int:
    """The smallest budget the shard engine runs `algo` in, from its refusal of 4 KiB."""
    p = subprocess.run(
        [dg, "run", algo, str(graph), "--engine", "shards", "--layout", layout, "--memory", "4096"],
        capture_output=True, text=True,
    )
    found = re.search(r"at least .*?\((\d+) bytes\)", p.stderr)
    if not found:
        raise SystemExit(f"cannot read the minimum budget from: {p.stderr}")
    return int(found.group(1))


class Suite:
    """`diskgraph run` with caches dropped before each run; out-of-core runs in a cgroup limited
    to their budget plus a bound on their O(V) state."""

    def __init__(self, dg: str, work: Path) -> None:
        self.dg = dg
        self.work = work
        self.cgroup = MemoryCgroup("diskgraph-bench-shards", 1 << 30)

    def run(self, graph: Path, algo: str, engine: str, memory: int, extra: list[str]) -> dict:
        m = json.loads((graph / "manifest.json").read_text())
        limit = memory + 64 * m["num_vertices"] + 200 * MiB
        (self.cgroup.path / "memory.limit_in_bytes").write_text(str(limit))
        cmd = [self.dg, "run", algo, str(graph), "--engine", engine, "--memory", str(memory), *ALGORITHMS[algo], *extra]
        drop_caches()
        s = run_stats(cmd, self.work / "stats.json", self.cgroup)
        return {
            "graph": graph.name,
            "algorithm": algo,
            "engine": engine,
            "memory": memory,
            "flags": " ".join(extra),
            "wall_seconds": s["wall_seconds"],
            "compute_seconds": s["compute_seconds"],
            "bytes_read": s["bytes_read"],
            "bytes_written": s.get("bytes_written", 0),
            "io_MiB": (s["bytes_read"] + s.get("bytes_written", 0)) / MiB,
            "iterations": s["iterations"],
            "cgroup_limit": limit,
            "settings": {k: v for k, v in s["settings"].items() if k.startswith("block") or k in ("layout", "gsc")},
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="k22,cnr")
    ap.add_argument("--work", default=str(Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench" / "shards"))
    ap.add_argument("--points", type=int, default=5, help="budgets per sweep in (a)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--partition-memory", type=int, default=64 * MiB, help="the budget the layout is sized for")
    ap.add_argument("--anchor-memory", type=int, default=256 * MiB)
    ap.add_argument("--only", default="a,b")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    dg = diskgraph_binary()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    hold_freed_pages()
    su = Suite(dg, work)
    only = set(a.only.split(","))
    report: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "graphs": {}}
    try:
        for name in a.graphs.split(","):
            g = ensure_graph(dg, work, name)
            m = json.loads((g / "manifest.json").read_text())
            layout = ensure_shards(dg, g, a.partition_memory)
            r: dict = {"num_arcs": m["num_arcs"], "layout": layout, "device": device(dg, g)}
            print(f"\n## {name}: {m['num_vertices']} vertices, {m['num_arcs']} arcs, layout {layout}", flush=True)
            if "a" in only:
                rows = []
                for algo in a.algorithms.split(","):
                    low = minimum_budget(dg, g, layout, algo)
                    if algo == "triangles":
                        # At the bare minimum its held lists get 64 KiB: a pass per 64 KiB.
                        low += m["num_arcs"]
                    high = low + 16 * m["num_arcs"]
                    budgets = [int(low * (high / low) ** (i / (a.points - 1))) for i in range(a.points)]
                    for memory in budgets:
                        off = su.run(g, algo, "shards", memory, ["--layout", layout, "--gsc", "false"])
                        on = su.run(g, algo, "shards", memory, ["--layout", layout])
                        on["speedup_vs_graphchi"] = off["compute_seconds"] / max(on["compute_seconds"], 1e-9)
                        on["io_ratio_vs_graphchi"] = off["io_MiB"] / max(on["io_MiB"], 1e-9)
                        rows += [off, on]
                        print(table([off, on], ["algorithm", "memory", "flags", "compute_seconds", "io_MiB",
                                                "speedup_vs_graphchi", "io_ratio_vs_graphchi"]), flush=True)
                r["gsc_sweep"] = rows
            if "b" in only and name.startswith("k"):
                shards = su.run(g, "pagerank", "shards", a.anchor_memory, [])
                selective = su.run(g, "pagerank", "selective", a.anchor_memory, [])
                for x in (shards, selective):
                    x["vs_graphchi_anchor"] = GRAPHCHI_PAGERANK_SECONDS / x["wall_seconds"]
                rows = [shards, selective]
                print(table(rows, ["engine", "memory", "wall_seconds", "io_MiB", "vs_graphchi_anchor"]), flush=True)
                r["anchor"] = rows
            report["graphs"][name] = r
    finally:
        su.cgroup.close()
        out = Path(a.out) if a.out else work / f"shards-{time.strftime('%Y%m%d-%H%M%S')}.json"
        out.write_text(json.dumps(report, indent=1))
        print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
