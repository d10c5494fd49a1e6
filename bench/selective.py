#!/usr/bin/env python3
"""Selective-engine benchmark suite (issue 3), one run, under a cgroup memory limit with the page
cache dropped before every run.

On a Kronecker graph (undirected; weighted for sssp) with `--memory` (default 256MiB) it measures
bfs, wcc, pagerank (to 1e-9), sssp, kcore, msbfs (64 sources) and spmv on the selective engine —
time, bytes read, I/O utility, device bandwidth achieved — and reports ratios against baselines
measured in the same run: the memory engine (the ceiling), bitmap vs pluglist, 512 vs 4096-byte
blocks, uring vs pread, and the raw device (its own sequential and random read rates, measured
here with `diskgraph device`). Writes JSON and prints a Markdown table.

Per-phase device rate: every run records each I/O round (bytes, requests, seconds). The *bulk*
rounds of a run — those reading at least 5% of its bytes (the dense BFS levels, PageRank's sweeps)
— are summed into one achieved rate and mean request size, and the device's own random-read rate
at that request size (queue depth 64) is measured in the same invocation for the ratio.

    python3 bench/selective.py [--scale 24] [--memory 256MiB] [--work DIR] [--quick]
                               [--only bfs,wcc] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, hold_freed_pages, run, run_stats

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
    ("graphene merge (16 blocks, 16 KiB)", ["bfs", "wcc", "pagerank"], ["--max-gap", "16", "--max-request", "16KiB"]),
    ("no retained lists", ["bfs", "wcc"], ["--retain-lists", "false"]),
]
# Rounds reading at least this share of a run's bytes are its bulk phase.
BULK_SHARE = 0.05


def parse_size(s: str) -> int:
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)i?B?", s.strip(), re.I)
    if not m:
        raise SystemExit(f"bad size {s}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]


def largest_file(graph: Path) -> Path:
    return max((p for p in graph.iterdir() if p.is_file()), key=lambda p: p.stat().st_size)


def device_rate(dg: str, target: Path, access: int, depth: int, random: bool) -> dict:
    """The device's own O_DIRECT read rate for one access size, depth and pattern."""
    drop_caches()
    args = ["--access", str(access), "--depth", str(depth)] + (["--random"] if random else [])
    out, _ = run([dg, "device", str(target), "--json", *args])
    return json.loads(out)


def device_rates(dg: str, graph: Path) -> dict:
    """The device's own sequential (1 MiB) and random (4 KiB, depth 64 and 1; 512 B) read rates,
    measured on the graph's largest file with O_DIRECT."""
    target = largest_file(graph)
    return {
        "sequential_1MiB": device_rate(dg, target, 1 << 20, 16, False),
        "random_4KiB_qd64": device_rate(dg, target, 4096, 64, True),
        "random_4KiB_qd1": device_rate(dg, target, 4096, 1, True),
        "random_512B_qd64": device_rate(dg, target, 512, 64, True),
    }


def bulk_phase(stats: dict) -> dict | None:
    """The bulk rounds of a run summed: bytes, requests, seconds, rate, mean request size."""
    rounds = stats.get("io_rounds") or []
    total = sum(r["bytes_read"] for r in rounds)
    bulk = [r for r in rounds if total and r["bytes_read"] >= BULK_SHARE * total]
    if not bulk:
        return None
    b = sum(r["bytes_read"] for r in bulk)
    q = sum(r["requests"] for r in bulk)
    t = sum(r["seconds"] for r in bulk)
    return {"rounds": len(bulk), "bytes": b, "requests": q, "seconds": t,
            "bytes_per_second": b / max(t, 1e-9), "mean_request": b / max(q, 1)}


def access_size(mean_request: float) -> int:
    """The device measurement's access size for a phase: its mean request rounded to 512 B."""
    return max(512, int(round(mean_request / 512)) * 512)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--memory", default="256MiB")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "selective.json")
    ap.add_argument("--quick", action="store_true", help="bfs and pagerank only")
    ap.add_argument("--only", help="comma-separated algorithms to run (default: all)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each selective configuration this many times; the median run is reported")
    ap.add_argument("--report", type=Path, help="print the table of an earlier run's JSON and exit")
    a = ap.parse_args()
    if a.report:
        report(json.loads(a.report.read_text()))
        return
    dg = diskgraph_binary()
    held_ms = hold_freed_pages()
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
    only = set(a.only.split(",")) if a.only else set(ALGORITHMS)
    if only - set(ALGORITHMS):
        raise SystemExit(f"unknown algorithm(s) {sorted(only - set(ALGORITHMS))}")
    algos = {k: v for k, v in ALGORITHMS.items() if k in only and (not a.quick or k in ("bfs", "pagerank"))}

    def measure(algo: str, engine: str, extra: list[str], limited: bool) -> dict:
        graph = weighted if algo in ("sssp", "spmv") else plain
        drop_caches()
        cgroup.reset_max()
        stats = run_stats([dg, "run", algo, str(graph), "--engine", engine, "--memory", a.memory,
                           *algos.get(algo, ALGORITHMS[algo]), *extra],
                          a.work / "stats.json", cgroup if limited else None)
        stats["cgroup_max_usage"] = cgroup.max_usage() if limited else None
        return stats

    def median_of(algo: str, extra: list[str]) -> dict:
        """The selective engine's median run (by wall time) of `a.repeat`."""
        runs = sorted((measure(algo, "selective", extra, True) for _ in range(max(1, a.repeat))),
                      key=lambda s: s["wall_seconds"])
        chosen = runs[len(runs) // 2]
        chosen["repeat_walls"] = [s["wall_seconds"] for s in runs]
        return chosen

    result = {"scale": a.scale, "memory": a.memory, "cgroup_limit": limit if cgroup.active else None,
              "freed_pages_held_ms": held_ms,
              "graph_bytes": info["total_bytes"], "device": device_rates(dg, plain), "runs": []}
    for algo in algos:
        ceiling = measure(algo, "memory", [], False)
        selective = median_of(algo, [])
        result["runs"].append({"algorithm": algo, "variant": "memory", "stats": ceiling})
        result["runs"].append({"algorithm": algo, "variant": "selective", "stats": selective})
    for label, names, extra in BASELINES:
        for algo in names:
            if algo in algos:
                result["runs"].append({"algorithm": algo, "variant": label, "stats": median_of(algo, extra)})
    cgroup.close()
    # The device at the access size of every bulk phase, for the per-phase ratio.
    target = largest_file(plain)
    result["device_at_access"] = {}
    for r in result["runs"]:
        phase = bulk_phase(r["stats"]) if r["variant"] != "memory" else None
        if phase:
            size = access_size(phase["mean_request"])
            if str(size) not in result["device_at_access"]:
                result["device_at_access"][str(size)] = device_rate(dg, target, size, 64, True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")
    report(result)
    print(f"\nJSON: {a.out}")


def report(result: dict) -> None:
    dev = result["device"]
    seq = dev["sequential_1MiB"]["bytes_per_second"]
    print(f"device: sequential 1 MiB {seq / 1e9:.2f} GB/s; random 4 KiB QD64 "
          f"{dev['random_4KiB_qd64']['iops'] / 1e3:.0f}k IOPS, QD1 {dev['random_4KiB_qd1']['iops'] / 1e3:.0f}k IOPS")
    print(f"graph {result['graph_bytes'] / 2**20:.0f} MiB, budget {result['memory']}, "
          f"cgroup limit {(result['cgroup_limit'] or 0) / 2**20:.0f} MiB\n")
    runs = {(r["algorithm"], r["variant"]): r["stats"] for r in result["runs"]}
    at_access = result.get("device_at_access", {})
    print("| algorithm | variant | wall s | compute s | MiB read | I/O utility | bulk phase MB/s (req KiB) "
          "| × device at that access | × memory cold | × memory compute (wall) | × memory compute (compute) "
          "| × selective default |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in result["runs"]:
        s = r["stats"]
        wall, compute = s["wall_seconds"], s["compute_seconds"]
        mem = runs[(r["algorithm"], "memory")]
        default = runs.get((r["algorithm"], "selective"), s)["wall_seconds"]
        phase = bulk_phase(s) if r["variant"] != "memory" else None
        if phase:
            device = at_access.get(str(access_size(phase["mean_request"])))
            rate = f"{phase['bytes_per_second'] / 1e6:.0f} ({phase['mean_request'] / 1024:.0f})"
            vs_device = f"{phase['bytes_per_second'] / device['bytes_per_second']:.2f}" if device else "-"
        else:
            rate, vs_device = "-", "-"
        mem_compute = max(mem["compute_seconds"], 1e-9)
        print(f"| {r['algorithm']} | {r['variant']} | {wall:.2f} | {compute:.2f} | {s['bytes_read'] / 2**20:.0f} | "
              f"{s['io_utility']:.2f} | {rate} | {vs_device} | {wall / mem['wall_seconds']:.2f} | "
              f"{wall / mem_compute:.2f} | {compute / mem_compute:.2f} | {wall / default:.2f} |")
    print("\nCompute rate: the bytes each selective default run read, over the memory engine's compute "
          "time (no I/O; its setup included), against the device at that run's access size. Where this is "
          "well below 1, these cores, not the I/O, bound how fast any engine can read for the algorithm:")
    for r in result["runs"]:
        phase = bulk_phase(r["stats"]) if r["variant"] == "selective" else None
        device = phase and at_access.get(str(access_size(phase["mean_request"])))
        if phase and device:
            mem = runs[(r["algorithm"], "memory")]
            ceiling = r["stats"]["bytes_read"] / max(mem["compute_seconds"], 1e-9)
            print(f"- {r['algorithm']}: {ceiling / 1e6:.0f} MB/s, × {ceiling / device['bytes_per_second']:.2f} "
                  f"of the device's {device['bytes_per_second'] / 1e6:.0f} MB/s at "
                  f"{access_size(phase['mean_request']) / 1024:.1f} KiB")
    print("\n× memory cold: against the memory engine's whole run (loading the CSR from a cold cache "
          "included); × memory compute: against its compute alone (the graph already in memory), with the "
          "selective run's wall time (offsets loading included) and its compute time. Bulk phase: the "
          f"rounds reading ≥ {BULK_SHARE:.0%} of a run's bytes; × device: against the device's random "
          "reads of that size at queue depth 64, measured in this run.")


if __name__ == "__main__":
    main()
