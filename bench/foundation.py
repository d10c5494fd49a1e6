#!/usr/bin/env python3
"""Foundation benchmark (issue 2): Kronecker import under a memory budget, and memory-engine times.

Generates Graph500 Kronecker graphs straight into `diskgraph import` with `--memory`, measuring
input edges per second, peak RSS (from /usr/bin/time -v) and bytes written per input edge; then
times the `memory` engine on bfs, wcc, pagerank (20 iterations) and sssp (on the weighted graph).
Writes JSON and prints a Markdown table.

    python3 bench/foundation.py [--scale 24] [--memory 1GiB] [--work DIR] [--out bench/out/foundation.json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def sh(cmd: list[str]) -> tuple[str, str, float]:
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"command failed: {' '.join(cmd)}\n{p.stderr}")
    return p.stdout, p.stderr, elapsed


def generate(diskgraph: str, graph: Path, scale: int, memory: str, weighted: bool) -> dict:
    cmd = ["/usr/bin/time", "-v", diskgraph, "generate", "kronecker", "--scale", str(scale),
           "--memory", memory, "-o", str(graph), "--force"]
    if weighted:
        cmd.append("--weighted")
    out, err, wall = sh(cmd)
    rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    edges = int(re.search(r"read (\d+) input edges", out).group(1))
    written = float(re.search(r"wrote ([\d.]+) MiB", out).group(1)) * (1 << 20)
    info = json.loads(sh([diskgraph, "info", str(graph), "--json"])[0])
    return {
        "scale": scale, "weighted": weighted, "memory": memory, "wall_seconds": wall,
        "input_edges": edges, "input_edges_per_second": edges / wall,
        "peak_rss_bytes": rss_kib * 1024, "bytes_written": written,
        "bytes_written_per_input_edge": written / edges,
        "num_vertices": info["num_vertices"], "num_edges": info["num_edges"],
        "graph_bytes": info["total_bytes"],
    }


def run(diskgraph: str, graph: Path, algo: str, extra: list[str], work: Path) -> dict:
    stats = work / f"{algo}.stats.json"
    out, _, wall = sh([diskgraph, "run", algo, str(graph), "--engine", "memory", "--stats", str(stats), *extra])
    s = json.loads(stats.read_text())
    return {"algorithm": algo, "args": extra, "wall_seconds_process": wall, "load_seconds": s["load_seconds"],
            "compute_seconds": s["compute_seconds"], "iterations": s["iterations"],
            "edges_processed": s["edges_processed"],
            "edges_per_second": s["edges_processed"] / max(s["compute_seconds"], 1e-9),
            "summary": out.splitlines()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--memory", default="1GiB")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "foundation.json")
    ap.add_argument("--diskgraph", default=shutil.which("diskgraph") or "diskgraph")
    ap.add_argument("--reuse", action="store_true", help="reuse graphs from an earlier run (skips the import benchmark)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    plain, weighted = a.work / f"kron{a.scale}", a.work / f"kron{a.scale}w"
    imports = [] if a.reuse else [generate(a.diskgraph, plain, a.scale, a.memory, False),
                                  generate(a.diskgraph, weighted, a.scale, a.memory, True)]
    source = ["--source", "max-degree"]
    runs = [run(a.diskgraph, plain, "bfs", source, a.work),
            run(a.diskgraph, plain, "wcc", [], a.work),
            run(a.diskgraph, plain, "pagerank", ["--iterations", "20"], a.work),
            run(a.diskgraph, weighted, "sssp", source, a.work)]
    result = {"machine": {"cpus": os.cpu_count()}, "imports": imports, "runs": runs}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")

    if imports:
        print(f"| import (scale {a.scale}, --memory {a.memory}) | wall s | M input edges/s | peak RSS MiB | bytes written / input edge |")
        print("|---|---:|---:|---:|---:|")
    for i in imports:
        print(f"| {'weighted' if i['weighted'] else 'unweighted'} | {i['wall_seconds']:.1f} | "
              f"{i['input_edges_per_second'] / 1e6:.2f} | {i['peak_rss_bytes'] / 2**20:.0f} | "
              f"{i['bytes_written_per_input_edge']:.1f} |")
    print()
    print("| memory engine | load s | compute s | iterations | M edges/s | answer |")
    print("|---|---:|---:|---:|---:|---|")
    for r in runs:
        print(f"| {r['algorithm']} {' '.join(r['args'])} | {r['load_seconds']:.2f} | {r['compute_seconds']:.2f} | "
              f"{r['iterations']} | {r['edges_per_second'] / 1e6:.0f} | {r['summary']} |")
    print(f"\nJSON: {a.out}")


if __name__ == "__main__":
    main()
