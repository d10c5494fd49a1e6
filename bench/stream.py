#!/usr/bin/env python3
"""Stream-engine benchmark suite (issue 4, CLIP), one run, under a cgroup memory limit with the
page cache dropped before every run.

Graphs: a `rows × rows` road-like lattice (`diskgraph generate grid`, weighted 1..100,
undirected; default 3000 × 3000) and Kronecker graphs of `--scale` (plain and weighted; default
24), each partitioned once into `grid-P` (P chosen from `--memory`) and `grid-P-source` layouts.

(a) MRT sweep 1, 2, 5, 10, 20: iterations and time of sssp (and bfs) on both graphs (the paper's
    Figure 5); ratios against MRT 1, GridGraph's one pass per block.
(b) Union-find wcc (one pass, beyond the neighbourhood) against label propagation (the classic
    baseline, MRT 1): passes and time on both graphs.
(c) The paper's three memory scenarios for sssp, bfs, wcc and mis on both graphs:
    - external: `--memory` half the algorithm's vertex state, vertex state mapped to a scratch
      file (`--vertex-state mmap`), and a cgroup limit that holds only the budget, what the CLI
      process itself keeps per vertex at its peak (original IDs and the result arrays,
      `PROCESS_BYTES`) and 128 MiB: the mapped state gets no room of its own and competes for
      what those arrays do not use yet (as large as the state for sssp, so it is paged there;
      several times larger for the others, so expect little paging), and the graph's pages
      cannot be cached;
    - semi-external: `--memory` (default 256 MiB), vertex state in memory, a limit that also
      holds the vertex state;
    - in memory: `--memory` 4 GiB, no limit;
    plus the memory engine as the ceiling.
(d) The streaming pass's read rate (pagerank, 3 full passes) against the device's own
    sequential rate (1 MiB O_DIRECT reads at depth 16, `diskgraph device`) measured in this run,
    on the budget's layout and on two whose P keeps a range's values in cache (GridGraph's rule;
    enough columns for the by-column parallel passes): grid-sorted (plain adds by column) and
    destination-sorted (each destination's run gathered in a register).

Every ratio is against a baseline measured in the same run. Writes JSON (`--report`) and prints
a table; `--table FILE` prints the table of an earlier report.

    python3 bench/stream.py [--scale 24] [--grid-side 3000] [--memory 256MiB] [--work DIR]
                            [--report bench/out/stream.json] [--only a,b,c,d] [--table FILE]
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, ensure_kronecker, hold_freed_pages, run, run_stats

MRTS = (1, 2, 5, 10, 20)
#: Vertex state of each algorithm in bytes per vertex (its arrays plus the engine's bitmaps), for
#: the memory scenarios.
STATE_BYTES = {"sssp": 8.4, "bfs": 4.4, "wcc": 4.2, "mis": 1.2, "pagerank": 32.4}
SCENARIO_ALGOS = ("sssp", "bfs", "wcc", "mis")
#: Bytes per vertex the CLI process itself holds at its peak, outside the engine: 8 of original
#: IDs plus the result arrays as the registry builds them (raw values, then the reported ones).
PROCESS_BYTES = {"sssp": 16, "bfs": 20, "wcc": 28, "mis": 18, "pagerank": 24}
SLACK = 128 << 20
IN_MEMORY_BUDGET = 4 << 30
#: Bytes of one range's vertex values that `cache_sized_grid` keeps under (a quarter of the
#: 32 MiB L3 of this machine's kind, leaving room for the other range and the streamed edges).
CACHE_RANGE_BYTES = 4 << 20


def parse_size(s: str) -> int:
    units = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
    t = s.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1] if t and t[-1] in units else ""
    return int(float(t[: len(t) - len(unit)]) * (1 << units[unit]))


def mib(b: float) -> str:
    return f"{b / 2**20:.0f}MiB"


class Suite:
    """The graphs, the binary and the measuring helpers of one run."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.dg = diskgraph_binary()
        self.work: Path = a.work
        self.memory = a.memory
        self.budget = parse_size(a.memory)
        self.work.mkdir(parents=True, exist_ok=True)
        side = a.grid_side
        self.graphs = {
            "grid": (self.work / f"grid{side}", self.work / f"grid{side}"),
            "kron": (self.work / f"kron{a.scale}", self.work / f"kron{a.scale}w"),
        }
        grid = self.graphs["grid"][0]
        if not (grid / "manifest.json").exists():
            run([self.dg, "generate", "grid", "--rows", str(side), "--cols", str(side), "-o", str(grid), "--force"])
        ensure_kronecker(self.dg, self.graphs["kron"][0], a.scale, False)
        ensure_kronecker(self.dg, self.graphs["kron"][1], a.scale, True)
        self.layouts = {path: self.partition(path) for pair in self.graphs.values() for path in pair}
        self.vertices = {k: self.info(v[0])["num_vertices"] for k, v in self.graphs.items()}

    def info(self, graph: Path) -> dict:
        return json.loads(run([self.dg, "info", str(graph), "--json"])[0])

    def partition(self, graph: Path) -> dict[str, str]:
        """The graph's `grid-P` and `grid-P-source` layouts (made with P chosen from the budget
        unless some are there; the smallest P otherwise), by sort."""
        def found(sort: str) -> list[tuple[int, str]]:
            return [(d["rows"], d["name"]) for d in self.info(graph).get("layout_details", [])
                    if d.get("sort") == sort]

        names = {}
        for sort in ("grid", "source"):
            if not found(sort):
                run([self.dg, "partition", str(graph), "--sort", sort, "--memory", self.memory])
            names[sort] = min(found(sort))[1]
        return names

    def measure(self, graph: str, algo: str, flags: list[str], limit: int | None, weighted: bool = False,
                engine: str = "stream", layout: str | None = None) -> dict:
        """One run with the page cache dropped, inside a cgroup of `limit` bytes (None: no limit)."""
        path = self.graphs[graph][1 if weighted else 0]
        source = ["--source", "max-degree" if graph == "kron" else "smallest"] if algo in ("sssp", "bfs") else []
        if engine == "stream":
            greedy = algo == "mis" and "luby" not in flags
            source += ["--layout", layout or self.layouts[path]["source" if greedy else "grid"]]
        cg = None
        if limit is not None:
            cg = MemoryCgroup("diskgraph-bench-stream", limit)
            cg.reset_max()
        drop_caches()
        stats = run_stats([self.dg, "run", algo, str(path), "--engine", engine, *source, *flags],
                          self.work / "stats.json", cg)
        stats["cgroup_limit"] = limit if cg and cg.active else None
        stats["cgroup_max_usage"] = cg.max_usage() if cg and cg.active else None
        if cg:
            cg.close()
        return stats

    def semi_limit(self, graph: str, algo: str, budget: int) -> int:
        v = self.vertices[graph]
        return budget + int(v * (PROCESS_BYTES[algo] + STATE_BYTES[algo])) + SLACK


def brief(s: dict) -> dict:
    """The figures the report keeps of a run."""
    keys = ("wall_seconds", "compute_seconds", "iterations", "edges_processed", "bytes_read", "io_requests",
            "io_wait_seconds", "peak_engine_memory", "cgroup_limit", "cgroup_max_usage", "process_seconds")
    out = {k: s.get(k) for k in keys}
    st = s.get("settings", {})
    for k in ("layout", "mrt", "vertex_state", "load_edges", "load_passes", "reentry_passes", "blocks_skipped",
              "edges_skipped", "io_backend", "io_rate", "io_seconds", "method", "memory"):
        if k in st:
            out[k] = st[k]
    out["io_rounds"] = s.get("io_rounds", [])
    return out


def mrt_sweep(su: Suite) -> list[dict]:
    rows = []
    for graph in ("grid", "kron"):
        for algo in ("sssp", "bfs"):
            for mrt in MRTS:
                s = su.measure(graph, algo, ["--mrt", str(mrt), "--memory", su.memory],
                               su.semi_limit(graph, algo, su.budget), weighted=algo == "sssp")
                rows.append({"graph": graph, "algorithm": algo, "mrt": mrt, **brief(s)})
    return rows


def wcc_methods(su: Suite) -> list[dict]:
    rows = []
    for graph in ("grid", "kron"):
        for method, mrt in (("union-find", 1), ("label-propagation", 1), ("label-propagation", 5)):
            s = su.measure(graph, "wcc", ["--method", method, "--mrt", str(mrt), "--memory", su.memory],
                           su.semi_limit(graph, "wcc", su.budget))
            rows.append({"graph": graph, "method": method, "mrt": mrt, **brief(s)})
    return rows


def scenarios(su: Suite) -> list[dict]:
    rows = []
    for graph in ("grid", "kron"):
        v = su.vertices[graph]
        for algo in SCENARIO_ALGOS:
            weighted = algo == "sssp"
            state = int(v * STATE_BYTES[algo])
            external = max(1 << 20, state // 2)
            runs = {
                "external": (["--memory", mib(external), "--vertex-state", "mmap"],
                             external + v * PROCESS_BYTES[algo] + SLACK, "stream"),
                "semi-external": (["--memory", su.memory], su.semi_limit(graph, algo, su.budget), "stream"),
                "in-memory": (["--memory", mib(IN_MEMORY_BUDGET)], None, "stream"),
                "memory engine": (["--memory", mib(IN_MEMORY_BUDGET)], None, "memory"),
            }
            for scenario, (flags, limit, engine) in runs.items():
                s = su.measure(graph, algo, flags, limit, weighted, engine)
                rows.append({"graph": graph, "algorithm": algo, "scenario": scenario, "vertex_state_bytes": state,
                             **brief(s)})
    return rows


def cache_sized_grid(vertices: int) -> int:
    """GridGraph's rule for P: the smallest power of two whose ranges' 8-byte vertex values fit in
    `CACHE_RANGE_BYTES`, so a block's source and destination values stay in the last-level cache."""
    p = 1
    while -(-vertices // p) * 8 > CACHE_RANGE_BYTES:
        p *= 2
    return p


def pass_rate(su: Suite) -> dict:
    """Pagerank's full streaming passes (3 iterations) against the device's sequential rate, on
    the budget's layout and on cache-sized ones (`cache_sized_grid`, grid- and destination-sorted,
    partitioned when missing)."""
    graph = su.graphs["kron"][0]
    cache_p = cache_sized_grid(su.vertices["kron"])
    cached = {"grid": f"grid-{cache_p}", "destination": f"grid-{cache_p}-destination"}
    for sort, name in cached.items():
        if name not in su.info(graph).get("layouts", []):
            run([su.dg, "partition", str(graph), "--grid", str(cache_p), "--sort", sort, "--memory", su.memory])
    edges = graph / su.layouts[graph]["grid"] / "edges.bin"
    drop_caches()
    device = json.loads(run([su.dg, "device", str(edges), "--access", "1MiB", "--depth", "16", "--json"])[0])
    rows = []
    for layout in dict.fromkeys([su.layouts[graph]["grid"], *cached.values()]):
        s = su.measure("kron", "pagerank", ["--iterations", "3", "--memory", su.memory],
                       su.semi_limit("kron", "pagerank", su.budget), layout=layout)
        rounds = [r for r in s.get("io_rounds", []) if r["bytes_read"] > 0]
        wall = sum(r["seconds"] for r in rounds)
        busy = sum(r.get("io_busy_seconds", 0.0) for r in rounds)
        read = sum(r["bytes_read"] for r in rounds)
        rows.append({
            "layout": layout,
            "run": brief(s),
            "pass_bytes_per_second": read / wall if wall else 0.0,
            "busy_bytes_per_second": read / busy if busy else 0.0,
        })
    return {"device": device, "layouts": rows}


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def table(r: dict) -> None:
    print(f"graphs: {r['graphs']}, budget {r['memory']}\n")
    if r.get("mrt_sweep"):
        print("(a) MRT sweep — × against MRT 1 of the same graph and algorithm")
        print("| graph | algo | MRT | iterations | wall s | × iterations | × wall | reentry passes |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        base = {(x["graph"], x["algorithm"]): x for x in r["mrt_sweep"] if x["mrt"] == 1}
        for x in r["mrt_sweep"]:
            b = base[(x["graph"], x["algorithm"])]
            print(f"| {x['graph']} | {x['algorithm']} | {x['mrt']} | {x['iterations']} | {x['wall_seconds']:.2f} | "
                  f"{ratio(x['iterations'], b['iterations'])} | {ratio(x['wall_seconds'], b['wall_seconds'])} | "
                  f"{x.get('reentry_passes', '-')} |")
        print()
    if r.get("wcc"):
        print("(b) wcc — × wall against union-find on the same graph")
        print("| graph | method | MRT | passes | wall s | MiB read | × wall |")
        print("|---|---|---:|---:|---:|---:|---:|")
        uf = {x["graph"]: x for x in r["wcc"] if x["method"] == "union-find"}
        for x in r["wcc"]:
            print(f"| {x['graph']} | {x['method']} | {x['mrt']} | {x['iterations']} | {x['wall_seconds']:.2f} | "
                  f"{x['bytes_read'] / 2**20:.0f} | {ratio(x['wall_seconds'], uf[x['graph']]['wall_seconds'])} |")
        print()
    if r.get("scenarios"):
        print("(c) memory scenarios — × wall against the stream engine in memory and the memory engine")
        print("| graph | algo | scenario | limit MiB | max usage MiB | wall s | iterations | × in-memory | × memory engine |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|")
        key = lambda x, sc: next(y for y in r["scenarios"]  # noqa: E731
                                 if (y["graph"], y["algorithm"], y["scenario"]) == (x["graph"], x["algorithm"], sc))
        for x in r["scenarios"]:
            lim = f"{x['cgroup_limit'] / 2**20:.0f}" if x["cgroup_limit"] else "-"
            use = f"{x['cgroup_max_usage'] / 2**20:.0f}" if x["cgroup_max_usage"] else "-"
            print(f"| {x['graph']} | {x['algorithm']} | {x['scenario']} | {lim} | {use} | {x['wall_seconds']:.2f} | "
                  f"{x['iterations']} | {ratio(x['wall_seconds'], key(x, 'in-memory')['wall_seconds'])} | "
                  f"{ratio(x['wall_seconds'], key(x, 'memory engine')['wall_seconds'])} |")
        print()
    if r.get("pass_rate"):
        p = r["pass_rate"]
        dev = p["device"]["bytes_per_second"]
        print(f"(d) streaming pass (pagerank, 3 passes) — × the device's sequential 1 MiB QD16 rate, {dev / 1e6:.0f} MB/s")
        print("| layout | MB/s over the passes' wall | × device | MB/s while reads in flight | × device |")
        print("|---|---:|---:|---:|---:|")
        for x in p["layouts"]:
            print(f"| {x['layout']} | {x['pass_bytes_per_second'] / 1e6:.0f} | {ratio(x['pass_bytes_per_second'], dev)} | "
                  f"{x['busy_bytes_per_second'] / 1e6:.0f} | {ratio(x['busy_bytes_per_second'], dev)} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--grid-side", type=int, default=3000)
    ap.add_argument("--memory", default="256MiB", help="the stream engine's budget (and partitioning's)")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "bench")
    ap.add_argument("--report", type=Path, default=Path(__file__).parent / "out" / "stream.json",
                    help="where the JSON report goes")
    ap.add_argument("--only", default="a,b,c,d", help="sections to run: a (MRT), b (wcc), c (scenarios), d (rate)")
    ap.add_argument("--table", type=Path, help="print the table of an earlier report and exit")
    a = ap.parse_args()
    if a.table:
        table(json.loads(a.table.read_text()))
        return
    only = set(a.only.split(","))
    if only - set("abcd"):
        raise SystemExit(f"unknown section(s) {sorted(only - set('abcd'))} (a, b, c, d)")
    su = Suite(a)
    result = {"graphs": {k: str(v[0]) for k, v in su.graphs.items()}, "memory": a.memory,
              "vertices": su.vertices, "freed_pages_held_ms": hold_freed_pages()}
    if "a" in only:
        result["mrt_sweep"] = mrt_sweep(su)
    if "b" in only:
        result["wcc"] = wcc_methods(su)
    if "c" in only:
        result["scenarios"] = scenarios(su)
    if "d" in only:
        result["pass_rate"] = pass_rate(su)
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(result, indent=2) + "\n")
    table(result)
    print(f"\nJSON: {a.report}")


if __name__ == "__main__":
    main()
