#!/usr/bin/env python3
"""Sync-engine benchmark (PrefEdge, SYSTOR '14), one invocation, every run under a cgroup memory
limit with the page cache dropped before it, every ratio between runs of this invocation.

Per graph (Kronecker 22 and 24, weighted; the 3000 x 3000 grid):

(a) prefetch vs none: wcc, sssp, pagerank (and bfs, kcore) on the sync engine at a cache of
    ``--share`` (default 18%) of the adjacency, ``--ift 0`` against the default: time, the
    device throughput achieved (bytes read / compute time) and the share of compute time the
    algorithm waited for I/O — the paper's Table 4;
(b) IFT sweep (1 ... 256) for wcc;
(c) wcc cache sweep (100 MiB ... 4 GiB, capped at the adjacency), the paper's Figure 7;
(d) prefetched single-threaded wcc against the selective engine's wcc at the same budget and
    against the memory engine with --threads 1 (and all threads);
(e) scc on the selective engine at 1/8 of the CSR against the memory engine (on a directed
    Erdős–Rényi graph of the same size when the graph is undirected).

The device's own random 4 KiB (depth 64) and sequential 1 MiB rates are measured first. Writes
JSON (--out) and prints Markdown tables.

    python3 bench/sync.py [--graphs k22,k24,grid] [--work DIR] [--quick] [--only a,b,c,d,e]
                          [--algorithms wcc,sssp,pagerank,bfs,kcore]
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, hold_freed_pages, run, run_stats

MiB = 1 << 20
PREFETCH_ALGOS = ["wcc", "sssp", "pagerank", "bfs", "kcore"]
SOURCE_ALGOS = {"bfs", "sssp"}
# pagerank: a fixed number of sweeps, the same work with and without prefetching.
ALGO_FLAGS = {"pagerank": ["--iterations", "5"]}


def adjacency_bytes(graph: Path) -> int:
    m = json.loads((graph / "manifest.json").read_text())
    return 4 * m["num_arcs"]


def csr_bytes(graph: Path, with_in: bool) -> int:
    m = json.loads((graph / "manifest.json").read_text())
    one = 8 * (m["num_vertices"] + 1) + 4 * m["num_arcs"]
    return one * (2 if with_in and m["directed"] else 1)


def directed_companion(dg: str, work: Path, graph: Path) -> Path:
    """A directed Erdős–Rényi graph of `graph`'s vertex count and half its arcs, for scc when
    `graph` is undirected (where scc is wcc)."""
    m = json.loads((graph / "manifest.json").read_text())
    if m["directed"]:
        return graph
    path = work / f"{graph.name}-er-directed"
    if not (path / "manifest.json").exists():
        n, e = m["num_vertices"], m["num_arcs"] // 2
        run([dg, "generate", "erdos-renyi", "--vertices", str(n), "--edges", str(e), "--directed",
             "--memory", "4GiB", "-o", str(path), "--force"])
    return path


def ensure_graph(dg: str, work: Path, name: str) -> Path:
    path = work / name
    if name.startswith("k"):
        ensure_kronecker(dg, path, int(name[1:3]), weighted=True, memory="4GiB")
    elif name == "grid" and not (path / "manifest.json").exists():
        run([dg, "generate", "grid", "--rows", "3000", "--cols", "3000", "-o", str(path), "--force"])
    return path


def vertex_state_bytes(graph: Path) -> int:
    """A generous bound on a run's O(V) state (index, IDs, labels, queues, heaps) plus the
    process itself: what the cgroup allows beside the budget."""
    m = json.loads((graph / "manifest.json").read_text())
    return 80 * m["num_vertices"] + 160 * MiB


class Suite:
    """Runs `diskgraph run` with caches dropped before each run; out-of-core runs in a cgroup
    limited to their budget plus their O(V) state, so the kernel's page cache cannot hold the
    graph; memory-engine runs (the ceiling) without a limit."""

    def __init__(self, dg: str, work: Path) -> None:
        self.dg = dg
        self.work = work
        self.cgroup = MemoryCgroup("diskgraph-bench-sync", 1 << 30)

    def run(self, graph: Path, algo: str, engine: str, memory: int, extra: list[str]) -> dict:
        cmd = [self.dg, "run", algo, str(graph), "--engine", engine, "--memory", str(memory), *extra]
        if algo in SOURCE_ALGOS and "--source" not in extra:
            cmd += ["--source", "max-degree"]
        cmd += ALGO_FLAGS.get(algo, [])
        limit = None
        if engine != "memory":
            limit = memory + vertex_state_bytes(graph)
            (self.cgroup.path / "memory.limit_in_bytes").write_text(str(limit))
        drop_caches()
        stats = run_stats(cmd, self.work / "stats.json", self.cgroup if limit else None)
        out = brief(stats, graph.name, engine, memory, extra)
        out["cgroup_limit"] = limit
        return out


def brief(s: dict, graph: str, engine: str, memory: int, extra: list[str]) -> dict:
    compute = s["compute_seconds"] or 1e-9
    return {
        "graph": graph,
        "algorithm": s["algorithm"],
        "engine": engine,
        "memory": memory,
        "flags": " ".join(extra),
        "wall_seconds": s["wall_seconds"],
        "compute_seconds": s["compute_seconds"],
        "bytes_read": s["bytes_read"],
        "requests": s["io_requests"],
        "throughput_MBps": s["bytes_read"] / compute / 1e6,
        "io_wait_share": min(1.0, s["io_wait_seconds"] / compute),
        "settings": {k: v for k, v in s["settings"].items() if k.startswith("pages_") or k in ("ift", "ift_seq", "io")},
    }


def device(dg: str, graph: Path) -> dict:
    target = graph / "out.adj"
    out = {}
    for label, args in [
        ("random_4KiB_qd64", ["--access", "4096", "--depth", "64", "--random", "--bytes", "256MiB"]),
        ("random_4KiB_qd1", ["--access", "4096", "--depth", "1", "--random", "--bytes", "16MiB"]),
        ("sequential_1MiB", ["--access", "1MiB", "--depth", "16", "--bytes", "1GiB"]),
    ]:
        drop_caches()
        text, _ = run([dg, "device", str(target), "--json", *args])
        out[label] = json.loads(text)
    return out


def table(rows: list[dict], cols: list[str]) -> str:
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)  # noqa: E731
    return head + "".join("| " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |\n" for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="k22,k24,grid")
    ap.add_argument("--work", default=str(Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench" / "sync"))
    ap.add_argument("--share", type=float, default=0.18, help="cache / adjacency for (a), (b), (d)")
    ap.add_argument("--only", default="a,b,c,d,e")
    ap.add_argument("--algorithms", default=",".join(PREFETCH_ALGOS), help="for (a)")
    ap.add_argument("--quick", action="store_true", help="short sweeps")
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
            adj = adjacency_bytes(g)
            budget = max(int(adj * a.share), 4 * MiB)
            r: dict = {"adjacency_bytes": adj, "budget": budget, "device": device(dg, g)}
            print(f"\n## {name}: adjacency {adj / MiB:.0f} MiB, cache {budget / MiB:.0f} MiB", flush=True)
            if "a" in only:
                rows = []
                for algo in a.algorithms.split(","):
                    off = su.run(g, algo, "sync", budget, ["--ift", "0", "--ift-seq", "0"])
                    on = su.run(g, algo, "sync", budget, [])
                    on["speedup_vs_ift0"] = off["wall_seconds"] / on["wall_seconds"]
                    rows += [off, on]
                    print(table([off, on], ["algorithm", "flags", "wall_seconds", "throughput_MBps", "io_wait_share", "speedup_vs_ift0"]), flush=True)
                r["prefetch"] = rows
            if "b" in only:
                sweep = [1, 4, 16, 64, 256] if a.quick else [1, 2, 4, 8, 16, 32, 64, 128, 256]
                rows = [su.run(g, "wcc", "sync", budget, ["--ift", str(i)]) for i in sweep]
                print(table(rows, ["flags", "wall_seconds", "throughput_MBps", "io_wait_share"]), flush=True)
                r["ift_sweep"] = rows
            if "c" in only:
                sizes = [100 * MiB, 250 * MiB, 500 * MiB, 1 << 30, 2 << 30, 4 << 30]
                sizes = [s for s in sizes if s < adj] + [adj]
                if a.quick:
                    sizes = sizes[:: max(1, len(sizes) // 3)]
                rows = [su.run(g, "wcc", "sync", s, []) for s in sizes]
                print(table(rows, ["memory", "wall_seconds", "throughput_MBps", "io_wait_share"]), flush=True)
                r["cache_sweep"] = rows
            if "d" in only:
                sync = su.run(g, "wcc", "sync", budget, [])
                sel = su.run(g, "wcc", "selective", budget, [])
                mem1 = su.run(g, "wcc", "memory", 64 << 30, ["--threads", "1"])
                mem = su.run(g, "wcc", "memory", 64 << 30, [])
                for x in (sel, mem1, mem):
                    x["sync_over_this"] = sync["wall_seconds"] / x["wall_seconds"]
                rows = [sync, sel, mem1, mem]
                print(table(rows, ["engine", "flags", "wall_seconds", "compute_seconds", "bytes_read", "sync_over_this"]), flush=True)
                r["single_threaded_wcc"] = rows
            if "e" in only:
                d = directed_companion(dg, work, g)
                csr = csr_bytes(d, with_in=True)
                sel = su.run(d, "scc", "selective", max(csr // 8, 8 * MiB), [])
                mem = su.run(d, "scc", "memory", 64 << 30, [])
                sel["over_memory"] = sel["wall_seconds"] / mem["wall_seconds"]
                rows = [sel, mem]
                print(table(rows, ["engine", "memory", "wall_seconds", "bytes_read", "over_memory"]), flush=True)
                r["scc"] = rows
            report["graphs"][name] = r
    finally:
        su.cgroup.close()
        out = Path(a.out) if a.out else work / f"sync-{time.strftime('%Y%m%d-%H%M%S')}.json"
        out.write_text(json.dumps(report, indent=1))
        print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
