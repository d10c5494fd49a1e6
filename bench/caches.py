#!/usr/bin/env python3
"""Caches and orderings benchmark suite (issue 5, BAsC/Norder): one run per configuration
(`--repeat N`: the run of median time of N), under a cgroup memory limit with the page cache
dropped before every run. The configurations of a section run round-robin (each once, then
each again), so that the machine's drifts fall on all of them alike.

Graphs: Kronecker graphs of each `--scales` (undirected) and a real graph from testdata/real
(`--real`, imported once, undirected; any format `diskgraph import` reads, e.g.
`more/Email-Enron.txt` or the BVGraph `cnr-2000/cnr-2000.graph`, the largest), and any graph
directories given with `--graph` (e.g. a reordering of one of them). Memory sizes are fractions of the graph's `out.adj`. Algorithms: bfs
and diameter from the max-degree vertex, bc from `--bc-samples` sampled sources — all on the
selective engine, retained lists off (so only the caches under test keep data).

(a) page cache only vs page cache 5% + BAsC X% (X in `--basc-sizes`; GVS, HighD, LowD, Random)
    at equal total memory — the paper's Figure 6; GVS's speedup as the harmonic mean over the
    three algorithms.
(b) the BAsC / page-cache split at 20% total (BAsC 0–90% of it, GVS) — Figure 7.
(c) orderings (norder, gorder, degree, pagerank, random) with a 25% page cache — Figure 11 — and
    the time each ordering takes to compute — Table 3.
(d) GVS time vs K (1, 10, 100) for a 20% selection — Table 2.
(e) BAsC (GVS 20%) + page cache 5% on the Norder graph vs a 25% page cache on the Gorder graph —
    Figure 12 — and, as the bound of what any cache can give on the Norder graph, Norder with a
    page cache that holds the whole graph (every page read once, then served from memory).
(s) the two setups of (e), and a 25% page cache on the Norder graph (Figure 12's page cache with
    Norder, so (c)'s Norder-over-Gorder ratio without the per-process costs), as sessions: one
    Python process per setup runs bfs, diameter and bc
    (`--session-algorithms`: also apsp from `--bc-samples` sources, and wcc) in turn
    (`bench/session.py`; the OS page cache dropped before each run), both loading the graph's
    index once at the start (`Graph.load_index`) and BAsC+Norder its static cache too
    (`Graph.load_static_cache`) — the deployment of a static cache. Ratios per algorithm (each
    algorithm's median over the sessions; harmonic mean) and of whole sessions (median totals,
    loading included).

Pages: `--page-size` (default 4 KiB, the device's unit). The paper runs with 8 KB pages (its
default, "the typical access unit for NAND flash-based SSDs") and sets Gorder's window to the
average number of lists per page: `--page-size 8KiB --gorder-window W` measures that way (GVS
models the page size, so its selections for other pages than 4 KiB are named `gvs…-8KiB`).
`--only s --page-size 4KiB,8KiB` runs both page sizes' sessions in turn, within one run.

On a virtual machine whose kernel reports freed pages to the host, the runs' freed memory is
held for the suite (`common.hold_freed_pages`), so that fresh memory costs its zeroing only.

Writes JSON and prints tables of ratios, every one against a baseline from the same run.

    python3 bench/caches.py [--scales 22,24] [--real wiki-Vote.txt] [--only a,b,c,d,e,s] [--gvs-k 100]
                            [--orderings norder,gorder,degree,pagerank,random] [--ks 1,10,100]
                            [--max-request 16KiB] [--page-size 4KiB] [--gorder-window W] [--repeat 1]
                            [--work DIR] [--report bench/out/caches.json]
    python3 bench/caches.py --summarize REPORT.json [REPORT.json ...]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path
from statistics import harmonic_mean, median

from common import (MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, hold_freed_pages, run,
                    run_stats)


def run_session(cmd: list[str], out: Path, cgroup: MemoryCgroup) -> dict:
    """Runs `bench/session.py` (inside `cgroup`) and returns its report."""
    run(cmd, cgroup)
    return json.loads(out.read_text())

ALGOS = {"bfs": ["--source", "max-degree"], "diameter": ["--source", "max-degree"], "bc": []}
METHODS = ("gvs", "highd", "lowd", "random")
# Budget, as a fraction of out.adj, whose page cache holds every page of the graph: the I/O
# buffers take at most an eighth of it (docs/DESIGN.md).
WHOLE_GRAPH = 1.5
ORDERINGS = ("norder", "gorder", "degree", "pagerank", "random")
DATA = Path(__file__).resolve().parents[1] / "testdata" / "real"


def adj_bytes(dg: str, graph: Path) -> int:
    info = json.loads(run([dg, "info", str(graph), "--json"])[0])
    return int(info["num_arcs"]) * 4


class Suite:
    """Runs and records; every run under the cgroup with caches dropped."""

    def __init__(self, dg: str, work: Path, bc_samples: int, gvs_k: int, max_request: str | None,
                 page_size: str, reuse_selections: bool = False, repeat: int = 1,
                 session_algorithms: tuple[str, ...] = tuple(ALGOS), gorder_window: int | None = None) -> None:
        self.dg, self.work, self.bc_samples, self.gvs_k, self.page_size = dg, work, bc_samples, gvs_k, page_size
        # Recorded with every run: sessions pool only with sessions of the same pages and window.
        self.settings = {"page_size": page_size, "gorder_window": gorder_window}
        self.session_algorithms = session_algorithms
        self.repeat = repeat
        self.reuse_selections = reuse_selections
        self.io_flags = ["--max-request", max_request] if max_request else []
        self.cgroup = MemoryCgroup("diskgraph-caches", 1 << 62)
        self.max_request = max_request
        self.runs: list[dict] = []
        self.queue: list[tuple[list[str], int, dict]] = []

    def use_pages(self, page_size: str) -> None:
        """Runs, sessions and selections queued from now on use pages of `page_size`."""
        self.page_size = page_size
        self.settings["page_size"] = page_size

    def run(self, graph: Path, algo: str, memory: int, extra: list[str], label: dict) -> None:
        """Queues a configuration; `flush` runs it."""
        cmd = [self.dg, "run", algo, str(graph), "--engine", "selective", "--memory", str(memory),
               "--retain-lists", "false", *self.io_flags, *ALGOS[algo], *extra]
        if algo == "bc":
            cmd += ["--samples", str(self.bc_samples)]
        label = {**label, **self.settings, "graph": graph.name, "algorithm": algo, "memory": memory}
        self.queue.append((cmd, self.limit(graph, memory, algo), label))

    def session(self, graph: Path, memory: int, basc: tuple[str, float] | None, label: dict) -> None:
        """Queues a session of the session algorithms (`bench/session.py`), loading selection
        `basc` = (name, fraction of `memory`) once when given."""
        cmd = [sys.executable, str(Path(__file__).with_name("session.py")), str(graph), "--memory", str(memory),
               "--algorithms", ",".join(self.session_algorithms), "--page-size", self.page_size,
               "--bc-samples", str(self.bc_samples), "--out", str(self.work / "session.json")]
        cmd += ["--max-request", self.max_request] if self.max_request else []
        cmd += ["--basc", basc[0], "--basc-fraction", f"{basc[1]:.6f}"] if basc else []
        label = {**label, **self.settings, "graph": graph.name, "algorithm": "session", "memory": memory}
        limit = max(self.limit(graph, memory, algo) for algo in self.session_algorithms)
        self.queue.append((cmd, limit + (256 << 20), label))

    def limit(self, graph: Path, memory: int, algo: str) -> int:
        """The cgroup limit of a run of `algo` with budget `memory`: the budget, vertex state and
        slack (the interpreter's too, for a session)."""
        n_vertices = self.num_vertices(graph)
        limit = memory + 64 * n_vertices + (192 << 20)
        if algo == "bc":
            # bc's batch of sources keeps 20 bytes per vertex and source (README: up to 8
            # sources, at most 4 GiB): vertex state, not cache, so the limit allows it.
            limit += min(20 * 8 * n_vertices, 4 << 30, 20 * self.bc_samples * n_vertices)
        if algo == "apsp":
            # The k × n hops (4 bytes each), their copy in ID order, and Python's int64 rows.
            limit += 16 * self.bc_samples * n_vertices
        return limit

    @functools.cache
    def num_vertices(self, graph: Path) -> int:
        """The graph's vertex count (`diskgraph info`, once per graph)."""
        return json.loads(run([self.dg, "info", str(graph), "--json"])[0])["num_vertices"]

    def flush(self) -> None:
        """Runs the queued configurations `repeat` times round-robin and records each one's run
        of median wall time (every wall time is kept)."""
        tries: list[list[dict]] = [[] for _ in self.queue]
        for _ in range(self.repeat):
            for (cmd, limit, label), runs in zip(self.queue, tries):
                if self.cgroup.active:
                    (self.cgroup.path / "memory.limit_in_bytes").write_text(str(limit))
                drop_caches()
                if label["algorithm"] == "session":
                    runs.append(run_session(cmd, self.work / "session.json", self.cgroup))
                else:
                    runs.append(run_stats(cmd, self.work / "stats.json", self.cgroup))
        for (_, _, label), runs in zip(self.queue, tries):
            if label["algorithm"] == "session":
                self.record_session(label, runs)
                continue
            stats = sorted(runs, key=lambda t: t["wall_seconds"])[len(runs) // 2]
            record = {**label, "wall": stats["wall_seconds"], "walls": [t["wall_seconds"] for t in runs],
                      "load": stats["load_seconds"], "basc_load": stats["settings"].get("basc_load_seconds", 0.0),
                      "hit": stats.get("cache_hit_ratio", {}), "bytes_read": stats["bytes_read"],
                      "utilization": stats["settings"].get("page_cache", {}).get("utilization")}
            self.runs.append(record)
            print(json.dumps(record), flush=True)
        self.queue = []

    def record_session(self, label: dict, sessions: list[dict]) -> None:
        """Records a session's runs, one record per algorithm: its run of median wall time over
        the repeated sessions (as `flush` does for single runs), with every session's loading
        and total (loading plus every run's wall time) and their medians."""
        totals = sorted(t["load_seconds"] + sum(r["wall_seconds"] for r in t["runs"]) for t in sessions)
        loads = sorted(t["load_seconds"] for t in sessions)
        for i in range(len(sessions[0]["runs"])):
            runs = sorted((t["runs"][i] for t in sessions), key=lambda r: r["wall_seconds"])
            stats = runs[len(runs) // 2]
            record = {**label, "algorithm": stats["algorithm"], "wall": stats["wall_seconds"],
                      "walls": [r["wall_seconds"] for r in runs], "session_load": loads[len(loads) // 2],
                      "session_total": totals[len(totals) // 2], "session_totals": totals,
                      "preloaded": stats["settings"].get("basc_preloaded", False),
                      "hit": stats.get("cache_hit_ratio", {}), "bytes_read": stats["bytes_read"]}
            self.runs.append(record)
            print(json.dumps(record), flush=True)

    def select(self, graph: Path, method: str, fraction: float, k: int | None = None,
               name: str | None = None) -> tuple[str, float]:
        """Publishes a selection (replacing one of the same name) with K rounds (default
        `--gvs-k`); returns its name and GVS's own running time as the command printed it (NaN
        for a selection reused under `--reuse-selections`)."""
        k = k or self.gvs_k
        # GVS models the page cache's pages: a selection for other pages than the default
        # 4 KiB ones is another selection.
        pages = f"-{self.page_size}" if method == "gvs" and self.page_size != "4KiB" else ""
        name = name or f"{method}{int(fraction * 1000)}k{k}{pages}"
        if self.reuse_selections and (graph / f"basc-{name}" / "basc.json").exists():
            return name, float("nan")
        out, _ = run([self.dg, "select", str(graph), "--method", method, "--size", f"{fraction:.4f}",
                      "--k", str(k), "--page-size", self.page_size, "--name", name, "--force"])
        seconds = float(out.split("selection ")[1].split(" s")[0])
        return name, seconds


def page_only(s: Suite, g: Path, algo: str, total: float, size: int, label: dict) -> None:
    s.run(g, algo, int(total * size), ["--page-size", s.page_size], label)


def with_basc(s: Suite, g: Path, algo: str, name: str, page: float, basc: float, size: int, label: dict) -> None:
    total = page + basc
    s.run(g, algo, int(total * size), ["--page-size", s.page_size, "--basc", name,
                                               "--basc-fraction", f"{basc / total + 1e-6:.6f}"], label)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="22,24")
    ap.add_argument("--real", default="wiki-Vote.txt", help="a file of testdata/real, e.g. cnr-2000/cnr-2000.graph ('' for none)")
    ap.add_argument("--graph", type=Path, action="append", default=[],
                    help="a graph directory to measure as well (repeatable); its selections are published in it, its "
                         "orderings kept in --work as NAME-METHOD")
    ap.add_argument("--basc-sizes", default="0.1,0.2,0.3,0.4")
    ap.add_argument("--bc-samples", type=int, default=32, help="sampled sources of bc (and of apsp in sessions)")
    ap.add_argument("--session-algorithms", default=",".join(ALGOS),
                    help="algorithms of section s's sessions: bfs, diameter, bc, and also apsp and wcc (the "
                         "paper's summary of Figure 12 covers every BFS-like algorithm)")
    ap.add_argument("--gvs-k", type=int, default=100, help="GVS rounds K of the selections of sections a, b, e")
    ap.add_argument("--page-size", default="4KiB",
                    help="the page cache's page size; with --only s, a list (4KiB,8KiB) runs the sessions of "
                         "every page size in turn, so that they are compared within one run")
    ap.add_argument("--gorder-window", type=int,
                    help="Gorder's window (default: reorder's, the average number of lists per 4 KiB page); "
                         "the ordering is kept as GRAPH-gorderwW")
    ap.add_argument("--max-request", help="the runs' --max-request (small real graphs: their budgets must hold "
                    "two reads of each file besides the caches)")
    ap.add_argument("--only", default="a,b,c,d,e,s")
    ap.add_argument("--orderings", default=",".join(ORDERINGS),
                    help="orderings of sections c and e (e needs norder and gorder)")
    ap.add_argument("--ks", default="1,10,100", help="GVS rounds K timed in section d")
    ap.add_argument("--read-rate", help="cap the runs' disk reads at this many MB/s (a cgroup blkio throttle), "
                                        "to measure as on a slower device such as the paper's SATA SSD")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each configuration this many times (caches dropped before each) and keep the "
                         "run of median wall time; every wall time is in the report's `walls`")
    ap.add_argument("--reuse-orderings", action="store_true",
                    help="sections c, e: use reordered graphs already in --work (their computing time is not measured)")
    ap.add_argument("--reuse-selections", action="store_true",
                    help="sections a, b, e: use BAsC selections of the same name already published in the graphs "
                         "(their computing time is not measured)")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    ap.add_argument("--report", type=Path, default=Path(__file__).parent / "out" / "caches.json")
    ap.add_argument("--summarize", type=Path, nargs="+",
                    help="print the tables of earlier runs' reports (merged) and exit; (s) pools sessions "
                         "by graph, page size and Gorder window, (c) pools its runs by graph, the other "
                         "sections expect one configuration")
    a = ap.parse_args()
    if a.summarize:
        summarize(merged([json.loads(p.read_text()) for p in a.summarize]))
        return
    dg = diskgraph_binary()
    held_ms = hold_freed_pages()
    a.work.mkdir(parents=True, exist_ok=True)
    graphs = []
    for scale in (int(x) for x in a.scales.split(",") if x):
        path = a.work / f"kron{scale}"
        ensure_kronecker(dg, path, scale, False)
        graphs.append(path)
    if a.real:
        path = a.work / Path(a.real).stem
        if not (path / "manifest.json").exists():
            run([dg, "import", str(DATA / a.real), "-o", str(path), "--undirected", "--force"])
        graphs.append(path)
    graphs += a.graph
    page_sizes = a.page_size.split(",")
    if len(page_sizes) > 1 and set(a.only.split(",")) != {"s"}:
        ap.error("a list of page sizes applies to --only s")
    s = Suite(dg, a.work, a.bc_samples, a.gvs_k, a.max_request, page_sizes[0], a.reuse_selections, a.repeat,
              tuple(a.session_algorithms.split(",")), a.gorder_window)
    if a.read_rate:
        s.cgroup.throttle_reads(a.work, int(float(a.read_rate) * 1e6))
    sections = set(a.only.split(","))
    report: dict = {"graphs": [g.name for g in graphs], "gvs_seconds": {}, "order_seconds": {},
                    "read_rate_mb_s": float(a.read_rate) if a.read_rate else None, "freed_pages_held_ms": held_ms}
    for g in graphs:
        size = adj_bytes(dg, g)
        if "a" in sections:
            for x in (float(v) for v in a.basc_sizes.split(",")):
                for method in METHODS:
                    name, secs = s.select(g, method, x)
                    report["gvs_seconds"][f"{g.name}/{name}"] = secs
                    for algo in ALGOS:
                        with_basc(s, g, algo, name, 0.05, x, size, {"section": "a", "method": method, "basc": x})
                for algo in ALGOS:
                    page_only(s, g, algo, 0.05 + x, size, {"section": "a", "method": "page", "basc": x})
            s.flush()
        if "b" in sections:
            for share in (0.0, 0.1, 0.3, 0.5, 0.7, 0.9):
                for algo in ALGOS:
                    if share == 0.0:
                        page_only(s, g, algo, 0.2, size, {"section": "b", "share": share})
                    else:
                        name, _ = s.select(g, "gvs", 0.2 * share)
                        with_basc(s, g, algo, name, 0.2 * (1 - share), 0.2 * share, size, {"section": "b", "share": share})
            s.flush()
        if "d" in sections:
            for k in (int(x) for x in a.ks.split(",")):
                _, secs = s.select(g, "gvs", 0.2, k=k, name=f"gvsk{k}")
                report["gvs_seconds"][f"{g.name}/K={k}"] = secs
        if sections & {"c", "e", "s"}:
            for method in a.orderings.split(","):
                out = ordering_dir(a, g, method)
                if not (a.reuse_orderings and (out / "manifest.json").exists()):
                    window = ["--window", str(a.gorder_window)] if method == "gorder" and a.gorder_window else []
                    text, _ = run([dg, "reorder", str(g), "-o", str(out), "--method", method, "--force",
                                   "--memory", "4GiB", *window])
                    # "ordering computed in X s": the ordering alone, as the paper's Table 3.
                    seconds = float(text.split("ordering computed in ")[1].split(" s")[0])
                    report["order_seconds"][f"{g.name}/{method}"] = seconds
                if "c" in sections:
                    for algo in ALGOS:
                        page_only(s, out, algo, 0.25, size, {"section": "c", "ordering": method})
            if "e" in sections and {"norder", "gorder"} <= set(a.orderings.split(",")):
                norder = ordering_dir(a, g, "norder")
                name, _ = s.select(norder, "gvs", 0.2)
                for algo in ALGOS:
                    with_basc(s, norder, algo, name, 0.05, 0.2, size, {"section": "e", "setup": "basc+norder"})
                    page_only(s, ordering_dir(a, g, "gorder"), algo, 0.25, size, {"section": "e", "setup": "page+gorder"})
                    page_only(s, norder, algo, WHOLE_GRAPH, size, {"section": "e", "setup": "all+norder"})
            if "s" in sections and {"norder", "gorder"} <= set(a.orderings.split(",")):
                norder = ordering_dir(a, g, "norder")
                for pages in page_sizes:
                    s.use_pages(pages)
                    name, _ = s.select(norder, "gvs", 0.2)
                    s.session(norder, int(0.25 * size), (name, 0.2 / 0.25 + 1e-6), {"section": "s", "setup": "basc+norder"})
                    s.session(ordering_dir(a, g, "gorder"), int(0.25 * size), None, {"section": "s", "setup": "page+gorder"})
                    s.session(norder, int(0.25 * size), None, {"section": "s", "setup": "page+norder"})
            s.flush()
    s.cgroup.close()
    report["runs"] = s.runs
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2) + "\n")
    summarize(report)


def ordering_dir(a: argparse.Namespace, g: Path, method: str) -> Path:
    """Where graph `g` reordered by `method` is kept (Gorder with `--gorder-window` apart)."""
    window = f"w{a.gorder_window}" if method == "gorder" and a.gorder_window else ""
    return a.work / f"{g.name}-{method}{window}"


def merged(reports: list[dict]) -> dict:
    """One report of several runs' reports (sections of one graph may come from different runs)."""
    out: dict = {"graphs": [], "gvs_seconds": {}, "order_seconds": {}, "runs": []}
    for r in reports:
        out["graphs"] += [g for g in r["graphs"] if g not in out["graphs"]]
        out["gvs_seconds"].update(r["gvs_seconds"])
        out["order_seconds"].update(r["order_seconds"])
        out["runs"] += r["runs"]
    return out


def speedups(pairs: list[tuple[dict, dict]]) -> str:
    """Harmonic mean of baseline / run over (baseline, run) pairs: by wall time, and with the
    static cache's loading (reported separately by the engine) left out of the run's time."""
    wall = harmonic_mean([b["wall"] / r["wall"] for b, r in pairs])
    if not any(r.get("basc_load") for _, r in pairs):
        return f"×{wall:.2f}"
    loaded = harmonic_mean([b["wall"] / (r["wall"] - r["basc_load"]) for b, r in pairs])
    return f"×{wall:.2f} (×{loaded:.2f} without loading the static cache)"


def session_pairs(runs: list[dict], graph: str | None = None,
                  setup: str = "basc+norder") -> dict[str, list[tuple[dict, dict]]]:
    """(page cache+Gorder, `setup`) session runs of each algorithm, of `graph` or of every
    graph, by configuration (the graph, its pages and Gorder's window; runs recorded before
    these were kept say "unrecorded"). Records of one algorithm, setup and configuration from
    several reports (`--summarize A.json B.json`) are pooled: the median of all their sessions'
    wall times, and of their totals."""
    pooled: dict[tuple[str, str, str], dict] = {}
    for r in runs:
        g = r["graph"].rsplit("-", 1)[0]
        if r.get("section") != "s" or graph not in (None, g):
            continue
        pages = r.get("page_size", "unrecorded")
        window = r.get("gorder_window") or ("reorder's default" if "page_size" in r else "unrecorded")
        config = f"{g} ({pages} pages, Gorder window {window})"
        key = (config, r["setup"], r["algorithm"])
        if key in pooled:
            p = pooled[key]
            walls, totals = sorted(p["walls"] + r["walls"]), sorted(p["session_totals"] + r["session_totals"])
            pooled[key] = {**p, "walls": walls, "wall": median(walls), "session_totals": totals,
                           "session_total": median(totals)}
        else:
            pooled[key] = r
    pairs: dict[str, list[tuple[dict, dict]]] = {}
    for (config, kind, a), base in pooled.items():
        if kind == "page+gorder" and (config, setup, a) in pooled:
            pairs.setdefault(config, []).append((base, pooled[(config, setup, a)]))
    return pairs


def summarize(report: dict) -> None:
    runs = report["runs"]
    key = lambda r: (r["graph"], r["algorithm"])  # noqa: E731
    print("\n(a) speedup over page cache only at equal memory (harmonic mean over bfs, diameter, bc)")
    for g in report["graphs"]:
        for x in sorted({r["basc"] for r in runs if r.get("section") == "a" and r["graph"] == g}):
            base = {key(r): r for r in runs if r.get("section") == "a" and r["graph"] == g
                    and r["basc"] == x and r["method"] == "page"}
            for m in METHODS:
                pairs = [(base[key(r)], r) for r in runs if r.get("section") == "a" and r["graph"] == g
                         and r["basc"] == x and r["method"] == m and key(r) in base]
                if pairs:
                    print(f"  {g} BAsC {x:.0%} {m}: {speedups(pairs)}")
    print("\n(b) speedup of each BAsC share of a 20% budget over the page cache alone (harmonic mean)")
    for g in report["graphs"]:
        rows = [r for r in runs if r.get("section") == "b" and r["graph"] == g]
        base = {r["algorithm"]: r for r in rows if r["share"] == 0.0}
        for share in sorted({r["share"] for r in rows} - {0.0}):
            pairs = [(base[r["algorithm"]], r) for r in rows if r["share"] == share and r["algorithm"] in base]
            print(f"  {g} BAsC share {share:.0%}: {speedups(pairs)}")
    for g in report["graphs"]:
        order = report["order_seconds"]
        if f"{g}/norder" in order and f"{g}/gorder" in order:
            print(f"\n(c) {g}: Norder computes ×{order[f'{g}/gorder'] / max(order[f'{g}/norder'], 1e-9):.1f} "
                  "faster than Gorder")
        # Several reports (`--summarize`) pool: the median of all their runs' wall times.
        pooled: dict[tuple[str, str], list[float]] = {}
        for r in runs:
            if r.get("section") == "c" and r["graph"].startswith(f"{g}-"):
                pooled.setdefault((r["ordering"], r["algorithm"]), []).extend(r["walls"])
        walls = {k: median(v) for k, v in pooled.items()}
        ratios = {a: walls[("gorder", a)] / walls[("norder", a)] for a in ALGOS
                  if ("gorder", a) in walls and ("norder", a) in walls}
        if ratios:
            runs_each = min(len(pooled[("norder", a)]) for a in ratios)
            print(f"(c) {g}: algorithms on Norder over Gorder ×{harmonic_mean(list(ratios.values())):.2f} (harmonic mean; "
                  + ", ".join(f"{a} ×{x:.2f}" for a, x in ratios.items()) + f"; medians of {runs_each} runs)")
        setups = {(r["setup"], r["algorithm"]): r for r in runs
                  if r.get("section") == "e" and r["graph"].startswith(f"{g}-")}
        pairs = [(setups[("page+gorder", a)], setups[("basc+norder", a)]) for a in ALGOS
                 if ("page+gorder", a) in setups and ("basc+norder", a) in setups]
        if pairs:
            print(f"(e) {g}: BAsC+Norder over page cache+Gorder {speedups(pairs)}")
        bound = [(setups[("page+gorder", a)], setups[("all+norder", a)]) for a in ALGOS
                 if ("page+gorder", a) in setups and ("all+norder", a) in setups]
        if bound:
            print(f"(e) {g}: bound — Norder with the whole graph in its page cache over page cache+Gorder "
                  f"{speedups(bound)}")
        for config, sessions in session_pairs(runs, g).items():
            page_gorder, basc_norder = sessions[0]
            each = ", ".join(f"{r['algorithm']} ×{b['wall'] / r['wall']:.2f}" for b, r in sessions)
            algorithms = ", ".join(r["algorithm"] for _, r in sessions)
            print(f"(s) {config}: {len(basc_norder['walls'])} sessions of {algorithms} — BAsC+Norder (index and static cache "
                  f"loaded once, {basc_norder['session_load']:.3f} s) over page cache+Gorder: per algorithm "
                  f"×{harmonic_mean([b['wall'] / r['wall'] for b, r in sessions]):.2f} (harmonic mean; {each}), whole session "
                  f"×{page_gorder['session_total'] / basc_norder['session_total']:.2f} ({basc_norder['session_total']:.2f} s "
                  f"against {page_gorder['session_total']:.2f} s, loading included)")
        for config, sessions in session_pairs(runs, g, "page+norder").items():
            each = ", ".join(f"{r['algorithm']} ×{b['wall'] / r['wall']:.2f}" for b, r in sessions)
            print(f"(s) {config}: {len(sessions[0][1]['walls'])} sessions — Norder over Gorder, page cache 25% both: "
                  f"×{harmonic_mean([b['wall'] / r['wall'] for b, r in sessions]):.2f} (harmonic mean; {each})")
    configs = session_pairs(runs)
    overall = [b["wall"] / r["wall"] for pairs in configs.values() for b, r in pairs]
    if len(configs) > 1 and overall:
        # The paper's summary of Figure 12: one harmonic mean over every algorithm and graph.
        print(f"(s) all {len(configs)} configurations: BAsC+Norder over page cache+Gorder ×{harmonic_mean(overall):.2f} "
              f"(harmonic mean over {len(overall)} configuration-algorithm pairs)")
    print("\norderings: compute seconds", json.dumps(report["order_seconds"], indent=1))
    print("GVS seconds", json.dumps(report["gvs_seconds"], indent=1))
    for section in ("c", "e", "s"):
        rows = [r for r in runs if r.get("section") == section]
        for r in rows:
            print(f"  ({section}) {r['graph']} {r['algorithm']} {r.get('ordering') or r.get('setup')}: "
                  f"{r['wall']:.2f} s, page hit {r['hit'].get('page', 0):.2f}")


if __name__ == "__main__":
    main()
