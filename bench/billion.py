#!/usr/bin/env python3
"""Billion-edge graphs (issue 48): Graph500 Kronecker graphs generated and imported under a memory
budget with their peak disk sampled, then bfs, wcc, pagerank and kcore (and any algorithm asked
for) each verified in a cgroup that counts the page cache, caches dropped before each run, and
the Graph500 benchmark (validated searches) on the same graph. The device's sequential rate is
measured in the same invocation, on the graph's largest file.

    python3 bench/billion.py --scales 23,24,25 [--work DIR] [--codec vbyte|plain] [--cgroup 4GiB]
        [--import-memory 2GiB] [--memory 3GiB] [--only bfs,wcc,pagerank,kcore] [--engine auto] [--roots 64]
        [--keep] [--reuse] [--from-file] [--baseline-scale 25]

With `--from-file` the graph is also imported from a bin32 edge list of the same edges (written
by `diskgraph export`), whose peak disk does not count the input file. `--reuse` runs on a graph
already generated in the work directory (keeping the import figures recorded for it). With
`--baseline-scale S`, the memory engine's Graph500 on scale S (in RAM, no cgroup) runs in the
same invocation, and each scale's harmonic-mean TEPS is printed as a ratio of it. Prints one
table row per scale and writes everything to bench/out/billion.json (merged with earlier
scales).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, hold_freed_pages

OPTIONS = {
    "bfs": ["--source", "max-degree"],
    "sssp": ["--source", "max-degree"],
    "sp": ["--source", "max-degree"],
    "pagerank": ["--iterations", "10", "--allow-unconverged"],
    "diameter": ["--source", "max-degree", "--rounds", "2"],
    "msbfs": ["--sources", "16"],
    "apsp": ["--sources", "4"],
    "bc": ["--samples", "4"],
}
UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def parse_bytes(text: str) -> int:
    m = re.fullmatch(r"(\d+)\s*(KiB|MiB|GiB|TiB)?", text)
    if not m:
        sys.exit(f"not a size: {text!r} (e.g. 4GiB)")
    return int(m.group(1)) * UNITS.get(m.group(2) or "", 1)


def tree_bytes(path: Path) -> int:
    """Bytes allocated under `path` (files being written included)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total


class Measured:
    """A process run to the end with its wall time, peak RSS (wait4) and, optionally, the peak
    bytes under a directory and the peak of the filesystem's used bytes, sampled every 0.25 s."""

    def __init__(self, cmd: list[str], watch: Path | None = None, cgroup: MemoryCgroup | None = None) -> None:
        self.cmd = cmd
        du0 = tree_bytes(watch) if watch else 0
        df0 = shutil.disk_usage(watch).used if watch else 0
        self.peak_dir = self.peak_fs = 0
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=cgroup.preexec if cgroup else None)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.25):
                if watch:
                    self.peak_dir = max(self.peak_dir, tree_bytes(watch) - du0)
                    self.peak_fs = max(self.peak_fs, shutil.disk_usage(watch).used - df0)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        self.stdout, self.stderr = proc.communicate()
        self.seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        self.status = proc.returncode
        # The peak RSS comes from /usr/bin/time wrapped around the command (see `timed`).
        m = re.search(r"peak RSS (\d+) KiB", self.stderr)
        self.peak_rss = int(m.group(1)) * 1024 if m else 0
        self.final_dir = (tree_bytes(watch) - du0) if watch else 0

    def check(self) -> "Measured":
        if self.status != 0:
            sys.exit(f"command failed ({self.status}): {' '.join(self.cmd)}\n{self.stderr[-4000:]}")
        return self


def timed(cmd: list[str]) -> list[str]:
    return ["/usr/bin/time", "-f", "peak RSS %M KiB", *cmd]


def device_rate(dg: str, graph: Path) -> float:
    """Sequential O_DIRECT bytes per second on the graph's largest file (1 MiB reads, depth 16)."""
    largest = max((p for p in graph.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    out = subprocess.run([dg, "device", str(largest), "--json", "--access", "1MiB", "--depth", "16", "--bytes", "4GiB"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["bytes_per_second"]


def make_graph(dg: str, a: argparse.Namespace, scale: int, path: Path) -> dict:
    cmd = [dg, "generate", "kronecker", "--scale", str(scale), "--memory", a.import_memory, "-o", str(path), "--force"]
    if a.codec != "plain":
        cmd += ["--compress", a.codec]
    m = Measured(timed(cmd), watch=path.parent).check()
    info = json.loads(subprocess.run([dg, "info", str(path), "--json"], capture_output=True, text=True, check=True).stdout)
    graph_bytes = tree_bytes(path)
    result = {
        "vertices": info["num_vertices"],
        "arcs": info["num_arcs"],
        "graph_bytes": graph_bytes,
        "import_seconds": m.seconds,
        "import_peak_disk": m.peak_dir,
        "import_peak_fs": m.peak_fs,
        "import_peak_rss": m.peak_rss,
    }
    print(f"  generate: {m.seconds:.0f} s, graph {graph_bytes / 1e9:.2f} GB, peak disk {m.peak_dir / 1e9:.2f} GB "
          f"({m.peak_dir / graph_bytes:.2f}x; filesystem {m.peak_fs / graph_bytes:.2f}x), peak RSS {m.peak_rss / 2**30:.2f} GiB",
          flush=True)
    if a.from_file:
        edges = path.parent / f"kron{scale}.bin32"
        subprocess.run([dg, "export", str(path), "-o", str(edges), "--format", "bin32", "--force"], check=True)
        again = path.parent / f"kron{scale}-file"
        cmd = [dg, "import", str(edges), "--format", "bin32", "--undirected", "--memory", a.import_memory,
               "-o", str(again), "--force"] + (["--compress", a.codec] if a.codec != "plain" else [])
        f = Measured(timed(cmd), watch=path.parent).check()
        file_bytes = tree_bytes(again)
        file_info = json.loads(subprocess.run([dg, "info", str(again), "--json"], capture_output=True, text=True,
                                              check=True).stdout)
        result.update(file_import_seconds=f.seconds, file_import_peak_disk=f.peak_dir,
                      file_graph_bytes=file_bytes, file_import_peak_rss=f.peak_rss,
                      file_vertices=file_info["num_vertices"])
        print(f"  import from bin32: {f.seconds:.0f} s, peak disk {f.peak_dir / 1e9:.2f} GB ({f.peak_dir / file_bytes:.2f}x)",
              flush=True)
        shutil.rmtree(again)
        edges.unlink()
    return result


def run_algorithm(dg: str, a: argparse.Namespace, graph: Path, algorithm: str, group: MemoryCgroup) -> dict:
    stats = graph.parent / f"{algorithm}.stats.json"
    cmd = [dg, "run", algorithm, str(graph), "--memory", a.memory, "--engine", a.engine, "--verify", "--stats", str(stats),
           *OPTIONS.get(algorithm, [])]
    drop_caches()
    group.reset_max()
    m = Measured(timed(cmd), cgroup=group).check()
    s = json.loads(stats.read_text())
    stats.unlink()
    row = {
        "engine": s.get("engine"),
        "seconds": m.seconds,
        "compute_seconds": s.get("compute_seconds"),
        "load_seconds": s.get("load_seconds"),
        "bytes_read": s.get("bytes_read", 0),
        "verify_seconds": s.get("verify_seconds", 0.0),
        "peak_rss": m.peak_rss,
        "cgroup_peak": group.max_usage(),
        "memory": a.memory,
        "cgroup": a.cgroup,
    }
    print(f"  {algorithm}: {m.seconds:.1f} s on {row['engine']}, read {row['bytes_read'] / 1e9:.1f} GB, verify "
          f"{row['verify_seconds']:.1f} s, peak RSS {m.peak_rss / 2**30:.2f} GiB, cgroup peak {row['cgroup_peak'] / 2**30:.2f} GiB",
          flush=True)
    return row


def graph500(dg: str, a: argparse.Namespace, graph: Path, group: MemoryCgroup | None,
             engine: str = "auto", memory: str | None = None) -> dict:
    """Kernel 2 (validated BFS from `--roots` keys) on the graph as it is (unweighted: no kernel 3)."""
    out = graph.parent / "graph500.json"
    drop_caches()
    if group:
        group.reset_max()
    cmd = [dg, "graph500", str(graph), "--roots", str(a.roots), "--memory", memory or a.memory, "--bfs-only",
           "--engine", engine, "--json", str(out)]
    m = Measured(timed(cmd), cgroup=group).check()
    bfs = json.loads(out.read_text())[0]["bfs"]
    out.unlink()
    result = {
        "harmonic_mean_teps": bfs["harmonic_mean_teps"],
        "min_teps": bfs["teps"]["min"],
        "max_teps": bfs["teps"]["max"],
        "validated": bfs["validated"],
        "mean_validate_seconds": bfs["mean_validate_time"],
        "engine": bfs["engine"],
        "wall_seconds": m.seconds,
        "peak_rss": m.peak_rss,
        "cgroup_peak": group.max_usage() if group else 0,
        "memory": memory or a.memory,
        "cgroup": a.cgroup if group else "none",
    }
    print(f"  graph500: {result['validated']} searches validated on {result['engine']}, harmonic mean "
          f"{result['harmonic_mean_teps'] / 1e6:.0f} M TEPS (min {result['min_teps'] / 1e6:.0f}, max "
          f"{result['max_teps'] / 1e6:.0f}), {m.seconds:.0f} s, cgroup peak {result['cgroup_peak'] / 2**30:.2f} GiB",
          flush=True)
    return result


def graph_size(dg: str, graph: Path) -> dict:
    """Vertices, arcs and bytes on disk of an existing graph."""
    info = json.loads(subprocess.run([dg, "info", str(graph), "--json"], capture_output=True, text=True, check=True).stdout)
    return {"vertices": info["num_vertices"], "arcs": info["num_arcs"], "graph_bytes": tree_bytes(graph)}


def memory_baseline(dg: str, a: argparse.Namespace) -> dict:
    """The memory engine's Graph500 kernel 2 on `--baseline-scale`, in RAM (no cgroup), generated
    in the work directory unless it is there (and kept with `--keep`)."""
    scale = a.baseline_scale
    print(f"Baseline: Kronecker {scale} on the memory engine, in RAM", flush=True)
    graph = a.work / f"kron{scale}"
    if not (graph / "manifest.json").exists():
        make_graph(dg, argparse.Namespace(**{**vars(a), "from_file": False}), scale, graph)
    result = graph500(dg, a, graph, None, engine="memory", memory="16GiB")
    if not a.keep and scale not in [int(s) for s in a.scales.split(",")]:
        shutil.rmtree(graph)
    return result


def run_seconds(run: dict) -> float:
    """A run's time: loading the engine and computing, from its stats (older records: the
    process's wall time less the verifier's, which adds the process's start)."""
    if run.get("compute_seconds") is not None:
        return run["compute_seconds"] + (run.get("load_seconds") or 0.0)
    return run["seconds"] - run.get("verify_seconds", 0.0)


def table(results: dict, codec: str) -> str:
    """docs/BENCHMARKS.md's tables for the scales of `results` with `codec` lists."""
    rows = sorted((r for r in results.values() if r.get("codec") == codec), key=lambda r: r["scale"])
    gb = lambda b: f"{b / 1e9:.2f}"
    out = ["| scale | from | vertices | arcs | on disk GB (plain) | import s | peak disk | import peak RSS GiB | device GB/s |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]

    def import_row(r: dict, source: str, prefix: str, vertices: int, graph_bytes: int) -> str:
        plain = 4 * r["arcs"] + 8 * (vertices + 1)
        peak = r.get(f"{prefix}_peak_disk")
        disk = f"{gb(peak)} ({peak / graph_bytes:.2f}x)" if peak is not None else "-"
        return (f"| {r['scale']} | {source} | {vertices:,} | {r['arcs']:,} | {gb(graph_bytes)} ({gb(plain)}) | "
                f"{r.get(f'{prefix}_seconds', 0):.0f} | {disk} | {r.get(f'{prefix}_peak_rss', 0) / 2**30:.2f} | "
                f"{r.get('device_bytes_per_second', 0) / 1e9:.2f} |")

    for r in rows:
        out.append(import_row(r, "generator", "import", r["vertices"], r["graph_bytes"]))
        if "file_import_seconds" in r:
            # The file holds only the edges: vertices without any are not in it.
            out.append(import_row(r, "bin32 file", "file_import", r.get("file_vertices", r["vertices"]),
                                  r["file_graph_bytes"]))
    algorithms = [a for a in ("bfs", "wcc", "pagerank", "kcore") if any(a in r.get("runs", {}) for r in rows)]
    out += ["", "| scale | algorithm | engine | cgroup | run s | GB read | verify s | peak RSS GiB | × previous scale |",
            "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for alg in algorithms:
        previous = None
        for r in rows:
            run = r.get("runs", {}).get(alg)
            if not run:
                previous = None
                continue
            growth = "-"
            if previous and previous[0] == r["scale"] - 1 and previous[1]["engine"] == run["engine"]:
                growth = f"{run_seconds(run) / run_seconds(previous[1]):.2f}"
            # Runs recorded before each kept its own limit ran in their row's.
            cgroup = run.get("cgroup", r["cgroup"])
            out.append(f"| {r['scale']} | {alg} | {run['engine']} | {cgroup} | {run_seconds(run):.1f} | {gb(run['bytes_read'])} | "
                       f"{run['verify_seconds']:.1f} | {run['peak_rss'] / 2**30:.2f} | {growth} |")
            previous = (r["scale"], run)
    g500 = [r for r in rows if "graph500" in r]
    if g500:
        out += ["", "| scale | cgroup | searches validated | harmonic-mean TEPS | min | max | mean validation s | "
                "× memory engine's |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for r in g500:
            g = r["graph500"]
            of = f"{g['of_baseline']:.2f}" if "of_baseline" in g else "-"
            out.append(f"| {r['scale']} | {g.get('cgroup', r['cgroup'])} | {g['validated']} | {g['harmonic_mean_teps'] / 1e6:.1f} M | "
                       f"{g['min_teps'] / 1e6:.1f} M | {g['max_teps'] / 1e6:.1f} M | {g['mean_validate_seconds']:.1f} | {of} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="23,24,25")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("DISKGRAPH_WORK", "work")) / "billion")
    ap.add_argument("--codec", default="vbyte", help="lists of the generated graph: vbyte, zeta or plain")
    ap.add_argument("--cgroup", default="4GiB", help="memory limit of every run (page cache counted)")
    ap.add_argument("--import-memory", default="2GiB")
    ap.add_argument("--memory", default="3GiB", help="--memory of every run")
    ap.add_argument("--only", default="bfs,wcc,pagerank,kcore")
    ap.add_argument("--engine", default="auto", help="engine of every run (selective compares scales alike)")
    ap.add_argument("--roots", type=int, default=64)
    ap.add_argument("--from-file", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="run on the graph already in the work directory")
    ap.add_argument("--baseline-scale", type=int, default=0,
                    help="also run the memory engine's Graph500 on this scale, in RAM, as the TEPS baseline")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "billion.json")
    ap.add_argument("--table", action="store_true", help="print the tables of --out's results and stop")
    a = ap.parse_args()
    if a.table:
        print(table(json.loads(a.out.read_text()), a.codec))
        return
    dg = diskgraph_binary()
    hold_freed_pages()
    a.work.mkdir(parents=True, exist_ok=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(a.out.read_text()) if a.out.exists() else {}
    group = MemoryCgroup("diskgraph-billion", parse_bytes(a.cgroup))
    try:
        baseline = memory_baseline(dg, a) if a.baseline_scale else None
        for scale in [int(s) for s in a.scales.split(",")]:
            print(f"Kronecker {scale} ({a.codec} lists)", flush=True)
            graph = a.work / f"kron{scale}"
            row = {"scale": scale, "codec": a.codec, "cgroup": a.cgroup, "memory": a.memory}
            if a.reuse and (graph / "manifest.json").exists():
                row.update({k: v for k, v in results.get(f"{scale}-{a.codec}", {}).items()
                            if "import" in k or k.startswith("file_")})
                row.update(graph_size(dg, graph))
            else:
                row.update(make_graph(dg, a, scale, graph))
            row["device_bytes_per_second"] = device_rate(dg, graph)
            print(f"  device: {row['device_bytes_per_second'] / 1e9:.2f} GB/s sequential", flush=True)
            # A reused graph keeps the runs not made again.
            row["runs"] = dict(results.get(f"{scale}-{a.codec}", {}).get("runs", {})) if a.reuse else {}
            row["runs"].update({alg: run_algorithm(dg, a, graph, alg, group) for alg in a.only.split(",") if alg})
            if a.reuse and "graph500" in results.get(f"{scale}-{a.codec}", {}):
                row["graph500"] = results[f"{scale}-{a.codec}"]["graph500"]
            if a.roots:
                row["graph500"] = graph500(dg, a, graph, group)
                if baseline:
                    row["graph500"]["baseline"] = baseline
                    ratio = row["graph500"]["harmonic_mean_teps"] / baseline["harmonic_mean_teps"]
                    row["graph500"]["of_baseline"] = ratio
                    print(f"  graph500: {ratio:.2f}x the memory engine's harmonic mean on scale {a.baseline_scale} "
                          f"({baseline['harmonic_mean_teps'] / 1e6:.0f} M TEPS)", flush=True)
            results[f"{scale}-{a.codec}"] = row
            a.out.write_text(json.dumps(results, indent=1))
            if not a.keep:
                shutil.rmtree(graph)
    finally:
        group.close()


if __name__ == "__main__":
    main()
