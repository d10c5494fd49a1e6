#!/usr/bin/env python3
"""Selective-engine benchmark suite (issue 3), one run, under a cgroup memory limit with the page
cache dropped before every run.

On a Kronecker graph (undirected; weighted for sssp) with `--memory` (default 256MiB) it measures
bfs, wcc, pagerank (to 1e-9), sssp, kcore, msbfs (64 sources) and spmv on the selective engine —
time, bytes read, I/O utility, device bandwidth achieved — and reports ratios against baselines
measured in the same run: the memory engine (the ceiling), bitmap vs pluglist, 512 vs 4096-byte
blocks, uring vs pread, and the raw device (its own sequential and random read rates, measured
here with `diskgraph device`). Writes JSON and prints a Markdown table.

    python3 bench/selective.py [--scale 24] [--memory 256MiB] [--work DIR] [--quick]
"""
from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, run, run_stats

ALGORITHMS = {
    "bfs": ["--source", "max-degree"],
    "wcc": [],
    "pagerank": ["--tolerance", "1e-9"],
    "sssp": ["--source", "max-degree"],
    "kcore": [],
    "msbfs": ["--sources", "64"],
    "spmv": [],
}
# (label, algorithms, extra flags): the technique switched off or swapped, against the default.
BASELINES = [
    ("pluglist", ["bfs", "wcc"], ["--scheduler", "pluglist"]),
    ("block 4096", ["bfs", "pagerank"], ["--block-size", "4096"]),
    ("pread", ["bfs", "pagerank"], ["--io", "pread"]),
]


def parse_size(s: str) -> int:
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)i?B?", s.strip(), re.I)
    if not m:
        raise SystemExit(f"bad size {s}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]


def device_rates(dg: str, graph: Path) -> dict:
    """The device's own sequential (1 MiB) and random (4 KiB, depth 64 and 1) read rates, measured
    on the graph's largest file with O_DIRECT."""
    target = max((p for p in graph.iterdir() if p.is_file()), key=lambda p: p.stat().st_size)
    rates = {}
    for name, args in [("sequential_1MiB", ["--access", "1048576", "--depth", "16"]),
                       ("random_4KiB_qd64", ["--access", "4096", "--depth", "64", "--random"]),
                       ("random_4KiB_qd1", ["--access", "4096", "--depth", "1", "--random"]),
                       ("random_512B_qd64", ["--access", "512", "--depth", "64", "--random"])]:
        drop_caches()
        out, _ = run([dg, "device", str(target), "--json", *args])
        rates[name] = json.loads(out)
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--memory", default="256MiB")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "selective.json")
    ap.add_argument("--quick", action="store_true", help="bfs and pagerank only")
    ap.add_argument("--report", type=Path, help="print the table of an earlier run's JSON and exit")
    a = ap.parse_args()
    if a.report:
        report(json.loads(a.report.read_text()))
        return
    dg = diskgraph_binary()
    a.work.mkdir(parents=True, exist_ok=True)
    plain, weighted = a.work / f"kron{a.scale}", a.work / f"kron{a.scale}w"
    ensure_kronecker(dg, plain, a.scale, False)
    ensure_kronecker(dg, weighted, a.scale, True)
    info = json.loads(run([dg, "info", str(plain), "--json"])[0])
    budget = parse_size(a.memory)
    # The limit holds the budget, O(V) vertex state (semi-external) and the process itself, but
    # not the graph: the page cache cannot hide its I/O.
    limit = budget + 96 * info["num_vertices"] + (192 << 20)
    cgroup = MemoryCgroup("diskgraph-bench", limit)
    algos = {k: v for k, v in ALGORITHMS.items() if not a.quick or k in ("bfs", "pagerank")}

    def measure(algo: str, engine: str, extra: list[str], limited: bool) -> dict:
        graph = weighted if algo in ("sssp", "spmv") else plain
        drop_caches()
        cgroup.reset_max()
        stats = run_stats([dg, "run", algo, str(graph), "--engine", engine, "--memory", a.memory,
                           *algos.get(algo, ALGORITHMS[algo]), *extra],
                          a.work / "stats.json", cgroup if limited else None)
        stats["cgroup_max_usage"] = cgroup.max_usage() if limited else None
        return stats

    result = {"scale": a.scale, "memory": a.memory, "cgroup_limit": limit if cgroup.active else None,
              "graph_bytes": info["total_bytes"], "device": device_rates(dg, plain), "runs": []}
    for algo in algos:
        ceiling = measure(algo, "memory", [], False)
        selective = measure(algo, "selective", [], True)
        result["runs"].append({"algorithm": algo, "variant": "memory", "stats": ceiling})
        result["runs"].append({"algorithm": algo, "variant": "selective", "stats": selective})
    for label, names, extra in BASELINES:
        for algo in names:
            if algo in algos:
                result["runs"].append({"algorithm": algo, "variant": label,
                                       "stats": measure(algo, "selective", extra, True)})
    cgroup.close()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")
    report(result)
    print(f"\nJSON: {a.out}")


def report(result: dict) -> None:
    dev = result["device"]
    seq = dev["sequential_1MiB"]["bytes_per_second"]
    rnd = dev["random_4KiB_qd64"]["bytes_per_second"]
    print(f"device: sequential 1 MiB {seq / 1e9:.2f} GB/s; random 4 KiB QD64 "
          f"{dev['random_4KiB_qd64']['iops'] / 1e3:.0f}k IOPS, QD1 {dev['random_4KiB_qd1']['iops'] / 1e3:.0f}k IOPS")
    print(f"graph {result['graph_bytes'] / 2**20:.0f} MiB, budget {result['memory']}, "
          f"cgroup limit {(result['cgroup_limit'] or 0) / 2**20:.0f} MiB\n")
    runs = {(r["algorithm"], r["variant"]): r["stats"] for r in result["runs"]}
    print("| algorithm | variant | wall s | MiB read | I/O utility | MB/s over wall | × memory (cold, load incl.) "
          "| × memory compute only | × selective default |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in result["runs"]:
        s = r["stats"]
        wall = s["wall_seconds"]
        mem = runs[(r["algorithm"], "memory")]
        default = runs.get((r["algorithm"], "selective"), s)["wall_seconds"]
        bw = s["bytes_read"] / max(wall, 1e-9) / 1e6 if r["variant"] != "memory" else 0
        print(f"| {r['algorithm']} | {r['variant']} | {wall:.2f} | {s['bytes_read'] / 2**20:.0f} | "
              f"{s['io_utility']:.2f} | {bw:.0f} | {wall / mem['wall_seconds']:.2f} | "
              f"{wall / max(mem['compute_seconds'], 1e-9):.2f} | {wall / default:.2f} |")
    print(f"\n(MB/s achieved / device sequential = fraction of the device's rate; random 4 KiB rate "
          f"{rnd / 1e6:.0f} MB/s)")


if __name__ == "__main__":
    main()
