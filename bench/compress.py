#!/usr/bin/env python3
"""Compressed adjacency benchmark: bytes per arc, decode rate, and engines reading the
compressed lists against the plain ones, every ratio against a baseline measured in the same run.

Sections (`--only`, comma-separated; default all):

(sizes)   Bytes per arc of every codec (the format crate's `codec_rate` example encodes every
          list as `diskgraph compress` does, in memory, so no copy is written) on Kronecker graphs of
          `--scales` in their generated order, after `reorder --method degree` and after
          `reorder --method norder`; on cnr-2000 (imported from its BVGraph) and on the small real
          graphs of `--real-data`; and the grid layout (`partition`: 8 bytes an edge) against its
          compressed blocks (`partition --compress C`) when the binary offers them. Targets:
          Kronecker 24 after degree order ≤ 2.0 bytes per arc, cnr-2000 ≤ 0.6.
(decode)  Single-thread decode rate of every codec (`codec_rate`: each list decoded alone, best of
          three passes) on Kronecker `--engine-scale` (as generated, degree order, Norder) and
          cnr-2000. Target: ≥ 1 G arcs/s per core.
(engines) Selective and stream bfs / wcc / pagerank (`--iterations 10`) on Kronecker
          `--engine-scale` at 1/8 budget (budget = CSR bytes / 8), plain against every codec (the
          selective engine through `--adjacency`, the stream engine through a plain and a
          compressed grid layout of the same P, the shards engine — wcc and pagerank — through
          a plain and a compressed shard layout of the same N, 64 KiB blocks), page cache dropped before each run, in a cgroup
          v1 memory limit of budget + 96 B per vertex + 192 MiB, one run each: bytes read, wall
          time, ratios; plus the device's own rates measured in the same run; and the memory
          engine (`--memory 4GiB`, a 6 GiB cgroup) loading the CSR cold, plain or decoded on load.
(e2e)     Kronecker `--engine-scale` at `--memory 128MiB` in a 256 MiB cgroup, caches dropped:
          bfs / wcc / pagerank (10 iterations) on every engine (selective, sync, stream) and
          encoding the binary offers, the best of them against the plain selective engine of
          `--baseline-binary` (main before compressed adjacency, commit 059348d), both run here; the baseline
          reads the same plain files through a hard-linked twin whose manifest lists no layouts
          (its parser refuses `compressed` ones). Target ≥ 1.5×.

Datasets are generated once into `--data` (default /work/bench-data; not inside the repository)
and reused; compressed copies and grid layouts are added to them as needed. Every line printed also
goes into the JSON report (`--out`), which is rewritten after each section.

    python3 bench/compress.py [--data DIR] [--only sizes,decode,engines,e2e]
                              [--codecs vbyte,zeta] [--scales 22,24] [--engine-scale 22]
                              [--baseline-binary PATH] [--codec-rate PATH] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import MemoryCgroup, diskgraph_binary, drop_caches, hold_freed_pages

SECTIONS = ("sizes", "decode", "engines", "e2e")
ORDERINGS = ("generated", "degree", "norder")
#: Small real graphs of `--real-data` and how to import them (relative path, extra import flags).
REAL_GRAPHS = {
    "wiki-Vote": ("wiki-Vote.txt", []),
    "email-Eu-core": ("email-Eu-core.txt", []),
    "as20graph": ("as20graph.txt", ["--undirected"]),
    "rome99": ("rome99.gr", []),
    "p2p-Gnutella05": ("more/p2p-Gnutella05.txt", []),
    "ca-CondMat": ("more/ca-CondMat.txt", ["--undirected"]),
    "Email-Enron": ("more/Email-Enron.txt", ["--undirected"]),
    "MIT8": ("more/MIT8.edgelist", ["--undirected"]),
}
#: Algorithm flags of the engine sections (pagerank: a fixed 10 iterations, as the issue's figures).
ALGORITHMS = {
    "bfs": ["--source", "max-degree"],
    "wcc": [],
    "pagerank": ["--iterations", "10"],
}
#: The algorithms the shards engine runs of ALGORITHMS.
SHARD_ALGORITHMS = ("wcc", "pagerank")
#: Edge-value block size of the engines section's shard layouts.
SHARD_BLOCK_BYTES = 64 << 10
#: The compressed adjacency targets (benchmark, not test).
TARGET_KRON24_DEGREE = 2.0
TARGET_CNR = 0.6
TARGET_DECODE = 1e9
TARGET_E2E = 1.5
#: The memory engine's budget and cgroup limit in the engines section (room for the whole CSR).
MEMORY_ENGINE_BUDGET = "4GiB"
MEMORY_ENGINE_LIMIT = 6 << 30
#: The end-to-end section's budget and cgroup limit.
E2E_MEMORY = "128MiB"
E2E_LIMIT_MIB = 256


class Bench:
    """The binaries, the data directory and the report of one invocation."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.dg: str = a.binary or diskgraph_binary()
        self.data: Path = a.data
        self.data.mkdir(parents=True, exist_ok=True)
        self.out: Path = a.out
        self.codecs: list[str] = [c for c in a.codecs.split(",") if c]
        self.real_data: Path = a.real_data
        self.run_timeout: float = a.run_timeout
        self.result: dict = {"binary": self.dg, "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                             "printed": []}

    # --- reporting -------------------------------------------------------------------------
    def say(self, line: str = "") -> None:
        """Prints a line and keeps it for the JSON report."""
        print(line, flush=True)
        self.result["printed"].append(line)

    def save(self) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.out.write_text(json.dumps(self.result, indent=2) + "\n")

    # --- running ---------------------------------------------------------------------------
    def attempt(self, cmd: list[str], cgroup: MemoryCgroup | None = None,
                timeout: float | None = None) -> tuple[str | None, float, str]:
        """Runs a command; returns (stdout or None on failure or after `timeout` seconds, when it
        is killed, seconds, stderr)."""
        start = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               preexec_fn=cgroup.preexec if cgroup else None)
        except subprocess.TimeoutExpired:
            return None, time.perf_counter() - start, f"timed out after {timeout:.0f} s (--run-timeout)"
        elapsed = time.perf_counter() - start
        err = p.stderr
        if p.returncode < 0:
            # SIGKILL inside a memory cgroup is most likely its OOM killer.
            err += f"\nkilled by signal {-p.returncode}{' (out of memory in the cgroup?)' if p.returncode == -9 else ''}"
        return (p.stdout if p.returncode == 0 else None), elapsed, err

    def must(self, cmd: list[str]) -> str:
        """Runs a preparation command niced; exits naming it on failure."""
        out, _, err = self.attempt(["nice", "-n", "19", *cmd])
        if out is None:
            sys.exit(f"command failed: {' '.join(cmd)}\n{err}")
        return out

    def info(self, graph: Path) -> dict:
        return json.loads(self.must([self.dg, "info", str(graph), "--json"]))

    def help_text(self, *sub: str) -> str:
        out, _, err = self.attempt([self.dg, *sub, "--help"])
        return (out or "") + err

    # --- datasets --------------------------------------------------------------------------
    def kronecker(self, scale: int, ordering: str) -> Path:
        """Kronecker `scale` in its generated order or reordered by `ordering`, made once."""
        base = self.data / f"kron{scale}"
        if not (base / "manifest.json").exists():
            self.must([self.dg, "generate", "kronecker", "--scale", str(scale), "--memory", "1GiB",
                       "-o", str(base), "--force"])
        if ordering == "generated":
            return base
        path = self.data / f"kron{scale}-{ordering}"
        if not (path / "manifest.json").exists():
            self.must([self.dg, "reorder", str(base), "--method", ordering, "--memory", "1GiB",
                       "-o", str(path), "--force"])
        return path

    def imported(self, name: str, source: Path, flags: list[str]) -> Path:
        path = self.data / name
        if not (path / "manifest.json").exists():
            self.must([self.dg, "import", str(source), "-o", str(path), "--force", *flags])
        return path

    def compressed(self, graph: Path, codec: str) -> dict | None:
        """The graph's compressed-CODEC layout record (compressed.json), made once; None when
        this binary has no such codec (the reason is printed)."""
        meta = graph / f"compressed-{codec}" / "compressed.json"
        if not meta.exists():
            out, _, err = self.attempt(["nice", "-n", "19", self.dg, "compress", str(graph), "--codec", codec])
            if out is None:
                self.say(f"note: no {codec} copy of {graph.name}: {err.strip().splitlines()[0] if err.strip() else '?'}")
                return None
        return json.loads(meta.read_text())

    def grid(self, graph: Path, rows: int, sort: str, codec: str | None) -> dict | None:
        """The graph's `rows`×`rows` grid layout of `sort`, plain or with its blocks compressed
        by `codec`, made once; its layout_details record, None when it cannot be made (the reason
        is printed)."""
        name = f"grid-{rows}" + ("" if sort == "grid" else f"-{sort}") + (f"-{codec}" if codec else "")

        def find() -> dict | None:
            return next((d for d in self.info(graph).get("layout_details", []) if d.get("name") == name), None)
        found = find()
        if found:
            return found
        cmd = [self.dg, "partition", str(graph), "--grid", str(rows), "--sort", sort, "--memory", "1GiB"]
        out, _, err = self.attempt(["nice", "-n", "19", *cmd, *(["--compress", codec] if codec else [])])
        if out is None:
            self.say(f"note: no {name} in {graph.name}: {err.strip().splitlines()[-1] if err.strip() else '?'}")
            return None
        return find()

    def shards(self, graph: Path, budget: str, codec: str | None) -> dict | None:
        """The graph's shard layout for `budget` (`--shards auto`, 64 KiB edge-value blocks: the
        default 1 MiB blocks need more than 1/8 of the CSR for the engine's smallest budget),
        plain or with its windows compressed by `codec`, made once; its layout_details record,
        None when it cannot be made (the reason is printed)."""
        def find() -> dict | None:
            return next((d for d in self.info(graph).get("layout_details", [])
                         if d.get("shards") and d["shards"]["block_bytes"] == SHARD_BLOCK_BYTES
                         and (d["shards"].get("compressed") or [None])[0] == codec), None)
        found = find()
        if found:
            return found
        plain = None if codec is None else self.shards(graph, budget, None)
        count = ["auto"] if plain is None else [str(plain["shards"]["num_shards"])]
        cmd = [self.dg, "partition", str(graph), "--shards", *count, "--memory", budget,
               "--block-size", str(SHARD_BLOCK_BYTES)]
        out, _, err = self.attempt(["nice", "-n", "19", *cmd, *(["--compress", codec] if codec else [])])
        if out is None:
            self.say(f"note: no shards ({codec or 'plain'}) in {graph.name}: "
                     f"{err.strip().splitlines()[-1] if err.strip() else '?'}")
            return None
        return find()

    def plain_twin(self, graph: Path) -> Path:
        """A twin of `graph` for binaries from before compressed layouts (whose manifest parser
        refuses a `compressed` layout): the same files, hard-linked (the same blocks on the
        device), with a manifest that lists no layouts. Remade on every call."""
        twin = self.data / f"{graph.name}-plain-twin"
        if twin.exists():
            shutil.rmtree(twin)
        twin.mkdir()
        for f in graph.iterdir():
            if f.is_file() and f.name != "manifest.json":
                os.link(f, twin / f.name)
        manifest = json.loads((graph / "manifest.json").read_text())
        manifest["layouts"] = []
        (twin / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        return twin

    def device(self, target: Path) -> dict:
        """The device's own O_DIRECT read rates on `target` (sequential 1 MiB, random 256, 64 and
        4 KiB at queue depth 64), measured now with the page cache dropped."""
        rates = {}
        for label, access, depth, random in (("sequential_1MiB", 1 << 20, 16, False),
                                             ("random_256KiB", 256 << 10, 64, True),
                                             ("random_64KiB", 64 << 10, 64, True),
                                             ("random_4KiB", 4096, 64, True)):
            drop_caches()
            out = self.must([self.dg, "device", str(target), "--json", "--access", str(access), "--depth", str(depth),
                             *(["--random"] if random else [])])
            rates[label] = json.loads(out)
        return rates

    def measure(self, binary: str, graph: Path, algo: str, flags: list[str], cgroup: MemoryCgroup) -> dict:
        """One run with the page cache dropped inside `cgroup`: its RunStats plus the process's
        wall time, or {"error": ...} when it failed."""
        stats_path = self.data / "stats.json"
        stats_path.unlink(missing_ok=True)
        drop_caches()
        cgroup.reset_max()
        cmd = [binary, "run", algo, str(graph), *ALGORITHMS[algo], *flags, "--stats", str(stats_path)]
        out, wall, err = self.attempt(cmd, cgroup, self.run_timeout)
        if out is None:
            return {"error": err.strip().splitlines()[-1] if err.strip() else "failed", "command": cmd}
        stats = json.loads(stats_path.read_text())
        keep = ("wall_seconds", "compute_seconds", "bytes_read", "io_requests", "iterations", "peak_engine_memory")
        row = {k: stats.get(k) for k in keep}
        # What the engine says it read (engines that do not record it: None).
        settings = stats.get("settings") or {}
        row["adjacency_read"] = settings.get("adjacency") or settings.get("layout")
        row["process_seconds"] = wall
        row["cgroup_max_usage"] = cgroup.max_usage() if cgroup.active else None
        row["command"] = cmd
        return row


def plain_bytes(info: dict, name: str) -> int:
    return next((f["logical_bytes"] for f in info["files"] if f["name"] == name), 0)


def csr_bytes(info: dict) -> int:
    """Bytes of the out-lists' CSR (offsets and targets)."""
    return plain_bytes(info, "out.adj") + plain_bytes(info, "out.idx")


def grid_rows(vertices: int, budget_bytes: int) -> int:
    """P as `partition` chooses it from a budget: the smallest power of two with
    ceil(V/P)·8 bytes ≤ budget/16, at most 256."""
    p = 1
    while p < 256 and -(-vertices // p) * 8 > budget_bytes // 16:
        p *= 2
    return p


def mib(b: float) -> str:
    return f"{b / 2**20:.0f} MiB"


# --- (sizes) and (decode): the codec_rate example -------------------------------------------
def codec_rate_binary(given: Path | None) -> Path:
    """The codec_rate example: `given`, else built (niced) in this repository."""
    if given:
        return given
    repo = Path(__file__).resolve().parent.parent
    if not (repo / "crates" / "diskgraph-format" / "examples" / "codec_rate.rs").exists():
        sys.exit("this repository has no codec_rate example: give --codec-rate PATH")
    subprocess.run(["nice", "-n", "19", "cargo", "build", "--release", "-q", "-p", "diskgraph-format",
                    "--example", "codec_rate"], cwd=repo, check=True)
    return repo / "target" / "release" / "examples" / "codec_rate"


class CodecRate:
    """Runs codec_rate once per graph in this invocation: each codec's bytes (the format crate's
    encoder, list by list, as `diskgraph compress` writes them — nothing is written to disk)
    and its single-thread decode rate (every list alone, checked against the CSR, best of 3)."""

    def __init__(self, b: Bench, exe: Path) -> None:
        self.b = b
        self.exe = exe
        self.rows: dict[Path, dict[str, dict]] = {}

    def of(self, graph: Path) -> dict[str, dict]:
        """The codec_rate line of each codec on `graph`, by codec; codecs the example does not
        know are noted and left out."""
        if graph not in self.rows:
            found: dict[str, dict] = {}
            for c in self.b.codecs:
                out, _, err = self.b.attempt([str(self.exe), "--codec", c, str(graph)])
                if out is None:
                    self.b.say(f"note: codec_rate --codec {c} {graph.name}: "
                               f"{err.strip().splitlines()[-1] if err.strip() else 'failed'}")
                    continue
                for line in out.splitlines():
                    if line.startswith("{"):
                        found[c] = json.loads(line)
            self.rows[graph] = found
        return self.rows[graph]


def sizes(b: Bench, rates: CodecRate, scales: list[int], grid_scale: int) -> None:
    b.say("## (sizes) bytes per arc of the out-lists (lists only; the index adds 8 B per vertex, "
          "as the plain one; plain lists: 4.0)\n")
    graphs: list[tuple[str, Path]] = []
    for s in scales:
        for o in ORDERINGS:
            graphs.append((f"kron{s} {o}", b.kronecker(s, o)))
    cnr = b.real_data / "cnr-2000" / "cnr-2000.graph"
    if cnr.exists():
        graphs.append(("cnr-2000", b.imported("cnr-2000", cnr, [])))
    for name, (rel, flags) in REAL_GRAPHS.items():
        if (b.real_data / rel).exists():
            graphs.append((name, b.imported(name, b.real_data / rel, flags)))
    rows = []
    b.say("| graph | vertices | arcs | " + " | ".join(f"{c} B/arc | {c} ×plain" for c in b.codecs) + " |")
    b.say("|---|---:|---:|" + "---:|---:|" * len(b.codecs))
    for label, g in graphs:
        found = rates.of(g)
        any_row = next(iter(found.values()), None)
        if any_row is None:
            continue
        rows.append({"graph": label, "path": str(g), "vertices": any_row["vertices"], "arcs": any_row["arcs"],
                     "codecs": {c: {k: r[k] for k in ("bytes", "bytes_per_arc", "encode_seconds")}
                                for c, r in found.items()}})
        cells = [f"{found[c]['bytes_per_arc']:.3f} | {4 / found[c]['bytes_per_arc']:.2f}" if c in found else "- | -"
                 for c in b.codecs]
        b.say(f"| {label} | {any_row['vertices']} | {any_row['arcs']} | " + " | ".join(cells) + " |")
    b.result["sizes"] = rows

    def best(label: str) -> float | None:
        r = next((r for r in rows if r["graph"] == label), None)
        vals = [v["bytes_per_arc"] for v in (r["codecs"].values() if r else [])]
        return min(vals) if vals else None

    b.say("")
    for label, target in (("kron24 degree", TARGET_KRON24_DEGREE), ("cnr-2000", TARGET_CNR)):
        got = best(label)
        if got is None:
            b.say(f"target {label} ≤ {target} B/arc: not measured")
        else:
            verdict = "met" if got <= target else f"missed by {got / target:.2f}×"
            b.say(f"target {label} ≤ {target} B/arc: best codec {got:.3f} B/arc — {verdict}")
    b.save()

    # The grid: 8 bytes an edge plain, against its compressed blocks.
    if "--compress" not in b.help_text("partition"):
        b.say("\ngrid: this binary's `partition` has no --compress; compressed grid blocks not measured")
        return
    g = b.kronecker(grid_scale, "generated")
    info = b.info(g)
    rows_p = grid_rows(info["num_vertices"], csr_bytes(info) // 8)
    b.say(f"\n## (sizes) grid layout of kron{grid_scale}, P = {rows_p} (as partition chooses for 1/8 of the CSR)\n")
    b.say("| layout | bytes | B/edge | × plain |")
    b.say("|---|---:|---:|---:|")
    grid_sizes: list[dict] = []
    plain = b.grid(g, rows_p, "grid", None)
    if plain:
        for codec in [None, *b.codecs]:
            d = plain if codec is None else b.grid(g, rows_p, "grid", codec)
            if d is None:
                continue
            per = d["bytes_on_disk"] / info["num_arcs"]
            grid_sizes.append({"layout": d["name"], "bytes": d["bytes_on_disk"], "bytes_per_edge": per})
            b.say(f"| {d['name']} | {d['bytes_on_disk']} | {per:.3f} | "
                  f"{plain['bytes_on_disk'] / d['bytes_on_disk']:.2f} |")
    b.result["grid_sizes"] = grid_sizes
    b.save()


def decode(b: Bench, rates: CodecRate, scale: int) -> None:
    b.say("\n## (decode) single-thread decode rate (codec_rate: every list alone, best of 3 passes)\n")
    graphs = [b.kronecker(scale, "generated"), b.kronecker(scale, "degree"), b.kronecker(scale, "norder")]
    if (b.data / "cnr-2000" / "manifest.json").exists():
        graphs.append(b.data / "cnr-2000")
    rows = []
    b.say("| graph | codec | arcs | B/arc | encode s | decode s | G arcs/s | GB/s of lists | target ≥ 1 G arcs/s |")
    b.say("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for g in graphs:
        for c, r in rates.of(g).items():
            rows.append({**r, "graph_path": str(g)})
            rate = r["decode_arcs_per_second"]
            b.say(f"| {g.name} | {c} | {r['arcs']} | {r['bytes_per_arc']:.3f} | {r['encode_seconds']:.2f} | "
                  f"{r['decode_seconds']:.3f} | {rate / 1e9:.2f} | {rate * r['bytes_per_arc'] / 1e9:.2f} | "
                  f"{'met' if rate >= TARGET_DECODE else f'missed ({rate / TARGET_DECODE:.2f}×)'} |")
    b.result["decode"] = rows
    b.save()


# --- (engines) ----------------------------------------------------------------------------
def engines(b: Bench, scale: int) -> None:
    g = b.kronecker(scale, "generated")
    info = b.info(g)
    budget_bytes = csr_bytes(info) // 8
    budget = f"{max(1, budget_bytes >> 20)}MiB"
    limit = (budget_bytes & ~((1 << 20) - 1)) + 96 * info["num_vertices"] + (192 << 20)
    b.say(f"\n## (engines) kron{scale}: CSR {mib(csr_bytes(info))}, budget {budget} (1/8), "
          f"cgroup limit {mib(limit)}, one run each, page cache dropped before each\n")
    dev = b.device(g / "out.adj")
    b.result["engines_device"] = dev
    b.say("device (same run): " + ", ".join(f"{k} {v['bytes_per_second'] / 1e9:.2f} GB/s" for k, v in dev.items()))
    codecs = [c for c in b.codecs if b.compressed(g, c) is not None]
    for c in codecs:
        meta = b.compressed(g, c) or {}
        lists = meta["files"]["out.cadj"]["len"]
        b.say(f"{c} copy on disk (compressed-{c}/out.cadj): {lists / info['num_arcs']:.3f} B/arc, "
              f"{4 * info['num_arcs'] / lists:.2f}× fewer bytes than out.adj")
    cg = MemoryCgroup("diskgraph-bench-compress", limit)
    roomy = MemoryCgroup("diskgraph-bench-compress-memory", MEMORY_ENGINE_LIMIT)
    # The memory engine (cold load of the whole CSR, decoded on load) with room for it: the
    # compute it does on decoded lists is the ceiling the out-of-core engines approach.
    configs: list[tuple[str, str, list[str]]] = [
        (engine, enc, ["--adjacency", enc, "--memory", MEMORY_ENGINE_BUDGET if engine == "memory" else budget])
        for engine in ("memory", "selective") for enc in ["plain", *codecs]]
    stream_layouts: dict[str, str] = {}
    rows_p = grid_rows(info["num_vertices"], budget_bytes)
    plain_grid = b.grid(g, rows_p, "grid", None)
    if plain_grid:
        stream_layouts["plain"] = plain_grid["name"]
        if "--compress" in b.help_text("partition"):
            for c in codecs:
                d = b.grid(g, rows_p, "grid", c)
                if d:
                    stream_layouts[c] = d["name"]
    configs += [("stream", enc, ["--layout", name, "--memory", budget]) for enc, name in stream_layouts.items()]
    # The shards engine over a plain and a compressed shard layout of the same count.
    if "--compress" in b.help_text("partition") and b.shards(g, budget, None):
        for enc in [None, *codecs]:
            d = b.shards(g, budget, enc)
            if d:
                configs.append(("shards", enc or "plain", ["--layout", d["name"], "--memory", budget]))
    rows = []
    b.say("\n| algorithm | engine | encoding | engine read | wall s | process s | MiB read | read MB/s | × plain wall "
          "| × plain bytes |")
    b.say("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for algo in ALGORITHMS:
        plain_of: dict[str, dict] = {}
        for engine, enc, flags in configs:
            if engine == "shards" and algo not in SHARD_ALGORITHMS:
                continue
            r = b.measure(b.dg, g, algo, ["--engine", engine, *flags], roomy if engine == "memory" else cg)
            r.update({"algorithm": algo, "engine": engine, "encoding": enc})
            rows.append(r)
            if "error" in r:
                b.say(f"| {algo} | {engine} | {enc} | | failed: {r['error']} | | | | | |")
                continue
            if enc == "plain":
                plain_of[engine] = r
            p = plain_of.get(engine)
            rate = r["bytes_read"] / max(r["wall_seconds"], 1e-9)
            vs_wall = f"{p['wall_seconds'] / r['wall_seconds']:.2f}" if p else "-"
            vs_bytes = f"{p['bytes_read'] / max(r['bytes_read'], 1):.2f}" if p else "-"
            b.say(f"| {algo} | {engine} | {enc} | {r['adjacency_read'] or '?'} | {r['wall_seconds']:.2f} | "
                  f"{r['process_seconds']:.2f} | "
                  f"{r['bytes_read'] / 2**20:.0f} | {rate / 1e6:.0f} | {vs_wall} | {vs_bytes} |")
        b.result["engines"] = rows
        b.save()
    cg.close()
    roomy.close()
    b.say("\n× plain: the same engine's plain run (selective: --adjacency plain; stream: the plain grid "
          "of the same P; shards: the plain shards of the same N) over this one; above 1 is faster / fewer bytes. Target: stream pagerank ≥ 1.5×. "
          "Engine read: the adjacency (or layout) the run's stats record; `?` where the engine records none, "
          "so that a compressed row reading as many bytes as plain may have read the plain lists.")


# --- (e2e) --------------------------------------------------------------------------------
def e2e(b: Bench, scale: int, baseline: Path | None, limit_mib: int) -> None:
    g = b.kronecker(scale, "generated")
    b.say(f"\n## (e2e) kron{scale} at --memory {E2E_MEMORY} in a {limit_mib} MiB cgroup, caches dropped, "
          "one run each\n")
    codecs = [c for c in b.codecs if b.compressed(g, c) is not None]
    configs: list[tuple[str, str, list[str]]] = []
    for engine in ("selective", "sync"):
        configs.append((engine, "plain", ["--adjacency", "plain"]))
        configs += [(engine, c, ["--adjacency", c]) for c in codecs]
    info = b.info(g)
    # The engines section's grid (P for 1/8 of the CSR), so that no second copy is written.
    rows_p = grid_rows(info["num_vertices"], csr_bytes(info) // 8)
    plain_grid = b.grid(g, rows_p, "grid", None)
    if plain_grid:
        configs.append(("stream", "plain", ["--layout", plain_grid["name"]]))
        if "--compress" in b.help_text("partition"):
            for c in codecs:
                d = b.grid(g, rows_p, "grid", c)
                if d:
                    configs.append(("stream", c, ["--layout", d["name"]]))
    # The baseline reads the same plain files through a twin its manifest parser accepts.
    twin = b.plain_twin(g)
    cg = MemoryCgroup("diskgraph-bench-compress-e2e", limit_mib << 20)
    rows = []
    b.say("| algorithm | binary | engine | encoding | engine read | process s | wall s | MiB read | cgroup peak MiB |")
    b.say("|---|---|---|---|---|---:|---:|---:|---:|")

    def show(r: dict) -> None:
        if "error" in r:
            b.say(f"| {r['algorithm']} | {r['binary']} | {r['engine']} | {r['encoding']} | | failed: {r['error']} | | | |")
        else:
            b.say(f"| {r['algorithm']} | {r['binary']} | {r['engine']} | {r['encoding']} | {r['adjacency_read'] or '?'} | "
                  f"{r['process_seconds']:.2f} | "
                  f"{r['wall_seconds']:.2f} | {r['bytes_read'] / 2**20:.0f} | {(r['cgroup_max_usage'] or 0) / 2**20:.0f} |")

    summary = []
    for algo in ALGORITHMS:
        base = None
        if baseline:
            base = b.measure(str(baseline), twin, algo, ["--engine", "selective", "--memory", E2E_MEMORY], cg)
            base.update({"algorithm": algo, "binary": "baseline", "engine": "selective", "encoding": "plain"})
            rows.append(base)
            show(base)
        ours = []
        for engine, enc, flags in configs:
            r = b.measure(b.dg, g, algo, ["--engine", engine, "--memory", E2E_MEMORY, *flags], cg)
            r.update({"algorithm": algo, "binary": "current", "engine": engine, "encoding": enc})
            rows.append(r)
            show(r)
            if "error" not in r:
                ours.append(r)
        best = min(ours, key=lambda r: r["process_seconds"], default=None)
        if best:
            entry = {"algorithm": algo, "best": f"{best['engine']}/{best['encoding']}",
                     "best_seconds": best["process_seconds"]}
            if base and "error" not in base:
                entry["baseline_seconds"] = base["process_seconds"]
                entry["ratio"] = base["process_seconds"] / best["process_seconds"]
            summary.append(entry)
        b.result["e2e"] = rows
        b.save()
    cg.close()
    shutil.rmtree(twin)
    b.say("")
    for s in summary:
        if "ratio" in s:
            verdict = "met" if s["ratio"] >= TARGET_E2E else f"missed (needs {TARGET_E2E}×)"
            b.say(f"e2e {s['algorithm']}: best {s['best']} {s['best_seconds']:.2f} s against baseline selective "
                  f"{s['baseline_seconds']:.2f} s: {s['ratio']:.2f}× — {verdict}")
        else:
            b.say(f"e2e {s['algorithm']}: best {s['best']} {s['best_seconds']:.2f} s (no baseline run)")
    b.say("Times are the whole command (load included); the best configuration is chosen from one run each.")
    b.result["e2e_summary"] = summary
    b.save()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("/work/bench-data"),
                    help="where the datasets are generated once and kept (not inside the repository)")
    ap.add_argument("--real-data", type=Path, default=Path(__file__).resolve().parent.parent / "testdata" / "real",
                    help="directory of cnr-2000/ and the small real graphs (default testdata/real)")
    ap.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)} (default: all)")
    ap.add_argument("--codecs", default="vbyte,zeta", help="codecs to measure; those the binary lacks are noted")
    ap.add_argument("--scales", default="22,24", help="Kronecker scales of the sizes section")
    ap.add_argument("--engine-scale", type=int, default=22, help="Kronecker scale of decode, engines and e2e")
    ap.add_argument("--binary", help="the diskgraph binary to measure (default: the installed one)")
    ap.add_argument("--baseline-binary", type=Path,
                    help="diskgraph built at 059348d (main before compressed adjacency), for the e2e baseline")
    ap.add_argument("--codec-rate", type=Path, help="the codec_rate example binary (default: built here)")
    ap.add_argument("--e2e-limit", type=int, default=E2E_LIMIT_MIB,
                    help="the e2e section's cgroup limit in MiB (the issue's: 256)")
    ap.add_argument("--run-timeout", type=float, default=300,
                    help="seconds after which an engine run is stopped and reported as timed out")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "compress.json")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else set(SECTIONS)
    if only - set(SECTIONS):
        raise SystemExit(f"unknown section(s) {sorted(only - set(SECTIONS))}; known: {', '.join(SECTIONS)}")
    if a.baseline_binary and not a.baseline_binary.exists():
        raise SystemExit(f"--baseline-binary {a.baseline_binary} does not exist")
    b = Bench(a)
    b.result["freed_pages_held_ms"] = hold_freed_pages()
    b.result["load_average"] = os.getloadavg()
    b.say(f"# bench/compress.py — {b.dg}, codecs {', '.join(b.codecs)}, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    if only & {"sizes", "decode"}:
        rates = CodecRate(b, codec_rate_binary(a.codec_rate))
        if "sizes" in only:
            sizes(b, rates, [int(s) for s in a.scales.split(",") if s], a.engine_scale)
        if "decode" in only:
            decode(b, rates, a.engine_scale)
    if "engines" in only:
        engines(b, a.engine_scale)
    if "e2e" in only:
        e2e(b, a.engine_scale, a.baseline_binary, a.e2e_limit)
    b.say(f"\nJSON: {b.out}")
    b.save()


if __name__ == "__main__":
    main()
